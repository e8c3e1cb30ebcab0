/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON bodies read loosely in assertions */
/**
 * One core, three edges, on a real gateway over loopback: the
 * A2A REST edge and SchCP (signed requests from the agent SDK) book the same barber's time at
 * Fades on Queen, whose barbers are selectable (so a SchCP hold can name the very provider A2A
 * books by default, barber-marcus):
 *
 * (a) a live SchCP hold refuses an A2A booking of that barber and time, 409 SLOT_CONFLICT, with
 *     nothing booked; once the hold is released (or has expired) the A2A booking goes through;
 * (b) a booking made over A2A is in the operator API's bookings, and its time is taken in
 *     SchCP availability for that barber;
 * (c) a booking confirmed over SchCP takes the slot out of A2A availability.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyHoldOffer, type DiscoveredHost } from "../../src/agent/index.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import { DAY_MS, discover, must, newAgent, openMandate, operator, type E2eAgent } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";

const HOST = "fades-on-queen";
const TZ = "America/Toronto";
const MARCUS = "barber-marcus";
let gw: E2eGateway;
let agent: E2eAgent;
let host: DiscoveredHost;
let slots: string[];

const api = (path: string) => `${gw.origin}/api/servicialo/${HOST}/${path}`;
async function a2aBook(start: string, email: string) {
  const r = await fetch(api("book"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ clientEmail: email, serviceId: "haircut", scheduledAt: start }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}
async function a2aSlots(date: string): Promise<string[]> {
  const r = await fetch(api(`availability?serviceId=haircut&date=${date}`));
  expect(r.status).toBe(200);
  const body = (await r.json()) as Record<string, any>;
  expect(body.provider.id).toBe(MARCUS);
  return body.available_slots.map((s: any) => s.start);
}
/** SchCP availability for barber-marcus on the day of `iso`, as UTC instants. */
async function schcpMarcus(iso: string): Promise<number[]> {
  const day = Date.parse(iso);
  const r = await agent.client.availability(host, {
    service_id: "haircut",
    window: { start: formatInstant(day - 6 * 3_600_000, TZ), end: formatInstant(day + 6 * 3_600_000, TZ) },
    constraints: { resource: MARCUS },
    limit: 200,
  });
  return must(r, "schcp availability").body.slots.map((s) => Date.parse(s.start));
}
async function bookingsAt(iso: string) {
  const listed = await gw.runtime.service.listBookings(HOST);
  if (!listed.ok) throw new Error("listBookings");
  return listed.value.filter(
    (b) => b.start === Date.parse(iso) && b.resourceIds.includes(MARCUS) && b.status !== "cancelled",
  );
}
async function schcpHold(start: string, ttl?: string) {
  const m = await openMandate(agent, HOST);
  const hold = must(
    await agent.client.hold(
      host,
      {
        service_id: "haircut",
        start: formatInstant(Date.parse(start), TZ),
        resource: MARCUS,
        ...(ttl !== undefined && { ttl }),
      },
      { mandate: m.compact },
    ),
    "schcp hold",
  );
  return { hold: hold.body, mandate: m };
}

/** The next local date at Fades (open Tue–Sat) with this ISO weekday, at least two days ahead. */
function nextWeekday(iso: number): string {
  for (let d = 2; d < 10; d++) {
    const s = new Date(Date.now() + d * DAY_MS).toLocaleDateString("en-CA", { timeZone: TZ });
    if ((new Date(`${s}T12:00:00Z`).getUTCDay() || 7) === iso) return s;
  }
  throw new Error("unreachable");
}

beforeAll(async () => {
  gw = await startGateway();
  agent = newAgent(gw);
  host = await discover(agent, gw, HOST);
  slots = await a2aSlots(nextWeekday(3));
  expect(slots.length).toBeGreaterThan(10);
}, 60_000);
afterAll(async () => gw?.close());

describe("A2A and SchCP over one core", { timeout: 60_000 }, () => {
  it("(a) a SchCP hold on the barber refuses the A2A booking 409 SLOT_CONFLICT; released, A2A books", async () => {
    const t = slots[0]!;
    const { hold, mandate } = await schcpHold(t);
    expect(hold.status).toBe("held");
    const refused = await a2aBook(t, "ana@mail.com");
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "Provider already has a session at this time",
      code: "SLOT_CONFLICT",
    });
    expect(await bookingsAt(t)).toEqual([]);
    expect(await a2aSlots(nextWeekday(3))).not.toContain(t);

    must(await agent.client.releaseHold(host, hold.hold_id, { mandate: mandate.compact }), "release");
    const booked = await a2aBook(t, "ana@mail.com");
    expect(booked.status).toBe(201);
    expect(await bookingsAt(t)).toHaveLength(1);
  });

  it("(a) an expired SchCP hold no longer blocks", async () => {
    const t = slots[4]!;
    await schcpHold(t, "PT1M");
    expect((await a2aBook(t, "luis@mail.com")).status).toBe(409);
    gw.clock.advance(2 * 60_000);
    const booked = await a2aBook(t, "luis@mail.com");
    expect(booked.status).toBe(201);
  });

  it("(b) an A2A booking is in the operator API and taken in SchCP availability", async () => {
    const t = slots[8]!;
    expect(await schcpMarcus(t)).toContain(Date.parse(t));
    const booked = await a2aBook(t, "sofia@mail.com");
    expect(booked.status).toBe(201);
    const id = booked.body.session.id as string;

    const ops = await operator(gw, HOST, "/bookings");
    expect(ops.status).toBe(200);
    const listed = (ops.json as { bookings: Array<{ booking: any }> }).bookings
      .map((b) => b.booking)
      .find((b) => b.booking_id === id);
    expect(listed).toBeDefined();
    expect(listed.status).toBe("confirmed");
    expect(listed.resources).toContain(MARCUS);
    expect(Date.parse(listed.start)).toBe(Date.parse(t));
    // No edge keeps a record of its own for an A2A booking (edges lists those that do, e.g.
    // "schcp"); the principal says where it came from: a hash of the contact, never the email.
    expect(listed.edges).toEqual([]);
    expect(listed.principal).toMatch(/^a2a:[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(listed)).not.toContain("sofia@mail.com");

    expect(await schcpMarcus(t)).not.toContain(Date.parse(t));
  });

  it("(c) a booking confirmed over SchCP drops the slot from A2A availability", async () => {
    const t = slots[12]!;
    const { hold, mandate } = await schcpHold(t);
    const held = must(await verifyHoldOffer(hold, host), "verify offer");
    must(
      await agent.client.confirm(
        host,
        hold.hold_id,
        { offer_sha256: held.offer.sha256 },
        { mandate: mandate.compact },
      ),
      "confirm",
    );
    expect(await bookingsAt(t)).toHaveLength(1);
    expect(await a2aSlots(nextWeekday(3))).not.toContain(t);
    expect((await a2aBook(t, "late@mail.com")).status).toBe(409);
  });
});
