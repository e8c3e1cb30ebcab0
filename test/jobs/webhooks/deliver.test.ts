import { describe, expect, it } from "vitest";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import type {
  FetchRefusalCode,
  OutboundRequest,
  PublicFetch,
} from "../../../src/jobs/outbound/public-fetch.js";
import { createDeliver } from "../../../src/jobs/webhooks/deliver.js";
import { verifyHostWebhook } from "../../../src/protocol/http-signatures/host-webhook.js";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/nonce-memory.js";
import { err, ok } from "../../../src/protocol/result.js";
import { HOST_ID, discoveryKeys, fakeHosts, hostKey, outbound, startAgent } from "../support.js";

const NOW_MS = 1_792_000_000_000;
const clock = { now: () => NOW_MS };
const first = hostKey("maple-street-auto-2026-10");
const second = hostKey("maple-street-auto-2026-09");
const hosts = fakeHosts({ [HOST_ID]: [first, second], "no-keys": [] });

/** A transport that records the request and answers as told. */
function fakeFetch(answer: ReturnType<PublicFetch> extends Promise<infer R> ? R : never) {
  const requests: OutboundRequest[] = [];
  const fetch: PublicFetch = (req) => {
    requests.push(req);
    return Promise.resolve(answer);
  };
  return { fetch, requests };
}

const response = (status: number) =>
  ok({ status, headers: {}, body: new Uint8Array(0), truncated: false, remoteAddress: "203.0.113.1" });

describe("webhook delivery (SchCP §5.8)", () => {
  it("POSTs the event JSON signed with the host's FIRST key, verifiable against discovery", async () => {
    const { fetch, requests } = fakeFetch(response(200));
    const deliver = createDeliver({ hosts, fetch, clock });
    const event = outbound("e_1", "https://agent.example/hooks/schcp");
    expect(await deliver(event)).toEqual({ ok: true, value: 200 });

    const req = requests[0];
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("https://agent.example/hooks/schcp");
    expect(req?.headers["schcp-host"]).toBe(HOST_ID);
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["signature-input"]).toContain(`keyid="${first.kid}"`);
    expect(req?.headers["signature-input"]).toContain(`created=${NOW_MS / 1000}`);
    expect(JSON.parse(Buffer.from(req?.body ?? []).toString())).toEqual(event.event);

    const verified = await verifyHostWebhook({
      method: "POST",
      targetUri: req?.url ?? "",
      headers: (name) => req?.headers[name],
      body: req?.body ?? new Uint8Array(0),
      nowSec: NOW_MS / 1000,
      discoveryKeys: discoveryKeys([first, second]),
      nonces: new MemoryNonceMemory(() => NOW_MS / 1000),
    });
    expect(verified).toMatchObject({ ok: true, value: { hostId: HOST_ID, kid: first.kid } });
  });

  it("signs afresh for each attempt (new nonce, current clock)", async () => {
    const { fetch, requests } = fakeFetch(response(500));
    const deliver = createDeliver({ hosts, fetch, clock });
    await deliver(outbound("e_1", "https://agent.example/h"));
    await deliver(outbound("e_1", "https://agent.example/h"));
    expect(requests[0]?.headers["signature-input"]).not.toBe(requests[1]?.headers["signature-input"]);
  });

  it.each([200, 201, 202, 204, 299])("treats %i as delivered", async (status) => {
    const deliver = createDeliver({ hosts, fetch: fakeFetch(response(status)).fetch, clock });
    expect(await deliver(outbound("e_1", "https://agent.example/h"))).toEqual({ ok: true, value: status });
  });

  it.each([301, 302, 400, 404, 410, 429, 500, 503])("retries after HTTP %i", async (status) => {
    const deliver = createDeliver({ hosts, fetch: fakeFetch(response(status)).fetch, clock });
    expect(await deliver(outbound("e_1", "https://agent.example/h"))).toMatchObject({
      ok: false,
      error: { retryable: true, code: "http_status", status },
    });
  });

  it.each<[FetchRefusalCode, boolean]>([
    ["non_public_address", false],
    ["scheme_not_allowed", false],
    ["credentials_in_url", false],
    ["invalid_url", false],
    ["dns_failed", true],
    ["connect_timeout", true],
    ["timeout", true],
    ["network_error", true],
  ])("a transport refusal %s is retryable=%s", async (code, retryable) => {
    const deliver = createDeliver({ hosts, fetch: fakeFetch(err({ code, message: code })).fetch, clock });
    expect(await deliver(outbound("e_1", "https://agent.example/h"))).toMatchObject({
      ok: false,
      error: { retryable, code },
    });
  });

  it("abandons at once an unknown host, a host without keys and an unparseable URL", async () => {
    const { fetch, requests } = fakeFetch(response(200));
    const deliver = createDeliver({ hosts, fetch, clock });
    expect(await deliver(outbound("e_1", "https://a.example/", "nobody"))).toMatchObject({
      ok: false,
      error: { retryable: false, code: "unknown_host" },
    });
    expect(await deliver(outbound("e_1", "https://a.example/", "no-keys"))).toMatchObject({
      ok: false,
      error: { retryable: false, code: "no_signing_key" },
    });
    expect(await deliver(outbound("e_1", "::not a url"))).toMatchObject({
      ok: false,
      error: { retryable: false, code: "invalid_url" },
    });
    expect(requests).toHaveLength(0);
  });

  it("end to end through the public-only transport: a private callback is refused, never sent", async () => {
    const agent = await startAgent(discoveryKeys([first]));
    try {
      const strict = createDeliver({ hosts, fetch: createPublicFetch(), clock: { now: () => Date.now() } });
      expect(await strict(outbound("e_1", agent.url()))).toMatchObject({
        ok: false,
        error: { retryable: false, code: "scheme_not_allowed" },
      });
      const https = agent.url().replace("http:", "https:");
      expect(await strict(outbound("e_1", https))).toMatchObject({
        ok: false,
        error: { retryable: false, code: "non_public_address" },
      });
      expect(agent.received).toHaveLength(0);

      const loose = createDeliver({
        hosts,
        fetch: createPublicFetch({ allowPrivate: true }),
        clock: { now: () => Date.now() },
      });
      expect(await loose(outbound("e_1", agent.url()))).toEqual({ ok: true, value: 200 });
      expect(agent.received[0]?.verified).toMatchObject({ ok: true, value: { hostId: HOST_ID } });
    } finally {
      await agent.close();
    }
  });
});
