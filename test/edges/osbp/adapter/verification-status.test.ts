/** OSBP "verification.send", "verification.verify" and "booking.status" through the generic adapter. */
import { describe, expect, it } from "vitest";
import type { Connector } from "../../../../src/connectors/port.js";
import { harbourviewDental, type SyntheticScenario } from "../../../../src/connectors/synthetic/index.js";
import { WASH } from "./scenarios.js";
import {
  JANE,
  approve,
  createInput,
  mandate,
  problemOf,
  rig,
  t,
  valueOf,
  withPayment,
  wrapConnector,
} from "./support.js";

/** Harbourview's platform verifies customers by SMS before it books a cleaning. */
const VERIFIED: SyntheticScenario = withPayment({
  ...harbourviewDental,
  services: harbourviewDental.services.map((s) => ({ ...s, requiresVerification: true })),
});

const PURPOSE = "booking:harbourview-dental";

const dentalInput = () =>
  createInput({
    mandate: mandate({
      organization_id: "harbourview-dental",
      earliest_start: "2026-10-19T08:00:00",
      latest_end: "2026-10-19T17:00:00",
      max_price: { amount_minor: 20_000, currency: "CAD" },
    }),
    service_id: "cleaning",
    schedule_id: "harbourview-dental",
    provider_id: "hyg-1",
    time: "09:00",
  });

describe('OSBP "booking.create" with platform verification', () => {
  it("requires_verification → verification.send → the code via the platform → booked", async () => {
    const r = rig({ scenario: VERIFIED });
    const approved = await approve(r.adapter, dentalInput());
    const p = problemOf(await r.adapter.createBooking(approved), "requires_verification");
    expect(p.retryable).toBe(true);
    expect(p.message).toContain("by SMS code");
    expect(await r.appointments()).toBe(0);

    const sent = valueOf(
      await r.adapter.sendVerification({ customer: { phone: JANE.phone! }, purpose: PURPOSE }),
    );
    expect(sent).toEqual({ sent: true, method: "sms", purpose: PURPOSE });
    const code = await r.synthetic.lastCodeFor(JANE.phone!);
    expect(code).toMatch(/^\d{6}$/);

    const receipt = valueOf(await r.adapter.createBooking({ ...approved, verification_code: code! }));
    expect(receipt.text).toContain(
      "Booked Cleaning and check-up on 2026-10-19 at 09:00 (America/Vancouver) with Dana.",
    );
    expect(receipt.text).not.toContain(code!);
    expect(await r.appointments()).toBe(1);
    // The booking consumed the code.
    expect(await r.synthetic.lastCodeFor(JANE.phone!)).toBeUndefined();
  });

  it("a wrong code: verification_failed, nothing booked; the right code afterwards books", async () => {
    const r = rig({ scenario: VERIFIED });
    const approved = await approve(r.adapter, dentalInput());
    valueOf(await r.adapter.sendVerification({ customer: JANE, purpose: PURPOSE }));
    const code = (await r.synthetic.lastCodeFor(JANE.phone!))!;
    const wrong = code === "000000" ? "111111" : "000000";
    problemOf(
      await r.adapter.createBooking({ ...approved, verification_code: wrong }),
      "verification_failed",
    );
    expect(await r.appointments()).toBe(0);
    valueOf(await r.adapter.createBooking({ ...approved, verification_code: code }));
    expect(await r.appointments()).toBe(1);
  });

  it("verification.verify is an independent check: it does not consume the code booking.create uses", async () => {
    const r = rig({ scenario: VERIFIED });
    const approved = await approve(r.adapter, dentalInput());
    valueOf(await r.adapter.sendVerification({ customer: JANE, purpose: PURPOSE }));
    const code = (await r.synthetic.lastCodeFor(JANE.phone!))!;
    expect(valueOf(await r.adapter.verifyCode({ customer: JANE, purpose: PURPOSE, code }))).toEqual({
      verified: true,
      method: "sms",
      purpose: PURPOSE,
    });
    const wrong = code === "000000" ? "111111" : "000000";
    problemOf(
      await r.adapter.verifyCode({ customer: JANE, purpose: PURPOSE, code: wrong }),
      "verification_failed",
    );
    valueOf(await r.adapter.createBooking({ ...approved, verification_code: code }));
  });

  it("a purpose other than booking:{organization_id}: invalid_verification_purpose, nothing sent", async () => {
    const r = rig({ scenario: VERIFIED });
    for (const purpose of ["booking:maple-street-auto", "login", "booking:"]) {
      problemOf(
        await r.adapter.sendVerification({ customer: JANE, purpose }),
        "invalid_verification_purpose",
      );
      problemOf(
        await r.adapter.verifyCode({ customer: JANE, purpose, code: "123456" }),
        "invalid_verification_purpose",
      );
    }
    expect(r.count("sendVerification") + r.count("verifyCode")).toBe(0);
  });

  it("a platform without verification: verification_unsupported, not retryable", async () => {
    const r = rig({ scenario: WASH });
    const p = problemOf(
      await r.adapter.sendVerification({ customer: JANE, purpose: "booking:wash" }),
      "verification_unsupported",
    );
    expect(p.retryable).toBe(false);
  });

  it("too many sends to one contact: the platform's 429 is rate_limited", async () => {
    const r = rig({ scenario: VERIFIED });
    const sends = [];
    for (let i = 0; i < 4; i++)
      sends.push(await r.adapter.sendVerification({ customer: JANE, purpose: PURPOSE }));
    expect(sends.slice(0, 3).every((s) => s.ok)).toBe(true);
    expect(problemOf(sends[3]!, "rate_limited").retryable).toBe(true);
  });
});

describe('OSBP "booking.status": a fresh platform read', () => {
  it("reports the booking, then 'cancelled' after the platform cancels it", async () => {
    const r = rig();
    const receipt = valueOf(await r.adapter.createBooking(await approve(r.adapter, createInput())));
    const upstreamId = await r.upstreamIdOf(receipt.booking_id);
    const reads = r.count("getBooking");
    expect(valueOf(await r.adapter.getBooking({ booking_id: receipt.booking_id }))).toEqual({
      id: receipt.booking_id,
      status: "booked",
      service_id: "oil-change",
      schedule_id: "maple-street-auto",
      provider_id: "tech-alex",
      starts_at: "2026-10-19T14:00:00.000Z",
      ends_at: "2026-10-19T14:45:00.000Z",
      starts_at_local: "2026-10-19T10:00:00",
      ends_at_local: "2026-10-19T10:45:00",
      schedule_timezone: "America/Toronto",
    });
    valueOf(await r.synthetic.bookings.cancel(upstreamId, "the shop closed early"));
    expect(valueOf(await r.adapter.getBooking({ booking_id: receipt.booking_id })).status).toBe("cancelled");
    expect(r.count("getBooking")).toBe(reads + 2);
  });

  it("a host_approval host: pending until the operator approves, then the platform's own state", async () => {
    const r = rig({ policies: { confirmation: "host_approval" } });
    const receipt = valueOf(await r.adapter.createBooking(await approve(r.adapter, createInput())));
    expect(receipt.text).toContain("pending until they answer");
    expect(valueOf(await r.adapter.getBooking({ booking_id: receipt.booking_id })).status).toBe("pending");
    const upstreamId = await r.upstreamIdOf(receipt.booking_id);
    expect(valueOf(await r.synthetic.bookings.get(upstreamId)).status).toBe("tentative");
    const core = await r.core;
    expect((await core.approve(r.hostId, receipt.booking_id)).ok).toBe(true);
    expect(valueOf(await r.adapter.getBooking({ booking_id: receipt.booking_id })).status).toBe("booked");
    valueOf(await r.synthetic.bookings.setStatus(upstreamId, "no_show"));
    expect(valueOf(await r.adapter.getBooking({ booking_id: receipt.booking_id })).status).toBe("no_show");
  });

  it("an appointment made outside this edge is not OSBP's to read: booking_not_found", async () => {
    const r = rig();
    const start = t("2026-10-19T11:00:00-04:00");
    const made = valueOf(
      await r.synthetic.bookings.create({
        idempotencyKey: "by-phone",
        serviceId: "oil-change",
        start,
        end: start + 45 * 60_000,
        resourceIds: [],
        tentative: false,
      }),
    );
    problemOf(await r.adapter.getBooking({ booking_id: made.upstreamId }), "booking_not_found");
  });

  it("an id the platform does not know: booking_not_found", async () => {
    const r = rig();
    problemOf(await r.adapter.getBooking({ booking_id: "syn_nope" }), "booking_not_found");
  });

  it("a platform that gates reads behind verification: booking_status_requires_verification", async () => {
    let gated = false;
    const r = rig({
      wrap: (c): Connector =>
        wrapConnector(c, {
          getBooking: (id: string) =>
            gated
              ? Promise.resolve({
                  ok: false,
                  error: {
                    code: "verification_required",
                    message: "verify first",
                    verificationMethod: "sms",
                  },
                })
              : c.bookings.get(id),
        }),
    });
    const receipt = valueOf(await r.adapter.createBooking(await approve(r.adapter, createInput())));
    gated = true;
    problemOf(
      await r.adapter.getBooking({ booking_id: receipt.booking_id }),
      "booking_status_requires_verification",
    );
  });
});
