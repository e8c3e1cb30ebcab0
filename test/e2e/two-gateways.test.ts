/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- JSON bodies read loosely in assertions */
/**
 * Two real gateways on loopback, one the other's Servicialo upstream: gateway A serves the
 * embedded hosts (Maple Street Auto, instant, 13% HST on every line; Harbourview Dental, which
 * approves each booking) and their Servicialo A2A edge; gateway B connects one host to each of
 * them with the Servicialo connector (`"type": "servicialo"`, baseUrl = A). What an agent or a
 * person is told at either gateway must be what the business records (docs/ARCHITECTURE.md, "Trust at the
 * seams"):
 *
 * - a booking the upstream holds for the business reads pending at both, over A2A (reply text
 *   and DataPart), OSBP (receipt and booking.status) and SchCP (202 pending_host), and B's
 *   discovery says the host approves each booking;
 * - the total shown before booking at B equals the total recorded at A, HST included;
 * - so it does for a service A surcharges after 16:00 (A's services rules, SchCP §5.2
 *   surcharges): at a 16:00 start and at a 10:00 one, over A2A, OSBP and SchCP at B, because A's
 *   A2A edge states each slot's all-in total and B quotes it (Servicialo v1.2.0's service
 *   `price` is a "Base price" and its slot has no price member; the edge adds one, and
 *   "Consumers MUST ignore fields they don't understand");
 * - a 15-minute reschedule (overlapping the session's own time) and a cancel by the guest
 *   round-trip, with cancelled_by "guest" at both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyHoldOffer, type DiscoveredHost } from "../../src/agent/index.js";
import { SERVICIALO_PLATFORM } from "../../src/connectors/servicialo/index.js";
import { createCoreAdapter } from "../../src/edges/osbp/adapter/index.js";
import { MemoryIdempotencyStore } from "../../src/edges/osbp/idempotency/memory.js";
import { extractApprovalToken, type AdapterResult, type Problem } from "../../src/protocol/osbp/index.js";
import { formatInstant, instantToWallClock } from "../../src/protocol/time/index.js";
import {
  DAY_MS,
  discover,
  freeSlots,
  must,
  newAgent,
  openMandate,
  operator,
  refusalOf,
} from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";

const GARAGE_A = "maple-street-auto";
const DENTAL_A = "harbourview-dental";
const GARAGE_B = "garage-via-a";
const DENTAL_B = "dental-via-a";
const MIN = 60_000;

let a: E2eGateway;
let b: E2eGateway;
let agent: E2eAgent;
let garage: DiscoveredHost;
let dental: DiscoveredHost;
let keyB: string;

const pad = (n: number) => String(n).padStart(2, "0");
const localDate = (ms: number, zone: string) => {
  const w = instantToWallClock(ms, zone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
};

/** The provider A's A2A edge books for a service (its availability answer names it). */
async function a2aProvider(
  hostId: string,
  serviceId: string,
  zone: string,
): Promise<{ id: string; name: string }> {
  for (let d = 2; d < 9; d++) {
    const date = localDate(Date.now() + d * DAY_MS, zone);
    const r = await fetch(
      `${a.origin}/api/servicialo/${hostId}/availability?serviceId=${serviceId}&date=${date}`,
    );
    const body = (await r.json()) as any;
    if (body.available_slots?.length > 0) return body.provider;
  }
  throw new Error(`no A2A availability at ${hostId}`);
}

function viaA(id: string, name: string, orgSlug: string, apiKey: string, zone: string, provider: object) {
  return {
    id,
    name,
    kind: "business",
    timezone: zone,
    connector: {
      type: "servicialo",
      settings: {
        baseUrl: a.origin,
        orgSlug,
        apiKey,
        timezone: zone,
        providers: [provider],
        fallbackClientEmail: "desk@business.example",
        // Servicialo's services list does not say what is paid up front (README).
        paymentRequirement: "none",
        timeoutMs: 10_000,
      },
    },
    // B's own policy is instant: whatever waits for the business does so at A.
    policies: { confirmation: "instant", retention: "P365D" },
    services: [],
  };
}

async function bookingsAt(gw: E2eGateway, hostId: string): Promise<any[]> {
  const r = await operator(gw, hostId, "/bookings");
  expect(r.status).toBe(200);
  return (r.json as { bookings: Array<{ booking: any }> }).bookings.map((x) => x.booking);
}

/** A's booking behind B's: the one at the same start (A's ids are its own). */
async function atA(hostId: string, start: string): Promise<any> {
  const found = (await bookingsAt(a, hostId)).filter((x) => Date.parse(x.start) === Date.parse(start));
  expect(found).toHaveLength(1);
  return found[0];
}

/**
 * A's garage surcharges a brake inspection that starts at or after 16:00 (20.00 CAD, taxed like
 * the service): 120.00 + 13% HST is 135.60 before, (120.00 + 20.00) + 13% is 158.20 from then.
 */
function upstreamConfig() {
  const config = defaultConfig();
  const garage = config.hosts.find((h) => h.id === GARAGE_A)!;
  // Every booking B makes reaches A from one origin as a newcomer's (Servicialo's book is
  // public): a raised new-guest pool, as the rules under test here are others.
  garage.policies = { ...garage.policies, public_booking: { max_per_host: 50, max_per_origin: 50 } };
  garage.services = [
    {
      service_id: "brake-inspection",
      surcharges: [
        {
          when: "after_hours",
          after: "16:00",
          label: "Late bay",
          amount: { amount: "20.00", currency: "CAD" },
        },
      ],
    },
  ];
  return config;
}

beforeAll(async () => {
  a = await startGateway({ config: upstreamConfig() });
  const keyGarage = await a.runtime.a2aKeys.issue(GARAGE_A);
  const keyDental = await a.runtime.a2aKeys.issue(DENTAL_A);
  const tech = await a2aProvider(GARAGE_A, "oil-change", "America/Toronto");
  const hygienist = await a2aProvider(DENTAL_A, "cleaning", "America/Vancouver");
  b = await startGateway({
    config: {
      hosts: [
        viaA(GARAGE_B, "Maple Street Auto (via A)", GARAGE_A, keyGarage, "America/Toronto", tech),
        viaA(DENTAL_B, "Harbourview Dental (via A)", DENTAL_A, keyDental, "America/Vancouver", hygienist),
      ],
    },
  });
  keyB = await b.runtime.a2aKeys.issue(GARAGE_B);
  agent = newAgent(b);
  garage = await discover(agent, b, GARAGE_B);
  dental = await discover(agent, b, DENTAL_B);
}, 120_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe(
  "a host that approves each booking, through a gateway whose upstream is this one",
  { timeout: 120_000 },
  () => {
    it("says so in B's discovery: SchCP policies.confirmation and the A2A card and services", async () => {
      expect(dental.document.policies.confirmation).toBe("host_approval");
      expect(garage.document.policies.confirmation).toBe("instant");
      const card = (await (
        await fetch(`${b.origin}/api/servicialo/${DENTAL_B}/.well-known/agent.json`)
      ).json()) as any;
      expect(card.metadata).toEqual({ confirmation: "host_approval" });
      const services = (await (await fetch(`${b.origin}/api/servicialo/${DENTAL_B}/services`)).json()) as any;
      expect(services.organization.confirmation).toBe("host_approval");
    });

    it("A2A at B: the booking reads pending in the text and the data, and is pending at both", async () => {
      const slot = (await freeSlots(agent, b, dental, "cleaning", { fromDays: 3 }))[0]!;
      const r = await fetch(`${b.origin}/api/servicialo/${DENTAL_B}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: {
            message: {
              role: "user",
              parts: [
                {
                  kind: "data",
                  data: {
                    intent: "book_session",
                    params: { serviceId: "cleaning", scheduledAt: slot.start },
                    client: { name: "Ana", lastName: "Rojas", email: "ana@mail.example" },
                  },
                },
              ],
            },
          },
        }),
      });
      const msg = ((await r.json()) as any).result;
      const data = msg.parts[1].data;
      expect(data.http_status).toBe(201);
      expect(data.result.session.status).toBe("pendiente_confirmacion");
      const local = formatInstant(Date.parse(slot.start), "America/Vancouver");
      // A DataPart carries no language: the reply is Spanish, the spec's default.
      expect(msg.parts[0].text).toBe(
        `Reserva solicitada, pendiente de confirmación por el negocio, de Cleaning and check-up para ${local} (America/Vancouver).`,
      );
      const atB = (await bookingsAt(b, DENTAL_B)).find((x) => x.booking_id === data.result.session.id);
      expect(atB).toMatchObject({ status: "pending_host", awaiting: "upstream" });
      expect(atB.approval_by).toBeUndefined();
      expect(await atA(DENTAL_A, slot.start)).toMatchObject({ status: "pending_host" });
    });

    it("SchCP at B: confirm answers 202 pending_host, pending at A too", async () => {
      const slot = (await freeSlots(agent, b, dental, "cleaning", { fromDays: 4 }))[2]!;
      const m = await openMandate(agent, DENTAL_B);
      const hold = must(
        await agent.client.hold(
          dental,
          { service_id: "cleaning", start: slot.start },
          { mandate: m.compact },
        ),
        "hold",
      );
      const held = must(await verifyHoldOffer(hold.body, dental), "verify offer");
      const reply = must(
        await agent.client.confirm(
          dental,
          hold.body.hold_id,
          { offer_sha256: held.offer.sha256 },
          { mandate: m.compact },
        ),
        "confirm",
      );
      expect(reply.status).toBe(202);
      expect(reply.body.booking.status).toBe("pending_host");
      expect(await atA(DENTAL_A, slot.start)).toMatchObject({ status: "pending_host" });
    });

    it("OSBP at B: the receipt says requested and booking.status is pending; pending at A", async () => {
      const adapter = createCoreAdapter({
        core: b.runtime.service,
        platform: SERVICIALO_PLATFORM,
        hostId: DENTAL_B,
        idempotency: new MemoryIdempotencyStore(),
        clock: b.clock,
        logger: { warn: () => undefined, error: () => undefined },
      });
      const date = localDate(b.clock.now() + 5 * DAY_MS, "America/Vancouver");
      const slots = valueOf(await adapter.findAvailability({ service_id: "cleaning", date }));
      const slot = slots[slots.length - 1];
      if (slot === undefined) return void expect.fail(`no OSBP slot on ${date}`);
      const time = slot.starts_at_local.split("T")[1] ?? "";
      const input = {
        idempotency_key: "two-gateways-osbp-1",
        service_id: "cleaning",
        schedule_id: slot.schedule_id,
        ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
        date,
        time: time.slice(0, 5),
        customer: { display_name: "Luis Vega", email: "luis@mail.example", phone: "+16045550100" },
        mandate: {
          id: "mnd_two_gateways_1",
          expires_at: new Date(b.clock.now() + 20 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
          allowed_actions: ["booking.create" as const],
          organization_id: slot.organization_id,
          earliest_start: `${date}T00:00:00`,
          latest_end: `${date}T23:59:00`,
          max_price: { amount_minor: 100_000, currency: "CAD" },
        },
      };
      const challenge = problemOf(await adapter.createBooking(input));
      expect(challenge.code).toBe("requires_user_confirmation");
      const token = extractApprovalToken(challenge.message)!;
      const receipt = valueOf(
        await adapter.createBooking({ ...input, approval: { confirmed: true, token } }),
      );
      expect(receipt.text).toMatch(/^Requested /);
      const status = valueOf(await adapter.getBooking({ booking_id: receipt.booking_id }));
      expect(status.status).toBe("pending");
      expect(await atA(DENTAL_A, slot.starts_at!)).toMatchObject({ status: "pending_host" });
    });
  },
);

describe("money, a move and a guest's cancel, gateway to gateway", { timeout: 120_000 }, () => {
  let start = "";
  let bookingId = "";

  it("the total shown before booking at B is the total A records, HST included", async () => {
    const services = (await (await fetch(`${b.origin}/api/servicialo/${GARAGE_B}/services`)).json()) as any;
    const oil = services.services.find((s: any) => s.id === "oil-change");
    expect(oil).toMatchObject({ price: "89.27", currency: "CAD" });

    const slots = await freeSlots(agent, b, garage, "oil-change", { fromDays: 3 });
    // A mid-morning start, so 15 minutes later is inside the garage's hours.
    const slot = slots.find((s) => instantToWallClock(Date.parse(s.start), "America/Toronto").hour === 10)!;
    start = slot.start;
    const m = await openMandate(agent, GARAGE_B);
    const hold = must(
      await agent.client.hold(garage, { service_id: "oil-change", start }, { mandate: m.compact }),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, garage), "verify offer");
    // What the agent shows its human before booking.
    expect(held.offer.claims.total).toEqual({ amount: "89.27", currency: "CAD" });
    const reply = must(
      await agent.client.confirm(
        garage,
        hold.body.hold_id,
        { offer_sha256: held.offer.sha256 },
        { mandate: m.compact },
      ),
      "confirm",
    );
    expect(reply.status).toBe(201);
    bookingId = reply.body.booking.booking_id;
    const recorded = await atA(GARAGE_A, start);
    expect(recorded.status).toBe("confirmed");
    expect(recorded.total).toEqual({ amount: "89.27", currency: "CAD" });
    const mine = (await bookingsAt(b, GARAGE_B)).find((x) => x.booking_id === bookingId);
    expect(mine.total).toEqual(recorded.total);
  });

  it("a reschedule by 15 minutes (overlapping its own time) moves the session at both", async () => {
    const later = formatInstant(Date.parse(start) + 15 * MIN, "America/Toronto");
    const r = await fetch(`${b.origin}/api/servicialo/${GARAGE_B}/sessions/${bookingId}/reschedule`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-org-api-key": keyB },
      body: JSON.stringify({ scheduledAt: later }),
    });
    const body = (await r.json()) as any;
    expect({ status: r.status, body }).toMatchObject({ status: 200, body: { status: "scheduled" } });
    expect(Date.parse(body.scheduledAt)).toBe(Date.parse(later));
    const mine = (await bookingsAt(b, GARAGE_B)).find((x) => x.booking_id === bookingId);
    expect(Date.parse(mine.start)).toBe(Date.parse(later));
    expect((await atA(GARAGE_A, later)).status).toBe("confirmed");
    start = later;
  });

  it("a cancel by the guest (SchCP at B) is the guest's at both", async () => {
    const m = await openMandate(agent, GARAGE_B);
    const r = must(await agent.client.cancel(garage, bookingId, {}, { mandate: m.compact }), "cancel");
    expect(r.body.booking.status).toBe("cancelled");
    const mine = (await bookingsAt(b, GARAGE_B)).find((x) => x.booking_id === bookingId);
    expect(mine).toMatchObject({ status: "cancelled", cancelled_by: "guest" });
    expect(await atA(GARAGE_A, start)).toMatchObject({ status: "cancelled", cancelled_by: "guest" });
  });
});

describe("a surcharge at some starts, gateway to gateway", { timeout: 120_000 }, () => {
  const ZONE = "America/Toronto";
  const SERVICE = "brake-inspection";
  const cases = [
    { hour: 16, total: "158.20", minor: 15_820, label: "a 16:00 start, surcharged at A" },
    { hour: 10, total: "135.60", minor: 13_560, label: "a 10:00 start, not surcharged" },
  ] as const;
  const cad = (amount: string) => ({ amount, currency: "CAD" });
  /**
   * The first start at hour:00 local that B offers over SchCP, past the days the tests above
   * book on (its slot, with the total it shows). A booked start is no longer offered, so each
   * test books its own.
   */
  async function startAt(hour: number): Promise<{ start: string; total?: unknown }> {
    const slots = await freeSlots(agent, b, garage, SERVICE, { fromDays: 6, toDays: 20, limit: 2_000 });
    const hit = slots.find((s) => {
      const w = instantToWallClock(Date.parse(s.start), ZONE);
      return w.hour === hour && w.minute === 0;
    });
    if (hit === undefined) throw new Error(`no ${hour}:00 start at ${GARAGE_B}`);
    return hit;
  }

  it("B's services list shows A's base amount, no surcharge in it", async () => {
    const services = (await (await fetch(`${b.origin}/api/servicialo/${GARAGE_B}/services`)).json()) as any;
    expect(services.services.find((s: any) => s.id === SERVICE)).toMatchObject({
      price: "135.60",
      currency: "CAD",
    });
  });

  it("a mandate's max_price binds the total A records: 140.00 CAD covers a 10:00 start, not a 16:00 one", async () => {
    const cap = { max_price: cad("140.00") };
    const late = await startAt(16);
    const lateMandate = await openMandate(agent, GARAGE_B, { constraints: cap });
    const refused = refusalOf(
      await agent.client.hold(
        garage,
        { service_id: SERVICE, start: late.start },
        { mandate: lateMandate.compact },
      ),
    );
    expect(refused).toMatchObject({ status: 403, code: "MANDATE_LIMIT", reason: "over_max_price" });
    const atLate = (await bookingsAt(a, GARAGE_A)).filter(
      (x) => Date.parse(x.start) === Date.parse(late.start),
    );
    expect(atLate).toHaveLength(0);

    const early = await startAt(10);
    const earlyMandate = await openMandate(agent, GARAGE_B, { constraints: cap });
    const hold = must(
      await agent.client.hold(
        garage,
        { service_id: SERVICE, start: early.start },
        { mandate: earlyMandate.compact },
      ),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, garage), "verify offer");
    expect(held.offer.claims.total).toEqual(cad("135.60"));
    must(
      await agent.client.releaseHold(garage, hold.body.hold_id, { mandate: earlyMandate.compact }),
      "release",
    );
  });

  for (const c of cases) {
    it(`SchCP at B, ${c.label}: slot total = offer total = A's record`, async () => {
      const slot = await startAt(c.hour);
      expect(slot.total).toEqual(cad(c.total));
      const m = await openMandate(agent, GARAGE_B);
      const hold = must(
        await agent.client.hold(garage, { service_id: SERVICE, start: slot.start }, { mandate: m.compact }),
        "hold",
      );
      const held = must(await verifyHoldOffer(hold.body, garage), "verify offer");
      expect(held.offer.claims.total).toEqual(cad(c.total));
      const reply = must(
        await agent.client.confirm(
          garage,
          hold.body.hold_id,
          { offer_sha256: held.offer.sha256 },
          { mandate: m.compact },
        ),
        "confirm",
      );
      expect(reply.status).toBe(201);
      expect((await atA(GARAGE_A, slot.start)).total).toEqual(cad(c.total));
      const mine = (await bookingsAt(b, GARAGE_B)).find(
        (x) => x.booking_id === reply.body.booking.booking_id,
      );
      expect(mine.total).toEqual(cad(c.total));
      // A's book answer states what A recorded: B keeps it, the same, and raises nothing.
      expect(mine.upstream_total).toEqual(cad(c.total));
      expect(mine.attention).toBeUndefined();
    });

    it(`A2A at B, ${c.label}: the slot's price = the booked session's = A's record`, async () => {
      const { start } = await startAt(c.hour);
      const date = localDate(Date.parse(start), ZONE);
      const r = await fetch(
        `${b.origin}/api/servicialo/${GARAGE_B}/availability?serviceId=${SERVICE}&date=${date}`,
      );
      const body = (await r.json()) as any;
      const shown = body.available_slots.find((s: any) => Date.parse(s.start) === Date.parse(start));
      expect(shown).toMatchObject({ price: c.total, currency: "CAD" });
      const booked = await fetch(`${b.origin}/api/servicialo/${GARAGE_B}/book`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          serviceId: SERVICE,
          scheduledAt: shown.start,
          clientEmail: `brakes-${c.hour}@mail.example`,
          clientName: "Rosa",
        }),
      });
      const answer = (await booked.json()) as any;
      expect(booked.status).toBe(201);
      expect(answer.session).toMatchObject({ price: c.total, currency: "CAD" });
      expect((await atA(GARAGE_A, start)).total).toEqual(cad(c.total));
    });

    it(`OSBP at B, ${c.label}: slot price = approval summary = A's record`, async () => {
      const { start } = await startAt(c.hour);
      const date = localDate(Date.parse(start), ZONE);
      const adapter = createCoreAdapter({
        core: b.runtime.service,
        platform: SERVICIALO_PLATFORM,
        hostId: GARAGE_B,
        idempotency: new MemoryIdempotencyStore(),
        clock: b.clock,
        logger: { warn: () => undefined, error: () => undefined },
      });
      const slots = valueOf(await adapter.findAvailability({ service_id: SERVICE, date }));
      const slot = slots.find(
        (s) => s.starts_at !== undefined && Date.parse(s.starts_at) === Date.parse(start),
      );
      if (slot === undefined) return void expect.fail(`no OSBP slot at ${start}`);
      expect(slot.price).toMatchObject({ amount_minor: c.minor, currency: "CAD" });
      const input = {
        idempotency_key: `two-gateways-brakes-${c.hour}`,
        service_id: SERVICE,
        schedule_id: slot.schedule_id,
        ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
        date,
        time: `${pad(c.hour)}:00`,
        customer: { display_name: "Ines Park", email: "ines@mail.example", phone: "+14165550100" },
        mandate: {
          id: `mnd_two_gateways_brakes_${c.hour}`,
          expires_at: new Date(b.clock.now() + 30 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
          allowed_actions: ["booking.create" as const],
          organization_id: slot.organization_id,
          earliest_start: `${date}T00:00:00`,
          latest_end: `${date}T23:59:00`,
          max_price: { amount_minor: 100_000, currency: "CAD" },
        },
      };
      const challenge = problemOf(await adapter.createBooking(input));
      expect(challenge.code).toBe("requires_user_confirmation");
      expect(challenge.message).toContain(`CAD ${c.total}`);
      const token = extractApprovalToken(challenge.message)!;
      const receipt = valueOf(
        await adapter.createBooking({ ...input, approval: { confirmed: true, token } }),
      );
      expect(receipt.text).toMatch(/^Booked /);
      expect((await atA(GARAGE_A, start)).total).toEqual(cad(c.total));
    });
  }
});

function valueOf<T>(r: AdapterResult<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.problem)}`);
  return r.value;
}
function problemOf(r: AdapterResult<unknown>): Problem {
  if (r.ok) throw new Error(`expected a problem, got ${JSON.stringify(r.value)}`);
  return r.problem;
}
