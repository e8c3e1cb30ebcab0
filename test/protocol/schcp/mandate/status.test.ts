import { describe, expect, it } from "vitest";
import { CachingMandateStatus } from "../../../../src/protocol/schcp/mandate/index.js";
import type { MandateStatusPort, MandateStatusValue } from "../../../../src/protocol/schcp/mandate/index.js";

type Link = { iss: string; jti: string; statusUrl?: string };

function fakeFetcher(answer: (link: Link) => MandateStatusValue | Error) {
  const calls: Link[] = [];
  const fetcher: MandateStatusPort = {
    status(link) {
      calls.push(link);
      const a = answer(link);
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    },
  };
  return { fetcher, calls };
}

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const ROOT: Link = {
  iss: "urn:schcp:principal:jwk-thumbprint:P",
  jti: "m-1",
  statusUrl: "https://keyapp.example/s/m-1",
};

describe("CachingMandateStatus (§3.3 check 7, 'Ids are per link')", () => {
  it("reuses an answer within the TTL and asks again after it", async () => {
    const { fetcher, calls } = fakeFetcher(() => "active");
    const c = clock();
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: c });
    expect(await cache.status(ROOT)).toBe("active");
    c.advance(59_999);
    expect(await cache.status(ROOT)).toBe("active");
    expect(calls).toHaveLength(1);
    c.advance(1);
    expect(await cache.status(ROOT)).toBe("active");
    expect(calls).toHaveLength(2);
  });

  it("caches per (status URL, iss, jti), never by jti alone: a delegate's URL cannot stand in for the root's", async () => {
    // The attack of §3.3: a child reusing the root's jti with a status URL the delegate controls.
    const { fetcher, calls } = fakeFetcher((l) => (l.statusUrl === ROOT.statusUrl ? "revoked" : "active"));
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: clock() });
    const evil: Link = { ...ROOT, statusUrl: "https://delegate.example/s/m-1" };
    expect(await cache.status(evil)).toBe("active");
    expect(await cache.status(ROOT)).toBe("revoked");
    expect(await cache.status({ ...ROOT, iss: "urn:schcp:principal:jwk-thumbprint:Q" })).toBe("revoked");
    expect(calls).toHaveLength(3);
    expect(await cache.status(ROOT)).toBe("revoked");
    expect(calls).toHaveLength(3);
  });

  it("does not cache unknown by default, so a revocation is seen once the key app answers", async () => {
    let answer: MandateStatusValue = "unknown";
    const { fetcher, calls } = fakeFetcher(() => answer);
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: clock() });
    expect(await cache.status(ROOT)).toBe("unknown");
    answer = "revoked";
    expect(await cache.status(ROOT)).toBe("revoked");
    expect(calls).toHaveLength(2);
  });

  it("caches unknown for unknownTtlMs when given", async () => {
    const { fetcher, calls } = fakeFetcher(() => "unknown");
    const c = clock();
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, unknownTtlMs: 5_000, clock: c });
    await cache.status(ROOT);
    await cache.status(ROOT);
    expect(calls).toHaveLength(1);
    c.advance(5_000);
    await cache.status(ROOT);
    expect(calls).toHaveLength(2);
  });

  it("a fetcher that fails answers unknown", async () => {
    const { fetcher } = fakeFetcher(() => new Error("timeout"));
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: clock() });
    expect(await cache.status(ROOT)).toBe("unknown");
  });

  it("a link without a status URL is unknown, and nothing is fetched", async () => {
    const { fetcher, calls } = fakeFetcher(() => "revoked");
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: clock() });
    expect(await cache.status({ iss: ROOT.iss, jti: ROOT.jti })).toBe("unknown");
    expect(calls).toEqual([]);
  });

  it("keeps at most maxEntries links, dropping the oldest", async () => {
    const { fetcher, calls } = fakeFetcher(() => "active");
    const cache = new CachingMandateStatus({ fetcher, ttlMs: 60_000, clock: clock(), maxEntries: 2 });
    const link = (n: number): Link => ({ ...ROOT, jti: `m-${n}` });
    await cache.status(link(1));
    await cache.status(link(2));
    await cache.status(link(3));
    expect(calls).toHaveLength(3);
    await cache.status(link(3));
    await cache.status(link(2));
    expect(calls).toHaveLength(3);
    await cache.status(link(1));
    expect(calls).toHaveLength(4);
  });
});
