/**
 * Counters (SchCP §5.11) end to end over real HTTP on Redis: the real gateway on loopback with
 * its store on Redis (a key prefix of its own), agents on the SDK, the host on the operator API,
 * and an OSBP agent host on the same core (the MCP tools in process).
 *
 * - A counter with another start, accepted: the booking is confirmed at the new time with the
 *   host's answer, its old time is free again; while it was open, its held time was refused to
 *   an OSBP booking (one core, every edge).
 * - A counter with another place (and time), declined: the booking is still pending_host, the
 *   counter's held time is free, and the host then approves the original terms.
 *
 * harbourview-dental (two hygienists) approves each booking; fades-on-queen is made to approve
 * each booking too, its consultation held where the guest says (location "elsewhere").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyHostProposal } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { extractApprovalToken, type Slot as OsbpSlot } from "../../src/protocol/osbp/index.js";
import { openRedis, type RedisClient } from "../../src/redis/client.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { instantToWallClock, parseInstant } from "../../src/protocol/time/index.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import {
  DAY_MS,
  discover,
  freeSlots,
  holdAndBook,
  must,
  newAgent,
  openMandate,
  operator,
} from "./support/agents.js";
import type { E2eAgent } from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";
import { osbpSession } from "./support/osbp-in-process.js";

const DENTAL = "harbourview-dental";
const FADES = "fades-on-queen";
const PARK = { name: "Trinity Bellwoods Park", locality: "Toronto", country: "CA" };
const CAFE = { name: "Café Pamenar", locality: "Toronto", country: "CA" };

let redis: TestRedis;
let raw: RedisClient;
let gw: E2eGateway;
const P = uniquePrefix("counters");

beforeAll(async () => {
  redis = await startTestRedis();
  raw = openRedis(redis.url);
  const config = defaultConfig();
  const fades = config.hosts.find((h) => h.id === FADES);
  if (fades === undefined) throw new Error("no fades");
  fades.policies = { ...fades.policies, confirmation: "host_approval" };
  fades["services"] = [
    { service_id: "haircut", selectable: true },
    { service_id: "consultation", selectable: true, location: "elsewhere" },
  ];
  gw = await startGateway({ config, redisUrl: redis.url, redisKeyPrefix: P, runtime: { workers: false } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  if (raw !== undefined) {
    await dropPrefix(raw, P);
    raw.disconnect();
  }
  await redis?.stop();
});

const ms = (t: string) => {
  const r = parseInstant(t, "");
  if (!r.ok) throw new Error(t);
  return r.value.epochMs;
};

/** Another agent's hold at `start`; refused holds answer undefined. */
async function holdAt(host: DiscoveredHost, serviceId: string, start: string, place?: object) {
  const other = newAgent(gw);
  const m = await openMandate(other, host.hostId);
  const r = await other.client.hold(
    host,
    { service_id: serviceId, start, ...(place !== undefined && { place }) },
    { mandate: m.compact },
  );
  if (!r.ok) {
    expect(r.error.refusal).toMatchObject({ code: "SLOT_UNAVAILABLE" });
    return undefined;
  }
  return { agent: other, mandate: m, hold: r.value.body };
}

async function readVerified(agent: E2eAgent, host: DiscoveredHost, id: string, mandate: string) {
  const read = must(await agent.client.getBooking(host, id, { mandate }), "read");
  return must(await verifyBookingReceipt(read.body, host, { bookingId: id }), "verify receipt");
}

const pad = (n: number) => String(n).padStart(2, "0");

describe("§5.11 counters over HTTP on Redis", { timeout: 60_000 }, () => {
  it("§5.11 e2e: a counter with another start, accepted: confirmed at the new time, answer by the host, the old time free; its held time refused to an OSBP booking", async () => {
    const agent = newAgent(gw);
    const dental = await discover(agent, gw, DENTAL);
    const slots = await freeSlots(agent, gw, dental, "cleaning", { fromDays: 3, toDays: 4 });
    const [a, b] = [slots[0]!, slots[slots.length - 1]!];
    const booked = await holdAndBook(agent, dental, "cleaning", a.start);
    const id = booked.booking.booking.booking_id;
    expect(booked.reply.status).toBe(202);
    // The other hygienist at both times: each is then free only as this booking or its counter leaves it.
    expect(await holdAt(dental, "cleaning", a.start)).toBeDefined();
    expect(await holdAt(dental, "cleaning", b.start)).toBeDefined();

    // OSBP's own view of the counter's time, while it is still free.
    const osbp = await osbpSession(gw, DENTAL);
    try {
      const w = instantToWallClock(ms(b.start), "America/Vancouver");
      const date = `${w.year}-${pad(w.month)}-${pad(w.day)}`;
      const time = `${pad(w.hour)}:${pad(w.minute)}`;
      const found = await osbp.call<OsbpSlot[]>("availability.find", { service_id: "cleaning", date });
      if (!found.ok) throw new Error(found.problem.code);
      const slot = found.value.find(
        (s) => s.starts_at_local.endsWith(`T${time}:00`) || s.starts_at_local.includes(`T${time}`),
      );
      if (slot === undefined) throw new Error(`OSBP offers no ${date} ${time}`);

      const countered = await operator(gw, DENTAL, `/bookings/${id}/counter`, { start: b.start });
      expect(countered.status).toBe(200);
      expect(countered.json).toMatchObject({
        booking: { status: "pending_host", sequence: 0, proposal: { by: "host" } },
      });

      // Cross-edge: the counter holds its time on every edge.
      const input = {
        idempotency_key: "osbp-counter-1",
        service_id: "cleaning",
        schedule_id: slot.schedule_id,
        date,
        time,
        customer: { display_name: "Ada Lovelace", email: "ada@mail.example", phone: "+16045550100" },
        mandate: {
          id: "mnd_counter_1",
          expires_at: new Date(gw.clock.now() + 20 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, "Z"),
          allowed_actions: ["booking.create"],
          organization_id: slot.organization_id,
          earliest_start: `${date}T00:00:00`,
          latest_end: `${date}T23:59:00`,
          max_price: { amount_minor: 1_000_000, currency: "CAD" },
        },
      };
      // Refused at once (the slot is no longer offered), or at the approved retry: never booked.
      let refused = await osbp.call("booking.create", input);
      if (!refused.ok && refused.problem.code === "requires_user_confirmation") {
        const token = extractApprovalToken(refused.problem.message);
        refused = await osbp.call("booking.create", { ...input, approval: { confirmed: true, token } });
      }
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.problem.code).toBe("slot_taken");
    } finally {
      await osbp.close();
    }

    // The guest reads the counter and accepts it through the SDK.
    const seen = await readVerified(agent, dental, id, booked.mandate.compact);
    expect(seen.booking).toMatchObject({ status: "pending_host", sequence: 0 });
    const counter = must(await verifyHostProposal(seen, dental), "verify counter");
    expect(counter).toMatchObject({ counter: true, proposal: { by: "host" } });
    expect(ms(counter!.proposal.start)).toBe(ms(b.start));
    const accepted = must(
      await agent.client.acceptProposal(dental, seen.booking, { mandate: booked.mandate.compact }),
      "accept",
    );
    const done = must(
      await verifyBookingReceipt(accepted.body, dental, { bookingId: id, offerSha256: counter!.sha256 }),
      "receipt",
    );
    expect(done.booking).toMatchObject({ status: "confirmed", sequence: 1, answer: { by: "host" } });
    expect(ms(done.booking.start)).toBe(ms(b.start));
    expect(done.booking.proposal).toBeUndefined();

    // The old time is free again; the new one is the booking's.
    expect(await holdAt(dental, "cleaning", a.start)).toBeDefined();
    expect(await holdAt(dental, "cleaning", b.start)).toBeUndefined();
    const listed = (await operator(gw, DENTAL, "/bookings")).json as {
      bookings: Array<{ booking: { booking_id: string; status: string; answer?: { by: string } } }>;
    };
    expect(listed.bookings.find((x) => x.booking.booking_id === id)?.booking).toMatchObject({
      status: "confirmed",
      answer: { by: "host" },
    });
  });

  it("§5.11 e2e: a counter with another place, declined: still pending_host, the counter's held time free, then approved at the original terms", async () => {
    const agent = newAgent(gw);
    const fades = await discover(agent, gw, FADES);
    const slots = await freeSlots(agent, gw, fades, "consultation", { fromDays: 3, toDays: 5 });
    const [a, b] = [slots[0]!, slots[slots.length - 1]!];
    const m = await openMandate(agent, FADES);
    const hold = must(
      await agent.client.hold(
        fades,
        { service_id: "consultation", start: a.start, place: CAFE },
        { mandate: m.compact },
      ),
      "hold",
    );
    const confirmed = must(
      await agent.client.confirm(
        fades,
        hold.body.hold_id,
        { offer_sha256: offerSha256(hold.body.offer) },
        { mandate: m.compact },
      ),
      "confirm",
    );
    expect(confirmed.status).toBe(202);
    const id = confirmed.body.booking.booking_id;
    const approvalBy = confirmed.body.booking.approval_by;

    const countered = await operator(gw, FADES, `/bookings/${id}/counter`, { start: b.start, place: PARK });
    expect(countered.status).toBe(200);
    // Every other barber at b taken: b is then free only as the counter leaves it.
    while ((await holdAt(fades, "consultation", b.start, CAFE)) !== undefined);
    const seen = await readVerified(agent, fades, id, m.compact);
    const counter = must(await verifyHostProposal(seen, fades), "verify counter");
    expect(counter?.proposal.place).toEqual(PARK);
    expect(counter?.offer.claims.place).toEqual(PARK);
    expect(await holdAt(fades, "consultation", b.start, CAFE)).toBeUndefined();

    const declined = must(
      await agent.client.declineProposal(fades, seen.booking, { mandate: m.compact }),
      "decline",
    );
    const after = must(await verifyBookingReceipt(declined.body, fades, { bookingId: id }), "receipt");
    expect(after.booking).toMatchObject({
      status: "pending_host",
      sequence: 0,
      place: CAFE,
      approval_by: approvalBy,
    });
    expect(after.booking.proposal).toBeUndefined();
    expect(await holdAt(fades, "consultation", b.start, CAFE)).toBeDefined();

    const approved = await operator(gw, FADES, `/bookings/${id}/approve`, {});
    expect(approved.status).toBe(200);
    const final = await readVerified(agent, fades, id, m.compact);
    expect(final.booking).toMatchObject({
      status: "confirmed",
      sequence: 0,
      place: CAFE,
      answer: { by: "host" },
    });
    expect(ms(final.booking.start)).toBe(ms(a.start));
  });
});
