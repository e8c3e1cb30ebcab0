/** Audit ids (OSBP "Audit": "aud_..."): ULID-like, unique and sorted in issue order. */
import { describe, expect, it } from "vitest";
import { AUDIT_ID_PATTERN, createAuditIdGenerator } from "../../../../src/edges/osbp/audit/ids.js";

describe("createAuditIdGenerator", () => {
  it('is "aud_" + 26 Crockford base32 characters, the first 10 the millisecond time', () => {
    const id = createAuditIdGenerator({ now: () => Date.UTC(2026, 4, 5, 20) })();
    expect(id).toMatch(AUDIT_ID_PATTERN);
    // 2026-05-05T20:00:00Z = 1778011200000 ms = 01KQWVKPG0 in Crockford base32.
    expect(id.slice(4, 14)).toBe("01KQWVKPG0");
  });

  it("sorts by time across milliseconds", () => {
    let now = 1_000;
    const next = createAuditIdGenerator({ now: () => now });
    const early = next();
    now = 1_001;
    expect(next() > early).toBe(true);
  });

  it("is strictly increasing within one millisecond and when the clock steps back", () => {
    let now = 5_000;
    const next = createAuditIdGenerator({ now: () => now });
    const ids = Array.from({ length: 500 }, (_, i) => {
      if (i === 250) now = 4_000;
      return next();
    });
    expect(new Set(ids).size).toBe(500);
    expect([...ids].sort()).toEqual(ids);
  });

  it("two generators in the same millisecond do not collide", () => {
    const a = createAuditIdGenerator({ now: () => 7 });
    const b = createAuditIdGenerator({ now: () => 7 });
    expect(a()).not.toBe(b());
  });
});
