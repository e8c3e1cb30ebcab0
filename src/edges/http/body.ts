/**
 * Request bodies as raw bytes, bounded. The signature's Content-Digest covers the exact
 * bytes (SchCP §3.2) and the strict JSON parser needs them undecoded to refuse invalid
 * UTF-8 (§3.1), so the body is never read as text. The bound stops a client from making
 * the gateway buffer an unbounded upload before anything is checked.
 */
import { IncomingMessage } from "node:http";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

export type BodyError = { readonly code: "too_large"; readonly limit: number };

/**
 * The body of a request. Under @hono/node-server the Node request arrives as env.incoming and
 * is read directly: turning it into a web ReadableStream first (what request.body does) costs
 * more than the rest of reading a small JSON body. Elsewhere (app.request() in tests, other
 * runtimes) the web stream is read.
 */
export async function readBoundedBody(
  request: Request,
  limit: number,
  env?: unknown,
): Promise<Result<Uint8Array, BodyError>> {
  const tooLarge = err<BodyError>({ code: "too_large", limit });
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  // Nobody has started reading it (touching request.body or bodyUsed would build the web
  // stream this avoids, so only the Node request is asked).
  const untouched = incoming instanceof IncomingMessage && incoming.readableFlowing === null;
  const declared = untouched
    ? (incoming.headers["content-length"] ?? null)
    : request.headers.get("content-length");
  // A declared length over the bound is refused without reading a byte.
  if (declared !== null && /^[0-9]+$/.test(declared) && Number(declared) > limit) return tooLarge;
  if (untouched) return incoming.readableEnded ? ok(new Uint8Array(0)) : readIncoming(incoming, limit);
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

function readIncoming(incoming: IncomingMessage, limit: number): Promise<Result<Uint8Array, BodyError>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: Result<Uint8Array, BodyError>): void => {
      incoming.off("data", onData).off("end", onEnd).off("error", onError);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > limit) {
        // Stop buffering; Node discards the rest once the response is sent.
        incoming.pause();
        done(err({ code: "too_large", limit }));
      } else chunks.push(chunk);
    };
    const onEnd = (): void => done(ok(new Uint8Array(Buffer.concat(chunks, size))));
    // A client that aborts mid-body: nothing to answer; an empty body fails the signature.
    const onError = (): void => done(ok(new Uint8Array(0)));
    incoming.on("data", onData).on("end", onEnd).on("error", onError);
  });
}

/** Request bodies above this are refused with 413 unless a deployment sets its own cap. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
