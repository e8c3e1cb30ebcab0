/** Unit tests of the edge's small parts: payment detection, target URI, token bucket. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findPaymentData } from "../../../../src/edges/http/payment-data.js";
import { MemoryRateLimiter, takeToken } from "../../../../src/edges/http/rate-limit.js";
import {
  normalizeOrigin,
  publicTargetUri,
  requestPathAndQuery,
} from "../../../../src/edges/schcp/http/target-uri.js";
import { SCHCP_SCHEMA_DOCUMENT } from "../../../../src/protocol/schcp/schemas/document.js";

/** Every member name any SchCP schema defines, at any depth. */
function schemaMemberNames(): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    const props = record["properties"];
    if (props !== null && typeof props === "object") Object.keys(props).forEach((n) => names.add(n));
    Object.values(record).forEach(walk);
  };
  walk(SCHCP_SCHEMA_DOCUMENT);
  return names;
}

describe("payment data (SchCP §8)", () => {
  it("never flags a member name a request schema defines", () => {
    const requestSchemas = [
      "AvailabilityRequest",
      "HoldRequest",
      "ConfirmRequest",
      "CancelRequest",
      "ChangeOfferRequest",
      "RescheduleRequest",
      "ProposalResponseRequest",
      "Place",
      "Contact",
      "ParticipantRequest",
      "TimeWindow",
    ];
    const defs = (SCHCP_SCHEMA_DOCUMENT as { $defs: Record<string, unknown> }).$defs;
    const names = new Set<string>();
    for (const name of requestSchemas) {
      const props = (defs[name] as { properties?: Record<string, unknown> }).properties ?? {};
      Object.keys(props).forEach((n) => names.add(n));
    }
    expect(names.size).toBeGreaterThan(20);
    for (const name of names) expect(findPaymentData({ [name]: "x" }), name).toBeUndefined();
    // Even the response-side names (price, total, lines, amount) are not flagged as payment.
    for (const name of ["price", "total", "lines", "amount", "currency", "max_price"]) {
      expect(schemaMemberNames().has(name)).toBe(true);
      expect(findPaymentData({ [name]: "x" })).toBeUndefined();
    }
  });

  it.each([
    ["payment", "/payment"],
    ["paymentMethod", "/paymentMethod"],
    ["credit_card", "/credit_card"],
    ["cardNumber", "/cardNumber"],
    ["cvv", "/cvv"],
    ["iban", "/iban"],
    ["deposit", "/deposit"],
    ["prepayment", "/prepayment"],
    ["refund", "/refund"],
    ["billing_address", "/billing_address"],
    ["wallet", "/wallet"],
    ["pan", "/pan"],
    ["pay_with", "/pay_with"],
    ["tip", "/tip"],
    ["capture", "/capture"],
  ])("flags the member %s", (name, pointer) => {
    expect(findPaymentData({ service_id: "x", [name]: { a: 1 } })).toBe(pointer);
  });

  it("finds payment data at any depth and in arrays", () => {
    expect(findPaymentData({ place: { extra: [{ a: 1 }, { card: "x" }] } })).toBe("/place/extra/1/card");
  });

  it("looks for card numbers in free text only: ids and keys may hold Luhn-valid digit runs", () => {
    expect(
      findPaymentData({ idempotency_key: "k-4111111111111111", hold_id: "4111111111111111" }),
    ).toBeUndefined();
    expect(findPaymentData({ reason: "4111111111111111" })).toBe("/reason");
    expect(findPaymentData({ message: "4111 1111 1111 1111" })).toBe("/message");
  });

  it("flags card numbers (Luhn) in notes, not phone numbers, dates or ids", () => {
    expect(findPaymentData({ notes: "4111111111111111" })).toBe("/notes");
    expect(findPaymentData({ notes: "pay with 5500-0000-0000-0004 please" })).toBe("/notes");
    expect(findPaymentData({ notes: "4111111111111112" })).toBeUndefined(); // fails Luhn
    for (const harmless of [
      "+1-416-555-0100",
      "2019 Civic",
      "2026-10-15T13:00:00-04:00",
      "call 416 555 0100 x 1234",
    ]) {
      expect(findPaymentData({ notes: harmless }), harmless).toBeUndefined();
    }
  });

  it("property: any Luhn-valid 16-digit number in free text is found", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }),
        fc.string(),
        (digits, prefix) => {
          const check = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].find((d) => {
            const all = [...digits, d];
            let sum = 0;
            all.reverse().forEach((x, i) => {
              let v = i % 2 === 1 ? x * 2 : x;
              if (v > 9) v -= 9;
              sum += v;
            });
            return sum % 10 === 0;
          });
          const number = [...digits, check].join("");
          const text = `${prefix.replace(/[0-9]/g, "")} ${number}`;
          expect(findPaymentData({ notes: text })).toBe("/notes");
        },
      ),
    );
  });
});

describe("@target-uri from the configured origin (SchCP §3.2)", () => {
  it("normalizes an origin and refuses what is not one", () => {
    expect(normalizeOrigin("https://gw.example/")).toBe("https://gw.example");
    expect(normalizeOrigin("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    expect(normalizeOrigin("https://gw.example:443")).toBe("https://gw.example");
    for (const bad of [
      "gw.example",
      "ftp://gw.example",
      "https://gw.example/prefix",
      "https://u:p@gw.example",
      "https://gw.example?x",
    ]) {
      expect(normalizeOrigin(bad), bad).toBeUndefined();
    }
  });

  it("keeps only the path and query of the request URL", () => {
    expect(requestPathAndQuery("http://evil.example:1/schcp/v0/h/holds?a=1&b=2")).toBe(
      "/schcp/v0/h/holds?a=1&b=2",
    );
    expect(requestPathAndQuery("http://evil.example/x?")).toBe("/x?");
    expect(requestPathAndQuery("http://evil.example/x#frag")).toBe("/x");
    expect(publicTargetUri("https://gw.example", "http://10.0.0.5:8080/schcp/v0/h/holds")).toBe(
      "https://gw.example/schcp/v0/h/holds",
    );
  });
});

describe("token bucket (SchCP §7.2)", () => {
  it("allows a burst of capacity, then one per refill interval", async () => {
    const limiter = new MemoryRateLimiter({ capacity: 3, refillPerSec: 1 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect((await limiter.take("k", t0)).ok).toBe(true);
    expect(await limiter.take("k", t0)).toEqual({ ok: false, error: { retryAfterMs: 1000 } });
    expect(await limiter.take("k", t0 + 400)).toEqual({ ok: false, error: { retryAfterMs: 600 } });
    expect((await limiter.take("k", t0 + 1000)).ok).toBe(true);
    expect((await limiter.take("other", t0)).ok).toBe(true);
  });

  it("never holds more than capacity, and a clock going backwards adds nothing", () => {
    const policy = { capacity: 2, refillPerSec: 1 };
    const full = takeToken({ tokens: 0, at: 0 }, policy, 1_000_000);
    expect(full.bucket.tokens).toBe(1);
    const back = takeToken({ tokens: 0.5, at: 10_000 }, policy, 5_000);
    expect(back.ok).toBe(false);
    expect(back.bucket.tokens).toBe(0.5);
  });

  it("property: over any schedule, granted takes never exceed capacity + elapsed × rate", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 60 }),
        async (gaps) => {
          const policy = { capacity: 5, refillPerSec: 2 };
          const limiter = new MemoryRateLimiter(policy);
          let now = 0;
          let granted = 0;
          for (const gap of gaps) {
            now += gap;
            if ((await limiter.take("k", now)).ok) granted++;
          }
          expect(granted).toBeLessThanOrEqual(
            policy.capacity + Math.floor((now / 1000) * policy.refillPerSec),
          );
        },
      ),
    );
  });
});
