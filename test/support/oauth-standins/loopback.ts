/**
 * The socket under each OAuth stand-in: node:http on 127.0.0.1, port 0. Every request is read
 * whole (form or JSON body parsed), recorded, and answered by the stand-in's handler.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** application/x-www-form-urlencoded or JSON bodies, parsed; undefined when empty. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface Loopback {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

function parseBody(type: string, text: string): Record<string, unknown> | undefined {
  if (text === "") return undefined;
  if (type.startsWith("application/json")) {
    try {
      const v: unknown = JSON.parse(text);
      return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startLoopback(
  handle: (req: ReceivedRequest) => Answer | Promise<Answer>,
): Promise<Loopback> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
        const r: ReceivedRequest = {
          method: req.method ?? "GET",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers,
          body: parseBody(headers["content-type"] ?? "", Buffer.concat(chunks).toString("utf8")),
        };
        received.push(r);
        let a: Answer;
        try {
          a = await handle(r);
        } catch (e) {
          a = { status: 500, body: String(e) };
        }
        res.writeHead(a.status, { "cache-control": "no-store", ...a.headers });
        res.end(a.body ?? "");
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8", ...headers },
  body: JSON.stringify(body),
});

export const html = (status: number, body: string): Answer => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  body,
});

export const redirect = (to: string): Answer => ({ status: 302, headers: { location: to } });

export const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** `base` with `params` appended to its query (RFC 6749 §4.1.2: keep the redirect URI's own query). */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}
