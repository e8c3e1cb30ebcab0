/**
 * One HTTP exchange over a socket whose name lookup is the caller's guarded one: a fresh
 * connection (nothing pooled), a connect timeout, an overall timeout, the connected peer's
 * address checked once more, and the response read up to a bound and no further.
 */
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { RefusedError } from "./types.js";
import type { GuardedLookup } from "../../protocol/net/guarded-lookup.js";
import type { FetchRefusal, OutboundRequest, OutboundResponse } from "./types.js";

export interface ExchangeLimits {
  readonly connectTimeoutMs: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly lookup: GuardedLookup;
  readonly checkConnected: (address: string) => FetchRefusal | undefined;
  /** Trust roots for https (Node's own when absent). */
  readonly ca?: readonly string[];
}

export function exchange(
  url: URL,
  host: string,
  req: OutboundRequest,
  limits: ExchangeLimits,
): Promise<Result<OutboundResponse, FetchRefusal>> {
  return new Promise((resolve) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (result: Result<OutboundResponse, FetchRefusal>): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      resolve(result);
    };
    const body = req.body ?? new Uint8Array(0);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send({
      host,
      port: url.port === "" ? undefined : Number(url.port),
      path: url.pathname + url.search,
      method: req.method,
      headers: { ...req.headers, "content-length": String(body.length) },
      lookup: limits.lookup,
      agent: false, // a fresh, checked connection every time; nothing pooled
      ...(limits.ca !== undefined && url.protocol === "https:" && { ca: [...limits.ca] }),
    });
    let remoteAddress = "";

    request.on("socket", (socket: Socket) => {
      const connectTimer = setTimeout(() => {
        request.destroy(
          new RefusedError({
            code: "connect_timeout",
            message: `no connection within ${limits.connectTimeoutMs} ms`,
          }),
        );
      }, limits.connectTimeoutMs);
      timers.push(connectTimer);
      socket.once("connect", () => {
        clearTimeout(connectTimer);
        remoteAddress = socket.remoteAddress ?? "";
        // Defence in depth: the peer actually connected, whatever path led to it.
        const refused = limits.checkConnected(remoteAddress);
        if (refused !== undefined) request.destroy(new RefusedError(refused));
      });
    });
    timers.push(
      setTimeout(() => {
        request.destroy(
          new RefusedError({ code: "timeout", message: `no response within ${limits.timeoutMs} ms` }),
        );
      }, limits.timeoutMs),
    );
    request.on("error", (error) => finish(err(toRefusal(error))));
    request.on("response", (res: IncomingMessage) =>
      readBounded(res, limits.maxBytes, remoteAddress, finish),
    );
    request.end(body);
  });
}

function readBounded(
  res: IncomingMessage,
  maxBytes: number,
  remoteAddress: string,
  finish: (result: Result<OutboundResponse, FetchRefusal>) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const done = (truncated: boolean): void => {
    const body = new Uint8Array(Buffer.concat(chunks));
    finish(ok({ status: res.statusCode ?? 0, headers: res.headers, body, truncated, remoteAddress }));
  };
  res.on("data", (chunk: Buffer) => {
    const room = maxBytes - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = maxBytes;
      done(true);
      res.destroy(); // the rest is never read
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  res.on("end", () => done(false));
  res.on("error", (error) => finish(err(toRefusal(error))));
}

function toRefusal(error: unknown): FetchRefusal {
  if (error instanceof RefusedError) return error.refusal;
  const message = error instanceof Error ? error.message : String(error);
  return { code: "network_error", message };
}
