/**
 * SchCP §5.9 waitlist rules, one by one, through the SchCP use cases and the core with the
 * memory store (test/booking/bookings/world.ts): who may join (a mandate, contacts-only hosts,
 * the window, the mandate's window and max_price, suspension), how entries expire, and each
 * path that frees time to the waitlist (a lapsed approval, a reschedule away, a host's decline
 * or cancel when the time is still good). The end to end on Redis is test/e2e/waitlist.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cancelBooking } from "../../../src/edges/schcp/cancel.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import { changeOffer } from "../../../src/edges/schcp/change-offer.js";
import { reschedule } from "../../../src/edges/schcp/reschedule.js";
import { respond } from "../../../src/edges/schcp/respond.js";
import { getWaitlistEntry, joinWaitlist, leaveWaitlist } from "../../../src/edges/schcp/waitlist.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { expireOverdue } from "../../../src/booking/operator/deadlines.js";
import { declineBooking } from "../../../src/booking/operator/decline.js";
import { hostCancelBooking } from "../../../src/booking/operator/host-cancel.js";
import { sweepWaitlist } from "../../../src/booking/waitlist/index.js";
import type { HostPolicies } from "../../../src/booking/api.js";
import { REFUSALS } from "../../../src/protocol/schcp/refusals.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { jwkThumbprint, principalUrn } from "../../../src/protocol/jose/index.js";
import type { MandateConstraints } from "../../../src/protocol/schcp/types.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import {
  DAY,
  HOUR,
  MINUTE,
  NOW,
  SLOT,
  callerFor,
  HoldRefused,
  makeHost,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  testCreateHold,
  unwrap,
  type Party,
  type World,
} from "../bookings/world.js";

const GARAGE = "waitlist-garage";
const DENTAL = "waitlist-dental";
const CONTACTS = "waitlist-contacts";
const TZ = "America/Toronto";
const HOOK = "https://agent.example/hooks/schcp";
const WAITLIST: HostPolicies["waitlist"] = { offerTtlMs: 5 * MINUTE, maxEntriesPerAgent: 2 };
const principalOf = (p: Party) => principalUrn(jwkThumbprint(p.principal.publicJwk));
const at = (ms: number) => formatInstant(ms, TZ);

/** Every day 07:00–20:00, so the hold engine finds the bays working at SLOT. */
const OPEN_DAILY = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, open: "07:00", close: "20:00" }));

/** The platform lists SLOT (the booked time) free, so the hold engine can place an offer there. */
function world(contacts: readonly string[] = []): World {
  const w = makeWorld([
    makeHost(GARAGE, "Waitlist Garage", { waitlist: WAITLIST }),
    makeHost(DENTAL, "Waitlist Dental", { waitlist: WAITLIST, confirmation: "host_approval" }),
    makeHost(CONTACTS, "Waitlist Contacts", { waitlist: WAITLIST, access: "contacts", contacts }),
  ]);
  for (const id of [GARAGE, DENTAL, CONTACTS]) {
    const host = w.host(id);
    host.connector.openStarts = [SLOT];
    for (const r of host.runtime.catalog.resources) (r as { hours: unknown }).hours = OPEN_DAILY;
  }
  return w;
}

/** The SchCP status the wire refusal travels with (§9.2). */
const statusOf = (code: string) => REFUSALS[code as keyof typeof REFUSALS].status;

interface JoinOptions {
  readonly hostId?: string;
  readonly constraints?: MandateConstraints;
  readonly window?: { readonly start: number; readonly end: number };
  readonly caller?: SchcpCaller;
}

async function join(w: World, party: Party, opts: JoinOptions = {}) {
  const hostId = opts.hostId ?? GARAGE;
  const caller =
    opts.caller ??
    (await callerFor(w, party, {
      hostId,
      ...(opts.constraints !== undefined && { constraints: opts.constraints }),
    }));
  const window = opts.window ?? { start: SLOT, end: SLOT + HOUR };
  return joinWaitlist(w.deps, hostId, caller, {
    idempotency_key: "j",
    service_id: "oil-change",
    window: { start: at(window.start), end: at(window.end) },
    callback_url: HOOK,
  });
}

/** A booking of bay-1 at SLOT (pending_host at the dental host). */
async function booked(w: World, hostId = GARAGE) {
  const caller = await callerFor(w, newParty(), { hostId });
  const hold = await placeTestHold(w, w.host(hostId), caller, { callbackUrl: HOOK, resource: "bay-1" });
  const r = unwrap(
    await confirmHold(w.deps, hostId, caller, hold.record.holdId, {
      idempotency_key: "c",
      offer_sha256: hold.offerSha256,
    }),
  );
  return { caller, hold, bookingId: r.body.booking.booking_id };
}

const entryStatus = async (w: World, hostId: string, entryId: string) =>
  (await w.store.getWaitlistEntry(hostId, entryId))?.status;

const offeredEvents = (w: World) =>
  w.outbox.events.filter((e) => (e.event as { type: string }).type === "waitlist.offered");

/** Five lapsed holds suspend a subject's holds (§7.3: ratio 1 over the minimum sample). */
async function suspend(w: World, subject: { kind: "agent" | "principal"; id: string }) {
  for (let i = 0; i < 5; i++) await w.store.recordOutcome(subject, "expired", w.clock.now());
}

describe("§5.9 joining", () => {
  it("§5.9 joining without a mandate is refused: the core's authority_required, 401 MANDATE_INVALID mandate_invalid on SchCP", async () => {
    const w = world();
    const party = newParty();
    const r = await join(w, party, { caller: { agentKey: jwkThumbprint(party.agent.publicJwk) } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("authority_required");
    const wire = refusalOf(r, "MANDATE_INVALID", "mandate_invalid");
    expect(statusOf(wire.code)).toBe(401);
    expect(await w.store.waitingEntries(GARAGE, 10)).toEqual([]);
  });

  it("§5.9 §7.8 at a contacts-only host a non-contact's join is 403 NOT_PERMITTED not_a_contact; a contact joins", async () => {
    const contact = newParty();
    const w = world([principalOf(contact)]);
    const wire = refusalOf(await join(w, newParty(), { hostId: CONTACTS }), "NOT_PERMITTED", "not_a_contact");
    expect(statusOf(wire.code)).toBe(403);
    const joined = unwrap(await join(w, contact, { hostId: CONTACTS }));
    expect(joined).toMatchObject({ status: "waiting", position: 1 });
  });

  it("§5.9 a window longer than 31 days is 400 INVALID_REQUEST; 31 days exactly joins", async () => {
    const w = world();
    const party = newParty();
    const wire = refusalOf(
      await join(w, party, { window: { start: SLOT, end: SLOT + 31 * DAY + MINUTE } }),
      "INVALID_REQUEST",
      "invalid_request",
    );
    expect(statusOf(wire.code)).toBe(400);
    expect(wire.details).toMatchObject({ field: "window" });
    unwrap(await join(w, party, { window: { start: SLOT, end: SLOT + 31 * DAY } }));
  });

  it("§5.9 a mandate whose window does not contain the entry's window is 403 MANDATE_LIMIT outside_window", async () => {
    const w = world();
    const wire = refusalOf(
      await join(w, newParty(), {
        constraints: { window: { not_before: at(SLOT), not_after: at(SLOT + 30 * MINUTE) } },
      }),
      "MANDATE_LIMIT",
      "outside_window",
    );
    expect(statusOf(wire.code)).toBe(403);
    // A mandate window around the entry's admits it.
    unwrap(
      await join(w, newParty(), {
        constraints: { window: { not_before: at(SLOT - HOUR), not_after: at(SLOT + 2 * HOUR) } },
      }),
    );
  });

  it("§5.9 a mandate whose max_price is below the service's all-in total is 403 MANDATE_LIMIT over_max_price", async () => {
    const w = world();
    // The oil change is 79.00 + 13% HST = 89.27 all in.
    const wire = refusalOf(
      await join(w, newParty(), { constraints: { max_price: { amount: "89.26", currency: "CAD" } } }),
      "MANDATE_LIMIT",
      "over_max_price",
    );
    expect(statusOf(wire.code)).toBe(403);
    unwrap(await join(w, newParty(), { constraints: { max_price: { amount: "89.27", currency: "CAD" } } }));
  });

  it("§5.9 §7.3 a suspended agent cannot join: 429 HOLD_LIMIT holds_suspended", async () => {
    const w = world();
    const party = newParty();
    await suspend(w, { kind: "agent", id: jwkThumbprint(party.agent.publicJwk) });
    const wire = refusalOf(await join(w, party), "HOLD_LIMIT", "holds_suspended");
    expect(statusOf(wire.code)).toBe(429);
    expect(wire.basis).toMatchObject({ subject: "agent" });
  });

  it("§5.9 §7.3 a suspended principal cannot join: 429 HOLD_LIMIT holds_suspended", async () => {
    const w = world();
    const party = newParty();
    await suspend(w, { kind: "principal", id: principalOf(party) });
    const wire = refusalOf(await join(w, party), "HOLD_LIMIT", "holds_suspended");
    expect(wire.basis).toMatchObject({ subject: "principal" });
  });
});

describe("§5.9 offers", () => {
  it.each(["agent", "principal"] as const)(
    "§5.9 §7.3 an entry whose %s was suspended after joining is passed over at offer time; the next entry is offered",
    async (kind) => {
      const w = world();
      const first = newParty();
      const second = newParty();
      const { caller, bookingId } = await booked(w);
      const a = unwrap(await join(w, first));
      const b = unwrap(await join(w, second));
      await suspend(w, {
        kind,
        id: kind === "agent" ? jwkThumbprint(first.agent.publicJwk) : principalOf(first),
      });
      unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
      expect(await entryStatus(w, GARAGE, a.waitlist_id)).toBe("waiting");
      expect(await entryStatus(w, GARAGE, b.waitlist_id)).toBe("offered");
      expect(offeredEvents(w).map((e) => e.event["waitlist"])).toMatchObject([
        { waitlist_id: b.waitlist_id, status: "offered" },
      ]);
    },
  );

  it("§5.9 an entry whose mandate expired is passed over at offer time, before the sweeper marks it expired", async () => {
    const w = world();
    // callerFor's mandates expire 30 days after they are issued: the first entry's at NOW + 30 d,
    // the second's (issued a day later) at NOW + 31 d. The freed time is after the first's.
    const window = { start: NOW + 29 * DAY, end: NOW + 31 * DAY };
    const start = NOW + 30 * DAY + 2 * HOUR;
    w.host(GARAGE).connector.openStarts = [start];
    const caller = await callerFor(w, newParty(), { hostId: GARAGE });
    const hold = await placeTestHold(w, w.host(GARAGE), caller, { start, resource: "bay-1" });
    const bookingId = unwrap(
      await confirmHold(w.deps, GARAGE, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
      }),
    ).body.booking.booking_id;
    const a = unwrap(await join(w, newParty(), { window }));
    w.clock.advance(DAY);
    const b = unwrap(await join(w, newParty(), { window }));
    w.clock.advance(29 * DAY + MINUTE);
    unwrap(await hostCancelBooking(w.deps, GARAGE, bookingId, { timeStillGood: true }));
    expect(await entryStatus(w, GARAGE, a.waitlist_id)).toBe("waiting");
    expect(await entryStatus(w, GARAGE, b.waitlist_id)).toBe("offered");
    await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now());
    expect(await entryStatus(w, GARAGE, a.waitlist_id)).toBe("expired");
  });
});

/** A world of the hosts given, each open every day with SLOT listed free (as world()). */
function worldOf(...hosts: ReturnType<typeof makeHost>[]): World {
  const w = makeWorld(hosts);
  for (const h of hosts) {
    h.connector.openStarts = [SLOT];
    for (const r of h.runtime.catalog.resources) (r as { hours: unknown }).hours = OPEN_DAILY;
  }
  return w;
}

describe("§5.9 what an offer carries", () => {
  it.each([
    ["guest", { postal_code: "M5V 2T6", country: "CA" }],
    ["elsewhere", { name: "Rink 2, Leaside Arena" }],
  ] as const)(
    "§5.9 an entry for a service at the %s place carries its place, and the offered hold carries the same place",
    async (location, place) => {
      const id = `waitlist-${location}`;
      const host = makeHost(id, "Waitlist Mobile", { waitlist: WAITLIST });
      (host.runtime.config as { services: unknown }).services = [{ serviceId: "oil-change", location }];
      const w = worldOf(host);
      const { caller, bookingId } = await booked(w, id);
      const party = newParty();
      const e = unwrap(
        await joinWaitlist(w.deps, id, await callerFor(w, party, { hostId: id }), {
          idempotency_key: "j",
          service_id: "oil-change",
          window: { start: at(SLOT), end: at(SLOT + HOUR) },
          callback_url: HOOK,
          place,
        }),
      );
      expect(e.place).toEqual(place);
      unwrap(await cancelBooking(w.deps, id, caller, bookingId, { idempotency_key: "x" }));
      expect(await entryStatus(w, id, e.waitlist_id)).toBe("offered");
      const [offered] = offeredEvents(w);
      expect(offered?.event["waitlist"]).toMatchObject({ waitlist_id: e.waitlist_id, place });
      expect(offered?.event["hold"]).toMatchObject({ start: at(SLOT), place });
    },
  );

  it.each([
    // §7.3 ratio = expired / max(outcomes, min_sample 5): 3 of 5 → 0.6 (120 s), 4 of 5 → 0.8 (60 s).
    [3, 120_000],
    [4, 60_000],
    [0, 5 * MINUTE],
  ] as const)(
    "§5.9 §7.3 the offered hold's TTL is offer_ttl scaled down by reputation: an agent with %s of 5 holds lapsed gets %s ms",
    async (expired, ttlMs) => {
      const w = world();
      const { caller, bookingId } = await booked(w);
      const party = newParty();
      const agent = { kind: "agent" as const, id: jwkThumbprint(party.agent.publicJwk) };
      for (let i = 0; i < 5; i++)
        await w.store.recordOutcome(agent, i < expired ? "expired" : "released", w.clock.now());
      const e = unwrap(await join(w, party));
      unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
      expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("offered");
      const hold = offeredEvents(w)[0]?.event["hold"] as { expires_at: string };
      expect(Date.parse(hold.expires_at) - w.clock.now()).toBe(ttlMs);
    },
  );
});

describe("§5.9 reading and leaving an entry", () => {
  it("§5.9 reading an entry is checked against the mandate's constraints: a mandate whose services leave out the entry's cannot read it (403 MANDATE_SCOPE service_not_allowed)", async () => {
    const w = world();
    const party = newParty();
    const e = unwrap(await join(w, party));
    const reader = await callerFor(w, party, { hostId: GARAGE, constraints: { services: ["oil-change"] } });
    expect(unwrap(await getWaitlistEntry(w.deps, GARAGE, reader, e.waitlist_id))).toMatchObject({
      waitlist_id: e.waitlist_id,
      status: "waiting",
    });
    const other = await callerFor(w, party, { hostId: GARAGE, constraints: { services: ["tire-swap"] } });
    const wire = refusalOf(
      await getWaitlistEntry(w.deps, GARAGE, other, e.waitlist_id),
      "MANDATE_SCOPE",
      "service_not_allowed",
    );
    expect(statusOf(wire.code)).toBe(403);
  });

  it("§5.9 leaving an entry needs scope hold: a mandate without it is 403 MANDATE_SCOPE not_in_scope and the entry stays; with it the entry is left", async () => {
    const w = world();
    const party = newParty();
    const e = unwrap(await join(w, party));
    const noHold = await callerFor(w, party, { hostId: GARAGE, scope: ["cancel"] });
    const wire = refusalOf(
      await leaveWaitlist(w.deps, GARAGE, noHold, e.waitlist_id),
      "MANDATE_SCOPE",
      "not_in_scope",
    );
    expect(statusOf(wire.code)).toBe(403);
    expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("waiting");
    const holder = await callerFor(w, party, { hostId: GARAGE, scope: ["hold"] });
    expect(unwrap(await leaveWaitlist(w.deps, GARAGE, holder, e.waitlist_id)).status).toBe("left");
  });
});

describe("§5.9 expiry (sweepWaitlist)", () => {
  it("§5.9 an entry whose window passed is expired", async () => {
    const w = world();
    const e = unwrap(await join(w, newParty()));
    expect(await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now())).toMatchObject({ expired: 0 });
    w.clock.advance(SLOT + HOUR - NOW);
    expect(await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now())).toMatchObject({ expired: 1 });
    expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("expired");
  });

  it("§5.9 an entry whose mandate expired before an offer is expired, though its window has not passed", async () => {
    const w = world();
    // callerFor's mandates expire 30 days from now; this window runs past that.
    const window = { start: NOW + 29 * DAY, end: NOW + 31 * DAY };
    const e = unwrap(await join(w, newParty(), { window }));
    w.clock.advance(30 * DAY + MINUTE);
    expect(w.clock.now()).toBeLessThan(window.end);
    expect(await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now())).toMatchObject({ expired: 1 });
    expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("expired");
  });
});

describe("§5.9 freed time goes to the waitlist first", () => {
  it("§5.9 a lapsed approval (approval_by passed at a host_approval host) offers the time to the waitlist", async () => {
    const w = world();
    const { bookingId } = await booked(w, DENTAL);
    const e = unwrap(await join(w, newParty(), { hostId: DENTAL }));
    w.clock.advance(2 * HOUR);
    expect((await expireOverdue(w.deps, DENTAL)).expired).toEqual([bookingId]);
    expect(await entryStatus(w, DENTAL, e.waitlist_id)).toBe("offered");
    const [offered] = offeredEvents(w);
    expect(offered?.event["hold"]).toMatchObject({ start: at(SLOT), status: "held" });
  });

  it("§5.10 §5.9 a required participant's decline frees the time to the waitlist first: the waiting entry is offered", async () => {
    const id = "waitlist-tentative";
    const w = worldOf(
      makeHost(id, "Waitlist Tentative", {
        waitlist: WAITLIST,
        tentative: { maxConfirmWithin: "PT24H", maxConfirmWithinMs: 24 * HOUR },
      }),
    );
    const invitee = newParty();
    const caller = await callerFor(w, newParty(), { hostId: id });
    const hold = await placeTestHold(w, w.host(id), caller, { callbackUrl: HOOK, resource: "bay-1" });
    const made = unwrap(
      await confirmHold(w.deps, id, caller, hold.record.holdId, {
        idempotency_key: "c",
        offer_sha256: hold.offerSha256,
        participants: [{ who: principalOf(invitee), role: "invitee" }],
      }),
    );
    expect(made.body.booking.status).toBe("tentative");
    const e = unwrap(await join(w, newParty(), { hostId: id }));
    const answering = await callerFor(w, invitee, { hostId: id, scope: ["cancel"] });
    const out = unwrap(
      await respond(w.deps, id, answering, made.body.booking.booking_id, {
        idempotency_key: "r",
        accept: false,
        offer_sha256: hold.offerSha256,
      }),
    );
    expect(out.booking.status).toBe("declined");
    expect(await entryStatus(w, id, e.waitlist_id)).toBe("offered");
    expect(offeredEvents(w)[0]?.event["hold"]).toMatchObject({ start: at(SLOT), status: "held" });
  });

  it("§5.9 a reschedule away (the guest accepts a change offer) offers the old time to the waitlist", async () => {
    const w = world();
    const { caller, bookingId } = await booked(w);
    const e = unwrap(await join(w, newParty()));
    const o = unwrap(
      await changeOffer(w.deps, testCreateHold(w), GARAGE, caller, bookingId, {
        idempotency_key: "o",
        sequence: 0,
        start: at(SLOT + 3 * HOUR),
      }),
    );
    expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("waiting");
    unwrap(
      await reschedule(w.deps, GARAGE, caller, bookingId, {
        idempotency_key: "m",
        sequence: 0,
        offer_sha256: offerSha256(o.proposal.offer),
      }),
    );
    expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe("offered");
    expect(offeredEvents(w)[0]?.event["hold"]).toMatchObject({ start: at(SLOT) });
  });

  it.each([
    [true, "offered"],
    [false, "waiting"],
    [undefined, "waiting"],
  ] as const)(
    "§5.9 a host decline with timeStillGood %s leaves the entry %s",
    async (timeStillGood, expected) => {
      const w = world();
      const { bookingId } = await booked(w, DENTAL);
      const e = unwrap(await join(w, newParty(), { hostId: DENTAL }));
      unwrap(
        await declineBooking(w.deps, DENTAL, bookingId, {
          message: "no",
          ...(timeStillGood !== undefined && { timeStillGood }),
        }),
      );
      expect(await entryStatus(w, DENTAL, e.waitlist_id)).toBe(expected);
      expect(offeredEvents(w)).toHaveLength(expected === "offered" ? 1 : 0);
      // Either way the booking's time is freed.
      expect((await w.store.getBooking(DENTAL, bookingId))?.state).toBe("released");
    },
  );

  it.each([
    [true, "offered"],
    [false, "waiting"],
    [undefined, "waiting"],
  ] as const)(
    "§5.9 a host cancel with timeStillGood %s leaves the entry %s",
    async (timeStillGood, expected) => {
      const w = world();
      const { bookingId } = await booked(w);
      const e = unwrap(await join(w, newParty()));
      unwrap(
        await hostCancelBooking(w.deps, GARAGE, bookingId, {
          message: "sorry",
          ...(timeStillGood !== undefined && { timeStillGood }),
        }),
      );
      expect(await entryStatus(w, GARAGE, e.waitlist_id)).toBe(expected);
      expect(offeredEvents(w)).toHaveLength(expected === "offered" ? 1 : 0);
      expect((await w.store.getBooking(GARAGE, bookingId))?.state).toBe("released");
    },
  );
});

describe("§5.9 a lapse moves down the line", () => {
  /** A third party's hold of bay-1 at SLOT: its refusal reason, or "held". */
  async function thirdParty(w: World): Promise<string> {
    const caller = await callerFor(w, newParty(), { hostId: GARAGE });
    try {
      await placeTestHold(w, w.host(GARAGE), caller, { resource: "bay-1", ttlMs: MINUTE });
      return "held";
    } catch (e) {
      if (e instanceof HoldRefused) return e.reason;
      throw e;
    }
  }

  it("§5.9 right after an offer lapses, before any sweep, a third party's hold of that time is refused while entries remain; after the third offer lapses it is public at once", async () => {
    const w = world();
    const { caller, bookingId } = await booked(w);
    const line = [];
    for (let i = 0; i < 4; i++) line.push(unwrap(await join(w, newParty())));
    unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
    const ttl = WAITLIST.offerTtlMs;
    for (const [i, entry] of line.slice(0, 3).entries()) {
      expect(await entryStatus(w, GARAGE, entry.waitlist_id)).toBe("offered");
      w.clock.advance(ttl + 1);
      // The offer has lapsed and no sweep has run yet.
      if (i < 2) {
        expect(await thirdParty(w)).toBe("slot_taken");
        expect(await entryStatus(w, GARAGE, entry.waitlist_id)).toBe("offered");
        await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now());
        expect(await entryStatus(w, GARAGE, entry.waitlist_id)).toBe("lapsed");
      }
    }
    // The third offer lapsed: the time is public before the sweep, and the fourth entry waits.
    expect(await thirdParty(w)).toBe("held");
    await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now());
    expect(await entryStatus(w, GARAGE, line[2]!.waitlist_id)).toBe("lapsed");
    expect(await entryStatus(w, GARAGE, line[3]!.waitlist_id)).toBe("waiting");
    expect(offeredEvents(w)).toHaveLength(3);
  });

  it("§5.9 an offer lapses with nobody left in line: the sweep's line step makes the time public", async () => {
    const w = world();
    const { caller, bookingId } = await booked(w);
    const only = unwrap(await join(w, newParty()));
    unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
    w.clock.advance(WAITLIST.offerTtlMs + 1);
    expect(await thirdParty(w)).toBe("slot_taken");
    await sweepWaitlist(w.deps, w.host(GARAGE).runtime, w.clock.now());
    expect(await entryStatus(w, GARAGE, only.waitlist_id)).toBe("lapsed");
    expect(await thirdParty(w)).toBe("held");
  });
});

describe("§5.9 max_price when the offer is made", () => {
  it("§5.9 §3.3 check 6 an entry whose max_price fit at join but not the offer's total now is passed over; the next entry is offered", async () => {
    const w = world();
    const { caller, bookingId } = await booked(w);
    // 79.00 + 13% HST = 89.27 all in when they join.
    const capped = unwrap(
      await join(w, newParty(), { constraints: { max_price: { amount: "89.27", currency: "CAD" } } }),
    );
    const open = unwrap(await join(w, newParty()));
    // The host raises the price: 80.00 + 13% = 90.40 all in, over the first entry's max_price.
    const service = w.host(GARAGE).runtime.catalog.services[0] as { price: unknown };
    service.price = { minor: 8000, currency: "CAD" };
    unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
    expect(await entryStatus(w, GARAGE, capped.waitlist_id)).toBe("waiting");
    expect(await entryStatus(w, GARAGE, open.waitlist_id)).toBe("offered");
    const [offered] = offeredEvents(w);
    expect(offered?.event["hold"]).toMatchObject({ total: { amount: "90.40", currency: "CAD" } });
  });

  it("§5.9 an entry whose max_price still fits the offer's total is offered it", async () => {
    const w = world();
    const { caller, bookingId } = await booked(w);
    const capped = unwrap(
      await join(w, newParty(), { constraints: { max_price: { amount: "90.40", currency: "CAD" } } }),
    );
    const service = w.host(GARAGE).runtime.catalog.services[0] as { price: unknown };
    service.price = { minor: 8000, currency: "CAD" };
    unwrap(await cancelBooking(w.deps, GARAGE, caller, bookingId, { idempotency_key: "x" }));
    expect(await entryStatus(w, GARAGE, capped.waitlist_id)).toBe("offered");
  });
});
