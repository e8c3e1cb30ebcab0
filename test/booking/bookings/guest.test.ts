/**
 * How long a booking's record shows its guest (src/booking/bookings/guest.ts): until the
 * booking ends, or ends early (cancelled, declined, lapsed), plus the contract's retention
 * (SchCP §2.1, §5.2; "P0D" for not past its end); an open-ended booking still running shows it.
 */
import { describe, expect, it } from "vitest";
import { describeGuest, guestOf, guestOnRecord } from "../../../src/booking/bookings/guest.js";

const DAY = 86_400_000;
const START = Date.parse("2026-12-07T09:00:00Z");
const END = START + 30 * 60_000;
const guest = { name: "Sam Rivera", email: "sam@mail.com", phone: "+34 600 111 222" };
const record = (over: Record<string, unknown> = {}) =>
  ({
    guest,
    status: "confirmed",
    start: START,
    end: END,
    updatedAt: START - DAY,
    contract: { retention: "P30D" },
    ...over,
  }) as Parameters<typeof guestOnRecord>[0];

describe("the guest on a booking's record", () => {
  it("is shown until the end plus the retention, then not", () => {
    expect(guestOnRecord(record(), START - DAY)).toEqual(guest);
    expect(guestOnRecord(record(), END + 30 * DAY)).toEqual(guest);
    expect(guestOnRecord(record(), END + 30 * DAY + 1)).toBeUndefined();
  });

  it("P0D keeps it to the end, no further", () => {
    const r = record({ contract: { retention: "P0D" } });
    expect(guestOnRecord(r, END)).toEqual(guest);
    expect(guestOnRecord(r, END + 1)).toBeUndefined();
  });

  it("a booking that ended early counts from when it ended", () => {
    const cancelledAt = START - 10 * DAY;
    const r = record({ status: "cancelled", updatedAt: cancelledAt, contract: { retention: "P1W" } });
    expect(guestOnRecord(r, cancelledAt + 7 * DAY)).toEqual(guest);
    expect(guestOnRecord(r, cancelledAt + 7 * DAY + 1)).toBeUndefined();
  });

  it("an open-ended booking still running keeps it; once ended, the retention runs", () => {
    const open = record({ end: undefined, openEnd: true, contract: { retention: "P0D" } });
    expect(guestOnRecord(open, START + 400 * DAY)).toEqual(guest);
    expect(guestOnRecord({ ...open, end: END, status: "completed" }, END + 1)).toBeUndefined();
  });

  it("a record without a guest has none, and a retention it cannot read keeps nothing past the end", () => {
    expect(guestOnRecord(record({ guest: undefined }), START)).toBeUndefined();
    expect(guestOnRecord(record({ contract: { retention: "1 year" } }), END + 1)).toBeUndefined();
  });

  it("keeps only what was given, trimmed, and words it in one line", () => {
    expect(guestOf({ name: "  Sam Rivera ", email: "", phone: " +34 600 111 222" })).toEqual({
      name: "Sam Rivera",
      phone: "+34 600 111 222",
    });
    expect(guestOf({ name: " " })).toBeUndefined();
    expect(guestOf(undefined)).toBeUndefined();
    expect(describeGuest(guest)).toBe("Sam Rivera (sam@mail.com, +34 600 111 222)");
    expect(describeGuest({ name: "Sam" })).toBe("Sam");
    expect(describeGuest({ phone: "+34 600" })).toBe("+34 600");
  });
});
