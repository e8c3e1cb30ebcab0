/**
 * Request bodies as raw bytes, bounded. The signature's Content-Digest covers the exact
 * bytes (SchCP §3.2) and the strict JSON parser needs them undecoded to refuse invalid
 * UTF-8 (§3.1), so the body is never read as text. The bound stops a client from making
 * the gateway buffer an unbounded upload before anything is checked.
 */
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

export type BodyError = { readonly code: "too_large"; readonly limit: number };

export async function readBoundedBody(
  request: Request,
  limit: number,
): Promise<Result<Uint8Array, BodyError>> {
  const tooLarge = err<BodyError>({ code: "too_large", limit });
  const declared = request.headers.get("content-length");
  // A declared length over the bound is refused without reading a byte.
  if (declared !== null && /^[0-9]+$/.test(declared) && Number(declared) > limit) return tooLarge;
  if (request.body === null) return ok(new Uint8Array(0));

  const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return ok(bytes);
}
