import { describe, expect, it } from "vitest";
import type { HoldRecord } from "../../../src/holds/port.js";
import {
  buildHoldExpiredEvent,
  holdExpiredEventId,
  readHoldPayload,
} from "../../../src/jobs/maintenance/hold-expired.js";
import { NOW, OWNER, TTL, payload } from "./fixtures.js";

const record: HoldRecord = {
  hostId: "maple-street-auto",
  holdId: "h_1",
  serviceId: "oil-change",
  interval: { start: NOW + 3_600_000, end: NOW + 7_200_000 },
  state: "expired",
  createdAt: NOW,
  expiresAt: NOW + TTL,
  ttlMs: TTL,
  owner: OWNER,
  allocations: [{ resourceId: "bay-1", units: 1 }],
  payload: payload("h_1"),
  endedAt: NOW + TTL,
};

describe("readHoldPayload", () => {
  it("reads the core's HoldPayload", () => {
    const read = readHoldPayload(payload("h_1"));
    expect(read.ok && read.value.kind).toBe("booking");
  });

  it.each([
    ["not JSON", "{", ""],
    ["not an object", "42", ""],
    ["another version", JSON.stringify({ ...JSON.parse(payload("h_1")), v: 2 }), "/v"],
    ["no hold", JSON.stringify({ ...JSON.parse(payload("h_1")), hold: null }), "/hold"],
    ["an unknown kind", JSON.stringify({ ...JSON.parse(payload("h_1")), kind: "meeting" }), "/kind"],
    [
      "a non-string callbackUrl",
      JSON.stringify({ ...JSON.parse(payload("h_1")), callbackUrl: 7 }),
      "/callbackUrl",
    ],
  ])("refuses %s", (_name, raw, field) => {
    expect(readHoldPayload(raw)).toMatchObject({ ok: false, error: { code: "invalid_payload", field } });
  });
});

describe("hold.expired event (SchCP §5.8)", () => {
  it("carries the stored Hold with status expired and the record's expiry, and nothing else", () => {
    const read = readHoldPayload(record.payload);
    if (!read.ok) throw new Error("fixture");
    const built = buildHoldExpiredEvent(record, read.value);
    expect(built).toEqual({
      ok: true,
      value: {
        event_id: holdExpiredEventId(record),
        type: "hold.expired",
        host_id: "maple-street-auto",
        occurred_at: "2030-01-07T13:05:00Z",
        hold: { ...read.value.hold, status: "expired", expires_at: "2030-01-07T13:05:00Z" },
      },
    });
  });

  it("refuses to build an event whose Hold breaks the closed schema", () => {
    const read = readHoldPayload(record.payload);
    if (!read.ok) throw new Error("fixture");
    const hold = { ...read.value.hold, offer: "not a jws" };
    expect(buildHoldExpiredEvent(record, { ...read.value, hold })).toMatchObject({
      ok: false,
      error: { code: "invalid_event", field: "/hold/offer" },
    });
  });

  it("derives one event id per expiry: stable, e_-prefixed, different for another hold or a reused id", () => {
    const id = holdExpiredEventId(record);
    expect(id).toMatch(/^e_[A-Za-z0-9_-]{26}$/);
    expect(holdExpiredEventId({ ...record })).toBe(id);
    expect(holdExpiredEventId({ ...record, holdId: "h_2" })).not.toBe(id);
    expect(holdExpiredEventId({ ...record, createdAt: NOW + 1 })).not.toBe(id);
    expect(holdExpiredEventId({ ...record, hostId: "fades-on-queen" })).not.toBe(id);
  });
});
