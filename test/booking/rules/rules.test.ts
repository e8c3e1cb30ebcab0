import { describe, expect, it } from "vitest";
import { schcpRefusal } from "../../../src/edges/schcp/refusal.js";
import type { BookingRefusal } from "../../../src/booking/api.js";
import {
  checkAccess,
  checkEligibility,
  checkHorizon,
  checkMaxAdvance,
  checkMinNotice,
  checkPartySize,
  checkPlace,
  checkReleaseSchedule,
  checkWhen,
  partyCapacity,
  releaseInstant,
  withContactRemedy,
} from "../../../src/booking/rules/index.js";
import { upstreamRefusal } from "../../../src/booking/bookings/refuse.js";
import { DEFAULT_POLICIES } from "../../../src/booking/hosts/index.js";
import { isRegisteredReason, REFUSALS } from "../../../src/protocol/schcp/refusals.js";
import { at, DAY, HOUR, MIN, NOW, principalOf, principal, otherPrincipal } from "../holds/support.js";

const ZONE = "America/Toronto";

function expectRefusal(
  r: BookingRefusal | undefined,
  code: string,
  reason: string,
  basis?: Record<string, unknown>,
) {
  expect(r, `expected ${code}/${reason}`).toBeDefined();
  // As the SchCP edge answers it (the core's code through edges/schcp/refusal.ts).
  const wire = r === undefined ? undefined : schcpRefusal(r);
  expect({ code: wire?.code, reason: wire?.reason }).toEqual({ code, reason });
  expect(isRegisteredReason(code, reason)).toBe(true);
  expect(r?.message.length).toBeGreaterThan(0);
  if (basis !== undefined) expect(r?.basis).toEqual(basis);
}

describe("§7.8 access", () => {
  const contacts = { ...DEFAULT_POLICIES, access: "contacts" as const, contacts: [principalOf(principal)] };
  it("public hosts admit anyone, even without a mandate", () => {
    expect(checkAccess(DEFAULT_POLICIES, null)).toBeUndefined();
  });
  it.each([
    ["no mandate", null],
    ["a principal not on the list", principalOf(otherPrincipal)],
  ])("contacts-only refuses %s: 403 NOT_PERMITTED not_a_contact, list never shown", (_, who) => {
    const r = checkAccess(contacts, who);
    expectRefusal(r, "NOT_PERMITTED", "not_a_contact", { policy: "access", access: "contacts" });
    expect(JSON.stringify(r)).not.toContain(principalOf(principal));
  });
  it("contacts-only admits a principal on the list", () => {
    expect(checkAccess(contacts, principalOf(principal))).toBeUndefined();
  });
});

describe("§5.2 eligibility", () => {
  it.each([
    ["returning", false, "returning_guests_only"],
    ["new", true, "new_guests_only"],
  ] as const)("%s refuses proven=%s with %s", (guest, proven, reason) => {
    expectRefusal(checkEligibility(guest, proven), "NOT_ELIGIBLE", reason, { policy: "eligibility", guest });
  });
  it.each([
    [undefined, false],
    [undefined, true],
    ["returning", true],
    ["new", false],
  ] as const)("%s admits proven=%s", (guest, proven) => {
    expect(checkEligibility(guest, proven)).toBeUndefined();
  });
});

describe("§5.2 booking window", () => {
  const thu = at("2026-10-15T13:00:00-04:00");
  it("release schedule: the whole day opens days_ahead before, at `at` local time", () => {
    const opens = { daysAhead: 1, at: "10:00" };
    expect(releaseInstant(opens, thu, ZONE)).toBe(at("2026-10-14T10:00:00-04:00"));
    const before = checkReleaseSchedule(opens, thu, at("2026-10-14T09:59:00-04:00"), ZONE);
    expectRefusal(before, "OUTSIDE_BOOKING_WINDOW", "not_yet_released", {
      policy: "booking_window.opens",
      days_ahead: 1,
      at: "10:00",
    });
    expect(checkReleaseSchedule(opens, thu, at("2026-10-14T10:00:00-04:00"), ZONE)).toBeUndefined();
    // The evening slot of the same day opens at the same moment (not a rolling window).
    expect(
      checkReleaseSchedule(opens, at("2026-10-15T21:00:00-04:00"), at("2026-10-14T10:00:00-04:00"), ZONE),
    ).toBeUndefined();
  });
  it("release schedule across a DST change reads the local day (Nov 1 falls back)", () => {
    expect(releaseInstant({ daysAhead: 1, at: "10:00" }, at("2026-11-02T09:00:00-05:00"), ZONE)).toBe(
      at("2026-11-01T10:00:00-05:00"),
    );
  });
  it("min notice: a start closer than the notice, or past, is refused", () => {
    expectRefusal(checkMinNotice(2 * HOUR, NOW + HOUR, NOW), "OUTSIDE_BOOKING_WINDOW", "min_notice", {
      policy: "booking_window.min_notice",
      limit: "PT2H",
    });
    expect(checkMinNotice(2 * HOUR, NOW + 2 * HOUR, NOW)).toBeUndefined();
    expectRefusal(checkMinNotice(undefined, NOW - MIN, NOW), "OUTSIDE_BOOKING_WINDOW", "min_notice", {
      policy: "booking_window.min_notice",
      limit: "PT0S",
    });
  });
  it("max advance: beyond it is refused; a release schedule replaces it", () => {
    const rules = { serviceId: "s", maxAdvanceMs: 7 * DAY };
    expectRefusal(checkMaxAdvance(rules, NOW + 8 * DAY, NOW), "OUTSIDE_BOOKING_WINDOW", "max_advance", {
      policy: "booking_window.max_advance",
      limit: "P7D",
    });
    expect(checkMaxAdvance(rules, NOW + 7 * DAY, NOW)).toBeUndefined();
    expect(
      checkMaxAdvance({ ...rules, opens: { daysAhead: 30, at: "10:00" } }, NOW + 8 * DAY, NOW),
    ).toBeUndefined();
  });
  it("§10 horizon: past it is 409 SLOT_UNAVAILABLE availability_unknown", () => {
    expectRefusal(checkHorizon(31 * DAY, NOW + 31 * DAY, NOW), "SLOT_UNAVAILABLE", "availability_unknown", {
      policy: "horizon",
      limit: "P31D",
    });
    expect(checkHorizon(31 * DAY, NOW + 31 * DAY - 1, NOW)).toBeUndefined();
  });
  it("checkWhen applies them in the spec's order: release schedule first", () => {
    const rules = { serviceId: "s", minNoticeMs: 2 * HOUR, opens: { daysAhead: 0, at: "10:00" } };
    // Tomorrow noon, asked today: the day opens tomorrow 10:00.
    expect(checkWhen(rules, DEFAULT_POLICIES, ZONE, at("2026-10-14T12:00:00-04:00"), NOW)?.reason).toBe(
      "not_yet_released",
    );
    expect(
      checkWhen(
        rules,
        DEFAULT_POLICIES,
        ZONE,
        at("2026-10-13T12:00:00-04:00"),
        at("2026-10-13T11:00:00-04:00"),
      )?.reason,
    ).toBe("min_notice");
    expect(checkWhen(undefined, DEFAULT_POLICIES, ZONE, NOW + 40 * DAY, NOW)?.reason).toBe(
      "availability_unknown",
    );
    expect(checkWhen(undefined, DEFAULT_POLICIES, ZONE, NOW + DAY, NOW)).toBeUndefined();
  });
});

describe("§5.2 place and service area", () => {
  const area = { country: "CA", postalPrefixes: ["M5", "M6"] };
  it("at the host's, a place sent is ignored", () => {
    expect(checkPlace(undefined, { name: "Park" }, area)).toEqual({ ok: true, value: undefined });
    expect(checkPlace("host", undefined, area)).toEqual({ ok: true, value: undefined });
  });
  it.each([
    ["guest", undefined],
    ["guest", { name: "Home", country: "CA" }],
    ["guest", { postal_code: "M5V 2T6" }],
    ["elsewhere", { locality: "Toronto" }],
    ["elsewhere", undefined],
  ] as const)("%s with %j is place_required", (location, place) => {
    const r = checkPlace(location, place, undefined);
    expect(r.ok).toBe(false);
    if (!r.ok) expectRefusal(r.error, "OUT_OF_SERVICE_AREA", "place_required");
  });
  it("a guest place inside the area is carried; case and spaces do not matter", () => {
    const place = { postal_code: "m5v 2t6", country: "CA" };
    expect(checkPlace("guest", place, area)).toEqual({ ok: true, value: place });
  });
  it.each([
    { postal_code: "K1A 0B1", country: "CA" },
    { postal_code: "M5V 2T6", country: "US" },
  ])("outside the area (%j) is outside_service_area with the area in basis", (place) => {
    const r = checkPlace("guest", place, area);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expectRefusal(r.error, "OUT_OF_SERVICE_AREA", "outside_service_area", {
        policy: "service_area",
        country: "CA",
        postal_prefixes: ["M5", "M6"],
      });
  });
  it("elsewhere with a service area needs a postal code and country too", () => {
    const r = checkPlace("elsewhere", { name: "Trinity Bellwoods Park" }, area);
    expect(r.ok ? undefined : r.error.reason).toBe("place_required");
    expect(checkPlace("elsewhere", { name: "Trinity Bellwoods Park" }, undefined).ok).toBe(true);
  });
});

describe("§4.1 party size", () => {
  const range = { min: 1, max: 4 };
  it.each([0, 5, 1.5])("%s outside 1..4 is 400 INVALID_REQUEST party_size", (n) => {
    expectRefusal(checkPartySize(range, n), "INVALID_REQUEST", "party_size", {
      policy: "party_size",
      min: 1,
      max: 4,
    });
  });
  it.each([1, 4])("%s inside is fine", (n) => expect(checkPartySize(range, n)).toBeUndefined());
  it("no stated range takes any party", () => expect(checkPartySize(undefined, 12)).toBeUndefined());

  it("a party beyond what the resources could ever seat is refused like one outside the range", () => {
    expectRefusal(checkPartySize(undefined, 7, 6), "INVALID_REQUEST", "party_size", {
      policy: "party_size",
      max: 6,
    });
    expect(checkPartySize(undefined, 6, 6)).toBeUndefined();
    expect(checkPartySize(range, 4, 10)).toBeUndefined();
  });

  it("bounds a party by the service's resources (§4.1 units)", () => {
    const tables = [
      { type: "table", capacity: 4 },
      { type: "table", capacity: 6 },
    ];
    const bays = [{ type: "bay", capacity: 1 }];
    const needs = (resourceType: string, combine?: boolean) => ({
      requires: [{ resourceType, ...(combine === true && { combine }) }],
    });
    // Shared capacity: the largest single table; combined: the tables together.
    expect(partyCapacity(needs("table"), tables)).toBe(6);
    expect(partyCapacity(needs("table", true), tables)).toBe(10);
    // A bay serves the whole party with one unit: no bound from it.
    expect(partyCapacity(needs("bay"), bays)).toBeUndefined();
    expect(
      partyCapacity({ requires: [...needs("bay").requires, ...needs("table").requires] }, [
        ...bays,
        ...tables,
      ]),
    ).toBe(6);
  });
});

describe("an upstream that refuses the request as invalid", () => {
  it("is 400 INVALID_REQUEST without retry, not 503", () => {
    for (const r of [
      upstreamRefusal({ code: "invalid_request", message: "partySize is an integer from 1 to 1000" }),
      upstreamRefusal({ code: "invalid_request", message: "bad" }),
    ]) {
      expectRefusal(r, "INVALID_REQUEST", "invalid_request");
      expect(r.retryAfterMs).toBeUndefined();
      expect(r.remedies ?? []).toEqual([]);
      expect(r.message).not.toContain("1000");
    }
    expect(upstreamRefusal({ code: "unavailable", message: "503" }).code).toBe("upstream_unavailable");
    expect(upstreamRefusal({ code: "timeout", message: "slow" }).code).toBe("upstream_unavailable");
  });
});

describe("§9.2 contact remedy", () => {
  const r = checkPartySize({ min: 1, max: 1 }, 2) as BookingRefusal;
  it("adds the published phone and url", () => {
    expect(
      withContactRemedy(r, { contact: { phone: "+1-416-555-0177", url: "https://x.example/c" } }).remedies,
    ).toEqual([{ type: "contact", phone: "+1-416-555-0177", url: "https://x.example/c" }]);
  });
  it("adds nothing when the host publishes no contact", () => {
    expect(withContactRemedy(r, {}).remedies).toBeUndefined();
  });
  it("every code used here is in the registry with an HTTP status", () => {
    for (const code of [
      "NOT_PERMITTED",
      "NOT_ELIGIBLE",
      "OUTSIDE_BOOKING_WINDOW",
      "OUT_OF_SERVICE_AREA",
      "INVALID_REQUEST",
      "SLOT_UNAVAILABLE",
    ] as const) {
      expect(typeof REFUSALS[code].status).toBe("number");
    }
  });
});
