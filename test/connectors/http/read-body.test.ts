/**
 * The capped reader (src/connectors/http/read-body.ts) against a real loopback server and real
 * fetch: the cap holds at its exact boundary, with and without Content-Length, against a
 * Content-Length that lies, and a body that drips in slowly is cut off at the deadline.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  isTooLarge,
  readBodyCapped,
  readTextCapped,
  UpstreamTooLargeError,
} from "../../../src/connectors/http/read-body.js";
import { createUpstreamClient } from "../../../src/connectors/http.js";
import { setUpstreamLimits } from "../../../src/connectors/http/limits.js";

type Handler = (res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = routes.get(req.url ?? "");
    if (handler === undefined) res.writeHead(404).end();
    else handler(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A body of `n` bytes, with Content-Length (`length`) or chunked, in chunks of `chunk`. */
function serve(path: string, n: number, opts: { length?: boolean; chunk?: number } = {}): void {
  routes.set(path, (res) => {
    res.writeHead(200, opts.length === false ? {} : { "content-length": String(n) });
    const chunk = opts.chunk ?? 1000;
    let sent = 0;
    const more = (): void => {
      while (sent < n) {
        const size = Math.min(chunk, n - sent);
        sent += size;
        if (!res.write(Buffer.alloc(size, 0x61))) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
}

const read = async (path: string, maxBytes: number) =>
  readBodyCapped(await fetch(`${base}${path}`), { maxBytes });

describe("readBodyCapped", () => {
  it("reads a body of exactly the cap, and refuses one byte more (Content-Length)", async () => {
    serve("/cl-4096", 4096);
    serve("/cl-4097", 4097);
    expect((await read("/cl-4096", 4096)).byteLength).toBe(4096);
    const refused = await read("/cl-4097", 4096).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamTooLargeError);
    expect((refused as UpstreamTooLargeError).announced).toBe(4097);
  });

  it("reads a chunked body of exactly the cap, and refuses one byte more while it streams", async () => {
    serve("/ch-4096", 4096, { length: false, chunk: 333 });
    serve("/ch-4097", 4097, { length: false, chunk: 333 });
    expect((await read("/ch-4096", 4096)).byteLength).toBe(4096);
    const refused = await read("/ch-4097", 4096).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamTooLargeError);
    expect((refused as UpstreamTooLargeError).announced).toBeUndefined();
  });

  it("stops an endless chunked body at the cap without reading it all", async () => {
    let written = 0;
    let closed = false;
    routes.set("/endless", (res) => {
      res.writeHead(200);
      res.on("close", () => (closed = true));
      const more = (): void => {
        while (!closed) {
          written += 65536;
          if (!res.write(Buffer.alloc(65536, 0x62))) return void res.once("drain", more);
        }
      };
      more();
    });
    const refused = await read("/endless", 1024 * 1024).catch((e: unknown) => e);
    expect(isTooLarge(refused)).toBe(true);
    await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
    // The socket was released long before anything like the cap's hundredfold was written.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("counts the bytes, not the Content-Length: a body longer than it says is refused", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(1000));
        c.close();
      },
    });
    const lying = new Response(body, { headers: { "content-length": "10" } });
    await expect(readBodyCapped(lying, { maxBytes: 4096 })).rejects.toBeInstanceOf(UpstreamTooLargeError);
  });

  it("ends a body that drips in slowly when the signal's time is up", async () => {
    let timer: NodeJS.Timeout | undefined;
    routes.set("/drip", (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    // A fetch that ignores the signal once the headers are in: the reader itself must stop.
    const response = await fetch(`${base}/drip`);
    const failed = await readTextCapped(response, {
      maxBytes: 1024 * 1024,
      signal: AbortSignal.timeout(300),
    }).catch((e: unknown) => e);
    expect((failed as Error).name).toBe("TimeoutError");
    expect(Date.now() - started).toBeLessThan(1500);
    clearInterval(timer);
  });
});

describe("the upstream client reads under the cap", () => {
  /** A client of the loopback server, with the bounds under test. */
  const clientWith = (bounds: Partial<Parameters<typeof createUpstreamClient>[0]>) =>
    createUpstreamClient({
      vendor: "example",
      apiVersion: "1",
      baseUrl: base,
      pin: { unversioned: true },
      logger: { warn: () => undefined },
      ...bounds,
    });
  const client = (maxResponseBytes: number, timeoutMs = 2000) => clientWith({ maxResponseBytes, timeoutMs });

  it("request: an answer over the cap is unavailable, reason upstream_too_large", async () => {
    routes.set("/json-big", (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ items: "x".repeat(20_000) }));
    });
    routes.set("/json-small", (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ items: "x" }));
    });
    const big = await client(10_000).request({ method: "get", path: "/json-big" });
    expect(big.ok).toBe(false);
    if (!big.ok) {
      expect(big.error.code).toBe("unavailable");
      expect(big.error.reason).toBe("upstream_too_large");
    }
    const small = await client(10_000).request({ method: "get", path: "/json-small" });
    expect(small.ok && small.value.body).toEqual({ items: "x" });
  });

  it("request: a body that drips past the timeout is a timeout", async () => {
    let timer: NodeJS.Timeout | undefined;
    routes.set("/json-drip", (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      timer = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    const got = await client(10_000, 300).request({ method: "get", path: "/json-drip" });
    expect(!got.ok && got.error.code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(1500);
    clearInterval(timer);
  });

  it("fetch (for SDKs): the body read fails and the captured call maps to upstream_too_large", async () => {
    serve("/sdk-big", 50_000, { length: false });
    const c = client(10_000);
    const captured = await c.withCapture(async () => (await c.fetch(`${base}/sdk-big`)).text());
    expect(captured.ok).toBe(false);
    const last = captured.calls.at(-1);
    expect(last?.failure).toBe("too_large");
    expect(last && c.errorOf(last)).toMatchObject({ code: "unavailable", reason: "upstream_too_large" });
  });

  // Under the byte cap but over the parse budget: [],[],… costs JSON.parse ~2 µs a byte.
  const costly = `[${Array(5_000).fill("[]").join(",")}]`;

  it("request: an answer over the parse budget is unavailable, reason upstream_too_costly, unparsed", async () => {
    routes.set("/json-costly", (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(costly);
    });
    const c = clientWith({ maxJsonTokens: 2_000 });
    const got = await c.request({ method: "get", path: "/json-costly" });
    expect(!got.ok && got.error).toMatchObject({ code: "unavailable", reason: "upstream_too_costly" });
    // Within the budget, the same answer is read.
    const roomy = clientWith({ maxJsonTokens: 20_000 });
    const read = await roomy.request({ method: "get", path: "/json-costly" });
    expect(read.ok && (read.value.body as unknown[]).length).toBe(5_000);
  });

  it("fetch (for SDKs): a JSON answer over the parse budget never reaches the SDK; the call maps to upstream_too_costly", async () => {
    routes.set("/sdk-costly", (res) => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(costly);
    });
    const c = clientWith({
      // 20,000 tokens by default, 2,500 for a parser 8× slower: the answer's 10,000 are over.
      parseCostFactor: 8,
    });
    setUpstreamLimits({ jsonTokens: 20_000 });
    onTestFinished(() => setUpstreamLimits({}));
    let parsed = false;
    const captured = await c.withCapture(async () => {
      const res = await c.fetch(`${base}/sdk-costly`);
      parsed = true;
      return res.json();
    });
    expect(captured.ok).toBe(false);
    expect(parsed).toBe(false);
    const last = captured.calls.at(-1);
    expect(last?.failure).toBe("too_costly");
    expect(c.lastCall()).toBeUndefined();
    expect(last && c.errorOf(last)).toMatchObject({ code: "unavailable", reason: "upstream_too_costly" });
  });

  it("fetch (for SDKs): an answer within bounds reaches the SDK whole, with its status, headers and URL", async () => {
    routes.set("/sdk-fine", (res) => {
      res.writeHead(201, { "content-type": "application/json", "x-request-id": "r-1" });
      res.end('{"ok":true}');
    });
    const c = client(10_000);
    const captured = await c.withCapture(async () => {
      const res = await c.fetch(`${base}/sdk-fine`);
      expect(c.lastCall()?.meta.status).toBe(201);
      return {
        status: res.status,
        id: res.headers.get("x-request-id"),
        url: res.url,
        body: await res.json(),
      };
    });
    expect(captured.ok && captured.value).toEqual({
      status: 201,
      id: "r-1",
      url: `${base}/sdk-fine`,
      body: { ok: true },
    });
  });
});
