/**
 * The key-app client (SchCP §3.3) over the webhooks' outbound transport (§3.3 "Status URLs",
 * §5.8), against real loopback servers: the agent SDK's KeyAppStatusService, and misbehaving
 * ones (slow, oversized, malformed).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { claimUrl, createKeyAppClient, readStatusAnswer } from "../../../src/jobs/key-app/client.js";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import { KeyAppStatusService } from "../../../src/agent/index.js";
import type { RunningKeyAppStatus } from "../../../src/agent/index.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function rawServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  servers.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function keyApp(): Promise<{ service: KeyAppStatusService; running: RunningKeyAppStatus }> {
  const service = new KeyAppStatusService();
  const running = await service.listen();
  servers.push(running);
  return { service, running };
}

const loopbackClient = (opts: { timeoutMs?: number; maxResponseBytes?: number } = {}) =>
  createKeyAppClient({ fetch: createPublicFetch({ allowPrivate: true, ...opts }) });

describe("GET {status} (§3.3 check 7)", () => {
  it("§3.3 reads the revocation status with remaining beside it", async () => {
    const { service, running } = await keyApp();
    service.register("m-1", { maxBookings: 2 });
    const client = loopbackClient();
    expect(await client.status(running.statusUrl("m-1"))).toEqual({ status: "active", remaining: 2 });
    service.revoke("m-1");
    expect(await client.status(running.statusUrl("m-1"))).toEqual({ status: "revoked", remaining: 2 });
  });

  it("§3.3 Status URLs: a loopback status URL is refused by the webhooks' outbound policy (§5.8) → unknown, nothing claimed", async () => {
    const { service, running } = await keyApp();
    service.register("m-1", { maxBookings: 1 });
    const publicOnly = createKeyAppClient({ fetch: createPublicFetch() });
    expect(await publicOnly.status(running.statusUrl("m-1"))).toEqual({ status: "unknown" });
    expect(await publicOnly.claim(running.statusUrl("m-1"), "h/1")).toBe("no_answer");
    expect(service.record("m-1")?.claims).toEqual([]);
    // Also when the URL is https and only the resolved address is private (checked at connect).
    const resolving = createKeyAppClient({
      fetch: createPublicFetch({ resolver: () => Promise.resolve([{ address: "127.0.0.1", family: 4 }]) }),
    });
    expect(await resolving.status("https://keyapp.example/status/m-1")).toEqual({ status: "unknown" });
  });

  it("a key app that does not answer in time is unknown (timeout)", async () => {
    const origin = await rawServer(() => {
      /* never answers */
    });
    const t0 = Date.now();
    expect(await loopbackClient({ timeoutMs: 200 }).status(`${origin}/status/m`)).toEqual({
      status: "unknown",
    });
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("an answer over the byte cap is unknown", async () => {
    const origin = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "revoked", pad: "x".repeat(10_000) }));
    });
    expect(await loopbackClient({ maxResponseBytes: 1024 }).status(`${origin}/s`)).toEqual({
      status: "unknown",
    });
    expect(await loopbackClient().status(`${origin}/s`)).toEqual({ status: "revoked" });
  });

  it("malformed JSON, another status word or a non-2xx answer is unknown", () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(readStatusAnswer(200, bytes("{not json"), false)).toEqual({ status: "unknown" });
    expect(readStatusAnswer(200, bytes('{"status":"valid"}'), false)).toEqual({ status: "unknown" });
    expect(readStatusAnswer(200, bytes('["revoked"]'), false)).toEqual({ status: "unknown" });
    expect(readStatusAnswer(500, bytes('{"status":"revoked"}'), false)).toEqual({ status: "unknown" });
    expect(readStatusAnswer(200, bytes('{"status":"active","remaining":-1}'), false)).toEqual({
      status: "active",
    });
  });

  it("a redirect is not followed (§5.8)", async () => {
    const target = await rawServer((_req, res) => void res.end('{"status":"active"}'));
    const origin = await rawServer((_req, res) => void res.writeHead(302, { location: `${target}/s` }).end());
    expect(await loopbackClient().status(`${origin}/s`)).toEqual({ status: "unknown" });
  });
});

describe("claims (§3.3 One consent, several hosts)", () => {
  it("§3.3 POST {status}/claims: 201 claimed, 200 already held, 409 none left; DELETE gives it back", async () => {
    const { service, running } = await keyApp();
    service.register("m-1", { maxBookings: 1 });
    const client = loopbackClient();
    const url = running.statusUrl("m-1");
    expect(await client.claim(url, "host-a/h_1")).toBe("claimed");
    expect(await client.claim(url, "host-a/h_1")).toBe("already_held");
    expect(await client.claim(url, "host-b/h_2")).toBe("none_left");
    expect(await client.status(url)).toEqual({ status: "active", remaining: 0 });
    expect(await client.giveBack(url, "host-a/h_1")).toBe(true);
    expect(service.record("m-1")?.claims).toEqual([]);
    expect(await client.claim(url, "host-b/h_2")).toBe("claimed");
  });

  it("the claim id is expanded as RFC 6570 does: {status}/claims/host%2Fhold", () => {
    expect(claimUrl("https://k.example/status/m-1", "host-a/h_1")).toBe(
      "https://k.example/status/m-1/claims/host-a%2Fh_1",
    );
  });

  it("a key app that does not answer a claim is no_answer; a 4xx other than 409 is refused", async () => {
    const origin = await rawServer((req, res) => {
      res.writeHead(req.url?.includes("broken") === true ? 503 : 403).end();
    });
    const client = loopbackClient();
    expect(await client.claim(`${origin}/broken`, "h/1")).toBe("no_answer");
    expect(await client.claim(`${origin}/s`, "h/1")).toBe("refused");
    expect(await client.giveBack(`${origin}/broken`, "h/1")).toBe(false);
  });
});
