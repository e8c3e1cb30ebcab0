import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookingPayloadHash, canonicalJson } from "../../../src/protocol/osbp/index.js";
import { createInput } from "./samples.js";

describe("canonicalJson", () => {
  it("sorts keys recursively and keeps array order", () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 2 }], a: "x", c: { y: null, x: true } })).toBe(
      '{"a":"x","b":[3,{"a":2,"z":1}],"c":{"x":true,"y":null}}',
    );
  });

  it("drops undefined members like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it("sorts by UTF-16 code units (RFC 8785 §3.2.3)", () => {
    expect(canonicalJson({ "\u00e9": 1, z: 2, A: 3, "\ud83d\ude00": 4 })).toBe('{"A":3,"z":2,"é":1,"😀":4}');
  });

  it("throws on values JSON cannot carry (programmer errors)", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });

  it("round-trips and ignores key order (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        // Re-inserting members in reverse order must not change the output.
        const reversed = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
          v !== null && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        ) as unknown;
        expect(canonicalJson(reversed)).toBe(text);
      }),
    );
  });
});

describe("bookingPayloadHash (OSBP booking.create: transient fields excluded)", () => {
  it("is hex SHA-256 of the canonical payload", () => {
    const { approval: _a, verification_code: _v, ...payload } = createInput();
    const expected = createHash("sha256").update(canonicalJson(payload)).digest("hex");
    expect(bookingPayloadHash(createInput())).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores approval and verification_code", () => {
    const plain = bookingPayloadHash(createInput());
    expect(
      bookingPayloadHash(
        createInput({ approval: { confirmed: true, token: "t" }, verification_code: "123456" }),
      ),
    ).toBe(plain);
  });

  it.each([
    ["idempotency_key", { idempotency_key: "idem_2" }],
    ["time", { time: "13:30" }],
    ["provider", { provider_id: "provider_9" }],
    ["customer", { customer: { display_name: "Jane Q. Customer" } }],
  ])("changes when %s changes", (_name, change) => {
    expect(bookingPayloadHash(createInput(change))).not.toBe(bookingPayloadHash(createInput()));
  });

  it("changes when a mandate field changes", () => {
    const input = createInput();
    const other = createInput({
      mandate: { ...input.mandate, max_price: { amount_minor: 10001, currency: "USD" } },
    });
    expect(bookingPayloadHash(other)).not.toBe(bookingPayloadHash(input));
  });
});
