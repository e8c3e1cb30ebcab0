import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactForAudit } from "../../../src/protocol/osbp/index.js";
import { createInput } from "./samples.js";

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === "object") {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
};

const text = (snapshot: unknown): string => JSON.stringify(snapshot);

describe("redactForAudit: structured fields (OSBP Audit)", () => {
  const input = {
    mandate: { id: "mnd_1" },
    idempotency_key: "idem_1",
    customer: {
      id: "customer_123",
      display_name: "Jane Customer",
      given_name: "Jane",
      family_name: "Customer",
      name: "Jane C.",
      phone: "+15555550100",
      email: "jane@example.com",
    },
    approval: { confirmed: true, token: "apv1.abc.def.ghi" },
    verification_code: "482913",
  };
  const { input: out } = redactForAudit(input, null) as { input: typeof input };

  it.each([
    ["customer phone", out.customer.phone, "[redacted:phone]"],
    ["customer email", out.customer.email, "[redacted:email]"],
    ["display_name", out.customer.display_name, "[redacted:name]"],
    ["given_name", out.customer.given_name, "[redacted:name]"],
    ["family_name", out.customer.family_name, "[redacted:name]"],
    ["customer name", out.customer.name, "[redacted:name]"],
    ["approval.token", out.approval.token, "[redacted:token]"],
    ["verification_code", out.verification_code, "[redacted:code]"],
  ])("%s", (_kind, actual, marker) => {
    expect(actual).toBe(marker);
  });

  it("keeps correlation ids and non-secret members", () => {
    expect(out.mandate.id).toBe("mnd_1");
    expect(out.idempotency_key).toBe("idem_1");
    expect(out.customer.id).toBe("customer_123");
    expect(out.approval.confirmed).toBe(true);
  });

  it("redacts verification.verify's code in the input but keeps a Problem code in the result", () => {
    const r = redactForAudit(
      { customer: { phone: "+15555550100" }, purpose: "booking:org_1", code: "123456" },
      {
        ok: false,
        problem: { code: "verification_failed", message: "Code 123456 was rejected", retryable: false },
      },
    );
    expect(r.input).toMatchObject({ code: "[redacted:code]", purpose: "booking:org_1" });
    expect(r.result).toMatchObject({
      problem: { code: "verification_failed", message: "Code [redacted:code] was rejected" },
    });
  });

  it("redacts provider_image_url anywhere, including inside arrays", () => {
    const r = redactForAudit(
      { date: "2026-05-05" },
      {
        ok: true,
        value: [{ id: "s1", provider_image_url: "https://cdn.example/jordan.jpg", provider_name: "Jordan" }],
      },
    );
    expect(r.result).toEqual({
      ok: true,
      value: [{ id: "s1", provider_image_url: "[redacted:image_url]", provider_name: "Jordan" }],
    });
  });

  it("redacts names in a customers array", () => {
    const r = redactForAudit({ customers: [{ name: "Ann Lee", phone: "+442079460958" }] }, null);
    expect(r.input).toEqual({ customers: [{ name: "[redacted:name]", phone: "[redacted:phone]" }] });
  });
});

describe("redactForAudit: free text", () => {
  it.each([
    ["E.164", "call +15555550100 today", "call [redacted:phone] today"],
    ["E.164 international", "ring +442079460958.", "ring [redacted:phone]."],
    ["spaced international", "ring +44 20 7946 0958 now", "ring [redacted:phone] now"],
    ["US with parentheses", "call (555) 555-0100 today", "call [redacted:phone] today"],
    ["US with dashes", "call 555-555-0100", "call [redacted:phone]"],
    ["US with dots", "call 555.555.0100", "call [redacted:phone]"],
    ["US with country code", "call +1 (555) 555-0100", "call [redacted:phone]"],
    ["US 1- prefix", "call 1-555-555-0100", "call [redacted:phone]"],
    ["email", "write to jane.doe+spa@example.co.uk please", "write to [redacted:email] please"],
    ["internationalised email", "write to josé@correo.example", "write to [redacted:email]"],
    [
      "approval token instruction",
      'retry with approval.confirmed=true and approval.token="apv1.x.y.z".',
      'retry with approval.confirmed=true and approval.token="[redacted:token]".',
    ],
  ])("%s", (_name, message, expected) => {
    const r = redactForAudit({ reason: "requires_human", message }, null);
    expect((r.input as { message: string }).message).toBe(expected);
  });

  it.each([
    ["dates and times", "Booked on 2026-05-05 at 13:00 (2026-05-05T20:00:00.000Z)."],
    ["prices", "Price: USD 95.00; deposit USD 1234.56"],
    ["short numbers", "Slot +5 minutes, room 101, +1000 points"],
    ["epoch seconds", "at 1714600000"],
  ])("leaves %s alone", (_name, message) => {
    const r = redactForAudit({ message }, null);
    expect((r.input as { message: string }).message).toBe(message);
  });

  it("replaces a discovered customer name inside a receipt text", () => {
    const r = redactForAudit(createInput(), {
      ok: true,
      value: {
        id: "receipt_idem_2026_05_01_001",
        booking_id: "appointment_123",
        text: "Booked Haircut for Jane Customer on 2026-05-05 at 13:00. See you, jane!",
      },
      audit_event_id: "aud_1",
    });
    expect(r.result).toEqual({
      ok: true,
      value: {
        id: "receipt_idem_2026_05_01_001",
        booking_id: "appointment_123",
        text: "Booked Haircut for [redacted:name] on 2026-05-05 at 13:00. See you, [redacted:name]!",
      },
      audit_event_id: "aud_1",
    });
  });

  it("replaces a discovered phone number in its platform format only when it is contact-shaped or exact", () => {
    const r = redactForAudit(
      { customer: { phone: "+15555550100" } },
      { ok: false, problem: { code: "x", message: "Contact +15555550100 is blocked", retryable: false } },
    );
    expect(text(r.result)).not.toContain("5555550100");
  });

  it("finds the approval token in a challenge message and in nested arrays of strings", () => {
    const msg = 'Summary.\n\nAgent instruction: approval.token="apv1.k.n.m".';
    const r = redactForAudit({ notes: [["a", msg]] }, { ok: false, problem: { code: "c", message: msg } });
    expect(text(r)).not.toContain("apv1.k.n.m");
    expect(r.input).toEqual({
      notes: [["a", 'Summary.\n\nAgent instruction: approval.token="[redacted:token]".']],
    });
  });

  it("replaces a structured token value wherever it appears in free text", () => {
    const token = "apv1.mpx3.AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
    const r = redactForAudit({ approval: { confirmed: true, token } }, { message: `token ${token} expired` });
    expect(text(r)).not.toContain(token);
  });

  it("does not rewrite ids that merely contain a discovered value", () => {
    const r = redactForAudit(
      { verification_code: "123", booking_id: "appointment_123" },
      { id: "receipt_123", text: "code 123 used" },
    );
    expect(r.input).toEqual({ verification_code: "[redacted:code]", booking_id: "appointment_123" });
    expect(r.result).toEqual({ id: "receipt_123", text: "code [redacted:code] used" });
  });

  it("still scrubs contact shapes from ids", () => {
    const r = redactForAudit({ customer: { id: "jane@example.com" } }, null);
    expect(r.input).toEqual({ customer: { id: "[redacted:email]" } });
  });
});

describe("redactForAudit: snapshots and hashes", () => {
  it("does not mutate its arguments", () => {
    const input = deepFreeze(
      createInput({ approval: { confirmed: true, token: "t0k3n" }, verification_code: "9999" }),
    );
    const result = deepFreeze({
      ok: true,
      value: { id: "r", booking_id: "b", text: "Jane Customer booked" },
    });
    const before = structuredClone([input, result]);
    expect(() => redactForAudit(input, result)).not.toThrow();
    expect([input, result]).toEqual(before);
  });

  it("hashes are hex SHA-256, stable for equal content and key order", () => {
    const a = redactForAudit({ a: 1, b: { c: "x" } }, { ok: true });
    const b = redactForAudit({ b: { c: "x" }, a: 1 }, { ok: true });
    expect(a.input_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.input_hash).toBe(b.input_hash);
    expect(a.result_hash).toBe(b.result_hash);
  });

  it("hashes change when content changes", () => {
    const a = redactForAudit({ booking_id: "b1" }, { ok: true, value: 1 });
    const b = redactForAudit({ booking_id: "b2" }, { ok: true, value: 2 });
    expect(a.input_hash).not.toBe(b.input_hash);
    expect(a.result_hash).not.toBe(b.result_hash);
  });

  it("hashes the redacted snapshot, so secrets do not leak through the hash", () => {
    const a = redactForAudit({ verification_code: "111111" }, null);
    const b = redactForAudit({ verification_code: "222222" }, null);
    expect(a.input_hash).toBe(b.input_hash);
  });

  it("makes any JSON input JSON-safe without throwing, and is idempotent (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (input, result) => {
        const once = redactForAudit(input, result);
        const twice = redactForAudit(once.input, once.result);
        expect(twice.input).toEqual(once.input);
        expect(twice.result).toEqual(once.result);
      }),
    );
  });

  it("tolerates values JSON cannot carry", () => {
    const cyclic: Record<string, unknown> = { n: Number.NaN, big: 10n, when: new Date(0), f: () => 1 };
    cyclic.self = cyclic;
    const r = redactForAudit(cyclic, undefined);
    expect(r.input).toEqual({
      n: null,
      big: "10",
      when: "1970-01-01T00:00:00.000Z",
      self: "[redacted:cycle]",
    });
    expect(r.result_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
