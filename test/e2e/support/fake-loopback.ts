/**
 * A small loopback HTTP server for the platform fakes (node:http on 127.0.0.1, port 0): the
 * end-to-end suite drives `mcp` child processes, which nock in this process cannot reach, so a
 * fake platform must be a real socket. Each request's body is read whole, handed to `handle`,
 * and answered with its JSON, unless the answer says to drop the connection (a lost answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or undefined when there was no body. */
  readonly body: unknown;
}

export type FakeAnswer =
  | { readonly status: number; readonly body: unknown; readonly headers?: Record<string, string> }
  /** Drop the connection without an answer (the work, if any, is done). */
  | { readonly drop: true };

export interface LoopbackServer {
  readonly origin: string;
  close(): Promise<void>;
}

function headerRecord(raw: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export async function startLoopback(handle: (req: FakeRequest) => FakeAnswer): Promise<LoopbackServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      let answer: FakeAnswer;
      try {
        answer = handle({
          method: req.method ?? "GET",
          url: new URL(req.url ?? "/", "http://127.0.0.1"),
          headers: headerRecord(req.headers),
          body,
        });
      } catch (e) {
        answer = { status: 500, body: { error: String(e) } };
      }
      if ("drop" in answer) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
