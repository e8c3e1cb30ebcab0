import { describe, expect, it } from "vitest";
import type { HoldRecord } from "../../../src/holds/port.js";
import { decodeHoldPayload as readHoldPayload } from "../../../src/booking/holds/payload.js";
import { schcpHold } from "../../../src/edges/schcp/attachment.js";
import { buildHoldExpiredEvent, holdExpiredEventId } from "../../../src/edges/schcp/hold-expired.js";
import { NOW, OWNER, TTL, payload, payloadV1 } from "./fixtures.js";

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

describe("the hold payload as the sweeper reads it (the core's one decoder)", () => {
  it("reads the core's HoldPayload", () => {
    const read = readHoldPayload(payload("h_1"));
    expect(read.ok && read.value.contract.kind).toBe("booking");
  });

  it("reads a hold stored by builds before the core/SchCP split (version 1): its wire Hold is the SchCP record", () => {
    const read = readHoldPayload(payloadV1("h_1"));
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value).toMatchObject({ v: 2, contract: { kind: "booking", start: NOW + 3_600_000 } });
    const stored = JSON.parse(payloadV1("h_1")) as { hold: unknown };
    expect(schcpHold(read.value.attachments)?.hold).toEqual(stored.hold);
  });

  it.each([
    ["not JSON", "{", ""],
    ["not an object", "42", ""],
    ["another version", JSON.stringify({ ...JSON.parse(payload("h_1")), v: 3 }), "/v"],
    ["no contract", JSON.stringify({ ...JSON.parse(payload("h_1")), contract: null }), "/contract"],
    [
      "a version 1 payload without its Hold",
      JSON.stringify({ ...JSON.parse(payloadV1("h_1")), hold: null }),
      "/hold",
    ],
    [
      "a version 1 payload of an unknown kind",
      JSON.stringify({ ...JSON.parse(payloadV1("h_1")), kind: "meeting" }),
      "/kind",
    ],
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
    const signed = read.ok ? schcpHold(read.value.attachments) : undefined;
    if (signed === undefined) throw new Error("fixture");
    const built = buildHoldExpiredEvent(record, signed);
    expect(built).toEqual({
      ok: true,
      value: {
        event_id: holdExpiredEventId(record),
        type: "hold.expired",
        host_id: "maple-street-auto",
        occurred_at: "2030-01-07T13:05:00Z",
        hold: { ...signed.hold, status: "expired", expires_at: "2030-01-07T13:05:00Z" },
      },
    });
  });

  it("refuses to build an event whose Hold breaks the closed schema", () => {
    const read = readHoldPayload(record.payload);
    const signed = read.ok ? schcpHold(read.value.attachments) : undefined;
    if (signed === undefined) throw new Error("fixture");
    const hold = { ...signed.hold, offer: "not a jws" };
    expect(buildHoldExpiredEvent(record, { hold })).toMatchObject({
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
