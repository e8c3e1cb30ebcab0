/**
 * The booking service end to end in process (no HTTP): the embedded default's hosts on the
 * synthetic connector, the hold use cases and this module's confirm, bookings,
 * changes, operator side and reconciliation, over one MemoryHoldStore.
 */
import { describe, expect, it } from "vitest";
import type { Caller, HostConfig, OutboundEvent } from "../../src/booking/api.js";
import type { SchcpCaller } from "../../src/edges/schcp/caller.js";
import {
  buildHostRuntime,
  createHostDirectory,
  embeddedDefaultHosts,
} from "../../src/booking/hosts/index.js";
import { createBookingService } from "../../src/gateway/booking-service.js";
import { SYNTHETIC_SCENARIOS, createSyntheticConnector } from "../../src/connectors/synthetic/index.js";
import type { SyntheticConnector } from "../../src/connectors/synthetic/index.js";
import { MemoryHoldStore } from "../../src/holds/memory/memory-store.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../src/protocol/schcp/mandate/index.js";
import { offerSha256 } from "../../src/protocol/schcp/offer/index.js";
import { decodeBookingState } from "../../src/booking/bookings/state.js";
import { decodeHoldPayload } from "../../src/booking/holds/payload.js";
import { schcpBooking } from "../../src/edges/schcp/attachment.js";
import { validateSchcp } from "../../src/protocol/schcp/validate.js";

/** Monday 2030-01-07, 09:00 in Toronto. */
const NOW = Date.UTC(2030, 0, 7, 14, 0);

async function gateway(adjust: (config: HostConfig) => HostConfig = (c) => c) {
  let t = NOW;
  const clock = { now: () => t };
  const connectors = new Map<string, SyntheticConnector>();
  const runtimes = [];
  for (const config of embeddedDefaultHosts().map(adjust)) {
    const scenario = SYNTHETIC_SCENARIOS[config.id];
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
  return {
    service,
    store,
    events,
    connector: (id: string) => connectors.get(id) as SyntheticConnector,
    advance: (ms: number) => (t += ms),
    now: () => t,
  };
}

async function guest(hostId: string, now: number): Promise<SchcpCaller> {
  const principal = generateEd25519KeyPair();
  const agent = generateEd25519KeyPair();
  const agentKey = jwkThumbprint(agent.publicJwk);
  const nowSec = Math.floor(now / 1000);
  const compact = await issueMandate(
    {
      sub: "guest",
      aud: hostId,
      iat: nowSec,
      exp: nowSec + 7 * 86_400,
      jti: `m-${hostId}`,
      cnf: { jkt: agentKey },
      scope: ["hold", "book", "cancel", "reschedule"],
    },
    principal,
  );
  const chain = await verifyMandate(compact, { hostId, nowSec, requestKeyThumbprint: agentKey });
  if (!chain.ok) throw new Error(chain.error.message);
  return { agentKey, mandate: chain.value };
}

const ok = <T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T => {
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
};

async function holdFirstSlot(
  g: Awaited<ReturnType<typeof gateway>>,
  hostId: string,
  serviceId: string,
  caller: SchcpCaller,
) {
  const slots = ok(
    await g.service.availability(hostId, caller, {
      service_id: serviceId,
      window: { start: "2030-01-08T10:00:00-05:00", end: "2030-01-08T16:00:00-05:00" },
      limit: 10,
    }),
  ).slots;
  const first = slots[0];
  if (first === undefined) throw new Error("no slots");
  const hold = ok(
    await g.service.placeHold(hostId, caller, {
      service_id: serviceId,
      start: first.start,
      idempotency_key: `h-${first.start}`,
      callback_url: "https://agent.example/hooks",
    }),
  );
  return { slots, hold };
}

describe("createBookingService (SchcpHostApi & OperatorApi) on the embedded default", () => {
  it("availability -> hold -> confirm -> get -> change -> reschedule -> cancel at an instant host", async () => {
    const g = await gateway();
    const host = "maple-street-auto";
    const caller = await guest(host, g.now());
    const { slots, hold } = await holdFirstSlot(g, host, "oil-change", caller);
    const confirmed = ok(
      await g.service.confirm(host, caller, hold.hold_id, {
        idempotency_key: "c",
        offer_sha256: offerSha256(hold.offer),
      }),
    );
    expect(confirmed.status).toBe(201);
    expect(validateSchcp("BookingResponse", confirmed.body).ok).toBe(true);
    const bookingId = confirmed.body.booking.booking_id;
    expect(confirmed.body.booking.total).toEqual({ amount: "89.27", currency: "CAD" });
    expect(ok(await g.service.getHold(host, caller, hold.hold_id)).status).toBe("confirmed");

    const later = slots.find(
      (s) => s.start > (slots[0]?.start ?? "") && s.start.endsWith(":00:00-05:00") && s !== slots[0],
    );
    if (later === undefined) throw new Error("no later slot");
    const offer = ok(
      await g.service.changeOffer(host, caller, bookingId, {
        idempotency_key: "o",
        sequence: 0,
        start: later.start,
      }),
    );
    expect(validateSchcp("ChangeOfferResponse", offer).ok).toBe(true);
    const moved = ok(
      await g.service.reschedule(host, caller, bookingId, {
        idempotency_key: "r",
        sequence: 0,
        offer_sha256: offerSha256(offer.proposal.offer),
      }),
    );
    expect(moved.booking).toMatchObject({ sequence: 1, start: later.start });
    const upstreamKey = `${host}:${hold.hold_id}`;
    const upstream = ok(await g.connector(host).bookings.findByIdempotencyKey(upstreamKey));
    expect(upstream?.start).toBe(Date.parse(later.start));

    const cancelled = ok(await g.service.cancel(host, caller, bookingId, { idempotency_key: "x" }));
    expect(cancelled.booking).toMatchObject({ status: "cancelled", sequence: 2 });
    expect(ok(await g.connector(host).bookings.findByIdempotencyKey(upstreamKey))?.status).toBe("cancelled");
    expect(g.events).toEqual([]);
  });

  it("a host_approval host: 202 pending_host, then the operator approves (booking.confirmed webhook)", async () => {
    const g = await gateway();
    const host = "harbourview-dental";
    const caller = await guest(host, g.now());
    const { hold } = await holdFirstSlot(g, host, "cleaning", caller);
    const r = ok(
      await g.service.confirm(host, caller, hold.hold_id, {
        idempotency_key: "c",
        offer_sha256: offerSha256(hold.offer),
      }),
    );
    expect(r.status).toBe(202);
    const approved = ok(await g.service.approve(host, r.body.booking.booking_id));
    expect(approved.status).toBe("confirmed");
    expect(g.events.map((e) => e.event.type)).toEqual(["booking.confirmed"]);
    expect(validateSchcp("WebhookEvent", g.events[0]?.event).ok).toBe(true);
    expect(ok(await g.service.listBookings(host)).map((b) => b.bookingId)).toEqual([
      r.body.booking.booking_id,
    ]);
  });

  it("a host proposal through the real hold engine: change_proposed, then the guest accepts it", async () => {
    const g = await gateway();
    const host = "maple-street-auto";
    const caller = await guest(host, g.now());
    const { slots, hold } = await holdFirstSlot(g, host, "oil-change", caller);
    const r = ok(
      await g.service.confirm(host, caller, hold.hold_id, {
        idempotency_key: "c",
        offer_sha256: offerSha256(hold.offer),
      }),
    );
    const bookingId = r.body.booking.booking_id;
    const later = slots[slots.length - 1];
    if (later === undefined) throw new Error("no slot");
    const proposed = ok(await g.service.propose(host, bookingId, { start: later.start }));
    expect(proposed.proposal).toMatchObject({ by: "host", start: Date.parse(later.start) });
    // The guest reads the proposal, with its signed change offer, from the SchCP booking.
    const proposal = ok(await g.service.getBooking(host, caller, bookingId)).booking.proposal;
    expect(proposal).toMatchObject({ by: "host", start: later.start });
    if (proposal === undefined) throw new Error("no proposal");
    expect(g.events.map((e) => e.event.type)).toEqual(["booking.change_proposed"]);
    expect(validateSchcp("WebhookEvent", g.events[0]?.event).ok).toBe(true);
    const accepted = ok(
      await g.service.proposalResponse(host, caller, bookingId, {
        idempotency_key: "p",
        proposal_id: proposal.proposal_id,
        accept: true,
        sequence: 0,
        offer_sha256: offerSha256(proposal.offer),
      }),
    );
    expect(accepted.booking).toMatchObject({ sequence: 1, start: later.start, status: "confirmed" });
  });

  it("the upstream made the booking but the answer was lost, twice: reconciliation records it, one appointment", async () => {
    const g = await gateway();
    const host = "maple-street-auto";
    const caller = await guest(host, g.now());
    const { hold } = await holdFirstSlot(g, host, "oil-change", caller);
    const faults = g.connector(host).faults;
    faults.add({ operation: "createBooking", fault: "timeout", afterCommit: true, delayMs: 1 });
    faults.add({ operation: "findBookingByIdempotencyKey", fault: "unavailable" });
    const r = await g.service.confirm(host, caller, hold.hold_id, {
      idempotency_key: "c",
      offer_sha256: offerSha256(hold.offer),
    });
    expect(r.ok).toBe(false);
    g.advance(31_000);
    const report = await g.service.reconcile(host);
    expect(report.recorded).toHaveLength(1);
    const booking = ok(await g.service.getBooking(host, caller, report.recorded[0] ?? ""));
    expect(booking.booking.status).toBe("confirmed");
    const busy = ok(
      await g.connector(host).readBusy({ start: NOW, end: NOW + 7 * 86_400_000 }, ["bay-1", "bay-2"]),
    );
    expect(busy.busy.length).toBeLessThanOrEqual(1);
    expect(
      ok(await g.connector(host).bookings.findByIdempotencyKey(`${host}:${hold.hold_id}`)),
    ).not.toBeNull();
  });

  it("reads a booking stored by builds before the core/SchCP split (version 1): the same SchCP answer, and it still changes", async () => {
    const g = await gateway();
    const host = "maple-street-auto";
    const caller = await guest(host, g.now());
    const { slots, hold } = await holdFirstSlot(g, host, "oil-change", caller);
    const confirmed = ok(
      await g.service.confirm(host, caller, hold.hold_id, {
        idempotency_key: "c",
        offer_sha256: offerSha256(hold.offer),
      }),
    );
    const bookingId = confirmed.body.booking.booking_id;
    const later = slots[slots.length - 1];
    if (later === undefined) throw new Error("no slot");
    const offered = ok(
      await g.service.changeOffer(host, caller, bookingId, {
        idempotency_key: "o",
        start: later.start,
        sequence: 0,
      }),
    );
    const before = ok(await g.service.getBooking(host, caller, bookingId));

    // The same booking as the previous build wrote it: the signed offer as the contract, the
    // receipt and retention at the top level, the open change offer's contract likewise.
    const record = await g.store.getBooking(host, bookingId);
    const decoded = decodeBookingState(record?.payload ?? "");
    if (!decoded.ok || record === undefined) throw new Error("no booking");
    const { v: _v, contract, attachments, proposal, ...rest } = decoded.value;
    const signed = schcpBooking(attachments);
    const proposed = proposal?.attachments?.["schcp"] as {
      offer: string;
      offerSha256: string;
      claims: unknown;
    };
    if (signed === undefined || proposal === undefined) throw new Error("no SchCP record");
    const { attachments: _pa, contract: _pc, ...proposalRest } = proposal;
    const v1 = {
      ...rest,
      v: 1,
      contract: { offer: signed.offer, offerSha256: signed.offerSha256, claims: signed.claims },
      receipt: signed.receipt,
      retention: contract.retention,
      proposal: {
        ...proposalRest,
        contract: { offer: proposed.offer, offerSha256: proposed.offerSha256, claims: proposed.claims },
      },
    };
    expect((await g.store.updateBookingPayload(host, bookingId, JSON.stringify(v1), record.payload)).ok).toBe(
      true,
    );

    // Decoded into the neutral contract the core had made itself, and answered byte for byte.
    const read = decodeBookingState(JSON.stringify(v1));
    expect(read.ok && read.value.contract).toEqual(contract);
    expect(read.ok && read.value.proposal?.contract).toEqual(proposal.contract);
    expect(ok(await g.service.getBooking(host, caller, bookingId))).toEqual(before);

    // And it still moves: the change offer made before is accepted, then the booking cancelled.
    const moved = ok(
      await g.service.reschedule(host, caller, bookingId, {
        idempotency_key: "r",
        sequence: 0,
        offer_sha256: offerSha256(offered.proposal.offer),
      }),
    );
    expect(moved.booking).toMatchObject({ sequence: 1, start: later.start });
    expect(ok(await g.service.cancel(host, caller, bookingId, { idempotency_key: "x" })).booking.status).toBe(
      "cancelled",
    );
  });

  it("a direct booking (OSBP's path) stands on the neutral contract alone: no SchCP offer is signed", async () => {
    const g = await gateway();
    const host = "maple-street-auto";
    const slots = ok(
      await g.service.availability(host, await guest(host, g.now()), {
        service_id: "oil-change",
        window: { start: "2030-01-08T10:00:00-05:00", end: "2030-01-08T16:00:00-05:00" },
        limit: 1,
      }),
    ).slots;
    const start = Date.parse(slots[0]?.start ?? "");
    const principal = "osbp:org-1:person-7";
    const direct: Caller = {
      agentKey: "osbp-edge",
      authority: { principal, kind: "osbp", permits: () => ({ ok: true, value: undefined }) },
    };
    const booked = ok(
      await g.service.bookNow(host, direct, {
        serviceId: "oil-change",
        start,
        partySize: 1,
        attemptKey: "osbp:org-1:idem-1",
      }),
    );
    expect(booked.state.attachments).toBeUndefined();
    expect(booked.state.contract).toMatchObject({
      kind: "booking",
      service: { id: "oil-change" },
      start,
      total: { currency: "CAD" },
    });
    const held = await g.store.getHold(host, booked.state.holdId, g.now());
    const payload = decodeHoldPayload(held?.payload ?? "");
    expect(payload.ok && payload.value.attachments).toBeUndefined();

    // The operator sees it like any booking; SchCP does not reach it, even for the same principal.
    const listed = ok(await g.service.listBookings(host));
    expect(listed.map((b) => [b.bookingId, b.edges])).toEqual([[booked.state.bookingId, []]]);
    const asSchcp = await g.service.getBooking(host, await guest(host, g.now()), booked.state.bookingId);
    expect(asSchcp.ok).toBe(false);
    // No edge keeps a record of it, so no webhook was built for it either.
    expect(g.events).toEqual([]);
  });

  it("§5.3 free text: a host that refuses notes refuses a direct booking carrying them before anything is held", async () => {
    const g = await gateway((c) =>
      c.id === "maple-street-auto"
        ? {
            ...c,
            policies: {
              ...c.policies,
              data: { freeTextNotes: "refuse", intakeUrl: "https://maplestreetauto.example/intake" },
            },
          }
        : c,
    );
    const host = "maple-street-auto";
    const slots = ok(
      await g.service.availability(host, await guest(host, g.now()), {
        service_id: "oil-change",
        window: { start: "2030-01-08T10:00:00-05:00", end: "2030-01-08T16:00:00-05:00" },
        limit: 1,
      }),
    ).slots;
    const start = Date.parse(slots[0]?.start ?? "");
    const direct: Caller = {
      agentKey: "a2a-edge",
      authority: { principal: "a2a:client-1", kind: "a2a", permits: () => ({ ok: true, value: undefined }) },
    };
    const intent = { serviceId: "oil-change", start, partySize: 1, attemptKey: "a2a:client-1:notes-1" };
    const refused = await g.service.bookNow(host, direct, { ...intent, notes: "I take warfarin" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toMatchObject({
      code: "data_not_accepted",
      reason: "free_text_notes",
      basis: { policy: "data.free_text_notes" },
    });
    // The contact remedy points to the host's own form, beside its phone (§5.3, §9.2).
    expect(refused.error.remedies).toContainEqual(
      expect.objectContaining({ type: "contact", url: "https://maplestreetauto.example/intake" }),
    );
    // Nothing was held or stored: the same time books at once without notes.
    expect(ok(await g.service.listBookings(host))).toEqual([]);
    const booked = await g.service.bookNow(host, direct, { ...intent, attemptKey: "a2a:client-1:notes-2" });
    expect(booked.ok).toBe(true);
  });
});
