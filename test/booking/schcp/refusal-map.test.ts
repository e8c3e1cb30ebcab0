/**
 * The core's error vocabulary (src/booking/errors.ts) and its mapping to each edge: every
 * core reason is registered under the SchCP code its code maps to (SchCP §9.2), so the HTTP
 * edge never meets an unregistered reason; and every core code becomes an OSBP Problem whose
 * code the published OSBP schema knows.
 */
import { describe, expect, it } from "vitest";
import { BOOKING_ERROR_CODES, BOOKING_ERRORS, DEFAULT_ERROR_MESSAGES } from "../../../src/booking/errors.js";
import { bookingRefusal } from "../../../src/booking/rules/index.js";
import { SCHCP_CODE, schcpRefusal } from "../../../src/booking/schcp/refusal.js";
import { refusalProblem } from "../../../src/osbp/adapter/refusals.js";
import { isRegisteredReason, REFUSALS } from "../../../src/protocol/schcp/refusals.js";

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
