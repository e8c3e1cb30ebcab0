import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createNetServer } from "node:net";
import type { AddressInfo, Server as NetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import type { ResolvedAddress, Resolver } from "../../../src/jobs/outbound/public-fetch.js";

/** A plain TCP listener that only counts connections: proof that nothing reached it. */
let tcp: NetServer;
let tcpPort = 0;
let tcpConnections = 0;

/** A loopback HTTP server standing in for an agent (allowPrivate). */
let http: Server;
let httpPort = 0;
const seen: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }> = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("ok");

beforeAll(async () => {
  tcp = createNetServer((socket) => {
    tcpConnections++;
    socket.destroy();
  });
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  tcpPort = (tcp.address() as AddressInfo).port;
  http = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, res);
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  httpPort = (http.address() as AddressInfo).port;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
  await new Promise((r) => tcp.close(r));
});

/** Maps names to fixed answers and counts how often it was asked. */
function mapResolver(map: Record<string, readonly ResolvedAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (name: string) => {
    calls.push(name);
    const answer = map[name];
    return answer === undefined ? Promise.reject(new Error(`ENOTFOUND ${name}`)) : Promise.resolve(answer);
  };
  return Object.assign(resolve, { calls });
}

const loopback: ResolvedAddress[] = [{ address: "127.0.0.1", family: 4 }];
const post = (url: string) => ({ method: "POST", url, headers: { "content-type": "application/json" } });

describe("publicOnly fetch refuses non-public destinations at connect time (SchCP §5.8)", () => {
  it("refuses a hostname that resolves to 127.0.0.1, inside the socket's lookup, before any connection", async () => {
    const resolver = mapResolver({ "evil.example": loopback });
    const fetch = createPublicFetch({ resolver });
    const before = tcpConnections;
    const res = await fetch(post(`https://evil.example:${tcpPort}/hook`));
    expect(res).toMatchObject({
      ok: false,
      error: { code: "non_public_address", address: "127.0.0.1", addressClass: "loopback" },
    });
    expect(resolver.calls).toEqual(["evil.example"]); // resolved once, by the connecting socket
    expect(tcpConnections).toBe(before);
  });

  it("judges the address the name resolves to, not the URL text (a public-looking name, a private answer)", async () => {
    const resolver = mapResolver({
      "www.example.com": [{ address: "10.0.0.7", family: 4 }],
      "cdn.example.net": [{ address: "::ffff:169.254.169.254", family: 6 }],
    });
    const fetch = createPublicFetch({ resolver });
    expect(await fetch(post("https://www.example.com/hook"))).toMatchObject({
      ok: false,
      error: { code: "non_public_address", addressClass: "private" },
    });
    expect(await fetch(post("https://cdn.example.net/hook"))).toMatchObject({
      ok: false,
      error: { code: "non_public_address", addressClass: "link_local" },
    });
  });

  it("refuses when any answer is non-public (no partial trust in a mixed answer)", async () => {
    const resolver = mapResolver({
      "mixed.example": [
        { address: "93.184.216.34", family: 4 },
        { address: "127.0.0.1", family: 4 },
      ],
    });
    const res = await createPublicFetch({ resolver })(post("https://mixed.example/hook"));
    expect(res).toMatchObject({ ok: false, error: { code: "non_public_address", address: "127.0.0.1" } });
  });

  it("re-resolves on every request (a changed answer is seen at the next connection)", async () => {
    const resolver = mapResolver({ "evil.example": loopback });
    const fetch = createPublicFetch({ resolver });
    await fetch(post("https://evil.example/a"));
    await fetch(post("https://evil.example/b"));
    expect(resolver.calls).toEqual(["evil.example", "evil.example"]);
  });

  it("refuses 'localhost' through the system resolver", async () => {
    const res = await createPublicFetch()(post(`https://localhost:${tcpPort}/hook`));
    expect(res).toMatchObject({ ok: false, error: { code: "non_public_address", addressClass: "loopback" } });
  });

  it.each([
    ["https://127.0.0.1/hook", "loopback"],
    ["https://[::1]/hook", "loopback"],
    ["https://[::ffff:127.0.0.1]/hook", "loopback"],
    ["https://2130706433/hook", "loopback"], // decimal spelling of 127.0.0.1
    ["https://0x7f.0.0.1/hook", "loopback"], // hex spelling
    ["https://10.1.2.3/hook", "private"],
    ["https://169.254.169.254/latest/meta-data", "link_local"],
    ["https://100.64.1.1/hook", "cgnat"],
    ["https://[fe80::1]/hook", "link_local"],
    ["https://[fd00::1]/hook", "unique_local"],
    ["https://224.0.0.1/hook", "multicast"],
    ["https://0.0.0.0/hook", "unspecified"],
    ["https://[::]/hook", "unspecified"],
    ["https://192.0.2.1/hook", "documentation"],
  ])("refuses the IP literal %s (%s) without opening a socket", async (url, addressClass) => {
    const resolver = mapResolver({});
    const before = tcpConnections;
    const res = await createPublicFetch({ resolver })(post(url));
    expect(res).toMatchObject({ ok: false, error: { code: "non_public_address", addressClass } });
    expect(resolver.calls).toEqual([]);
    expect(tcpConnections).toBe(before);
  });

  it.each([
    ["not a URL", "invalid_url"],
    ["/relative/path", "invalid_url"],
    ["http://agent.example/hook", "scheme_not_allowed"],
    ["ftp://agent.example/hook", "scheme_not_allowed"],
    ["https://user:secret@agent.example/hook", "credentials_in_url"],
    ["https://user@agent.example/hook", "credentials_in_url"],
  ])("refuses the URL %s (%s) before resolving", async (url, code) => {
    const resolver = mapResolver({ "agent.example": [{ address: "93.184.216.34", family: 4 }] });
    const res = await createPublicFetch({ resolver })(post(url));
    expect(res).toMatchObject({ ok: false, error: { code } });
    expect(resolver.calls).toEqual([]);
  });

  it("reports a name that does not resolve as dns_failed", async () => {
    const res = await createPublicFetch({ resolver: mapResolver({}) })(post("https://nowhere.example/"));
    expect(res).toMatchObject({ ok: false, error: { code: "dns_failed" } });
  });
});

describe("publicOnly fetch with allowPrivate against a loopback server", () => {
  it("connects to the address the injected resolver returned and sends the request", async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const resolver = mapResolver({ "agent.example": loopback });
    const fetch = createPublicFetch({ resolver, allowPrivate: true });
    const res = await fetch({
      ...post(`http://agent.example:${httpPort}/hooks?x=1`),
      body: Buffer.from("{}"),
    });
    expect(res).toMatchObject({
      ok: true,
      value: { status: 204, remoteAddress: "127.0.0.1", truncated: false },
    });
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/hooks?x=1", body: "{}" });
    expect(seen.at(-1)?.headers.host).toBe(`agent.example:${httpPort}`);
  });

  it("does not follow redirects: the 3xx comes back as it is, and only one request is made", async () => {
    handler = (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${httpPort}/elsewhere` }).end();
    const before = seen.length;
    const res = await createPublicFetch({ allowPrivate: true })(post(`http://127.0.0.1:${httpPort}/r`));
    expect(res).toMatchObject({ ok: true, value: { status: 302 } });
    expect(seen.length).toBe(before + 1);
  });

  it("bounds the response size", async () => {
    handler = (_req, res) => res.end(Buffer.alloc(1_000_000, 0x61));
    const fetch = createPublicFetch({ allowPrivate: true, maxResponseBytes: 1024 });
    const res = await fetch(post(`http://127.0.0.1:${httpPort}/big`));
    expect(res.ok).toBe(true);
    if (res.ok) {
      expect(res.value.truncated).toBe(true);
      expect(res.value.body.length).toBe(1024);
    }
  });

  it("gives up after timeoutMs when the peer never answers", async () => {
    handler = () => undefined; // never responds
    const started = Date.now();
    const res = await createPublicFetch({ allowPrivate: true, timeoutMs: 150 })(
      post(`http://127.0.0.1:${httpPort}/slow`),
    );
    expect(res).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("reports a refused connection as a network error", async () => {
    const closed = createNetServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const res = await createPublicFetch({ allowPrivate: true })(post(`http://127.0.0.1:${port}/`));
    expect(res).toMatchObject({ ok: false, error: { code: "network_error" } });
  });
});
