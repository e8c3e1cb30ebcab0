import { describe, expect, it } from "vitest";
import { schcpRefusal } from "../../../src/edges/schcp/refusal.js";
import { availability } from "../../../src/edges/schcp/availability.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import type { BookingRefusal, HostRuntime } from "../../../src/booking/api.js";
import type { AvailabilityRequest, AvailabilityResponse } from "../../../src/protocol/schcp/types.js";
import type { Result } from "../../../src/protocol/result.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { isRegisteredReason } from "../../../src/protocol/schcp/refusals.js";
import {
  agent,
  at,
  caller,
  DAY,
  deps,
  type FakeConnector,
  hostConfig,
  HOUR,
  MIN,
  NOW,
  otherPrincipal,
  principal,
  principalOf,
  runtime,
  thumb,
  THU_1300,
  countingStore,
  mapleCatalog,
} from "../../booking/holds/support.js";

const HOST = "maple-street-auto";
const THU = (hhmm: string) => `2026-10-15T${hhmm}:00-04:00`;
const request = (over: Partial<AvailabilityRequest> = {}): AvailabilityRequest => ({
  service_id: "oil-change",
  window: { start: THU("12:00"), end: THU("17:00") },
  ...over,
});
const anonymous = { agentKey: thumb(agent) };

function slotsOf(r: Result<AvailabilityResponse, BookingRefusal>): string[] {
  expect(r.ok, r.ok ? "" : JSON.stringify(r.error)).toBe(true);
  if (!r.ok) return [];
  const valid = validateSchcp("AvailabilityResponse", r.value);
  expect(valid.ok, valid.ok ? "" : JSON.stringify(valid.error)).toBe(true);
  return r.value.slots.map((s) => s.start.slice(11, 16));
}

function expectRefused(r: Result<unknown, BookingRefusal>, code: string, reason: string, basis?: object) {
  expect(r.ok).toBe(false);
  if (r.ok) return undefined;
  const wire = schcpRefusal(r.error);
  expect({ code: wire.code, reason: wire.reason }).toEqual({ code, reason });
  expect(isRegisteredReason(code, reason)).toBe(true);
  if (basis !== undefined) expect(wire.basis).toEqual(basis);
  return wire;
}

function setup(host: HostRuntime & { connector: FakeConnector } = runtime()) {
  const store = countingStore();
  const d = deps([host], store);
  return {
    host,
    store,
    d,
    ask: (body: AvailabilityRequest, who = anonymous as Parameters<typeof availability>[2]) =>
      availability(d, HOST, who, body),
  };
}

const quarterHours = (from: string, to: string) => {
  const out: string[] = [];
  for (let t = at(THU(from)); t <= at(THU(to)); t += 15 * MIN)
    out.push(new Date(t - 4 * HOUR).toISOString().slice(11, 16));
  return out;
};

describe("POST /availability (SchCP §5.1)", () => {
  it("offers every start whose service ends inside the window, priced, in the host's zone", async () => {
    const { ask } = setup();
    const r = await ask(request());
    expect(slotsOf(r)).toEqual(quarterHours("12:00", "16:15"));
    if (!r.ok) return;
    expect(r.value.service_id).toBe("oil-change");
    expect(r.value.timezone).toBe("America/Toronto");
    expect(r.value.as_of).toBe("2026-10-13T21:00:00Z");
    expect(r.value.slots[4]).toEqual({
      start: "2026-10-15T13:00:00-04:00",
      end: "2026-10-15T13:45:00-04:00",
      price: { amount: "79.00", currency: "CAD" },
      total: { amount: "89.27", currency: "CAD" },
    });
  });

  it("granularity is a wall-clock grid from local midnight; limit caps the answer", async () => {
    const { ask } = setup();
    const r = await ask(
      request({ window: { start: THU("12:10"), end: THU("17:00") }, constraints: { granularity: "PT30M" } }),
    );
    expect(slotsOf(r)).toEqual(["12:30", "13:00", "13:30", "14:00", "14:30", "15:00", "15:30", "16:00"]);
    expect(slotsOf(await ask(request({ limit: 3 })))).toEqual(["12:00", "12:15", "12:30"]);
  });

  it("§4.2/§5.1: an open-ended slot has open_end and no end; an unpriced one no money", async () => {
    const { ask } = setup();
    const r = await ask(request({ service_id: "diagnosis", limit: 1 }));
    expect(slotsOf(r)).toEqual(["12:00"]);
    if (r.ok) expect(r.value.slots[0]).toEqual({ start: THU("12:00"), open_end: true });
  });

  describe("§7.2 bounded work: 400 INVALID_REQUEST with the rule in basis", () => {
    it.each([
      [
        "a window over 31 days",
        { start: THU("12:00"), end: "2026-11-16T12:00:00-05:00" },
        undefined,
        { policy: "availability.max_window", limit: "P31D" },
      ],
      [
        "more than 3,000 candidate starts",
        { start: THU("00:00"), end: "2026-10-18T00:00:00-04:00" },
        "PT1M",
        { policy: "availability.max_candidates", limit: 3000 },
      ],
      ["an end before the start", { start: THU("12:00"), end: THU("11:00") }, undefined, undefined],
      ["a granularity under a minute", { start: THU("12:00"), end: THU("13:00") }, "PT30S", undefined],
    ])("%s", async (_, window, granularity, basis) => {
      const { ask, host } = setup();
      const r = await ask(
        request({ window, ...(granularity !== undefined && { constraints: { granularity } }) }),
      );
      const refusal = expectRefused(r, "INVALID_REQUEST", "invalid_request", basis);
      // §9.2: the host publishes a phone, so every refusal carries the contact remedy.
      expect(refusal?.remedies).toEqual([{ type: "contact", phone: "+1-416-555-0177" }]);
      expect(host.connector.calls).toHaveLength(0);
    });

    it("31 days at the default quarter hour is allowed, and the upstream is asked once", async () => {
      const { ask, host } = setup();
      const r = await ask(
        request({ window: { start: "2026-10-14T00:00:00-04:00", end: "2026-11-13T23:00:00-05:00" } }),
      );
      expect(r.ok, JSON.stringify(r)).toBe(true);
      expect(host.connector.calls).toHaveLength(1);
    });
  });

  describe("slots only where a hold would be granted (§5.1, §5.2, §10)", () => {
    it("never past the horizon (31 days)", async () => {
      const { ask } = setup();
      const r = await ask(
        request({ window: { start: "2026-11-12T08:00:00-05:00", end: "2026-11-14T18:00:00-05:00" } }),
      );
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.value.slots.length).toBeGreaterThan(0);
      for (const s of r.value.slots) expect(at(s.start)).toBeLessThan(NOW + 31 * DAY);
    });

    it("min notice and past starts", async () => {
      const host = runtime(
        hostConfig({}, {}, [{ service_id: "oil-change", booking_window: { min_notice: "PT2H" } }]),
      );
      const { ask, d } = setup(host);
      d.clock.set(at("2026-10-15T09:05:00-04:00"));
      expect(slotsOf(await ask(request({ window: { start: THU("08:00"), end: THU("12:00") } })))).toEqual(
        quarterHours("11:15", "11:00").concat(["11:15"]),
      );
    });

    it("release schedule: a day opens days_ahead before at `at`", async () => {
      const host = runtime(
        hostConfig({}, {}, [
          { service_id: "oil-change", booking_window: { opens: { days_ahead: 1, at: "10:00" } } },
        ]),
      );
      const { ask } = setup(host);
      // Tuesday 17:00: Wednesday opened Tuesday 10:00; Thursday opens Wednesday 10:00.
      const r = await ask(request({ window: { start: "2026-10-14T16:00:00-04:00", end: THU("18:00") } }));
      expect(slotsOf(r)).toEqual(["16:00", "16:15", "16:30", "16:45", "17:00"]);
      if (r.ok) expect(r.value.slots.every((s) => s.start.startsWith("2026-10-14"))).toBe(true);
    });

    it("§4.1 a party outside the service's range is 400 party_size", async () => {
      const host = runtime(
        hostConfig({}, {}, [{ service_id: "oil-change", party_size: { min: 1, max: 2 } }]),
      );
      const { ask } = setup(host);
      expectRefused(await ask(request({ party_size: 3 })), "INVALID_REQUEST", "party_size", {
        policy: "party_size",
        min: 1,
        max: 2,
      });
      expect((await ask(request({ party_size: 2 }))).ok).toBe(true);
    });

    it("a start gone upstream is not offered", async () => {
      const { ask, host } = setup();
      host.connector.gone.add(THU_1300);
      expect(slotsOf(await ask(request()))).not.toContain("13:00");
    });

    it("the store's holds and busy blocks take time away: read once, decided like a hold", async () => {
      const { ask, d, store } = setup();
      const body = { service_id: "oil-change", start: THU("13:00"), idempotency_key: "k1" };
      expect((await placeHold(d, HOST, await caller(), body)).ok).toBe(true);
      // One bay left at 13:00: still offered.
      expect(slotsOf(await ask(request()))).toContain("13:00");
      expect(
        (
          await placeHold(d, HOST, await caller({ jti: "m-2" }, otherPrincipal), {
            ...body,
            idempotency_key: "k2",
          })
        ).ok,
      ).toBe(true);
      // Both bays held 13:00–14:00 (45 min + 15 min buffer): 12:15 … 13:45 cannot be allocated.
      const slots = slotsOf(await ask(request()));
      expect(slots).toEqual(["12:00", ...quarterHours("14:00", "16:15")]);
      // Busy blocks the host imported (phone bookings) take both bays 15:00–16:00.
      const phone = [{ start: at(THU("15:00")), end: at(THU("16:00")) }];
      await store.replaceBusy(HOST, "bay-1", "phone", phone);
      await store.replaceBusy(HOST, "bay-2", "phone", phone);
      const after = slotsOf(await ask(request()));
      expect(after).toEqual(["12:00", "14:00", "16:00", "16:15"]);
    });

    it("§7.2 walk-in reserve: agents may not take the last kept bay, on the days it applies", async () => {
      for (const [days, offered] of [
        [[4], false],
        [[6], true],
      ] as const) {
        const host = runtime(hostConfig({}, { walk_in_reserve: [{ resource_type: "bay", keep: 1, days }] }));
        const { ask, d } = setup(host);
        const placed = await placeHold(d, HOST, await caller(), {
          service_id: "oil-change",
          start: THU("13:00"),
          idempotency_key: "k",
        });
        expect(placed.ok).toBe(true);
        expect(slotsOf(await ask(request())).includes("13:00")).toBe(offered);
      }
    });

    it("bookings occupy like holds; the store is read once per query", async () => {
      const { ask, d, store } = setup();
      const body = { service_id: "oil-change", start: THU("13:00"), idempotency_key: "k1" };
      const held = await placeHold(d, HOST, await caller(), body);
      if (!held.ok) throw new Error(held.error.message);
      const begun = await store.beginConfirm(HOST, held.value.hold_id, NOW, 30_000);
      if (!begun.ok) throw new Error(begun.error.reason);
      await store.completeConfirm(
        HOST,
        held.value.hold_id,
        begun.value.fence,
        { bookingId: "b_1", payload: "{}" },
        NOW,
      );
      expect((await placeHold(d, HOST, await caller({ jti: "m-2" }, otherPrincipal), body)).ok).toBe(true);
      const before = store.occupancyReads;
      expect(slotsOf(await ask(request()))).not.toContain("13:00");
      expect(store.occupancyReads - before).toBe(1);
    });

    it("§5.1 party_size: slots are those with room for the party on a shared resource", async () => {
      // One technician who takes three people at once (§4.1 capacity), the only one there is.
      const base = mapleCatalog();
      const catalog = mapleCatalog({
        resources: base.resources
          .filter((r) => r.type !== "technician" || r.id === "tech-alex")
          .map((r) => (r.id === "tech-alex" ? { ...r, capacity: 3 } : r)),
      });
      const host = runtime(
        hostConfig({}, {}, [{ service_id: "mobile-tire-swap", party_size: { min: 1, max: 3 } }]),
        catalog,
      );
      const { ask, d } = setup(host);
      const swap = (party_size: number) => request({ service_id: "mobile-tire-swap", party_size });
      const placed = await placeHold(d, HOST, await caller(), {
        service_id: "mobile-tire-swap",
        start: THU("13:00"),
        idempotency_key: "k",
        party_size: 2,
      });
      expect(placed.ok, JSON.stringify(placed)).toBe(true);
      // Two of the three places are held 13:00–14:00: one more person fits, two do not.
      expect(slotsOf(await ask(swap(1)))).toContain("13:00");
      const forTwo = slotsOf(await ask(swap(2)));
      expect(forTwo).not.toContain("13:00");
      expect(forTwo).not.toContain("12:15");
      expect(forTwo).toContain("12:00");
      expect(forTwo).toContain("14:00");
    });
  });

  describe("§7.8 contacts-only hosts: availability needs a mandate from a contact", () => {
    const host = () => runtime(hostConfig({}, { access: "contacts", contacts: [principalOf(principal)] }));
    it("no mandate, or a principal not on the list: 403 NOT_PERMITTED not_a_contact", async () => {
      const { ask } = setup(host());
      expectRefused(await ask(request()), "NOT_PERMITTED", "not_a_contact", {
        policy: "access",
        access: "contacts",
      });
      expectRefused(await ask(request(), await caller({}, otherPrincipal)), "NOT_PERMITTED", "not_a_contact");
    });
    it("a contact sees the slots", async () => {
      const { ask } = setup(host());
      expect(slotsOf(await ask(request(), await caller()))).toHaveLength(18);
    });
  });

  describe("selectable resources (§4.1, §5.2)", () => {
    it("a resource for a service that is not selectable is 400", async () => {
      const { ask } = setup();
      expectRefused(
        await ask(request({ constraints: { resource: "bay-1" } })),
        "INVALID_REQUEST",
        "invalid_request",
      );
    });
    it("a chosen resource narrows the upstream query and the allocation", async () => {
      const host = runtime(hostConfig({}, {}, [{ service_id: "oil-change", selectable: true }]));
      const { ask, d } = setup(host);
      expectRefused(
        await ask(request({ constraints: { resource: "lift-9" } })),
        "INVALID_REQUEST",
        "invalid_request",
      );
      // Sam is held at 13:00; choosing Sam loses 12:15–13:45, choosing Alex does not.
      const held = await placeHold(d, HOST, await caller(), {
        service_id: "oil-change",
        start: THU("13:00"),
        idempotency_key: "k",
        resource: "tech-sam",
      });
      expect(held.ok).toBe(true);
      expect(slotsOf(await ask(request({ constraints: { resource: "tech-sam" } })))).not.toContain("13:00");
      expect(slotsOf(await ask(request({ constraints: { resource: "tech-alex" } })))).toContain("13:00");
      expect(host.connector.calls.at(-1)?.resourceIds).toEqual(["tech-alex"]);
    });
  });

  it("unknown host or service is 404; upstream trouble is 503 with its Retry-After", async () => {
    const { ask, d, host } = setup();
    expectRefused(await availability(d, "nope", anonymous, request()), "NOT_FOUND", "not_found");
    expectRefused(await ask(request({ service_id: "tyre-rotation" })), "NOT_FOUND", "not_found");
    host.connector.failWith = { code: "rate_limited", message: "slow down", retryAfterMs: 2000 };
    const r = expectRefused(await ask(request()), "UPSTREAM_UNAVAILABLE", "upstream_rate_limited");
    expect(r?.retryAfterMs).toBe(2000);
    host.connector.failWith = { code: "timeout", message: "slow" };
    expectRefused(await ask(request()), "UPSTREAM_UNAVAILABLE", "upstream_unavailable");
  });
});
