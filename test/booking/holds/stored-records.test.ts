/**
 * The stored hold and booking records read as they always did: a version 1 record (the SchCP
 * offer's claims as its contract) becomes exactly this version 2 record, its claims and wire
 * Hold kept untouched as the SchCP attachment, and a version 2 record reads back to the very
 * bytes it was written as. The core types what it reads of version 1 with its own
 * StoredOfferTerms (bookings/state.ts), never SchCP's wire types (docs/ARCHITECTURE.md, Layers).
 */
import { describe, expect, it } from "vitest";
import { decodeBookingState, encodeBookingState } from "../../../src/booking/bookings/state.js";
import { decodeHoldPayload, encodeHoldPayload } from "../../../src/booking/holds/payload.js";

const START = Date.parse("2030-01-09T15:00:00Z");
const END = START + 45 * 60_000;
const claims = {
  v: "0.4",
  kind: "booking",
  iss: "maple-street-auto",
  hold_id: "h_1",
  iat: 1_893_500_000,
  exp: 1_893_500_300,
  service: { id: "oil-change", name: "Synthetic oil change" },
  slot: { start: "2030-01-09T10:00:00-05:00", end: "2030-01-09T10:45:00-05:00" },
  price: { amount: "89.00", currency: "CAD" },
  total: { amount: "100.57", currency: "CAD" },
  lines: [
    { kind: "service", label: "Synthetic oil change", amount: { amount: "89.00", currency: "CAD" } },
    { kind: "tax", label: "HST", amount: { amount: "11.57", currency: "CAD" } },
  ],
  retention: "P365D",
  resource: "bay-1",
  resource_name: "Bay 1",
  place: { name: "Trinity Bellwoods Park", country: "CA" },
  party_size: 2,
  approval_by: "2030-01-08T12:00:00Z",
};
const place = { name: "Trinity Bellwoods Park", country: "CA" };
const contract = {
  kind: "booking",
  service: { id: "oil-change", name: "Synthetic oil change" },
  start: START,
  end: END,
  resource: { id: "bay-1", name: "Bay 1" },
  partySize: 2,
  place,
  price: { minor: 8900, currency: "CAD" },
  total: { minor: 10057, currency: "CAD" },
  lines: [
    { kind: "service", label: "Synthetic oil change", amount: { minor: 8900, currency: "CAD" } },
    { kind: "tax", label: "HST", amount: { minor: 1157, currency: "CAD" } },
  ],
  retention: "P365D",
  approvalBy: Date.parse("2030-01-08T12:00:00Z"),
};

describe("the stored hold payload (holds/payload.ts)", () => {
  it("reads a version 1 payload into exactly this version 2 one, the claims and Hold as the SchCP attachment", () => {
    const hold = { hold_id: "h_1", status: "held", service_id: "oil-change", offer: "a.b.c" };
    const v1 = {
      v: 1,
      kind: "booking",
      offer: "a.b.c",
      offerSha256: "sha",
      claims,
      hold,
      serviceId: "oil-change",
      start: START,
      end: END,
      partySize: 2,
      place,
      agentKey: "agent-A",
      principal: "urn:p",
      callbackUrl: "https://agent.example/hooks",
    };
    const read = decodeHoldPayload(JSON.stringify(v1));
    expect(read).toEqual({
      ok: true,
      value: {
        v: 2,
        contract,
        agentKey: "agent-A",
        principal: "urn:p",
        callbackUrl: "https://agent.example/hooks",
        attachments: { schcp: { offer: "a.b.c", offerSha256: "sha", claims, hold } },
      },
    });
  });

  it("reads a version 2 payload back to the bytes it was written as", () => {
    const text = JSON.stringify({
      v: 2,
      contract,
      by: "guest",
      agentKey: "agent-A",
      principal: null,
      attachments: { schcp: { offer: "a.b.c", offerSha256: "sha", claims } },
    });
    const read = decodeHoldPayload(text);
    if (!read.ok) throw new Error(read.error.message);
    expect(encodeHoldPayload(read.value)).toBe(text);
  });
});

describe("the stored booking state (bookings/state.ts)", () => {
  const base = {
    bookingId: "b_1",
    hostId: "maple-street-auto",
    holdId: "h_1",
    status: "confirmed",
    sequence: 0,
    serviceId: "oil-change",
    start: START,
    end: END,
    resourceIds: ["bay-1"],
    partySize: 2,
    place,
    consent: { approved: "offer", mandate: "m_1" },
    upstreamId: "up_1",
    agentKey: "agent-A",
    principal: "urn:p",
    createdAt: START - 86_400_000,
    updatedAt: START - 86_400_000,
  };

  it("reads a version 1 state into exactly this version 2 one, offer, claims and receipt as the SchCP attachment", () => {
    const v1 = {
      ...base,
      v: 1,
      contract: { offer: "a.b.c", offerSha256: "sha", claims },
      receipt: "r.s.t",
      retention: "P365D",
    };
    expect(decodeBookingState(JSON.stringify(v1))).toEqual({
      ok: true,
      value: {
        ...base,
        v: 2,
        contract,
        attachments: { schcp: { offer: "a.b.c", offerSha256: "sha", claims, receipt: "r.s.t" } },
      },
    });
  });

  it("reads a version 2 state back to the bytes it was written as", () => {
    const text = JSON.stringify({
      ...base,
      v: 2,
      contract,
      attachments: { schcp: { offer: "a.b.c", offerSha256: "sha", claims, receipt: "r.s.t" } },
    });
    const read = decodeBookingState(text);
    if (!read.ok) throw new Error(read.error);
    expect(encodeBookingState(read.value)).toBe(text);
  });

  it("reads an A2A booking's doubled grant name (a2a:a2a:…) as the one grant it names, and leaves others alone", () => {
    const stored = (mandate: string) =>
      JSON.stringify({
        ...base,
        v: 2,
        contract,
        consent: { approved: "offer", mandate },
        principal: "a2a:hash22",
        proposal: {
          proposalId: "p_1",
          by: "guest",
          holdId: "h_2",
          contract,
          start: START,
          expiresAt: START,
          resourceIds: ["bay-1"],
          consent: { approved: "offer", mandate },
        },
      });
    const read = decodeBookingState(stored("a2a:a2a:hash22"));
    if (!read.ok) throw new Error(read.error);
    expect(read.value.consent).toEqual({ approved: "offer", mandate: "a2a:hash22" });
    expect(read.value.proposal?.consent).toEqual({ approved: "offer", mandate: "a2a:hash22" });
    // Written back, it is written the way new bookings are.
    expect(encodeBookingState(read.value)).toBe(stored("a2a:hash22"));
    for (const mandate of ["a2a:hash22", "osbp:osbp-mandate:m1", "m-01J9Z", "x:x:y"]) {
      const other = decodeBookingState(stored(mandate));
      expect(other.ok && other.value.consent.mandate).toBe(mandate);
    }
  });
});
