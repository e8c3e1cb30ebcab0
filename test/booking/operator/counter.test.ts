/**
 * Counters (SchCP §5.11), rule by rule, through the booking service in process: the embedded
 * default's hosts on the synthetic connector, the real hold engine (so the counter's change
 * offer is signed and holds real time), one MemoryHoldStore. The dentist approves each booking
 * (host_approval); variants of it come to the guest (service location "guest"), are a person's
 * calendar (kind "person"), or ask for the principal's signature on every offer
 * (closed_mandate "always").
 */
import { describe, expect, it } from "vitest";
import type { OutboundEvent } from "../../../src/booking/api.js";
import type { HostConfig } from "../../../src/booking/api.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import {
  buildHostRuntime,
  createHostDirectory,
  embeddedDefaultHosts,
} from "../../../src/booking/hosts/index.js";
import { createBookingService } from "../../../src/gateway/booking-service.js";
import { SYNTHETIC_SCENARIOS, createSyntheticConnector } from "../../../src/connectors/synthetic/index.js";
import type { SyntheticConnector } from "../../../src/connectors/synthetic/index.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../../src/protocol/schcp/mandate/index.js";
import type { SigningKey } from "../../../src/protocol/schcp/mandate/index.js";
import type { MandateConstraints } from "../../../src/protocol/schcp/types.js";
import type { HostRuntime } from "../../../src/booking/api.js";
import { loadBooking } from "../../../src/booking/bookings/store.js";
import { offerSha256, verifyOffer } from "../../../src/protocol/schcp/offer/index.js";
import type { BookingResponse, Proposal } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { parseInstant } from "../../../src/protocol/time/index.js";
import { refusalOf } from "../bookings/world.js";

/** Monday 2030-01-07, 09:00 in Toronto (06:00 in Vancouver, where the dentist is). */
const NOW = Date.UTC(2030, 0, 7, 14, 0);
const MIN = 60_000;
const DENTAL = "harbourview-dental";
const MOBILE = "mobile-dental";
const PERSON = "dana-cleanings";
const CLOSED = "closed-dental";
/** Tuesday in Vancouver. */
const AT = (hhmm: string) => `2030-01-08T${hhmm}:00-08:00`;
const PARK = { name: "Stanley Park pavilion", locality: "Vancouver", postal_code: "V6G 1Z4", country: "CA" };
const HOME = { street: "1 Main St", locality: "Vancouver", postal_code: "V5K 0A1", country: "CA" };

const ms = (t: string) => {
  const r = parseInstant(t, "");
  if (!r.ok) throw new Error(t);
  return r.value.epochMs;
};

const must = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

function configs(): HostConfig[] {
  const base = embeddedDefaultHosts();
  const dental = base.find((h) => h.id === DENTAL);
  if (dental === undefined) throw new Error("no dental");
  return [
    ...base,
    {
      ...dental,
      id: MOBILE,
      name: "Mobile Dental",
      services: [{ serviceId: "cleaning", location: "guest" }],
    },
    { ...dental, id: PERSON, name: "Dana Cleanings", kind: "person" },
    {
      ...dental,
      id: CLOSED,
      name: "Closed Dental",
      policies: { ...dental.policies, closedMandate: "always" },
    },
  ];
}

async function gateway() {
  let t = NOW;
  const clock = { now: () => t };
  const connectors = new Map<string, SyntheticConnector>();
  const runtimes: HostRuntime[] = [];
  for (const config of configs()) {
    const scenario = SYNTHETIC_SCENARIOS[config.id] ?? SYNTHETIC_SCENARIOS[DENTAL];
    if (scenario === undefined) throw new Error(`no scenario ${config.id}`);
    const connector = createSyntheticConnector({ scenario, clock, timeoutMs: 5 });
    connectors.set(config.id, connector);
    const kp = generateEd25519KeyPair();
    const rt = await buildHostRuntime(config, connector, [{ kid: `${config.id}-1`, ...kp }]);
    if (!rt.ok) throw new Error(rt.error.message);
    runtimes.push(rt.value);
  }
  const events: OutboundEvent[] = [];
  let n = 0;
  const store = new MemoryHoldStore({ clock });
  const service = createBookingService({
    hosts: createHostDirectory(runtimes),
    store,
    clock,
    ids: { next: (prefix) => `${prefix}${++n}` },
    outbox: { enqueue: (e) => Promise.resolve(void events.push(e)) },
  });
  const keys = (hostId: string) =>
    runtimes
      .find((r) => r.config.id === hostId)
      ?.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, use: "sig" as const })) ?? [];
  return {
    service,
    store,
    events,
    keys,
    connector: (id: string) => connectors.get(id) as SyntheticConnector,
    advance: (d: number) => (t += d),
    now: () => t,
  };
}
type Gateway = Awaited<ReturnType<typeof gateway>>;

interface Guest {
  readonly principal: SigningKey;
  readonly agent: SigningKey;
  readonly hostId: string;
  /** A caller under a fresh mandate from this guest's principal (open unless constrained). */
  caller(now: number, constraints?: MandateConstraints): Promise<SchcpCaller>;
}

function newGuest(hostId: string): Guest {
  const principal = generateEd25519KeyPair();
  const agent = generateEd25519KeyPair();
  const agentKey = jwkThumbprint(agent.publicJwk);
  let n = 0;
  return {
    principal,
    agent,
    hostId,
    async caller(now, constraints) {
      const nowSec = Math.floor(now / 1000);
      const compact = await issueMandate(
        {
          sub: "guest",
          aud: hostId,
          iat: nowSec,
          exp: nowSec + 7 * 86_400,
          jti: `m-${hostId}-${++n}`,
          cnf: { jkt: agentKey },
          scope: ["hold", "book", "cancel", "reschedule"],
          ...(constraints !== undefined && { constraints }),
        },
        principal,
      );
      const chain = await verifyMandate(compact, { hostId, nowSec, requestKeyThumbprint: agentKey });
      if (!chain.ok) throw new Error(chain.error.message);
      return { agentKey, mandate: chain.value };
    },
  };
}

/** A pending booking at `start` (202 pending_host), the guest's own. */
async function pending(g: Gateway, hostId: string, start: string, place?: object) {
  const guest = newGuest(hostId);
  const caller = await guest.caller(g.now());
  const hold = must(
    await g.service.placeHold(hostId, caller, {
      service_id: "cleaning",
      start,
      idempotency_key: `h-${start}`,
      callback_url: "https://agent.example/hooks",
      ...(place !== undefined && { place }),
    }),
  );
  const hash = offerSha256(hold.offer);
  const confirmCaller = hostId === CLOSED ? await guest.caller(g.now(), { offer_sha256: hash }) : caller;
  const r = must(
    await g.service.confirm(hostId, confirmCaller, hold.hold_id, {
      idempotency_key: "c",
      offer_sha256: hash,
    }),
  );
  expect(r.status).toBe(202);
  return { guest, caller, bookingId: r.body.booking.booking_id, booking: r.body.booking, hash };
}

/** Another guest's hold at `start`: true when granted (then released), false when the time is taken. */
async function canHold(g: Gateway, hostId: string, start: string): Promise<boolean> {
  const caller = await newGuest(hostId).caller(g.now());
  const r = await g.service.placeHold(hostId, caller, {
    service_id: "cleaning",
    start,
    idempotency_key: `probe-${start}-${Math.random()}`,
    ...(hostId === MOBILE && { place: HOME }),
  });
  if (!r.ok) return false;
  must(await g.service.releaseHold(hostId, caller, r.value.hold_id));
  return true;
}

/** Takes one of the dentist's two hygienists at `start` for the rest of the test. */
async function takeOne(g: Gateway, hostId: string, start: string): Promise<void> {
  const caller = await newGuest(hostId).caller(g.now());
  must(
    await g.service.placeHold(hostId, caller, {
      service_id: "cleaning",
      start,
      idempotency_key: `busy-${start}`,
      ttl: "PT10M",
      ...(hostId === MOBILE && { place: HOME }),
    }),
  );
}

async function read(g: Gateway, hostId: string, caller: SchcpCaller, id: string): Promise<BookingResponse> {
  const r = must(await g.service.getBooking(hostId, caller, id));
  expect(validateSchcp("BookingResponse", r).ok).toBe(true);
  return r;
}

function proposalOf(b: BookingResponse): Proposal {
  const p = b.booking.proposal;
  if (p === undefined) throw new Error("no proposal");
  return p;
}

function answer(
  g: Gateway,
  hostId: string,
  caller: SchcpCaller,
  id: string,
  p: Proposal,
  accept: boolean,
  over: { sequence?: number; offer_sha256?: string } = {},
) {
  return g.service.proposalResponse(hostId, caller, id, {
    idempotency_key: `pr-${Math.random()}`,
    proposal_id: p.proposal_id,
    accept,
    sequence: over.sequence ?? 0,
    ...(accept && { offer_sha256: over.offer_sha256 ?? offerSha256(p.offer) }),
  });
}

const types = (g: Gateway) => g.events.map((e) => String(e.event.type));

describe("§5.11 a counter is a host change offer on a pending_host booking", () => {
  it("§5.11 counter: proposal by host with the new start and end, the new terms in the signed change offer; the booking stays pending_host", async () => {
    const g = await gateway();
    const { caller, bookingId, hash } = await pending(g, DENTAL, AT("09:00"));
    const countered = must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    expect(countered).toMatchObject({ status: "pending_host", sequence: 0, start: ms(AT("09:00")) });
    expect(countered.proposal).toMatchObject({ by: "host", start: ms(AT("13:00")), end: ms(AT("14:00")) });

    const seen = await read(g, DENTAL, caller, bookingId);
    expect(seen.booking).toMatchObject({ status: "pending_host", sequence: 0, offer_sha256: hash });
    const p = proposalOf(seen);
    expect(p).toMatchObject({ by: "host", start: AT("13:00"), end: AT("14:00") });
    const offer = must(await verifyOffer(p.offer, g.keys(DENTAL), { expectedIss: DENTAL }));
    expect(offer.claims).toMatchObject({
      kind: "change",
      booking_id: bookingId,
      prev: hash,
      slot: { start: AT("13:00"), end: AT("14:00") },
    });
  });

  it("§5.11 counter with a place: the proposal and its signed offer name the new place (service at the guest's)", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, MOBILE, AT("09:00"), HOME);
    must(await g.service.counter(MOBILE, bookingId, { place: PARK }));
    const p = proposalOf(await read(g, MOBILE, caller, bookingId));
    expect(p).toMatchObject({ by: "host", start: AT("09:00"), place: PARK });
    const offer = must(await verifyOffer(p.offer, g.keys(MOBILE), { expectedIss: MOBILE }));
    expect(offer.claims.place).toEqual(PARK);
    expect(offer.claims.slot.start).toBe(AT("09:00"));
  });

  it("§5.11 counter holds the new time, at most until the booking's approval deadline", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, DENTAL, AT("09:00"));
    await takeOne(g, DENTAL, AT("13:00"));
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(true);
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(false);
    const seen = await read(g, DENTAL, caller, bookingId);
    const approvalBy = ms(seen.booking.approval_by ?? "");
    expect(ms(proposalOf(seen).expires_at)).toBe(approvalBy);

    // A shorter life may be asked; never a longer one.
    const short = must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00"), ttlMs: 20 * MIN }));
    expect(short.proposal?.expiresAt).toBe(g.now() + 20 * MIN);
  });

  it("§5.11 counter: the guest hears booking.change_proposed, with a receipt of the unchanged pending booking", async () => {
    const g = await gateway();
    const { bookingId } = await pending(g, DENTAL, AT("09:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    expect(types(g)).toEqual(["booking.change_proposed"]);
    const event = g.events[0]?.event as unknown as { booking: BookingResponse["booking"] };
    expect(validateSchcp("WebhookEvent", event).ok).toBe(true);
    expect(event.booking).toMatchObject({ status: "pending_host", sequence: 0, start: AT("09:00") });
    expect(event.booking.proposal).toMatchObject({ by: "host", start: AT("13:00") });
  });

  it("§5.11 counter: refused on a booking that is not pending_host, without a start or place, or with a place for a service at the host's", async () => {
    const g = await gateway();
    const { bookingId } = await pending(g, DENTAL, AT("09:00"));
    refusalOf(await g.service.counter(DENTAL, bookingId, {}), "INVALID_REQUEST");
    refusalOf(await g.service.counter(DENTAL, bookingId, { place: PARK }), "INVALID_REQUEST");
    must(await g.service.approve(DENTAL, bookingId));
    refusalOf(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }), "INVALID_STATE");
    const mobile = await pending(g, MOBILE, AT("10:00"), HOME);
    refusalOf(await g.service.counter(MOBILE, mobile.bookingId, { place: HOME }), "INVALID_REQUEST");
    refusalOf(
      await g.service.counter(MOBILE, mobile.bookingId, { place: { locality: "Vancouver" } }),
      "OUT_OF_SERVICE_AREA",
    );
  });
});

describe("§5.11 accepting a counter", () => {
  it("§5.11 accept: confirmed, answer by the host, the offer's time adopted atomically (sequence + 1), the old time free, upstream confirmed and moved", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, DENTAL, AT("09:00"));
    await takeOne(g, DENTAL, AT("09:00"));
    expect(await canHold(g, DENTAL, AT("09:00"))).toBe(false);
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    const p = proposalOf(await read(g, DENTAL, caller, bookingId));
    const accepted = must(await answer(g, DENTAL, caller, bookingId, p, true));
    expect(accepted.booking).toMatchObject({
      status: "confirmed",
      sequence: 1,
      start: AT("13:00"),
      end: AT("14:00"),
      offer_sha256: offerSha256(p.offer),
      answer: { by: "host" },
    });
    expect(accepted.booking.proposal).toBeUndefined();
    expect(accepted.booking.approval_by).toBeUndefined();
    expect(await canHold(g, DENTAL, AT("09:00"))).toBe(true);
    const state = (await loadBooking(g.store, DENTAL, bookingId))?.state;
    const upstream = must(await g.connector(DENTAL).bookings.get(state?.upstreamId ?? ""));
    expect(upstream).toMatchObject({ status: "confirmed", start: ms(AT("13:00")) });
  });

  it("§5.11 accept at a person's calendar: the answer is by the person (§7.9)", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, PERSON, AT("09:00"));
    must(await g.service.counter(PERSON, bookingId, { start: AT("11:00") }));
    const p = proposalOf(await read(g, PERSON, caller, bookingId));
    const accepted = must(await answer(g, PERSON, caller, bookingId, p, true));
    expect(accepted.booking).toMatchObject({ status: "confirmed", answer: { by: "person" } });
  });

  it("§5.11 accept: the booking adopts the offer's place", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, MOBILE, AT("09:00"), HOME);
    must(await g.service.counter(MOBILE, bookingId, { start: AT("15:00"), place: PARK }));
    const p = proposalOf(await read(g, MOBILE, caller, bookingId));
    const accepted = must(await answer(g, MOBILE, caller, bookingId, p, true));
    expect(accepted.booking).toMatchObject({ status: "confirmed", start: AT("15:00"), place: PARK });
  });

  it("§5.11 accept: a hash that does not name the counter is 409 CONTRACT_MISMATCH, a stale sequence 409 STALE_SEQUENCE; nothing changes", async () => {
    const g = await gateway();
    const { caller, bookingId, hash } = await pending(g, DENTAL, AT("09:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    const p = proposalOf(await read(g, DENTAL, caller, bookingId));
    refusalOf(
      await answer(g, DENTAL, caller, bookingId, p, true, { offer_sha256: hash }),
      "CONTRACT_MISMATCH",
    );
    refusalOf(await answer(g, DENTAL, caller, bookingId, p, true, { sequence: 3 }), "STALE_SEQUENCE");
    const after = await read(g, DENTAL, caller, bookingId);
    expect(after.booking).toMatchObject({ status: "pending_host", sequence: 0, start: AT("09:00") });
    expect(after.booking.proposal?.proposal_id).toBe(p.proposal_id);
  });

  it("§5.11 accept under closed_mandate always: an open mandate is 403 OFFER_APPROVAL_REQUIRED; the principal's mandate naming the counter's hash is accepted", async () => {
    const g = await gateway();
    const { guest, bookingId } = await pending(g, CLOSED, AT("09:00"));
    must(await g.service.counter(CLOSED, bookingId, { start: AT("13:00") }));
    const open = await guest.caller(g.now());
    const p = proposalOf(await read(g, CLOSED, open, bookingId));
    const counterHash = offerSha256(p.offer);
    refusalOf(
      await answer(g, CLOSED, open, bookingId, p, true),
      "OFFER_APPROVAL_REQUIRED",
      "closed_approval_required",
    );
    const closed = await guest.caller(g.now(), { offer_sha256: counterHash });
    const accepted = must(await answer(g, CLOSED, closed, bookingId, p, true));
    expect(accepted.booking).toMatchObject({
      status: "confirmed",
      start: AT("13:00"),
      offer_sha256: counterHash,
    });
  });
});

describe("§5.11 declining, lapse, and the host's own answer while a counter is open", () => {
  it("§5.11 decline: the counter is cleared and its held time released; the booking waits for the host (approval deadline unchanged), then the host approves the original terms", async () => {
    const g = await gateway();
    const { caller, bookingId, hash } = await pending(g, DENTAL, AT("09:00"));
    const before = await read(g, DENTAL, caller, bookingId);
    await takeOne(g, DENTAL, AT("13:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(false);
    const p = proposalOf(await read(g, DENTAL, caller, bookingId));
    const declined = must(await answer(g, DENTAL, caller, bookingId, p, false));
    expect(declined.booking).toMatchObject({
      status: "pending_host",
      sequence: 0,
      start: AT("09:00"),
      approval_by: before.booking.approval_by,
    });
    expect(declined.booking.proposal).toBeUndefined();
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(true);
    const approved = must(await g.service.approve(DENTAL, bookingId));
    expect(approved).toMatchObject({ status: "confirmed", start: ms(AT("09:00")) });
    expect((await read(g, DENTAL, caller, bookingId)).booking.offer_sha256).toBe(hash);
  });

  it("§5.11 lapse: a counter that lapses releases its held time; the booking stays pending_host", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, DENTAL, AT("09:00"));
    await takeOne(g, DENTAL, AT("13:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00"), ttlMs: 5 * MIN }));
    g.advance(6 * MIN);
    const report = await g.service.expireOverdue(DENTAL);
    expect(report.offersDropped).toEqual([bookingId]);
    expect(report.expired).toEqual([]);
    const after = await read(g, DENTAL, caller, bookingId);
    expect(after.booking).toMatchObject({ status: "pending_host", sequence: 0 });
    expect(after.booking.proposal).toBeUndefined();
    await takeOne(g, DENTAL, AT("13:00"));
  });

  it("§5.11 the host approves the original while a counter is open: the counter is withdrawn and its time released", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, DENTAL, AT("09:00"));
    await takeOne(g, DENTAL, AT("13:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    const p = proposalOf(await read(g, DENTAL, caller, bookingId));
    const approved = must(await g.service.approve(DENTAL, bookingId));
    expect(approved).toMatchObject({ status: "confirmed", start: ms(AT("09:00")) });
    expect(approved.proposal).toBeUndefined();
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(true);
    refusalOf(await answer(g, DENTAL, caller, bookingId, p, true), "INVALID_STATE");
  });

  it("§5.11 the host declines the original while a counter is open: the booking ends and the counter's time is released", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, DENTAL, AT("09:00"));
    await takeOne(g, DENTAL, AT("13:00"));
    must(await g.service.counter(DENTAL, bookingId, { start: AT("13:00") }));
    must(await g.service.decline(DENTAL, bookingId, {}));
    const after = await read(g, DENTAL, caller, bookingId);
    expect(after.booking.status).toBe("declined");
    expect(after.booking.proposal).toBeUndefined();
    expect(await canHold(g, DENTAL, AT("13:00"))).toBe(true);
  });
});

describe("§5.8 §5.11 a host proposal on a confirmed booking", () => {
  it("§5.11 §5.8 a confirmed booking's place changes by a host proposal naming a place: accepted, the booking adopts the place (start kept)", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, MOBILE, AT("09:00"), HOME);
    expect(must(await g.service.approve(MOBILE, bookingId)).status).toBe("confirmed");
    must(await g.service.propose(MOBILE, bookingId, { start: AT("09:00"), place: PARK }));
    const p = proposalOf(await read(g, MOBILE, caller, bookingId));
    expect(p).toMatchObject({ by: "host", start: AT("09:00"), place: PARK });
    const before = await read(g, MOBILE, caller, bookingId);
    expect(before.booking).toMatchObject({ status: "confirmed", place: HOME });
    const accepted = must(
      await answer(g, MOBILE, caller, bookingId, p, true, { sequence: before.booking.sequence }),
    );
    expect(accepted.booking).toMatchObject({
      status: "confirmed",
      start: AT("09:00"),
      place: PARK,
      sequence: before.booking.sequence + 1,
      offer_sha256: offerSha256(p.offer),
    });
  });
});

describe("§5.7 a guest change offer naming a place on a confirmed booking", () => {
  it("§5.7 a change offer with only a place keeps the start; accepted (and approved at this host_approval host), the booking adopts the place", async () => {
    const g = await gateway();
    const { caller, bookingId } = await pending(g, MOBILE, AT("09:00"), HOME);
    expect(must(await g.service.approve(MOBILE, bookingId)).status).toBe("confirmed");
    const before = await read(g, MOBILE, caller, bookingId);
    const seq = before.booking.sequence;
    // "start and place are each optional, but a request names at least one: a new place keeps the start".
    const offer = must(
      await g.service.changeOffer(MOBILE, caller, bookingId, {
        idempotency_key: "co",
        sequence: seq,
        place: PARK,
      }),
    );
    expect(validateSchcp("ChangeOfferResponse", offer).ok).toBe(true);
    expect(offer.proposal).toMatchObject({ by: "guest", start: AT("09:00"), place: PARK });
    const claims = must(
      await verifyOffer(offer.proposal.offer, g.keys(MOBILE), { expectedIss: MOBILE }),
    ).claims;
    expect(claims).toMatchObject({
      kind: "change",
      booking_id: bookingId,
      prev: before.booking.offer_sha256,
    });
    const hash = offerSha256(offer.proposal.offer);
    // The booking keeps its place until the change is accepted.
    expect((await read(g, MOBILE, caller, bookingId)).booking).toMatchObject({ place: HOME, sequence: seq });
    const accepted = must(
      await g.service.reschedule(MOBILE, caller, bookingId, {
        idempotency_key: "rs",
        sequence: seq,
        offer_sha256: hash,
      }),
    );
    // §5.7 step 3: the host approves a guest's move as it approves a booking.
    expect(accepted.booking).toMatchObject({ place: HOME, sequence: seq, proposal: { awaiting_host: true } });
    must(await g.service.approve(MOBILE, bookingId));
    const moved = await read(g, MOBILE, caller, bookingId);
    expect(moved.booking).toMatchObject({
      status: "confirmed",
      start: AT("09:00"),
      place: PARK,
      sequence: seq + 1,
      offer_sha256: hash,
    });
    expect(types(g)).toContain("booking.change_approved");
  });
});
