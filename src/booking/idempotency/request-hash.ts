/**
 * The request hash an idempotency record is keyed against (SchCP §9.1 "A retry with the same
 * body returns the stored response. A retry with a different body returns
 * IDEMPOTENCY_CONFLICT"). Method and path are included, so one key reused on another route or
 * host is a conflict too; the body is hashed as the exact bytes received, no canonicalisation.
 */
import { createHash } from "node:crypto";

export function requestHash(method: string, path: string, body: Uint8Array | string): string {
  const h = createHash("sha256");
  // Length-prefixed parts: ("POST", "/a\nb") and ("POST\n/a", "b") can never collide.
  const head = `${method.toUpperCase()}`;
  h.update(`${head.length}:${head}${path.length}:${path}`);
  h.update(typeof body === "string" ? Buffer.from(body, "utf8") : body);
  return h.digest("base64url");
}
