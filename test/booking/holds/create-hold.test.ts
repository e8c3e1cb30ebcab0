import { describe, expect, it } from "vitest";
import { coreCaller } from "../../../src/edges/schcp/caller.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { hostDiscoveryDocument } from "../../../src/edges/schcp/discovery/index.js";
import { createHold, decodeHoldPayload } from "../../../src/booking/holds/index.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { schcpHold } from "../../../src/edges/schcp/attachment.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { GatewayStore } from "../../../src/holds/port.js";
import { offerSha256, verifyOffer } from "../../../src/protocol/schcp/offer/index.js";
import type { HoldRequest } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  bookingFor,
  agent,
  at,
  caller,
  deps,
  hostConfig,
  MIN,
  NOW,
  otherAgent,
  otherPrincipal,
  principal,
  principalOf,
  refusalOf,
  runtime,
  thumb,
  THU_1300,
  valueOf,
  type TestDeps,
} from "./support.js";

const HOST = "maple-street-auto";
const THU = (hhmm: string) => `2026-10-15T${hhmm}:00-04:00`;
const body = (over: Partial<HoldRequest> = {}): HoldRequest => ({
  service_id: "oil-change",
  start: THU("13:00"),
  idempotency_key: "k-1",
  ...over,
});
const CONTACT = [{ type: "contact", phone: "+1-416-555-0177" }];

function setup(config = hostConfig(), store: GatewayStore = new MemoryHoldStore()) {
  const host = runtime(config);
  const d = deps([host], store);
  return {
    host,
    d,
    hold: (who: SchcpCaller, over: Partial<HoldRequest> = {}) => placeHold(d, HOST, who, body(over)),
  };
}

/**
 * Makes `who` a principal with a kept appointment here (§7.2): a brake inspection Wednesday
 * 09:00, booked, and the clock moved past its end (Wednesday noon).
 */
async function makeProven(d: TestDeps, who = principal) {
  const c = await caller({ jti: "m-past" }, who);
  const held = valueOf(
    await placeHold(d, HOST, c, body({ service_id: "brake-inspection", start: "2026-10-14T09:00:00-04:00" })),
  );
  const begun = await d.store.beginConfirm(HOST, held.hold_id, NOW, 30_000);
  if (!begun.ok) throw new Error(begun.error.reason);
  const booked = await d.store.completeConfirm(
    HOST,
    held.hold_id,
    begun.value.fence,
    { bookingId: "b_past", payload: "{}" },
    NOW,
  );
  if (!booked.ok) throw new Error(booked.error.reason);
  d.clock.set(at("2026-10-14T12:00:00-04:00"));
  expect(await d.store.isPrincipalProven(HOST, principalOf(who), d.clock.now())).toBe(true);
}

describe("POST /holds: a granted hold (SchCP §5.2)", () => {
  it("is the closed Hold, with a signed offer that verifies against discovery and states every term", async () => {
    const { d, host, hold } = setup();
    const h = valueOf(
      await hold(await caller(), { ttl: "PT5M", callback_url: "https://agent.example/hooks" }),
    );
    const valid = validateSchcp("Hold", h);
    expect(valid.ok, valid.ok ? "" : JSON.stringify(valid.error)).toBe(true);
    expect(h).toMatchObject({
      status: "held",
      service_id: "oil-change",
      start: THU("13:00"),
      end: THU("13:45"),
      expires_at: "2026-10-13T21:05:00Z",
      price: { amount: "79.00", currency: "CAD" },
      total: { amount: "89.27", currency: "CAD" },
      party_size: 1,
    });
    const keys = hostDiscoveryDocument(host, { publicOrigin: "https://gw.example" }).keys;
    const verified = await verifyOffer(h.offer, keys, { expectedIss: HOST });
    if (!verified.ok) throw new Error(verified.error.message);
    const offer = verified.value;
    expect(offer.claims).toEqual({
      v: "0.4",
      kind: "booking",
      iss: HOST,
      hold_id: h.hold_id,
      iat: NOW / 1000,
      exp: NOW / 1000 + 300,
      host: {
        name: "Maple Street Auto",
        tz: "America/Toronto",
        address: "Toronto, ON, CA",
        kind: "business",
      },
      service: { id: "oil-change", name: "Synthetic oil change" },
      slot: { start: THU("13:00"), end: THU("13:45") },
      price: { amount: "79.00", currency: "CAD" },
      total: { amount: "89.27", currency: "CAD" },
      lines: [
        { kind: "service", label: "Synthetic oil change", amount: { amount: "79.00", currency: "CAD" } },
        { kind: "tax", label: "HST 13%", amount: { amount: "10.27", currency: "CAD" } },
      ],
      retention: "P365D",
      party_size: 1,
    });

    // The store keeps the same bytes, the occupied interval (with the buffer) and a bay + a technician.
    const record = await d.store.getHold(HOST, h.hold_id, NOW);
    expect(record?.interval).toEqual({ start: THU_1300, end: THU_1300 + 60 * MIN });
    expect(record?.allocations.map((a) => a.resourceId.split("-")[0])).toEqual(["bay", "tech"]);
    const decoded = decodeHoldPayload(record?.payload ?? "");
    if (!decoded.ok) throw new Error(decoded.error.message);
    const payload = decoded.value;
    // The neutral contract, and the SchCP edge's record beside it: the offer's exact bytes.
    expect(schcpHold(payload.attachments)?.offer).toBe(h.offer);
    expect(schcpHold(payload.attachments)?.offerSha256).toBe(offerSha256(h.offer));
    expect(schcpHold(payload.attachments)?.hold).toEqual(h);
    expect(payload).toMatchObject({
      v: 2,
      contract: {
        kind: "booking",
        service: { id: "oil-change", name: "Synthetic oil change" },
        start: THU_1300,
        end: THU_1300 + 45 * MIN,
        partySize: 1,
        price: { minor: 7900, currency: "CAD" },
        total: { minor: 8927, currency: "CAD" },
        retention: "P365D",
      },
      agentKey: thumb(agent),
      principal: principalOf(principal),
    });
    expect(payload.callbackUrl).toBe("https://agent.example/hooks");
    expect(record?.owner.mandates).toEqual([]);
  });

  it("TTL = min(requested, policy max): a longer request gets the policy's PT10M", async () => {
    const { d, hold } = setup();
    const h = valueOf(await hold(await caller(), { ttl: "PT1H" }));
    expect(h.expires_at).toBe("2026-10-13T21:10:00Z");
    expect((await d.store.getHold(HOST, h.hold_id, NOW))?.ttlMs).toBe(10 * MIN);
    const none = valueOf(await hold(await caller({ jti: "m-2" }, otherPrincipal), { start: THU("15:00") }));
    expect(none.expires_at).toBe("2026-10-13T21:10:00Z");
  });

  it("a host_approval offer states approval_by: hold expiry + approval timeout, never past the start", async () => {
    const { hold } = setup(hostConfig({}, { confirmation: "host_approval", approval_timeout: "PT2H" }));
    const h = valueOf(await hold(await caller()));
    const soon = valueOf(await hold(await caller({ jti: "m-2" }), { start: "2026-10-13T17:00:00-04:00" }));
    const claims = (offer: string) =>
      JSON.parse(Buffer.from(offer.split(".")[1] ?? "", "base64url").toString()) as { approval_by?: string };
    expect(claims(h.offer).approval_by).toBe("2026-10-13T23:10:00Z");
    expect(claims(soon.offer).approval_by).toBe("2026-10-13T21:00:00Z");
  });

  it("§4.2 an open-ended hold has open_end and no end, and sets aside time until its bay closes", async () => {
    const { d, hold } = setup();
    const h = valueOf(await hold(await caller(), { service_id: "diagnosis", start: THU("09:00") }));
    expect(h.open_end).toBe(true);
    expect(h.end).toBeUndefined();
    expect(h.price).toBeUndefined();
    expect(validateSchcp("Hold", h).ok).toBe(true);
    expect((await d.store.getHold(HOST, h.hold_id, NOW))?.interval.end).toBe(at(THU("18:00")));
  });

  it("§5.2 selectable: the chosen resource is allocated and named in the hold and the offer", async () => {
    const { d, hold } = setup(hostConfig({}, {}, [{ service_id: "oil-change", selectable: true }]));
    const h = valueOf(await hold(await caller(), { resource: "tech-priya" }));
    expect(h).toMatchObject({ resource: "tech-priya", resource_name: "Priya" });
    expect((await d.store.getHold(HOST, h.hold_id, NOW))?.allocations.map((a) => a.resourceId)).toContain(
      "tech-priya",
    );
    const again = setup();
    refusalOf(
      await again.hold(await caller(), { resource: "tech-priya" }),
      "INVALID_REQUEST",
      "invalid_request",
    );
  });

  it("§5.2 place: carried for a service at the guest's, ignored at the host's", async () => {
    const { hold } = setup(
      hostConfig({}, { service_area: { country: "CA", postal_prefixes: ["M5"] } }, [
        { service_id: "mobile-tire-swap", location: "guest" },
      ]),
    );
    const place = { street: "1 King St W", postal_code: "M5H 1A1", country: "CA" };
    const h = valueOf(await hold(await caller(), { service_id: "mobile-tire-swap", place }));
    expect(h.place).toEqual(place);
    const atHost = valueOf(await hold(await caller({ jti: "m-2" }), { start: THU("15:00"), place }));
    expect(atHost.place).toBeUndefined();
  });

  it("§7.1 requires_mandate false: an anonymous hold belongs to its agent", async () => {
    const { d, hold } = setup(hostConfig({}, { holds: { requires_mandate: false } }));
    const h = valueOf(await hold({ agentKey: thumb(agent) }));
    expect((await d.store.getHold(HOST, h.hold_id, NOW))?.owner).toMatchObject({
      agentKey: thumb(agent),
      principal: null,
    });
  });

  it("§7.1 a mandate's max_bookings is counted by the store for every link", async () => {
    const { d, hold } = setup();
    const h = valueOf(await hold(await caller({ constraints: { max_bookings: 2 } })));
    expect((await d.store.getHold(HOST, h.hold_id, NOW))?.owner.mandates).toEqual([
      { rootIss: principalOf(principal), jti: "m-1", maxBookings: 2 },
    ]);
  });
});

describe("POST /holds: who, when and where refusals (§5.2), each with code, reason and basis", () => {
  const cases: Array<{
    name: string;
    config?: ReturnType<typeof hostConfig>;
    who?: () => Promise<SchcpCaller>;
    over?: Partial<HoldRequest>;
    setup?: (d: TestDeps) => Promise<void>;
    expect: [string, string, Record<string, unknown>?];
  }> = [
    {
      name: "§7.8 a principal not on a contacts-only host's list",
      config: hostConfig({}, { access: "contacts", contacts: [principalOf(otherPrincipal)] }),
      expect: ["NOT_PERMITTED", "not_a_contact", { policy: "access", access: "contacts" }],
    },
    {
      name: "§7.1 no mandate where holds require one",
      who: () => Promise.resolve({ agentKey: thumb(agent) }),
      expect: ["MANDATE_INVALID", "mandate_invalid", { policy: "holds.requires_mandate" }],
    },
    {
      name: "§5.2 eligibility returning, for a principal with no kept appointment",
      config: hostConfig({}, {}, [{ service_id: "oil-change", eligibility: { guest: "returning" } }]),
      expect: ["NOT_ELIGIBLE", "returning_guests_only", { policy: "eligibility", guest: "returning" }],
    },
    {
      name: "§5.2 eligibility new, for a principal who kept one",
      config: hostConfig({}, {}, [{ service_id: "oil-change", eligibility: { guest: "new" } }]),
      setup: (d) => makeProven(d),
      expect: ["NOT_ELIGIBLE", "new_guests_only", { policy: "eligibility", guest: "new" }],
    },
    {
      name: "§5.2 release schedule: Thursday opens Wednesday 10:00",
      config: hostConfig({}, {}, [
        { service_id: "oil-change", booking_window: { opens: { days_ahead: 1, at: "10:00" } } },
      ]),
      expect: [
        "OUTSIDE_BOOKING_WINDOW",
        "not_yet_released",
        { policy: "booking_window.opens", days_ahead: 1, at: "10:00" },
      ],
    },
    {
      name: "§5.2 min notice",
      config: hostConfig({}, {}, [{ service_id: "oil-change", booking_window: { min_notice: "PT2H" } }]),
      over: { start: "2026-10-13T17:15:00-04:00" },
      expect: [
        "OUTSIDE_BOOKING_WINDOW",
        "min_notice",
        { policy: "booking_window.min_notice", limit: "PT2H" },
      ],
    },
    {
      name: "a start in the past",
      over: { start: "2026-10-13T16:00:00-04:00" },
      expect: [
        "OUTSIDE_BOOKING_WINDOW",
        "min_notice",
        { policy: "booking_window.min_notice", limit: "PT0S" },
      ],
    },
    {
      name: "§5.2 max advance",
      config: hostConfig({}, {}, [{ service_id: "oil-change", booking_window: { max_advance: "P1D" } }]),
      expect: [
        "OUTSIDE_BOOKING_WINDOW",
        "max_advance",
        { policy: "booking_window.max_advance", limit: "P1D" },
      ],
    },
    {
      name: "§10 past the horizon",
      over: { start: "2026-11-16T13:00:00-05:00" },
      expect: ["SLOT_UNAVAILABLE", "availability_unknown", { policy: "horizon", limit: "P31D" }],
    },
    {
      name: "§5.2 place required at the guest's",
      config: hostConfig({}, {}, [{ service_id: "mobile-tire-swap", location: "guest" }]),
      over: { service_id: "mobile-tire-swap" },
      expect: [
        "OUT_OF_SERVICE_AREA",
        "place_required",
        { policy: "service.location", requires: ["postal_code", "country"] },
      ],
    },
    {
      name: "§5.2 outside the service area",
      config: hostConfig({}, { service_area: { country: "CA", postal_prefixes: ["M5"] } }, [
        { service_id: "mobile-tire-swap", location: "guest" },
      ]),
      over: { service_id: "mobile-tire-swap", place: { postal_code: "K1A 0B1", country: "CA" } },
      expect: [
        "OUT_OF_SERVICE_AREA",
        "outside_service_area",
        { policy: "service_area", country: "CA", postal_prefixes: ["M5"] },
      ],
    },
    {
      name: "§4.1 party size outside the range",
      config: hostConfig({}, {}, [{ service_id: "oil-change", party_size: { min: 1, max: 1 } }]),
      over: { party_size: 2 },
      expect: ["INVALID_REQUEST", "party_size", { policy: "party_size", min: 1, max: 1 }],
    },
    {
      name: "§3.3 check 5: hold not in the mandate's scope",
      who: () => caller({ scope: ["book"] }),
      expect: ["MANDATE_SCOPE", "not_in_scope", { scope: "hold" }],
    },
    {
      name: "§3.3 check 6: a service the mandate does not cover",
      who: () => caller({ constraints: { services: ["brake-inspection"] } }),
      expect: ["MANDATE_SCOPE", "service_not_allowed"],
    },
    {
      name: "§3.3 check 6: outside the mandate's window",
      who: () => caller({ constraints: { window: { not_after: THU("13:30") } } }),
      expect: ["MANDATE_LIMIT", "outside_window"],
    },
    {
      name: "§3.3 check 6: the all-in total above max_price (89.27 > 80.00)",
      who: () => caller({ constraints: { max_price: { amount: "80.00", currency: "CAD" } } }),
      expect: ["MANDATE_LIMIT", "over_max_price"],
    },
    {
      name: "§3.3 check 6 / §7.1: max_bookings already held",
      who: () => caller({ constraints: { max_bookings: 1 } }),
      setup: async (d) => {
        valueOf(
          await placeHold(
            d,
            HOST,
            await caller({ constraints: { max_bookings: 1 } }),
            body({ start: THU("15:00") }),
          ),
        );
      },
      expect: ["MANDATE_LIMIT", "max_bookings_reached", { constraint: "max_bookings", limit: 1 }],
    },
    {
      name: "an unknown service",
      over: { service_id: "tyre-rotation" },
      expect: ["NOT_FOUND", "not_found"],
    },
    {
      name: "a zero TTL",
      over: { ttl: "PT0S" },
      expect: ["INVALID_REQUEST", "invalid_request"],
    },
  ];

  it.each(cases)("$name", async (c) => {
    const { d, hold } = setup(c.config);
    await c.setup?.(d);
    const [code, reason, basis] = c.expect;
    const refusal = refusalOf(await hold(await (c.who ?? (() => caller()))(), c.over), code, reason, basis);
    // §9.2: every refusal carries the host's published contact.
    expect(refusal.remedies).toEqual(CONTACT);
  });

  it("the contacts-only check comes first: a non-contact with no mandate is not_a_contact", async () => {
    const { hold } = setup(hostConfig({}, { access: "contacts", contacts: [principalOf(principal)] }));
    refusalOf(await hold({ agentKey: thumb(agent) }), "NOT_PERMITTED", "not_a_contact");
    expect((await hold(await caller())).ok).toBe(true);
  });

  it("returning guests are admitted once they kept an appointment", async () => {
    const { d, hold } = setup(
      hostConfig({}, {}, [{ service_id: "oil-change", eligibility: { guest: "returning" } }]),
    );
    await makeProven(d);
    expect(
      (
        await hold(await caller(), {
          start: THU("16:00"),
        })
      ).ok,
    ).toBe(true);
  });

  it("a bad start names the field", async () => {
    const { hold } = setup();
    const r = refusalOf(
      await hold(await caller(), { start: "Thursday 1pm" }),
      "INVALID_REQUEST",
      "invalid_request",
    );
    expect(r.details).toEqual({ field: "/start" });
  });
});

describe("TTL = min(requested, policy max, reputation caps) (§5.2, §7.3)", () => {
  async function record(
    store: GatewayStore,
    kind: "agent" | "principal" | "attester",
    id: string,
    expired: number,
    kept: number,
  ) {
    for (let i = 0; i < expired; i++) await store.recordOutcome({ kind, id }, "expired", NOW);
    for (let i = 0; i < kept; i++) await store.recordOutcome({ kind, id }, "released", NOW);
  }

  it("an agent with ratio 0.6 is capped at 120 s, a principal with 0.8 at 60 s", async () => {
    const { d, hold } = setup();
    await record(d.store, "agent", thumb(agent), 3, 2);
    const h = valueOf(await hold(await caller(), { ttl: "PT5M" }));
    expect(h.expires_at).toBe("2026-10-13T21:02:00Z");
    await record(d.store, "principal", principalOf(otherPrincipal), 4, 1);
    const p = valueOf(
      await hold(await caller({}, otherPrincipal, otherAgent), { start: THU("15:00"), ttl: "PT5M" }),
    );
    expect(p.expires_at).toBe("2026-10-13T21:01:00Z");
  });

  it.each(["agent", "principal"] as const)(
    "a suspended %s (five straight expiries) is 429 HOLD_LIMIT holds_suspended",
    async (kind) => {
      const { d, hold } = setup();
      await record(d.store, kind, kind === "agent" ? thumb(agent) : principalOf(principal), 5, 0);
      const r = refusalOf(await hold(await caller()), "HOLD_LIMIT", "holds_suspended", {
        policy: "reputation",
        subject: kind,
      });
      expect(r.remedies).toEqual(CONTACT);
    },
  );

  it("§7.5 a suspended attester stops vouching; its vouchee falls back to the new-guest pool", async () => {
    const { d, hold } = setup();
    const who = { ...(await caller()), attester: "phonecheck.example" };
    const vouched = valueOf(await hold(who));
    expect((await d.store.getHold(HOST, vouched.hold_id, NOW))?.owner.attester).toBe("phonecheck.example");
    await record(d.store, "attester", "phonecheck.example", 5, 0);
    const fallback = valueOf(await hold(who, { start: THU("15:00") }));
    expect((await d.store.getHold(HOST, fallback.hold_id, NOW))?.owner.attester).toBeUndefined();
    expect(fallback.expires_at).toBe("2026-10-13T21:10:00Z");
  });
});

describe("the store's refusals (§4.1, §7.2)", () => {
  it("409 SLOT_UNAVAILABLE slot_taken with up to five alternatives, nearest first, priced", async () => {
    const { hold } = setup();
    valueOf(await hold(await caller()));
    valueOf(await hold(await caller({ jti: "m-2" }, otherPrincipal, otherAgent)));
    const r = refusalOf(await hold(await caller({ jti: "m-3" })), "SLOT_UNAVAILABLE", "slot_taken");
    const alternatives = r.details?.alternatives as Array<{ start: string; end: string; total: unknown }>;
    // Both bays are held 13:00–14:00 (45 min + 15 min buffer).
    expect(alternatives.map((a) => a.start)).toEqual([
      THU("12:00"),
      THU("14:00"),
      THU("11:45"),
      THU("14:15"),
      THU("11:30"),
    ]);
    for (const a of alternatives) expect(validateSchcp("Slot", a).ok).toBe(true);
    expect(alternatives[0]).toEqual({
      start: THU("12:00"),
      end: THU("12:45"),
      price: { amount: "79.00", currency: "CAD" },
      total: { amount: "89.27", currency: "CAD" },
    });
    expect(r.remedies).toEqual(CONTACT);
  });

  it("alternatives stay inside the mandate's window and the booking window", async () => {
    const { hold } = setup(
      hostConfig({}, {}, [{ service_id: "oil-change", booking_window: { min_notice: "PT2H" } }]),
    );
    valueOf(await hold(await caller()));
    valueOf(await hold(await caller({ jti: "m-2" }, otherPrincipal, otherAgent)));
    const windowed = await caller({
      jti: "m-3",
      constraints: { window: { not_before: THU("12:30"), not_after: THU("15:00") } },
    });
    const r = refusalOf(await hold(windowed), "SLOT_UNAVAILABLE", "slot_taken");
    // 12:00 starts before not_before; 14:15 ends at not_after, which is inclusive (§3.3).
    expect((r.details?.alternatives as Array<{ start: string }>).map((a) => a.start)).toEqual([
      THU("14:00"),
      THU("14:15"),
    ]);
  });

  it("a start gone upstream is slot_taken too, with the alternatives the upstream still has", async () => {
    const { hold, host } = setup();
    host.connector.gone.add(THU_1300);
    const r = refusalOf(await hold(await caller()), "SLOT_UNAVAILABLE", "slot_taken");
    expect((r.details?.alternatives as Array<{ start: string }>).map((a) => a.start)).toEqual([
      THU("12:45"),
      THU("13:15"),
      THU("12:30"),
      THU("13:30"),
      THU("12:15"),
    ]);
  });

  it("upstream trouble is 503 UPSTREAM_UNAVAILABLE", async () => {
    const { hold, host } = setup();
    host.connector.failWith = { code: "unavailable", message: "502" };
    refusalOf(await hold(await caller()), "UPSTREAM_UNAVAILABLE", "upstream_unavailable");
  });

  it("§7.2 walk-in reserve: 409 walk_in_reserve naming the reserve", async () => {
    const { hold } = setup(hostConfig({}, { walk_in_reserve: [{ resource_type: "bay", keep: 1 }] }));
    valueOf(await hold(await caller()));
    refusalOf(
      await hold(await caller({ jti: "m-2" }, otherPrincipal, otherAgent)),
      "SLOT_UNAVAILABLE",
      "walk_in_reserve",
      {
        policy: "walk_in_reserve",
        resource_type: "bay",
        keep: 1,
      },
    );
  });

  it("§7.2 max_active_per_agent: 429 HOLD_LIMIT agent_limit", async () => {
    const { hold } = setup(hostConfig({}, { holds: { max_active_per_agent: 1 } }));
    valueOf(await hold(await caller()));
    refusalOf(
      await hold(await caller({ jti: "m-2" }, otherPrincipal), { start: THU("15:00") }),
      "HOLD_LIMIT",
      "agent_limit",
      {
        policy: "holds.max_active_per_agent",
        limit: 1,
      },
    );
  });

  it("§7.2 max_active_unproven: 429 new_guest_pool_full with a retry hint; proven guests are unaffected", async () => {
    const { d, hold } = setup(hostConfig({}, { holds: { max_active_unproven: 1 } }));
    valueOf(await hold(await caller({}, otherPrincipal, otherAgent)));
    const r = refusalOf(
      await hold(await caller(), { start: THU("15:00") }),
      "HOLD_LIMIT",
      "new_guest_pool_full",
      {
        policy: "holds.max_active_unproven",
        limit: 1,
      },
    );
    expect(r.retryAfterMs).toBe(60_000);
    const proven = setup(hostConfig({}, { holds: { max_active_unproven: 1 } }));
    await makeProven(proven.d);
    valueOf(await proven.hold(await caller({}, otherPrincipal, otherAgent)));
    expect((await proven.hold(await caller({ jti: "m-2" }), { start: THU("15:00") })).ok).toBe(true);
    void d;
  });

  it("§7.7 a person's calendar's owner draws on no newcomer pool there (they may always book their own time); eligibility still reads kept appointments", async () => {
    const config = { ...hostConfig({}, { holds: { max_active_unproven: 1 } }), kind: "person" as const };
    const own = setup({ ...config, owner: principalOf(principal) });
    valueOf(await own.hold(await caller({}, otherPrincipal, otherAgent)));
    expect((await own.hold(await caller({ jti: "m-2" }), { start: THU("15:00") })).ok).toBe(true);
    // Someone else's calendar: the same two holds, and the second is a newcomer's.
    const other = setup({ ...config, owner: principalOf(otherAgent) });
    valueOf(await other.hold(await caller({}, otherPrincipal, otherAgent)));
    refusalOf(
      await other.hold(await caller({ jti: "m-2" }), { start: THU("15:00") }),
      "HOLD_LIMIT",
      "new_guest_pool_full",
      { policy: "holds.max_active_unproven", limit: 1 },
    );
  });
});

describe("createHold for change offers (§5.7, §5.8)", () => {
  it("a guest's change offer: kind change, booking_id and prev, the booking's retention, not counted against max_bookings", async () => {
    const { d, host } = setup();
    const prev = offerSha256("a.b.c");
    const created = valueOf(
      await createHold(d, host, {
        caller: coreCaller(d.store, host.config.id, await caller({ constraints: { max_bookings: 1 } })),
        serviceId: "oil-change",
        start: THU_1300,
        ttlMs: 5 * MIN,
        partySize: 1,
        kind: "change",
        bookingId: "b_1",
        proposalId: "p_1",
        by: "guest",
        overlapBookingId: "b_1",
        booking: bookingFor("b_1", prev),
        retentionOverride: "P30D",
      }),
    );
    const claims = schcpHold(created.payload.attachments)?.claims;
    if (claims === undefined) throw new Error("no SchCP offer");
    expect(claims).toMatchObject({ kind: "change", booking_id: "b_1", prev, retention: "P30D" });
    expect(claims.hold_id).toBeUndefined();
    expect(created.payload).toMatchObject({
      contract: { kind: "change", retention: "P30D" },
      bookingId: "b_1",
      proposalId: "p_1",
      by: "guest",
    });
    expect(created.record.owner.mandates).toEqual([]);
    // The guest asked for it: its lapse counts against them like any hold (§7.3).
    expect(created.record.owner.offeredByHost).toBeUndefined();
    expect(validateSchcp("OfferClaims", claims).ok).toBe(true);
  });

  it("a host's own change offer is held in the guest's name and marked the host's, so its lapse is none of theirs (§7.3)", async () => {
    const { d, host } = setup();
    const created = valueOf(
      await createHold(d, host, {
        caller: { agentKey: thumb(agent) },
        principal: principalOf(principal),
        serviceId: "oil-change",
        start: THU_1300,
        ttlMs: 5 * MIN,
        partySize: 1,
        kind: "change",
        bookingId: "b_1",
        proposalId: "p_2",
        by: "host",
        overlapBookingId: "b_1",
        booking: bookingFor("b_1", offerSha256("a.b.c")),
      }),
    );
    expect(created.record.owner).toMatchObject({ agentKey: thumb(agent), offeredByHost: true });
  });

  it("needs reschedule in scope, and a mandate at all", async () => {
    const { d, host } = setup();
    const params = {
      serviceId: "oil-change",
      start: THU_1300,
      ttlMs: 5 * MIN,
      partySize: 1,
      kind: "change" as const,
      bookingId: "b_1",
      by: "guest" as const,
      booking: bookingFor("b_1", null),
    };
    refusalOf(
      await createHold(d, host, {
        ...params,
        caller: coreCaller(d.store, host.config.id, await caller({ scope: ["hold", "book"] })),
      }),
      "MANDATE_SCOPE",
      "not_in_scope",
      { scope: "reschedule" },
    );
    refusalOf(
      await createHold(d, host, { ...params, caller: { agentKey: thumb(agent) } }),
      "MANDATE_INVALID",
      "mandate_invalid",
    );
  });

  it("a change offer counts against the agent's cap (§5.7)", async () => {
    const { d, host, hold } = setup(hostConfig({}, { holds: { max_active_per_agent: 1 } }));
    valueOf(await hold(await caller()));
    const r = await createHold(d, host, {
      caller: coreCaller(d.store, host.config.id, await caller({ jti: "m-2" })),
      serviceId: "oil-change",
      start: at(THU("15:00")),
      ttlMs: 5 * MIN,
      partySize: 1,
      kind: "change",
      bookingId: "b_1",
      by: "guest",
      booking: bookingFor("b_1", null),
    });
    refusalOf(r, "HOLD_LIMIT", "agent_limit");
  });

  it("a host's proposal is held for the booking's own principal when none is given", async () => {
    const { d, host, hold } = setup();
    const held = valueOf(await hold(await caller()));
    const begun = await d.store.beginConfirm(HOST, held.hold_id, NOW, 30_000);
    if (!begun.ok) throw new Error(begun.error.reason);
    await d.store.completeConfirm(
      HOST,
      held.hold_id,
      begun.value.fence,
      { bookingId: "b_7", payload: "{}" },
      NOW,
    );
    const created = valueOf(
      await createHold(d, host, {
        caller: { agentKey: thumb(agent) },
        serviceId: "oil-change",
        start: at(THU("15:00")),
        ttlMs: 30 * MIN,
        partySize: 1,
        kind: "change",
        bookingId: "b_7",
        by: "host",
        overlapBookingId: "b_7",
        booking: bookingFor("b_7", offerSha256(held.offer)),
      }),
    );
    expect(created.record.owner.principal).toBe(principalOf(principal));
    expect(created.payload.principal).toBe(principalOf(principal));
  });

  it("a host's proposal is the host's decision: no mandate, its own TTL, no booking window", async () => {
    const { d, host } = setup(
      hostConfig({}, {}, [{ service_id: "oil-change", booking_window: { min_notice: "P1D" } }]),
    );
    const created = valueOf(
      await createHold(d, host, {
        caller: { agentKey: thumb(agent) },
        principal: principalOf(principal),
        serviceId: "oil-change",
        start: NOW,
        ttlMs: 20 * MIN,
        partySize: 1,
        kind: "change",
        bookingId: "b_1",
        proposalId: "p_9",
        by: "host",
        booking: bookingFor("b_1", offerSha256("a.b.c")),
        retentionOverride: "P365D",
      }),
    );
    expect(created.record.ttlMs).toBe(20 * MIN);
    expect(created.record.owner).toMatchObject({ agentKey: thumb(agent), principal: principalOf(principal) });
    expect(created.payload.contract.approvalBy).toBeUndefined();
    expect(schcpHold(created.payload.attachments)?.claims.approval_by).toBeUndefined();
  });
});
