/**
 * SchCP §5.10 participants and reconfirmation, end to end over real HTTP on loopback with the
 * store on Redis: a required participant who accepts (confirmed), one who declines (declined,
 * the time free), one who never answers (the default at the deadline, run by the deadline
 * runner), a missed reconfirmation (expired, not_reconfirmed), and a tentative booking holding
 * its time against OSBP and A2A bookings (one core, every edge).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBookingReceipt, verifyHoldOffer, verifyParticipantBooking } from "../../src/agent/index.js";
import type { DiscoveredHost } from "../../src/agent/index.js";
import { extractApprovalToken } from "../../src/protocol/osbp/index.js";
import type { BookingResponse, ConfirmRequest } from "../../src/protocol/schcp/types.js";
import { instantToWallClock, parseInstant } from "../../src/protocol/time/index.js";
import { openRedis } from "../../src/redis/client.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import {
  discover,
  freeSlots,
  must,
  newAgent,
  openMandate,
  refusalOf,
  type E2eAgent,
} from "./support/agents.js";
import { defaultConfig, startGateway, type E2eGateway } from "./support/gateway.js";
import { CALLBACK_ORIGIN, startWebhookSink, type WebhookSink } from "./support/webhooks.js";

const FADES = "fades-on-queen";
const TZ = "America/Toronto";
const HOUR = 3_600_000;

let redis: TestRedis;
let prefix: string;
let gw: E2eGateway;
let sink: WebhookSink;
let fades: DiscoveredHost;
let slots: string[];

beforeAll(async () => {
  redis = await startTestRedis();
  prefix = uniquePrefix("participants");
  sink = await startWebhookSink();
  const config = defaultConfig();
  // harbourview-dental approves each booking itself; it takes participants too here.
  const dental = config.hosts.find((h) => h.id === "harbourview-dental");
  dental!.policies = { ...dental!.policies, tentative: { max_confirm_within: "PT12H" } };
  gw = await startGateway({
    config,
    redisUrl: redis.url,
    redisKeyPrefix: prefix,
    // The deadline runner is driven by the test (expireOverdue), as the maintenance job would.
    runtime: { webhookFetch: sink.transport, workers: { approvalsMs: 3_600_000 } },
  });
  fades = await discover(newAgent(gw), gw, FADES);
  slots = (await freeSlots(newAgent(gw), gw, fades, "haircut", { fromDays: 3, toDays: 10, limit: 200 }))
    .filter((s, i, all) => all.findIndex((x) => x.start === s.start) === i)
    .map((s) => s.start)
    .filter((_, i) => i % 4 === 0);
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await sink?.close();
  const admin = openRedis(redis.url);
  await dropPrefix(admin, prefix);
  await dropPrefix(admin, `{${prefix}`);
  await admin.quit();
  await redis?.stop();
});

const ms = (t: string) => {
  const r = parseInstant(t, "");
  if (!r.ok) throw new Error(t);
  return r.value.epochMs;
};

let next = 0;
const nextSlot = (): string => {
  const s = slots[next++];
  if (s === undefined) throw new Error("out of slots");
  return s;
};

/** The parent books `start` with barber-marcus, naming `participants`. */
async function bookWith(
  parent: E2eAgent,
  host: DiscoveredHost,
  serviceId: string,
  start: string,
  participants: ConfirmRequest["participants"],
  resource?: string,
): Promise<{ status: number; body: BookingResponse; offerSha256: string; mandate: string }> {
  const m = await openMandate(parent, host.hostId);
  const hold = must(
    await parent.client.hold(
      host,
      {
        service_id: serviceId,
        start,
        ...(resource !== undefined && { resource }),
        callback_url: `${CALLBACK_ORIGIN}/hooks/${parent.keyApp.principal.slice(-8)}`,
      },
      { mandate: m.compact },
    ),
    "hold",
  );
  const held = must(await verifyHoldOffer(hold.body, host), "verify hold");
  const reply = must(
    await parent.client.confirm(
      host,
      hold.body.hold_id,
      { offer_sha256: held.offer.sha256, ...(participants !== undefined && { participants }) },
      { mandate: m.compact },
    ),
    "confirm",
  );
  must(
    await verifyBookingReceipt(reply.body, host, { offerSha256: held.offer.sha256, mandateJti: m.jti }),
    "receipt",
  );
  return { status: reply.status, body: reply.body, offerSha256: held.offer.sha256, mandate: m.compact };
}

/** The participant's own mandate from their own key app (any scope, §5.10). */
const ownMandate = async (p: E2eAgent, hostId: string) =>
  (await p.keyApp.issueMandate({ agent: p.key, audience: hostId, scope: ["book"] })).compact;

describe("§5.10 participants on Redis, over HTTP", () => {
  it("§5.10: tentative (202) until the required participant accepts; named-only is not_required; accept → confirmed, sequence + 1, booking.response heard", async () => {
    const parent = newAgent(gw);
    const brother = newAgent(gw);
    const start = nextSlot();
    const before = gw.clock.now();
    const made = await bookWith(parent, fades, "haircut", start, [
      { who: brother.keyApp.principal, role: "invitee", relationship: "brother", confirm_within: "PT2H" },
      { name: "Mira", role: "attendee", relationship: "child" },
    ]);
    expect(made.status).toBe(202);
    const b = made.body.booking;
    expect(b.status).toBe("tentative");
    expect(b.event.status).toBe("tentative");
    const invitee = b.participants?.find((p) => p.who === brother.keyApp.principal);
    expect(invitee).toMatchObject({
      role: "invitee",
      relationship: "brother",
      status: "pending",
      default: "release",
    });
    // confirm_by: now + min(PT2H, max_confirm_within PT24H), before the start.
    expect(ms(invitee!.confirm_by!)).toBeGreaterThanOrEqual(
      Math.floor(before / 1000) * 1000 + 2 * HOUR - 1000,
    );
    expect(ms(invitee!.confirm_by!)).toBeLessThanOrEqual(gw.clock.now() + 2 * HOUR);
    expect(b.participants?.find((p) => p.name === "Mira")).toEqual({
      name: "Mira",
      role: "attendee",
      relationship: "child",
      status: "not_required",
    });
    const bookingId = b.booking_id;

    // §5.5: the participant reads it, with the contract as offer, and verifies it.
    const his = await ownMandate(brother, FADES);
    const read = must(await brother.client.getBooking(fades, bookingId, { mandate: his }), "read");
    const asked = must(await verifyParticipantBooking(read.body, fades, brother.keyApp.principal), "verify");
    expect(asked.offer.sha256).toBe(made.offerSha256);

    // The hash MUST be the booking's current offer_sha256.
    const wrong = refusalOf(
      await brother.client.respond(fades, bookingId, true, "A".repeat(43), { mandate: his }),
    );
    expect([wrong.status, wrong.code, wrong.reason]).toEqual([409, "CONTRACT_MISMATCH", "contract_mismatch"]);
    // Someone who is not a participant learns nothing.
    const stranger = newAgent(gw);
    const theirs = await ownMandate(stranger, FADES);
    expect(
      refusalOf(await stranger.client.respond(fades, bookingId, true, made.offerSha256, { mandate: theirs }))
        .status,
    ).toBe(404);
    expect(refusalOf(await stranger.client.getBooking(fades, bookingId, { mandate: theirs })).status).toBe(
      404,
    );

    const accepted = must(
      await brother.client.respond(fades, bookingId, true, made.offerSha256, { mandate: his }),
      "accept",
    );
    expect(accepted.body.booking).toMatchObject({ status: "confirmed", sequence: 1 });
    expect(accepted.body.booking.participants?.find((p) => p.who === brother.keyApp.principal)?.status).toBe(
      "accepted",
    );
    // The booker hears the answer, and the status change.
    await sink.waitFor((e) => e.type === "booking.response" && e.booking?.booking_id === bookingId);
    await sink.waitFor((e) => e.type === "booking.confirmed" && e.booking?.booking_id === bookingId);
  });

  it("§5.10: a decline makes it declined (participant_declined), frees the time, and the decliner can no longer read it", async () => {
    const parent = newAgent(gw);
    const friend = newAgent(gw);
    const start = nextSlot();
    const made = await bookWith(
      parent,
      fades,
      "haircut",
      start,
      [{ who: friend.keyApp.principal, role: "invitee" }],
      "barber-marcus",
    );
    const bookingId = made.body.booking.booking_id;
    // The tentative booking occupies its time: barber-marcus is not free at that start.
    const other = newAgent(gw);
    const om = await openMandate(other, FADES);
    const taken = await other.client.hold(
      fades,
      { service_id: "haircut", start, resource: "barber-marcus" },
      { mandate: om.compact },
    );
    expect(refusalOf(taken).code).toBe("SLOT_UNAVAILABLE");

    const his = await ownMandate(friend, FADES);
    const declined = must(
      await friend.client.respond(fades, bookingId, false, made.offerSha256, { mandate: his }),
      "decline",
    );
    expect(declined.body.booking.status).toBe("declined");
    expect(declined.body.booking.refusal).toMatchObject({ code: "DECLINED", reason: "participant_declined" });
    await sink.waitFor((e) => e.type === "booking.declined" && e.booking?.booking_id === bookingId);

    // §5.5 privacy: the participant who declined can no longer read it; the booker can.
    expect(refusalOf(await friend.client.getBooking(fades, bookingId, { mandate: his })).status).toBe(404);
    must(await parent.client.getBooking(fades, bookingId, { mandate: made.mandate }), "booker reads");
    // The time came free.
    must(
      await other.client.hold(
        fades,
        { service_id: "haircut", start, resource: "barber-marcus" },
        { mandate: om.compact },
      ),
      "hold the freed time",
    );
  });

  it("§5.10: nobody answers — at confirm_by the default release applies: expired, participant_did_not_answer, time free", async () => {
    const parent = newAgent(gw);
    const silent = newAgent(gw);
    const start = nextSlot();
    const made = await bookWith(
      parent,
      fades,
      "haircut",
      start,
      [{ who: silent.keyApp.principal, role: "invitee", confirm_within: "PT1H" }],
      "barber-jordan",
    );
    const bookingId = made.body.booking.booking_id;
    expect((await gw.runtime.service.expireOverdue(FADES)).participantsLapsed).not.toContain(bookingId);
    gw.clock.advance(HOUR + 1000);
    try {
      const report = await gw.runtime.service.expireOverdue(FADES);
      expect(report.participantsLapsed).toContain(bookingId);
      const after = must(
        await parent.client.getBooking(fades, bookingId, {
          mandate: (await openMandate(parent, FADES)).compact,
        }),
        "read",
      );
      expect(after.body.booking.status).toBe("expired");
      expect(after.body.booking.refusal).toMatchObject({
        code: "EXPIRED",
        reason: "participant_did_not_answer",
      });
      await sink.waitFor((e) => e.type === "booking.expired" && e.booking?.booking_id === bookingId);
      const other = newAgent(gw);
      const om = await openMandate(other, FADES);
      must(
        await other.client.hold(
          fades,
          { service_id: "haircut", start, resource: "barber-jordan" },
          { mandate: om.compact },
        ),
        "hold the freed time",
      );
    } finally {
      gw.clock.advance(-(HOUR + 1000));
    }
  });

  it("§5.10 reconfirmation: the booker is a required participant (booker); the booking stays confirmed; missed → expired not_reconfirmed, time free", async () => {
    const parent = newAgent(gw);
    const start = nextSlot();
    const made = await bookWith(parent, fades, "haircut", start, undefined, "barber-marcus");
    expect(made.status).toBe(201);
    const b = made.body.booking;
    expect(b.status).toBe("confirmed");
    expect(b.reconfirm).toMatchObject({ before: "PT24H", default: "release" });
    expect(ms(b.reconfirm!.confirm_by!)).toBe(ms(start) - 24 * HOUR);
    expect(b.participants).toEqual([
      {
        who: parent.keyApp.principal,
        role: "booker",
        confirm_by: b.reconfirm!.confirm_by,
        default: "release",
        status: "pending",
      },
    ]);
    const skip = ms(start) - 24 * HOUR - gw.clock.now() + 1000;
    gw.clock.advance(skip);
    try {
      const report = await gw.runtime.service.expireOverdue(FADES);
      expect(report.participantsLapsed).toContain(b.booking_id);
      const after = must(
        await parent.client.getBooking(fades, b.booking_id, {
          mandate: (await openMandate(parent, FADES)).compact,
        }),
        "read",
      );
      expect(after.body.booking.status).toBe("expired");
      expect(after.body.booking.refusal).toMatchObject({ code: "EXPIRED", reason: "not_reconfirmed" });
      const other = newAgent(gw);
      const om = await openMandate(other, FADES);
      must(
        await other.client.hold(
          fades,
          { service_id: "haircut", start, resource: "barber-marcus" },
          { mandate: om.compact },
        ),
        "hold the freed time",
      );
    } finally {
      gw.clock.advance(-skip);
    }
  });

  it("§5.10 reconfirmation: the booker reconfirms with respond accept:true under a management mandate; it stays confirmed", async () => {
    const parent = newAgent(gw);
    const start = nextSlot();
    const made = await bookWith(parent, fades, "haircut", start, undefined);
    const manage = (
      await parent.keyApp.issueMandate({ agent: parent.key, audience: FADES, scope: ["cancel"] })
    ).compact;
    const r = must(
      await parent.client.respond(fades, made.body.booking.booking_id, true, made.offerSha256, {
        mandate: manage,
      }),
      "reconfirm",
    );
    expect(r.body.booking.status).toBe("confirmed");
    expect(r.body.booking.sequence).toBe(0);
    expect(r.body.booking.participants?.[0]).toMatchObject({ role: "booker", status: "accepted" });
    await sink.waitFor(
      (e) => e.type === "booking.response" && e.booking?.booking_id === made.body.booking.booking_id,
    );
  });

  it("§5.10: a host without policies.tentative refuses required participants (501 UNSUPPORTED)", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, "maple-street-auto");
    expect(maple.document.capabilities).not.toContain("participants");
    expect(fades.document.capabilities).toContain("participants");
    expect(fades.document.policies["tentative"]).toEqual({ max_confirm_within: "PT24H" });
    expect(fades.document.policies["reconfirm"]).toEqual({ before: "PT24H", default: "release" });
    const [slot] = await freeSlots(agent, gw, maple, "oil-change");
    const m = await openMandate(agent, "maple-street-auto");
    const hold = must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start },
        { mandate: m.compact },
      ),
      "hold",
    );
    const held = must(await verifyHoldOffer(hold.body, maple), "verify");
    const refused = refusalOf(
      await agent.client.confirm(
        maple,
        hold.body.hold_id,
        {
          offer_sha256: held.offer.sha256,
          participants: [{ who: newAgent(gw).keyApp.principal, role: "invitee" }],
        },
        { mandate: m.compact },
      ),
    );
    expect([refused.status, refused.code]).toEqual([501, "UNSUPPORTED"]);
  });

  it("§5.10 at a host_approval host: pending_host first, the participant answers meanwhile, approval → confirmed", async () => {
    const parent = newAgent(gw);
    const sister = newAgent(gw);
    const dental = await discover(parent, gw, "harbourview-dental");
    const [slot] = await freeSlots(parent, gw, dental, "cleaning", { fromDays: 4 });
    const made = await bookWith(parent, dental, "cleaning", slot!.start, [
      { who: sister.keyApp.principal, role: "attendee" },
    ]);
    expect(made.status).toBe(202);
    expect(made.body.booking.status).toBe("pending_host");
    const hers = await ownMandate(sister, "harbourview-dental");
    const answered = must(
      await sister.client.respond(dental, made.body.booking.booking_id, true, made.offerSha256, {
        mandate: hers,
      }),
      "accept while pending",
    );
    expect(answered.body.booking.status).toBe("pending_host");
    const approved = await gw.runtime.service.approve("harbourview-dental", made.body.booking.booking_id);
    expect(approved.ok && approved.value.status).toBe("confirmed");
  });
});

describe("§5.10 one core, every edge: a tentative booking holds its time against OSBP and A2A", () => {
  it("OSBP booking.create and A2A book_session are refused at the tentative booking's time, and get it once it is declined", async () => {
    const parent = newAgent(gw);
    const friend = newAgent(gw);
    const start = nextSlot();
    const made = await bookWith(
      parent,
      fades,
      "haircut",
      start,
      [{ who: friend.keyApp.principal, role: "invitee" }],
      "barber-marcus",
    );
    expect(made.body.booking.status).toBe("tentative");

    const wall = instantToWallClock(ms(start), TZ);
    const pad = (n: number) => String(n).padStart(2, "0");
    const date = `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
    const osbp = await import("./support/osbp-in-process.js");
    const session = await osbp.osbpSession(gw, FADES);
    const create = async (key: string) => {
      const input = {
        idempotency_key: key,
        service_id: "haircut",
        schedule_id: FADES,
        provider_id: "barber-marcus",
        date,
        time: `${pad(wall.hour)}:${pad(wall.minute)}`,
        customer: { display_name: "Ada Lovelace", email: "ada@mail.example", phone: "+14165550100" },
        mandate: {
          id: `mnd_${key}`,
          expires_at: new Date(gw.clock.now() + 20 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          allowed_actions: ["booking.create"],
          organization_id: FADES,
          earliest_start: `${date}T00:00:00`,
          latest_end: `${date}T23:59:00`,
          max_price: { amount_minor: 1_000_000, currency: "CAD" },
        },
      };
      const first = await session.call("booking.create", input);
      if (first.ok || first.problem.code !== "requires_user_confirmation") return first;
      const token = extractApprovalToken(first.problem.message);
      return session.call("booking.create", { ...input, approval: { confirmed: true, token } });
    };
    const a2a = (i: number) =>
      gw.runtime.a2a!.run({
        hostId: FADES,
        intent: "book_session",
        origin: `198.51.100.${i}`,
        params: {
          clientEmail: `p-${i}@example.com`,
          serviceId: "haircut",
          providerId: "barber-marcus",
          scheduledAt: new Date(ms(start)).toISOString(),
        },
      });
    try {
      const refusedOsbp = await create("tentative-1");
      expect(refusedOsbp.ok).toBe(false);
      const refusedA2a = await a2a(1);
      expect(refusedA2a.httpStatus).not.toBe(201);

      const his = await ownMandate(friend, FADES);
      must(
        await friend.client.respond(fades, made.body.booking.booking_id, false, made.offerSha256, {
          mandate: his,
        }),
        "decline",
      );
      const booked = await create("tentative-2");
      expect(booked.ok, JSON.stringify(booked)).toBe(true);
    } finally {
      await session.close();
    }
  });
});
