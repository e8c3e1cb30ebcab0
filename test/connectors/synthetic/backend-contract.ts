/**
 * One contract for every SyntheticBackend (memory and Redis): consistent reads, writes as
 * compare-and-set on the host's version, and the idempotency key checked first, so one key
 * can never make two appointments.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SyntheticAppointment, SyntheticBackend } from "../../../src/connectors/synthetic/index.js";

export interface BackendFixture {
  readonly backend: SyntheticBackend;
  cleanup(): Promise<void>;
}

const appointment = (id: string, over: Partial<SyntheticAppointment> = {}): SyntheticAppointment => ({
  id,
  idempotencyKey: `key-${id}`,
  fingerprint: "f",
  serviceId: "oil-change",
  start: 1_000,
  end: 1_045,
  occupiedUntil: 1_060,
  allocations: [{ resourceId: "bay-1", units: 1 }],
  status: "confirmed",
  partySize: 1,
  customer: { name: "Ada", phone: "+14165550100" },
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

export function backendContract(name: string, make: () => Promise<BackendFixture>): void {
  describe(`SyntheticBackend contract: ${name}`, () => {
    let fixture: BackendFixture;
    let backend: SyntheticBackend;
    beforeEach(async () => {
      fixture = await make();
      backend = fixture.backend;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it("an empty host reads as version 0 with nothing in it", async () => {
      const snap = await backend.read("h", {
        range: { start: 0, end: 10_000 },
        ids: ["x"],
        idempotencyKey: "k",
      });
      expect(snap.version).toBe(0);
      expect(snap.occupying).toEqual([]);
      expect(snap.byId.size).toBe(0);
      expect(snap.byKey).toBeUndefined();
    });

    it("a create is written, bumps the version, and reads back by range, id and key", async () => {
      const a = appointment("a");
      expect(await backend.write("h", 0, a, true)).toEqual({ outcome: "written", version: 1 });
      const snap = await backend.read("h", {
        range: { start: 1_059, end: 1_100 },
        ids: ["a"],
        idempotencyKey: "key-a",
      });
      expect(snap.version).toBe(1);
      expect(snap.occupying).toEqual([a]);
      expect(snap.byId.get("a")).toEqual(a);
      expect(snap.byKey).toEqual(a);
    });

    it("ranges are half-open against [start, occupiedUntil)", async () => {
      await backend.write("h", 0, appointment("a"), true);
      expect((await backend.read("h", { range: { start: 1_060, end: 2_000 } })).occupying).toEqual([]);
      expect((await backend.read("h", { range: { start: 0, end: 1_000 } })).occupying).toEqual([]);
      expect((await backend.read("h", { range: { start: 0, end: 1_001 } })).occupying).toHaveLength(1);
    });

    it("a create under a used key answers 'exists' with the stored appointment, whatever the version", async () => {
      const a = appointment("a");
      await backend.write("h", 0, a, true);
      const again = await backend.write(
        "h",
        0,
        appointment("a", { start: 5_000, occupiedUntil: 5_060 }),
        true,
      );
      expect(again).toEqual({ outcome: "exists", appointment: a });
      expect((await backend.read("h", {})).version).toBe(1);
    });

    it("a write at a stale version is a conflict and changes nothing", async () => {
      await backend.write("h", 0, appointment("a"), true);
      expect(await backend.write("h", 0, appointment("b"), true)).toEqual({ outcome: "conflict" });
      expect(await backend.write("h", 0, appointment("a", { status: "cancelled" }), false)).toEqual({
        outcome: "conflict",
      });
      const snap = await backend.read("h", { ids: ["a", "b"], idempotencyKey: "key-b" });
      expect(snap.version).toBe(1);
      expect(snap.byId.get("a")?.status).toBe("confirmed");
      expect(snap.byId.has("b")).toBe(false);
      expect(snap.byKey).toBeUndefined();
    });

    it("an update replaces the appointment; a cancelled one leaves the range read but stays readable by id", async () => {
      await backend.write("h", 0, appointment("a"), true);
      const moved = appointment("a", { start: 2_000, end: 2_045, occupiedUntil: 2_060 });
      expect(await backend.write("h", 1, moved, false)).toEqual({ outcome: "written", version: 2 });
      expect((await backend.read("h", { range: { start: 0, end: 1_500 } })).occupying).toEqual([]);
      expect((await backend.read("h", { range: { start: 0, end: 3_000 } })).occupying).toEqual([moved]);
      const cancelled = { ...moved, status: "cancelled" as const, cancelReason: "asked" };
      await backend.write("h", 2, cancelled, false);
      const snap = await backend.read("h", {
        range: { start: 0, end: 3_000 },
        ids: ["a"],
        idempotencyKey: "key-a",
      });
      expect(snap.occupying).toEqual([]);
      expect(snap.byId.get("a")).toEqual(cancelled);
      expect(snap.byKey).toEqual(cancelled);
    });

    it("hosts are separate", async () => {
      await backend.write("h", 0, appointment("a"), true);
      const other = await backend.read("other", {
        range: { start: 0, end: 10_000 },
        ids: ["a"],
        idempotencyKey: "key-a",
      });
      expect(other.version).toBe(0);
      expect(other.occupying).toEqual([]);
      expect(other.byId.size).toBe(0);
      expect(other.byKey).toBeUndefined();
      expect(await backend.write("other", 0, appointment("a"), true)).toEqual({
        outcome: "written",
        version: 1,
      });
    });

    it("verification codes: put, get, delete", async () => {
      expect(await backend.getCode("h", "+1416")).toBeUndefined();
      await backend.putCode("h", "+1416", { code: "123456", expiresAt: 99 });
      expect(await backend.getCode("h", "+1416")).toEqual({ code: "123456", expiresAt: 99 });
      expect(await backend.getCode("other", "+1416")).toBeUndefined();
      await backend.deleteCode("h", "+1416");
      expect(await backend.getCode("h", "+1416")).toBeUndefined();
    });

    it("verification sends: a sliding window per host and contact; refusals are not counted", async () => {
      const limit = { maxSends: 2, windowMs: 10_000 };
      expect(await backend.admitSend("h", "+1416", 1_000, limit)).toEqual({ admitted: true });
      expect(await backend.admitSend("h", "+1416", 4_000, limit)).toEqual({ admitted: true });
      // The oldest counted send (1 000) leaves the window at 11 000.
      expect(await backend.admitSend("h", "+1416", 5_000, limit)).toEqual({
        admitted: false,
        retryAfterMs: 6_000,
      });
      expect(await backend.admitSend("h", "+1416", 10_999, limit)).toEqual({
        admitted: false,
        retryAfterMs: 1,
      });
      // Other contacts and other hosts have their own windows.
      expect(await backend.admitSend("h", "+1417", 5_000, limit)).toEqual({ admitted: true });
      expect(await backend.admitSend("other", "+1416", 5_000, limit)).toEqual({ admitted: true });
      expect(await backend.admitSend("h", "+1416", 11_000, limit)).toEqual({ admitted: true });
      expect(await backend.admitSend("h", "+1416", 11_000, limit)).toEqual({
        admitted: false,
        retryAfterMs: 3_000,
      });
    });

    it("verification sends: concurrent sends never exceed the limit", async () => {
      const limit = { maxSends: 3, windowMs: 60_000 };
      const all = await Promise.all(
        Array.from({ length: 10 }, () => backend.admitSend("h", "+1418", 5_000, limit)),
      );
      expect(all.filter((a) => a.admitted)).toHaveLength(3);
      expect(all.filter((a) => !a.admitted)).toEqual(
        Array.from({ length: 7 }, () => ({ admitted: false, retryAfterMs: 60_000 })),
      );
    });
  });
}
