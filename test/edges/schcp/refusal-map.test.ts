/**
 * The core's error vocabulary (src/booking/errors.ts) and its mapping to each edge: every
 * core reason is registered under the SchCP code its code maps to (SchCP §9.2), so the HTTP
 * edge never meets an unregistered reason; and every core code becomes an OSBP Problem whose
 * code the published OSBP schema knows.
 */
import { describe, expect, it } from "vitest";
import { upstreamRefusal } from "../../../src/booking/bookings/refuse.js";
import { BOOKING_ERROR_CODES, BOOKING_ERRORS, DEFAULT_ERROR_MESSAGES } from "../../../src/booking/errors.js";
import { bookingRefusal, withContactRemedy as coreWithContact } from "../../../src/booking/rules/index.js";
import { SCHCP_CODE, schcpRefusal } from "../../../src/edges/schcp/refusal.js";
import type { ConnectorError } from "../../../src/connectors/port.js";
import { refusalProblem } from "../../../src/edges/osbp/adapter/refusals.js";
import { isProblemCode } from "../../../src/protocol/osbp/index.js";
import {
  isRegisteredReason,
  refusal,
  REFUSALS,
  withContactRemedy,
} from "../../../src/protocol/schcp/refusals.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";

describe("the core's error vocabulary", () => {
  it("is lower-case and distinct from SchCP's wire codes", () => {
    for (const code of BOOKING_ERROR_CODES) {
      expect(code).toMatch(/^[a-z_]+$/);
      expect(DEFAULT_ERROR_MESSAGES[code].length).toBeGreaterThan(0);
    }
  });

  it("maps every code and reason to a registered SchCP code and reason with an HTTP status", () => {
    for (const code of BOOKING_ERROR_CODES) {
      const wire = SCHCP_CODE[code];
      expect(typeof REFUSALS[wire].status, wire).toBe("number");
      for (const reason of BOOKING_ERRORS[code]) {
        const mapped = schcpRefusal({ code, reason, message: "m" });
        expect(
          isRegisteredReason(mapped.code, mapped.reason),
          `${code}/${reason} → ${mapped.code}/${mapped.reason}`,
        ).toBe(true);
      }
    }
  });

  it("words the core's 'no grant at all' as SchCP's missing mandate (§3.3)", () => {
    expect(schcpRefusal(bookingRefusal("authority_required"))).toMatchObject({
      code: "MANDATE_INVALID",
      reason: "mandate_invalid",
    });
  });

  it("gives every code an OSBP Problem with a code, a message and retryable", () => {
    for (const code of BOOKING_ERROR_CODES) {
      const p = refusalProblem(bookingRefusal(code), "create");
      expect(Object.keys(p).sort(), code).toEqual(["code", "message", "retryable"]);
      expect(p.code).toMatch(/^[a-z_]+$/);
    }
    expect(refusalProblem(bookingRefusal("slot_unavailable"), "create").code).toBe("slot_taken");
  });
});

describe("payment_required: the platform books only against a payment up front", () => {
  const PAY = "https://clinica-demo.example/pagar";
  const upstream: ConnectorError = {
    code: "payment_required",
    message: "Servicialo PAYMENT_REQUIRED: the service must be paid for up front, with the business",
    payment: { url: PAY, amount: { minor: 40_000, currency: "CLP" } },
  };

  it("is the core's payment_required, with no retry and the link as a contact remedy", () => {
    const r = upstreamRefusal(upstream);
    expect(r).toMatchObject({ code: "payment_required", reason: "payment_required", upstream });
    expect(r.retryAfterMs).toBeUndefined();
    expect(r.remedies).toEqual([{ type: "contact", url: PAY }]);
    // The connector's message (platform wording) does not become the agent's.
    expect(r.message).not.toContain("Servicialo");
  });

  it("carries no link when the connector gave none, or gave one that is not https", () => {
    expect(upstreamRefusal({ ...upstream, payment: undefined }).remedies).toBeUndefined();
    expect(
      upstreamRefusal({ ...upstream, payment: { url: "javascript:alert(1)" } }).remedies,
    ).toBeUndefined();
  });

  it("is SchCP 501 UNSUPPORTED, reason payment_required (the gateway's registration; §8 has no payment errors)", () => {
    const wire = schcpRefusal(upstreamRefusal(upstream));
    expect(wire).toMatchObject({ code: "UNSUPPORTED", reason: "payment_required" });
    expect(REFUSALS.UNSUPPORTED.status).toBe(501);
    const body = refusal(wire.code, {
      reason: "payment_required",
      message: wire.message,
      ...(wire.basis !== undefined && { basis: { ...wire.basis } }),
      ...(wire.remedies !== undefined && { remedies: [...wire.remedies] }),
    }).body;
    expect(validateSchcp("Refusal", body).ok).toBe(true);
    // No amount or other money data on the SchCP wire (§8).
    expect(JSON.stringify(body)).not.toMatch(/40000|CLP/);
  });

  it("keeps the link when the edge adds the host's published contact (§8 'a link it gives in a refusal's contact remedy')", () => {
    const host = { phone: "+56-2-2345-6789", url: "https://clinica-demo.example/contacto" };
    const core = coreWithContact(upstreamRefusal(upstream), { contact: host });
    expect(core.remedies).toEqual([{ type: "contact", phone: host.phone, url: PAY }]);
    const wire = schcpRefusal(core);
    const body = withContactRemedy(
      refusal(wire.code, { reason: "payment_required", remedies: [...(wire.remedies ?? [])] }).body,
      host,
    );
    expect(body.error.remedies).toEqual([{ type: "contact", phone: host.phone, url: PAY }]);
    // A refusal without a link of its own still gets the published url.
    expect(coreWithContact(bookingRefusal("unsupported"), { contact: host }).remedies).toEqual([
      { type: "contact", ...host },
    ]);
  });

  it("is OSBP requires_payment_handoff, not retryable, with the business's page and the amount in the prose", () => {
    const p = refusalProblem(upstreamRefusal(upstream), "create");
    expect(isProblemCode(p.code)).toBe(true);
    expect(p).toMatchObject({ code: "requires_payment_handoff", retryable: false });
    expect(p.message).toContain(PAY);
    expect(p.message).toContain("40000 CLP");
    // A core refusal with no upstream answer behind it hands off too, with no link.
    const bare = refusalProblem(bookingRefusal("payment_required"), "create");
    expect(bare).toMatchObject({ code: "requires_payment_handoff", retryable: false });
    expect(bare.message).not.toContain("https://");
  });
});
