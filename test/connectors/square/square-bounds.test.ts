/**
 * A Square answer over the JSON cap (connectors/http/limits.ts) is refused with reason
 * `upstream_too_large` even when its status is 200 (the SDK reads the body; the capturing
 * fetch marks the call), and a call held back by Square's own Retry-After is `rate_limited`
 * with the remaining wait, not a generic Square error. Against the nock-scripted fake Square.
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MemoryPacingGate } from "../../../src/connectors/http.js";
import { DEFAULT_UPSTREAM_LIMITS, setUpstreamLimits } from "../../../src/connectors/http/limits.js";
import { createSquareConnector } from "../../../src/connectors/square/index.js";
import { FakeSquare, HAIRCUT, LOCATION_ID } from "./fake-square.js";

const TOKEN = "EAAAl-bounds-token-not-real";
const NOW = Date.parse("2026-10-18T12:00:00-04:00");
const MONDAY = {
  start: Date.parse("2026-10-19T09:00:00-04:00"),
  end: Date.parse("2026-10-19T12:00:00-04:00"),
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});
afterEach(() => {
  nock.cleanAll();
  setUpstreamLimits(DEFAULT_UPSTREAM_LIMITS);
});
afterAll(() => nock.enableNetConnect());

function connector() {
  const fake = new FakeSquare(TOKEN);
  fake.install();
  const c = createSquareConnector(
    {
      environment: "sandbox",
      locationId: LOCATION_ID,
      version: "2026-08-20",
      accessToken: TOKEN,
      timeoutMs: 1500,
    },
    {
      clock: { now: () => NOW },
      logger: { warn: () => undefined },
      pacing: { gate: new MemoryPacingGate(), account: LOCATION_ID },
    },
  );
  return { fake, c };
}

describe("Square answers under the gateway's bounds", () => {
  it("a 200 over the JSON cap is unavailable with reason upstream_too_large", async () => {
    const { c } = connector();
    // The catalog fixture is about 3 KB: a 1 KiB cap puts Square's 200 over it.
    setUpstreamLimits({ jsonBytes: 1024 });
    const got = await c.catalog.read();
    expect(got).toMatchObject({ ok: false, error: { code: "unavailable", reason: "upstream_too_large" } });
    expect(got.upstream?.status).not.toBe(200);
    setUpstreamLimits(DEFAULT_UPSTREAM_LIMITS);
    expect(await c.catalog.read()).toMatchObject({ ok: true });
  });

  it("a call Square asked to wait for is rate_limited with the remaining wait", async () => {
    const { fake, c } = connector();
    const slots = () => c.slots.find({ serviceId: HAIRCUT, range: MONDAY });
    fake.inject("slots", { kind: "rate_limited", retryAfterSeconds: 30 });
    const first = await slots();
    expect(first).toMatchObject({ ok: false, error: { code: "rate_limited" } });
    fake.restore();
    const held = await slots();
    expect(held).toMatchObject({ ok: false, error: { code: "rate_limited" } });
    expect(!held.ok && held.error.retryAfterMs).toBeGreaterThan(0);
  });

  // Within the byte cap, but 60,000 structural tokens: over Square's parse budget (the default
  // budget divided by its SDK's measured parse cost, connectors/square/client.ts).
  const costly = { availabilities: [], errors: [], padding: Array(30_000).fill([]) };
  const TEN_DAYS = { start: MONDAY.start, end: MONDAY.start + 10 * 86_400_000 };

  it("an availability answer over the parse budget is asked again in halves, and the slots are whole", async () => {
    const plain = connector();
    const expected = await plain.c.slots.find({ serviceId: HAIRCUT, range: TEN_DAYS });
    expect(expected.ok && expected.value.length).toBeGreaterThan(0);
    nock.cleanAll();
    const { fake, c } = connector();
    fake.inject("slots", { kind: "status", status: 200, body: costly });
    const got = await c.slots.find({ serviceId: HAIRCUT, range: TEN_DAYS });
    expect(got.ok && got.value).toEqual(expected.ok && expected.value);
    const searches = fake.requests.filter((r) => r.path === "/v2/bookings/availability/search");
    // The refused ten days, then its two halves.
    expect(searches).toHaveLength(3);
  });

  it("a window still over the budget at Square's 24 hours is upstream_too_costly, after a bounded number of calls", async () => {
    const { fake, c } = connector();
    for (let i = 0; i < 40; i++) fake.inject("slots", { kind: "status", status: 200, body: costly });
    const got = await c.slots.find({ serviceId: HAIRCUT, range: TEN_DAYS });
    expect(got).toMatchObject({ ok: false, error: { code: "unavailable", reason: "upstream_too_costly" } });
    const searches = fake.requests.filter((r) => r.path === "/v2/bookings/availability/search");
    expect(searches.length).toBeGreaterThan(1);
    expect(searches.length).toBeLessThanOrEqual(1 + 16);
  });
});
