import { describe, expect, it } from "vitest";
import { decodeBookingState, encodeBookingState } from "../../../src/booking/bookings/state.js";
import type { BookingState } from "../../../src/booking/bookings/state.js";
import { schcpEdge } from "../../../src/edges/schcp/edge.js";
import type { SchcpOffer } from "../../../src/edges/schcp/attachment.js";
import { buildBooking as buildWire, placeLine } from "../../../src/edges/schcp/wire.js";
import { bookingResponse } from "../../../src/edges/schcp/receipt.js";
import type { HostRuntime } from "../../../src/booking/api.js";
import { sha256Base64Url } from "../../../src/protocol/json/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { MINUTE, NOW, SLOT, makeHost } from "../../booking/bookings/world.js";

const host = makeHost("maple-street-auto", "Maple Street Auto");

const signed: SchcpOffer = {
  offer: "a.b.c",
  offerSha256: sha256Base64Url("a.b.c"),
  claims: {
    v: "0.4",
    kind: "booking",
    iss: "maple-street-auto",
    iat: 1,
    exp: 2,
    service: { id: "oil-change", name: "Synthetic oil change" },
    slot: { start: "2030-01-08T10:00:00-05:00", end: "2030-01-08T10:45:00-05:00" },
    retention: "P365D",
  },
};

/** The wire Booking of `s` on the booking's signed offer. */
const buildBooking = (s: BookingState, rt: HostRuntime) => buildWire(s, rt, signed);

function state(over: Partial<BookingState> = {}): BookingState {
  return {
    v: 2,
    bookingId: "b_1",
    hostId: "maple-street-auto",
    holdId: "h_1",
    status: "confirmed",
    sequence: 2,
    serviceId: "oil-change",
    start: SLOT,
    end: SLOT + 45 * MINUTE,
    resourceIds: ["bay-1"],
    contract: {
      kind: "booking",
      service: { id: "oil-change", name: "Synthetic oil change" },
      start: SLOT,
      end: SLOT + 45 * MINUTE,
      partySize: 1,
      price: null,
      total: null,
      lines: [],
      retention: "P365D",
    },
    consent: { approved: "limits", mandate: "m-1" },
    upstreamId: "up_1",
    agentKey: "agent",
    principal: "urn:schcp:principal:jwk-thumbprint:abc",
    attachments: { schcp: signed },
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

describe("the stored booking state", () => {
  it("round-trips through its payload and refuses what it did not write", () => {
    const s = state();
    expect(decodeBookingState(encodeBookingState(s))).toEqual({ ok: true, value: s });
    expect(decodeBookingState("{").ok).toBe(false);
    expect(decodeBookingState('{"v":2}').ok).toBe(false);
    expect(decodeBookingState(JSON.stringify({ ...s, v: 3 })).ok).toBe(false);
    expect(decodeBookingState(JSON.stringify({ ...s, contract: undefined })).ok).toBe(false);
  });

  it("reads outcomes stored in the SchCP wire forms (earlier builds) into the core's, and answers the same wire", () => {
    const at = Date.parse("2030-01-07T14:00:00Z");
    const start = Date.parse("2030-01-09T10:00:00-05:00");
    const ending = { kind: "declined" as const, reason: "host_declined:full", message: "we are full" };
    const neutral = state({
      status: "declined",
      answer: { by: "host", at },
      refusal: ending,
      declinedChange: { proposalId: "p_1", start, end: start + 45 * MINUTE, ending },
    });
    const wireRefusal = { code: "DECLINED", reason: "host_declined:full", message: "we are full" };
    const old = {
      ...neutral,
      answer: { by: "host", at: "2030-01-07T14:00:00Z" },
      refusal: wireRefusal,
      declinedChange: {
        proposal_id: "p_1",
        start: "2030-01-09T10:00:00-05:00",
        end: "2030-01-09T10:45:00-05:00",
        refusal: wireRefusal,
      },
    };
    const read = decodeBookingState(JSON.stringify(old));
    expect(read).toEqual({ ok: true, value: neutral });
    const b = buildBooking(neutral, host.runtime);
    expect(validateSchcp("Booking", b).ok).toBe(true);
    expect(b).toMatchObject({
      refusal: wireRefusal,
      answer: { by: "host", at: "2030-01-07T14:00:00Z" },
      declined_change: old.declinedChange,
    });
  });
});

describe("the wire Booking and its JSCalendar event (SchCP §5.3, RFC 8984)", () => {
  it("a priceless booking with a place: location on one line, local start, closed shape", () => {
    const place = { name: "Trinity Bellwoods Park", locality: "Toronto", country: "CA" };
    const b = buildBooking(state({ place, partySize: 2 }), host.runtime);
    expect(validateSchcp("Booking", b).ok).toBe(true);
    expect(b.price).toBeUndefined();
    expect(b.event).toEqual({
      "@type": "Event",
      uid: "b_1@maple-street-auto",
      start: "2030-01-08T10:00:00",
      timeZone: "America/Toronto",
      duration: "PT45M",
      title: "Synthetic oil change — Maple Street Auto",
      sequence: 2,
      updated: "2030-01-07T14:00:00Z",
      status: "confirmed",
      locations: { place: { "@type": "Location", name: "Trinity Bellwoods Park, Toronto, CA" } },
    });
    expect(placeLine({ street: "1 Main St", postal_code: "M5V" })).toBe("1 Main St, M5V");
  });

  it("statuses map to RFC 8984 event statuses; an open-ended booking has no end", () => {
    const open = state({
      end: undefined,
      openEnd: true,
      status: "pending_host",
      approvalBy: NOW + 3_600_000,
    });
    const { end: _e, ...noEnd } = open;
    const b = buildBooking(noEnd, host.runtime);
    expect(validateSchcp("Booking", b).ok).toBe(true);
    expect(b).toMatchObject({ open_end: true, approval_by: "2030-01-07T15:00:00Z" });
    expect(b.end).toBeUndefined();
    expect(b.event).toMatchObject({ status: "tentative", duration: "PT0S" });
    expect(buildBooking(state({ status: "no_show" }), host.runtime).event.status).toBe("confirmed");
    expect(buildBooking(state({ status: "declined" }), host.runtime).event.status).toBe("cancelled");
  });

  it("a signed receipt over the same booking the response carries", async () => {
    const s0 = state();
    const attachment = await schcpEdge.bookingAttachment(host.runtime, s0, signed, NOW);
    const s = { ...s0, attachments: { schcp: attachment } };
    const r = bookingResponse(s, host.runtime);
    expect(validateSchcp("BookingResponse", r).ok).toBe(true);
    const claims = JSON.parse(Buffer.from(r.receipt.split(".")[1] ?? "", "base64url").toString()) as {
      booking: unknown;
    };
    expect(claims.booking).toEqual(r.booking);
  });
});
