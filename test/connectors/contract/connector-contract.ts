/**
 * The connector contract: what every platform connector must do for the booking core to be
 * safe on it, whatever the upstream (DESIGN.md "Holds on platforms that have none"; SchCP §10).
 * `connectorContract(name, make)` registers the tests; each test gets a fresh subject.
 *
 * - the catalog has the shape the core relies on;
 * - creates are idempotent by key under retries, sequential and concurrent: one appointment;
 * - after a lost answer the booking is found by its key, and a retried create returns it;
 * - a time taken is slot_taken, not a second booking;
 * - 429 is rate_limited with the Retry-After; no answer is timeout; an unknown id is not_found;
 *   a revoked credential is unauthorized (not retryable) and books nothing;
 * - every result, success or failure, carries the metadata of its own upstream call.
 */
import { describe, expect, it } from "vitest";
import { parseWorkingHours } from "../../../src/calendar/index.js";
import {
  hasCapabilities,
  type ConnectorResult,
  type PlatformConnector,
  type UpstreamCreate,
  type UpstreamMeta,
  type UpstreamSlot,
} from "../../../src/connectors/port.js";
import { isValidTimeZone } from "../../../src/protocol/time/index.js";
import type { ContractSubject, MakeSubject } from "./subject.js";

const CALL = /^(GET|POST|PUT|PATCH|DELETE) \/\S*$/;

function platform(s: ContractSubject): PlatformConnector {
  const c = s.connector;
  if (!hasCapabilities(c, ["catalog", "slots", "bookings"])) throw new Error("not a platform connector");
  return c;
}

/** The metadata of a result: a call line and a status, 2xx on success, never 2xx on failure. */
function metaOf(r: ConnectorResult<unknown>): UpstreamMeta {
  expect(r.upstream, "every result carries its upstream metadata").toBeDefined();
  const meta = r.upstream as UpstreamMeta;
  expect(meta.call).toMatch(CALL);
  expect(Number.isInteger(meta.status)).toBe(true);
  if (r.ok) expect(meta.status >= 200 && meta.status < 300, `status ${meta.status} on success`).toBe(true);
  else expect(meta.status >= 200 && meta.status < 300, `status ${meta.status} on failure`).toBe(false);
  return meta;
}

function valueOf<T>(r: ConnectorResult<T>): T {
  metaOf(r);
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

function errorOf(r: ConnectorResult<unknown>) {
  metaOf(r);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
}

async function freeSlots(s: ContractSubject): Promise<UpstreamSlot[]> {
  const slots = valueOf(await platform(s).slots.find({ serviceId: s.serviceId, range: s.range }));
  expect(slots.length, "the subject's range has at least two free starts").toBeGreaterThanOrEqual(2);
  return [...slots];
}

function createFor(slot: UpstreamSlot, key: string, resourceIds: readonly string[] = []): UpstreamCreate {
  return {
    idempotencyKey: key,
    serviceId: slot.serviceId,
    start: slot.start,
    ...(slot.end === undefined ? {} : { end: slot.end }),
    resourceIds,
    tentative: false,
  };
}

export function connectorContract(name: string, make: MakeSubject): void {
  const withSubject = (body: (s: ContractSubject) => Promise<void>) => async () => {
    const s = await make();
    try {
      await body(s);
    } finally {
      await s.close();
    }
  };

  describe(`connector contract: ${name}`, () => {
    it(
      "has the platform capabilities and a catalog of the shape the core relies on",
      withSubject(async (s) => {
        expect(s.connector.kind).toBe("platform");
        expect(s.connector.platform.vendor).not.toBe("");
        expect(s.connector.platform.api_version).not.toBe("");
        const catalog = valueOf(await platform(s).catalog.read());
        expect(catalog.organization.id).not.toBe("");
        expect(catalog.organization.name).not.toBe("");
        expect(isValidTimeZone(catalog.organization.timezone)).toBe(true);
        const ids = catalog.resources.map((r) => r.id);
        expect(new Set(ids).size).toBe(ids.length);
        const types = new Set(catalog.resources.map((r) => r.type));
        for (const [i, r] of catalog.resources.entries()) {
          expect(Number.isSafeInteger(r.capacity) && r.capacity >= 1).toBe(true);
          expect(parseWorkingHours(r.hours, `/resources/${i}/hours`).ok).toBe(true);
        }
        const serviceIds = catalog.services.map((x) => x.id);
        expect(new Set(serviceIds).size).toBe(serviceIds.length);
        expect(serviceIds).toContain(s.serviceId);
        for (const svc of catalog.services) {
          expect(svc.name).not.toBe("");
          expect(svc.duration === "open" || (Number.isSafeInteger(svc.duration) && svc.duration > 0)).toBe(
            true,
          );
          expect(Number.isSafeInteger(svc.bufferAfterMs) && svc.bufferAfterMs >= 0).toBe(true);
          for (const q of svc.requires) expect(types.has(q.resourceType), q.resourceType).toBe(true);
          if (svc.price !== undefined) expect(Number.isSafeInteger(svc.price.minor)).toBe(true);
        }
        for (const tax of catalog.taxes) expect(tax.percent).toMatch(/^\d+(?:\.\d+)?$/);
      }),
    );

    it(
      "slots: free starts of the service inside the range, each with the resources free for it",
      withSubject(async (s) => {
        const known = new Set(valueOf(await platform(s).catalog.read()).resources.map((r) => r.id));
        for (const slot of await freeSlots(s)) {
          expect(slot.serviceId).toBe(s.serviceId);
          expect(slot.start >= s.range.start && slot.start < s.range.end).toBe(true);
          if (slot.end !== undefined) expect(slot.end).toBeGreaterThan(slot.start);
          expect(slot.resourceIds.length).toBeGreaterThan(0);
          for (const id of slot.resourceIds) expect(known.has(id)).toBe(true);
        }
      }),
    );

    it(
      "idempotent create under retries: the same key is the same booking, one appointment",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        const request = createFor(slot!, "contract:idem-1");
        const first = valueOf(await c.bookings.create(request));
        expect(first).toMatchObject({ serviceId: s.serviceId, start: slot!.start, status: "confirmed" });
        expect(first.resourceIds.length).toBeGreaterThan(0);
        const again = valueOf(await c.bookings.create(request));
        const concurrent = await Promise.all([1, 2, 3].map(() => c.bookings.create(request)));
        for (const b of [again, ...concurrent.map(valueOf)]) expect(b.upstreamId).toBe(first.upstreamId);
        expect(valueOf(await c.bookings.findByIdempotencyKey(request.idempotencyKey))?.upstreamId).toBe(
          first.upstreamId,
        );
        expect(await s.liveAppointments()).toBe(1);
        // Concurrent first attempts of one key make one appointment too.
        const [, second] = await freeSlots(s);
        const other = createFor(second!, "contract:idem-2");
        const raced = (await Promise.all([1, 2, 3, 4].map(() => c.bookings.create(other)))).map(valueOf);
        expect(new Set(raced.map((b) => b.upstreamId)).size).toBe(1);
        expect(await s.liveAppointments()).toBe(2);
      }),
    );

    it(
      "a lost answer: the booking is found by its key, and the retried create returns it",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        const request = createFor(slot!, "contract:lost-1");
        expect(valueOf(await c.bookings.findByIdempotencyKey(request.idempotencyKey))).toBeNull();
        s.inject({ kind: "lost_response", operation: "create" });
        const lost = errorOf(await c.bookings.create(request));
        expect(["timeout", "unavailable"]).toContain(lost.code);
        const found = valueOf(await c.bookings.findByIdempotencyKey(request.idempotencyKey));
        expect(found).toMatchObject({ idempotencyKey: request.idempotencyKey, start: slot!.start });
        expect(valueOf(await c.bookings.create(request)).upstreamId).toBe(found?.upstreamId);
        expect(await s.liveAppointments()).toBe(1);
      }),
    );

    it(
      "a time already taken is slot_taken, never a second booking on it",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        const first = valueOf(await c.bookings.create(createFor(slot!, "contract:taken-1")));
        const taken = errorOf(
          await c.bookings.create(createFor(slot!, "contract:taken-2", first.resourceIds)),
        );
        expect(taken.code).toBe("slot_taken");
        expect(valueOf(await c.bookings.findByIdempotencyKey("contract:taken-2"))).toBeNull();
        expect(await s.liveAppointments()).toBe(1);
      }),
    );

    it(
      "rate limited: rate_limited with the Retry-After the upstream sent",
      withSubject(async (s) => {
        const c = platform(s);
        s.inject({ kind: "rate_limited", operation: "slots", retryAfterSeconds: 7 });
        const limited = await c.slots.find({ serviceId: s.serviceId, range: s.range });
        const e = errorOf(limited);
        expect(e.code).toBe("rate_limited");
        expect(e.retryAfterMs).toBe(7000);
        // The header itself is kept for operators (keyed lowercase, as the upstream sent it).
        expect(limited.upstream?.ratelimit?.["retry-after"]).toBe("7");
        s.inject({ kind: "rate_limited", operation: "create", retryAfterSeconds: 2 });
        const [slot] = await freeSlots(s);
        const r = await c.bookings.create(createFor(slot!, "contract:rl-1"));
        expect(errorOf(r)).toMatchObject({ code: "rate_limited", retryAfterMs: 2000 });
        expect(r.upstream?.status).toBe(429);
        expect(await s.liveAppointments()).toBe(0);
      }),
    );

    it(
      "no answer in time: timeout, nothing booked when the upstream did not act",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        s.inject({ kind: "timeout", operation: "create" });
        expect(errorOf(await c.bookings.create(createFor(slot!, "contract:to-1"))).code).toBe("timeout");
        expect(valueOf(await c.bookings.findByIdempotencyKey("contract:to-1"))).toBeNull();
        s.inject({ kind: "timeout", operation: "catalog" });
        expect(errorOf(await c.catalog.read()).code).toBe("timeout");
        valueOf(await c.catalog.read());
      }),
    );

    it(
      "an unknown booking is not_found for get, move and cancel",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        expect(errorOf(await c.bookings.get("contract-no-such-booking")).code).toBe("not_found");
        expect(errorOf(await c.bookings.cancel("contract-no-such-booking")).code).toBe("not_found");
        const move = { start: slot!.start, resourceIds: [] };
        expect(errorOf(await c.bookings.move("contract-no-such-booking", move)).code).toBe("not_found");
      }),
    );

    it(
      "a revoked credential: unauthorized (not retryable) on every call, nothing booked; works again once restored",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        s.inject({ kind: "revoked" });
        for (const r of [
          await c.catalog.read(),
          await c.slots.find({ serviceId: s.serviceId, range: s.range }),
          await c.bookings.create(createFor(slot!, "contract:auth-1")),
          await c.bookings.findByIdempotencyKey("contract:auth-1"),
        ]) {
          const e = errorOf(r);
          expect(e.code).toBe("unauthorized");
          expect(e.retryAfterMs).toBeUndefined();
          expect([401, 403]).toContain(r.upstream?.status);
        }
        s.restore();
        expect(valueOf(await c.bookings.findByIdempotencyKey("contract:auth-1"))).toBeNull();
        expect(await s.liveAppointments()).toBe(0);
      }),
    );

    it(
      "every result carries its own call's metadata, also under concurrency; a booking's life cycle",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot, later] = await freeSlots(s);
        const made = await c.bookings.create(createFor(slot!, "contract:meta-1"));
        const booking = valueOf(made);
        const moved = await c.bookings.move(booking.upstreamId, {
          start: later!.start,
          ...(later!.end === undefined ? {} : { end: later!.end }),
          resourceIds: [],
        });
        expect(valueOf(moved).start).toBe(later!.start);
        const cancelled = await c.bookings.cancel(booking.upstreamId);
        expect(valueOf(cancelled).status).toBe("cancelled");
        // Cancelling again answers the booking as it is.
        expect(valueOf(await c.bookings.cancel(booking.upstreamId)).status).toBe("cancelled");
        expect(await s.liveAppointments()).toBe(0);
        const calls = [made, moved, cancelled].map((r) => metaOf(r).call);
        expect(new Set(calls).size).toBe(3);

        const results = await Promise.all([
          c.catalog.read(),
          c.bookings.get(booking.upstreamId),
          c.bookings.get("contract-no-such-booking"),
          c.bookings.findByIdempotencyKey("contract:meta-1"),
        ]);
        const metas = results.map(metaOf);
        // Each its own: a read of one booking never names another call's request.
        expect(metas[1]?.call).not.toBe(metas[2]?.call);
        expect(metas[1]?.status).not.toBe(metas[2]?.status);
        const ids = metas.map((m) => m.request_id).filter((id) => id !== undefined);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });
}
