/**
 * The policy-checking fetch (src/protocol/net/policy-fetch.ts): the outbound address policy on
 * the connected address, on every redirect hop (followed here, bounded), a cross-origin hop
 * without the request's credentials, and the fetch behaviour connectors rely on (status,
 * headers, streamed body, abort).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AddressRefusedError,
  systemResolver,
  type Resolver,
} from "../../../src/protocol/net/guarded-lookup.js";
import { MAX_REDIRECTS, createPolicyFetch } from "../../../src/protocol/net/policy-fetch.js";

interface Seen {
  readonly host: string;
  readonly path: string;
  readonly method: string;
  readonly headers: IncomingMessage["headers"];
}

async function start(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ host, path: req.url ?? "", method: req.method ?? "", headers: req.headers });
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return { server, seen, port: (server.address() as AddressInfo).port };
}

let a: Awaited<ReturnType<typeof start>>; // "public" (127.0.0.2, allowed by address)
let b: Awaited<ReturnType<typeof start>>; // another "public" origin (127.0.0.3)
let victim: Awaited<ReturnType<typeof start>>; // loopback, never allowed

const resolver: Resolver = (name) => {
  const map: Record<string, string> = {
    "a.example": "127.0.0.2",
    "b.example": "127.0.0.3",
    "evil.example": "127.0.0.1",
  };
  const address = map[name];
  if (address !== undefined) return Promise.resolve([{ address, family: 4 }]);
  return name === "localhost" ? systemResolver(name) : Promise.reject(new Error("NXDOMAIN"));
};
const policy = { allowAddresses: ["127.0.0.2", "127.0.0.3"], allowHttp: true };
const guarded = createPolicyFetch({ policy, resolver });

beforeAll(async () => {
  victim = await start("127.0.0.1", (_req, res) => res.end("secret"));
  b = await start("127.0.0.3", (_req, res) => res.end("b"));
  a = await start("127.0.0.2", (req, res) => {
    const u = new URL(req.url ?? "/", "http://a.example");
    if (u.pathname === "/to-victim")
      return res.writeHead(302, { location: `http://127.0.0.1:${victim.port}/` }).end();
    if (u.pathname === "/to-evil")
      return res.writeHead(307, { location: `http://evil.example:${victim.port}/` }).end();
    if (u.pathname === "/to-b") return res.writeHead(303, { location: `http://b.example:${b.port}/x` }).end();
    if (u.pathname === "/loop") return res.writeHead(302, { location: "/loop" }).end();
    if (u.pathname === "/slow") return void setTimeout(() => res.end("late"), 5_000);
    res.writeHead(200, { "content-type": "text/plain", "x-a": "1" }).end(`hello ${req.method}`);
  });
});
afterAll(async () => {
  for (const s of [a, b, victim]) {
    s.server.closeAllConnections();
    await new Promise<void>((r) => s.server.close(() => r()));
  }
});

const refused = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(AddressRefusedError);

describe("createPolicyFetch", () => {
  it("answers like fetch: status, headers, body, the method (PROPFIND too)", async () => {
    const res = await guarded(`http://a.example:${a.port}/`, { method: "PROPFIND", body: "<x/>" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-a")).toBe("1");
    expect(await res.text()).toBe("hello PROPFIND");
  });

  it("refuses loopback by literal, by name, and by redirect (followed or manual); nothing reaches it", async () => {
    const before = victim.seen.length;
    await refused(guarded(`http://127.0.0.1:${victim.port}/`));
    await refused(guarded(`http://evil.example:${victim.port}/`));
    await refused(guarded(`http://localhost:${victim.port}/`));
    await refused(guarded(`http://a.example:${a.port}/to-victim`));
    await refused(guarded(`http://a.example:${a.port}/to-evil`));
    await refused(guarded(`http://a.example:${a.port}/to-victim`, { redirect: "manual" }));
    await refused(guarded(`http://a.example:${a.port}/to-evil`, { redirect: "manual" }));
    expect(victim.seen.length).toBe(before);
  });

  it("refuses plain http without the allowance, and credentials in the URL", async () => {
    const strict = createPolicyFetch({ policy: { allowAddresses: ["127.0.0.2"] }, resolver });
    await refused(strict(`http://a.example:${a.port}/`));
    await refused(guarded(`http://user:pw@a.example:${a.port}/`));
  });

  it("follows a redirect to another allowed origin without the request's credentials; 303 becomes GET", async () => {
    const res = await guarded(`http://a.example:${a.port}/to-b`, {
      method: "POST",
      body: "{}",
      headers: { authorization: "Basic c2VjcmV0", "x-org-api-key": "k", accept: "text/plain" },
    });
    expect(await res.text()).toBe("b");
    const hop = b.seen.at(-1)!;
    expect(hop.method).toBe("GET");
    expect(hop.headers.authorization).toBeUndefined();
    expect(hop.headers["x-org-api-key"]).toBeUndefined();
    expect(hop.headers.accept).toBe("text/plain");
  });

  it(`stops after ${MAX_REDIRECTS} redirects; "manual" answers a 3xx as it is`, async () => {
    await expect(guarded(`http://a.example:${a.port}/loop`)).rejects.toThrow(/redirects/);
    const res = await guarded(`http://a.example:${a.port}/loop`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/loop");
  });

  it("an abort rejects with AbortError", async () => {
    const signal = AbortSignal.timeout(200);
    const error = await guarded(`http://a.example:${a.port}/slow`, { signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error | undefined)?.name).toMatch(/AbortError|TimeoutError/);
  });
});
