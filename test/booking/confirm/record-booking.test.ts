/**
 * The state a confirm records follows the upstream's own answer as well as the host's policy
 * (docs/ARCHITECTURE.md, Trust at the seams): a create the upstream holds for the business (tentative,
 * e.g. Servicialo `pendiente_confirmacion`) is pending_host, awaiting the business, with no
 * gateway deadline; the host's approval policy keeps its deadline as before.
 */
import { describe, expect, it } from "vitest";
import type { HoldPayload, HostRuntime } from "../../../src/booking/api.js";
import { newBookingState } from "../../../src/booking/confirm/record-booking.js";
import type { UpstreamBooking } from "../../../src/connectors/port.js";
import type { HoldRecord } from "../../../src/holds/port.js";

const NOW = Date.parse("2026-12-01T15:00:00Z");
const START = Date.parse("2026-12-07T22:00:00Z");

const host = (confirmation: "instant" | "host_approval") =>
  ({
    config: { id: "h", policies: { confirmation, approvalTimeoutMs: 3_600_000 } },
  }) as unknown as HostRuntime;
const hold = { holdId: "h_1", allocations: [{ resourceId: "p1" }] } as unknown as HoldRecord;
const payload = {
  contract: { service: { id: "s" }, start: START, end: START + 3_600_000, partySize: 1 },
  agentKey: "k",
} as unknown as HoldPayload;
const upstream = (status: UpstreamBooking["status"]): UpstreamBooking => ({
  upstreamId: "u1",
  serviceId: "s",
  start: START,
  resourceIds: ["p1"],
  status,
});
const intent = { principal: "p", consent: { approved: "offer" as const, mandate: "m" } };

describe("newBookingState", () => {
  it("an instant host whose upstream answered pending records pending_host, awaiting the business", () => {
    const s = newBookingState(host("instant"), hold, payload, "b_1", upstream("tentative"), intent, NOW);
    expect(s.status).toBe("pending_host");
    expect(s.awaitingUpstream).toBe(true);
    expect(s.approvalBy).toBeUndefined();
    expect(s.answer).toBeUndefined();
  });

  it("an instant host whose upstream booked it records confirmed, answered by the host", () => {
    const s = newBookingState(host("instant"), hold, payload, "b_1", upstream("confirmed"), intent, NOW);
    expect(s).toMatchObject({ status: "confirmed", answer: { by: "host", at: NOW } });
    expect(s.awaitingUpstream).toBeUndefined();
  });

  it("a host_approval host keeps its own deadline", () => {
    const s = newBookingState(
      host("host_approval"),
      hold,
      payload,
      "b_1",
      upstream("tentative"),
      intent,
      NOW,
    );
    expect(s).toMatchObject({ status: "pending_host", approvalBy: NOW + 3_600_000 });
    expect(s.awaitingUpstream).toBeUndefined();
  });

  describe("the total the upstream's answer states it recorded", () => {
    const CAD = (minor: number) => ({ minor, currency: "CAD" });
    const priced = {
      ...payload,
      contract: { ...payload.contract, total: CAD(15_820) },
    } as unknown as HoldPayload;
    const booked = (total?: { minor: number; currency: string }) => ({
      ...upstream("confirmed"),
      ...(total !== undefined && { total }),
    });

    it("the same as the agreed total: kept, nothing raised", () => {
      const s = newBookingState(host("instant"), hold, priced, "b_1", booked(CAD(15_820)), intent, NOW);
      expect(s.upstreamTotal).toEqual(CAD(15_820));
      expect(s.attention).toBeUndefined();
    });

    it("another total: kept beside the agreed one (the terms), and raised to the operator", () => {
      const s = newBookingState(host("instant"), hold, priced, "b_1", booked(CAD(13_560)), intent, NOW);
      expect(s.contract.total).toEqual(CAD(15_820));
      expect(s.upstreamTotal).toEqual(CAD(13_560));
      expect(s.attention).toEqual({
        reason: "upstream_total_differs",
        message: "the business's system recorded 135.60 CAD for this booking; the guest agreed to 158.20 CAD",
        conflictsWith: [],
        at: NOW,
      });
    });

    it("an upstream that states none: nothing kept, nothing raised", () => {
      const s = newBookingState(host("instant"), hold, priced, "b_1", booked(), intent, NOW);
      expect(s.upstreamTotal).toBeUndefined();
      expect(s.attention).toBeUndefined();
    });
  });
});
