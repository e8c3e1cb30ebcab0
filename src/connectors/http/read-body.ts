/**
 * Reading an upstream answer under a byte cap and a deadline: every upstream answer is hostile
 * until bounded. The cap is enforced while the body streams in: a Content-Length over it
 * is refused before a byte is read, and a body without one (chunked) or with one that lies is
 * cut off at the first chunk past the cap, so at most the cap plus one chunk is ever held. The
 * deadline covers the whole body, not only the headers: a server that drips its answer a byte
 * at a time is cut off when the call's time is up, whatever the fetch implementation does with
 * its signal.
 *
 * Over the cap is the typed `UpstreamTooLargeError`; past the deadline an error named
 * "TimeoutError" (what AbortSignal.timeout raises, so callers map both alike).
 *
 * A fast upstream never holds the event loop either: the data a socket has buffered is read in
 * promise jobs, which run before any timer or request; after every YIELD_BYTES the reading
 * waits for the next turn of the loop (setImmediate), so other work runs in between.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/** Bytes read between two turns of the event loop. */
const YIELD_BYTES = 256 * 1024;

/** The answer was larger than the cap (bytes). */
export class UpstreamTooLargeError extends Error {
  override readonly name = "UpstreamTooLargeError";
  constructor(
    readonly limit: number,
    /** The Content-Length the server announced, when it announced one over the cap. */
    readonly announced?: number,
  ) {
    super(`the upstream answer is larger than ${limit} bytes`);
  }
}

export const isTooLarge = (error: unknown): error is UpstreamTooLargeError =>
  error instanceof UpstreamTooLargeError ||
  (error instanceof Error && error.cause !== undefined && isTooLarge(error.cause));

function timeoutError(): Error {
  const e = new Error("the upstream answer did not arrive in time");
  e.name = "TimeoutError";
  return e;
}

export interface BodyLimits {
  /** Bytes the body may have; one more is refused. */
  readonly maxBytes: number;
  /** Aborting it ends the read (a timeout signal covers headers and body alike). */
  readonly signal?: AbortSignal;
}

/** Content-Length when the server sent a usable one. */
function announcedLength(headers: Headers): number | undefined {
  const raw = headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/**
 * The body as a stream that errors with UpstreamTooLargeError past `maxBytes` and with a
 * TimeoutError when `signal` aborts; the source is cancelled either way (the socket is freed).
 */
function cappedStream(body: ReadableStream<Uint8Array>, limits: BodyLimits): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  let sinceTurn = 0;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(timeoutError());
    if (limits.signal?.aborted) fail();
    else if (limits.signal !== undefined) {
      onAbort = fail;
      limits.signal.addEventListener("abort", fail, { once: true });
    }
  });
  aborted.catch(() => undefined);
  const release = (): void => {
    if (onAbort !== undefined) limits.signal?.removeEventListener("abort", onAbort);
  };
  const stop = (controller: ReadableStreamDefaultController<Uint8Array>, error: Error): void => {
    release();
    reader.cancel(error).catch(() => undefined);
    controller.error(error);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let step: Awaited<ReturnType<typeof reader.read>>;
        try {
          if (sinceTurn >= YIELD_BYTES) {
            sinceTurn = 0;
            await Promise.race([nextTurn(), aborted]);
          }
          step = await Promise.race([reader.read(), aborted]);
        } catch (error) {
          stop(controller, limits.signal?.aborted ? timeoutError() : (error as Error));
          return;
        }
        if (step.done) {
          release();
          controller.close();
          return;
        }
        seen += step.value.byteLength;
        sinceTurn += step.value.byteLength;
        if (seen > limits.maxBytes) {
          stop(controller, new UpstreamTooLargeError(limits.maxBytes));
          return;
        }
        controller.enqueue(step.value);
      },
      cancel(reason) {
        release();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The whole body, at most `maxBytes` of it, before the signal aborts. Its bytes are its own
 * ArrayBuffer (offset 0, whole length), so a caller may transfer them to a worker thread.
 */
export async function readBodyCapped(response: Response, limits: BodyLimits): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const announced = announcedLength(response.headers);
  if (announced !== undefined && announced > limits.maxBytes) {
    response.body.cancel().catch(() => undefined);
    throw new UpstreamTooLargeError(limits.maxBytes, announced);
  }
  const reader = cappedStream(response.body, limits).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  const whole = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** The body as UTF-8 text (a BOM dropped, as Response.text() does), under the same bounds. */
export async function readTextCapped(response: Response, limits: BodyLimits): Promise<string> {
  return new TextDecoder("utf-8").decode(await readBodyCapped(response, limits));
}
