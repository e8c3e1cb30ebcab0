/**
 * The connector contract: what every platform connector must do for the booking core to be
 * safe on it, whatever the upstream (docs/ARCHITECTURE.md, Hold emulation; SchCP §10).
 * `connectorContract(name, make)` registers the tests; each test gets a fresh subject.
 *
 * - the catalog has the shape the core relies on;
 * - creates are idempotent by key under retries, sequential and concurrent: one appointment;
 * - after a lost answer, by what the connector declares it can do (BookingPort.abilities):
 *   "native" and "lookup" find the booking by its key (lookup with the attempt handed back)
 *   and a retried create returns it; "none" refuses (`unavailable`), never "nothing was
 *   made", and never sends the create again; a lookup or probe that fails is an error, never
 *   "nothing was made", and a later retry, once the platform shows the booking, adopts it;
 * - a time taken is slot_taken, not a second booking;
 * - 429 is rate_limited with the Retry-After; no answer is timeout (and the key is free
 *   again); an unknown id is not_found; a revoked credential is unauthorized (not retryable)
 *   on what it guards and books nothing;
 * - every result, success or failure, carries the metadata of its own upstream call; one
 *   answered from the connector's memory carries the metadata of the call that produced it,
 *   marked `replay`; only a result no call ever produced has none (an operation the platform
 *   lacks, a read of an id a connector without readback never saw).
 *
 * A connector that declares no abilities is held to the native ones (synthetic, Square).
 */
import { describe, expect, it } from "vitest";
import { parseWorkingHours } from "../../../src/calendar/index.js";
import {
  abilitiesOf,
  hasCapabilities,
  type BookingAbilities,
  type Connector,
  type ConnectorResult,
  type PlatformConnector,
  type UpstreamCreate,
  type UpstreamMeta,
  type UpstreamSlot,
} from "../../../src/connectors/port.js";
import { isValidTimeZone } from "../../../src/protocol/time/index.js";
import type { ContractOperation, ContractSubject, MakeSubject } from "./subject.js";

const CALL = /^(GET|POST|PUT|PATCH|DELETE) \/\S*$/;
const UNKNOWN_ID = "contract-no-such-booking";
const ALL_GUARDED: readonly ContractOperation[] = ["catalog", "slots", "create", "findByKey"];

function platformOf(c: Connector): PlatformConnector {
  if (!hasCapabilities(c, ["catalog", "slots", "bookings"])) throw new Error("not a platform connector");
  return c;
}

const platform = (s: ContractSubject): PlatformConnector => platformOf(s.connector);
const abilities = (s: ContractSubject): BookingAbilities => abilitiesOf(platform(s).bookings);

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * The metadata of a result: a call line and a status, 2xx on success, never 2xx on failure. A
 * replay (answered from memory) is the earlier call's: 2xx when it answers a booking.
 */
function metaOf(r: ConnectorResult<unknown>): UpstreamMeta {
  expect(r.upstream, "every result carries its upstream metadata").toBeDefined();
  const meta = r.upstream as UpstreamMeta;
  expect(meta.call).toMatch(CALL);
  expect(Number.isInteger(meta.status)).toBe(true);
  if (meta.replay === true) {
    if (r.ok && r.value !== null) expect(is2xx(meta.status), `replayed status ${meta.status}`).toBe(true);
    return meta;
  }
  if (r.ok) expect(is2xx(meta.status), `status ${meta.status} on success`).toBe(true);
  else expect(is2xx(meta.status), `status ${meta.status} on failure`).toBe(false);
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

/**
 * A refusal read off the platform's answer to a read (the attempted time taken): it carries that
 * read's metadata, a 2xx GET, and never a create's (nothing was sent).
 */
function refusalOf(r: ConnectorResult<unknown>) {
  expect(r.upstream, "the refusal names the read it rests on").toBeDefined();
  const meta = r.upstream as UpstreamMeta;
  expect(meta.replay).toBeUndefined();
  expect(meta.call).toMatch(/^GET \//);
  expect(is2xx(meta.status)).toBe(true);
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  expect(r.error.code).toBe("unavailable");
  expect(r.error.message).toMatch(/outcome unknown/i);
  return r.error;
}

/** An operation the platform lacks: unsupported, and no call made (so no metadata). */
function unsupportedWithoutCall(r: ConnectorResult<unknown>): void {
  expect(r).toMatchObject({ ok: false, error: { code: "unsupported" } });
  expect(r.upstream).toBeUndefined();
}

/** Two metadata of the same call (one of them replayed from memory). */
function sameCall(replay: UpstreamMeta | undefined, original: UpstreamMeta | undefined): void {
  expect(replay?.replay).toBe(true);
  const { replay: _drop, ...rest } = replay ?? ({} as UpstreamMeta);
  expect(rest).toEqual(original);
}

async function freeSlots(s: ContractSubject): Promise<UpstreamSlot[]> {
  const slots = valueOf(await platform(s).slots.find({ serviceId: s.serviceId, range: s.range }));
  expect(slots.length, "the subject's range has at least two free starts").toBeGreaterThanOrEqual(2);
  return [...slots];
}

/** Two free slots at different starts (a move target, a second booking elsewhere in time). */
async function twoStarts(s: ContractSubject): Promise<[UpstreamSlot, UpstreamSlot]> {
  const [slot, ...rest] = await freeSlots(s);
  const later = rest.find((x) => x.start !== slot!.start);
  if (later === undefined) throw new Error("the subject's range has free starts at two different times");
  return [slot!, later];
}

function createFor(
  s: ContractSubject,
  slot: UpstreamSlot,
  key: string,
  resourceIds: readonly string[] = [],
): UpstreamCreate {
  return {
    idempotencyKey: key,
    serviceId: slot.serviceId,
    start: slot.start,
    ...(slot.end === undefined ? {} : { end: slot.end }),
    resourceIds,
    tentative: false,
    ...s.createExtras,
  };
}

/** As the core asks: by key; a connector that is not native gets the attempt handed back. */
const findByKey = (s: ContractSubject, c: PlatformConnector, request: UpstreamCreate) =>
  c.bookings.findByIdempotencyKey(
    request.idempotencyKey,
    abilities(s).findByKey === "native" ? undefined : request,
  );

/** Creates the upstream received; required where findByKey is not native. */
function createsSent(s: ContractSubject): number | undefined {
  if (s.createsSent !== undefined) return s.createsSent();
  if (abilities(s).findByKey !== "native")
    throw new Error("a subject whose connector is not native must count the creates it receives");
  return undefined;
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
        const ab = abilities(s);
        expect(["native", "lookup", "none"]).toContain(ab.findByKey);
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
        const request = createFor(s, slot!, "contract:idem-1");
        const made = await c.bookings.create(request);
        const first = valueOf(made);
        expect(first).toMatchObject({ serviceId: s.serviceId, start: slot!.start, status: "confirmed" });
        expect(first.resourceIds.length).toBeGreaterThan(0);
        const sent = createsSent(s);
        const again = await c.bookings.create(request);
        const concurrent = await Promise.all([1, 2, 3].map(() => c.bookings.create(request)));
        const found = await findByKey(s, c, request);
        for (const r of [again, ...concurrent, found]) {
          expect(valueOf(r)?.upstreamId).toBe(first.upstreamId);
          // From memory: the metadata of the create that made it, marked a replay.
          if (r.upstream?.replay === true) sameCall(r.upstream, made.upstream);
        }
        // Otherwise each names a call of its own: no request id answers twice unmarked.
        const ids = [made, again, ...concurrent, found]
          .filter((r) => r.upstream?.replay !== true)
          .map((r) => r.upstream?.request_id)
          .filter((id) => id !== undefined);
        expect(new Set(ids).size).toBe(ids.length);
        if (sent !== undefined) expect(createsSent(s), "a known key sends nothing").toBe(sent);
        expect(await s.liveAppointments()).toBe(1);
        // Concurrent first attempts of one key make one appointment too.
        const [, second] = await freeSlots(s);
        const other = createFor(s, second!, "contract:idem-2");
        const raced = (await Promise.all([1, 2, 3, 4].map(() => c.bookings.create(other)))).map(valueOf);
        expect(new Set(raced.map((b) => b.upstreamId)).size).toBe(1);
        expect(await s.liveAppointments()).toBe(2);
      }),
    );

    it(
      "a lost answer: found by its key and returned by the retried create, or (findByKey none) refused and never sent again",
      withSubject(async (s) => {
        const c = platform(s);
        const ab = abilities(s);
        const [slot] = await freeSlots(s);
        const request = createFor(s, slot!, "contract:lost-1");
        expect(valueOf(await findByKey(s, c, request))).toBeNull();
        s.inject({ kind: "lost_response", operation: "create" });
        const lost = errorOf(await c.bookings.create(request));
        expect(["timeout", "unavailable"]).toContain(lost.code);
        expect(await s.liveAppointments(), "the platform did book").toBe(1);
        const sent = createsSent(s);
        if (ab.findByKey === "none") {
          refusalOf(await findByKey(s, c, request));
          refusalOf(await c.bookings.create(request));
        } else {
          const found = valueOf(await findByKey(s, c, request));
          expect(found).toMatchObject({ idempotencyKey: request.idempotencyKey, start: slot!.start });
          expect(valueOf(await c.bookings.create(request)).upstreamId).toBe(found?.upstreamId);
        }
        if (sent !== undefined) expect(createsSent(s), "the create is never sent again").toBe(sent);
        expect(await s.liveAppointments()).toBe(1);
      }),
    );

    it(
      "a lost answer whose lookup fails: an error, never 'nothing was made', nothing sent again; a later retry adopts what the platform shows",
      withSubject(async (s) => {
        const c = platform(s);
        const ab = abilities(s);
        const [slot] = await freeSlots(s);
        const request = createFor(s, slot!, "contract:lost-2");
        s.inject({ kind: "lost_response", operation: "create" });
        errorOf(await c.bookings.create(request));
        const sent = createsSent(s);
        s.inject({ kind: "timeout", operation: "findByKey" });
        expect(errorOf(await findByKey(s, c, request)).code).toBe("timeout");
        if (ab.findByKey !== "native") {
          // The retry must ask first; the question unanswered, the create is not sent.
          s.inject({ kind: "timeout", operation: "findByKey" });
          expect(errorOf(await c.bookings.create(request)).code).toBe("timeout");
          expect(createsSent(s)).toBe(sent);
        }
        s.restore();
        if (ab.findByKey === "none") {
          // The platform shows nothing that could be adopted: still refused, still not sent.
          refusalOf(await c.bookings.create(request));
        } else {
          const adopted = valueOf(await c.bookings.create(request));
          expect(adopted).toMatchObject({ start: slot!.start, serviceId: s.serviceId });
          expect(valueOf(await findByKey(s, c, request))?.upstreamId).toBe(adopted.upstreamId);
        }
        if (sent !== undefined) expect(createsSent(s)).toBe(sent);
        expect(await s.liveAppointments()).toBe(1);
      }),
    );

    it(
      "another gateway process (fresh memory) finds a lost booking as its abilities allow, and never claims 'nothing was made' for it",
      withSubject(async (s) => {
        if (s.fresh === undefined) return;
        const c = platform(s);
        const ab = abilities(s);
        const [slot, second] = await twoStarts(s);
        const request = createFor(s, slot, "contract:fresh-1");
        s.inject({ kind: "lost_response", operation: "create" });
        errorOf(await c.bookings.create(request));
        const other = platformOf(s.fresh());
        const untouched = createFor(s, second, "contract:fresh-never");
        if (ab.findByKey === "native") {
          const found = valueOf(await other.bookings.findByIdempotencyKey(request.idempotencyKey));
          expect(found).toMatchObject({ idempotencyKey: request.idempotencyKey, start: slot.start });
          expect(valueOf(await other.bookings.findByIdempotencyKey(untouched.idempotencyKey))).toBeNull();
        } else {
          const asked = await other.bookings.findByIdempotencyKey(request.idempotencyKey, request);
          if (ab.findByKey === "lookup") {
            expect(valueOf(asked)).toMatchObject({
              idempotencyKey: request.idempotencyKey,
              start: slot.start,
            });
          } else refusalOf(asked);
          // A key the platform never saw, with its attempt: the platform's word, from a call made now.
          const never = await other.bookings.findByIdempotencyKey(untouched.idempotencyKey, untouched);
          expect(valueOf(never)).toBeNull();
          expect(never.upstream?.replay).toBeUndefined();
          // Without the attempt there is nothing to ask: memory alone (a process that never
          // learned the key), and no platform answer claimed.
          const third = platformOf(s.fresh());
          expect(await third.bookings.findByIdempotencyKey(request.idempotencyKey)).toEqual({
            ok: true,
            value: null,
          });
        }
        expect(await s.liveAppointments()).toBe(1);
      }),
    );

    it(
      "a time already taken is slot_taken, never a second booking on it",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        const first = valueOf(await c.bookings.create(createFor(s, slot!, "contract:taken-1")));
        const second = createFor(s, slot!, "contract:taken-2", first.resourceIds);
        const taken = errorOf(await c.bookings.create(second));
        expect(taken.code).toBe("slot_taken");
        expect(valueOf(await findByKey(s, c, second))).toBeNull();
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
        const r = await c.bookings.create(createFor(s, slot!, "contract:rl-1"));
        expect(errorOf(r)).toMatchObject({ code: "rate_limited", retryAfterMs: 2000 });
        expect(r.upstream?.status).toBe(429);
        expect(await s.liveAppointments()).toBe(0);
      }),
    );

    it(
      "no answer in time: timeout, nothing booked when the upstream did not act, and the key books once on retry",
      withSubject(async (s) => {
        const c = platform(s);
        const [slot] = await freeSlots(s);
        const request = createFor(s, slot!, "contract:to-1");
        s.inject({ kind: "timeout", operation: "create" });
        expect(errorOf(await c.bookings.create(request)).code).toBe("timeout");
        expect(valueOf(await findByKey(s, c, request))).toBeNull();
        expect(valueOf(await c.bookings.create(request))).toMatchObject({ start: slot!.start });
        expect(await s.liveAppointments()).toBe(1);
        s.inject({ kind: "timeout", operation: "catalog" });
        expect(errorOf(await c.catalog.read()).code).toBe("timeout");
        valueOf(await c.catalog.read());
      }),
    );

    it(
      "an unknown booking is not_found for get, move and cancel (unsupported, without a call, where the platform has none)",
      withSubject(async (s) => {
        const c = platform(s);
        const ab = abilities(s);
        const [slot] = await freeSlots(s);
        const got = await c.bookings.get(UNKNOWN_ID);
        if (ab.readback) expect(errorOf(got).code).toBe("not_found");
        else {
          // No readback: nothing was asked, so nothing is claimed from the platform. A platform
          // whose only readback needs the person's verification (Openings: the customer's
          // history) says so rather than claim the booking does not exist (after a restart it may).
          expect(got.ok).toBe(false);
          expect(["not_found", "verification_required"]).toContain(got.ok ? undefined : got.error.code);
          expect(got.upstream).toBeUndefined();
        }
        const cancelled = await c.bookings.cancel(UNKNOWN_ID);
        if (ab.cancel) expect(errorOf(cancelled).code).toBe("not_found");
        else unsupportedWithoutCall(cancelled);
        const moved = await c.bookings.move(UNKNOWN_ID, { start: slot!.start, resourceIds: [] });
        if (ab.move) expect(errorOf(moved).code).toBe("not_found");
        else unsupportedWithoutCall(moved);
      }),
    );

    const revokedTest = (s: ContractSubject) => async () => {
      const guards = s.credentialGuards ?? ALL_GUARDED;
      const c = platform(s);
      const [slot, later] = await twoStarts(s);
      const guarded = (op: ContractOperation) => guards.includes(op);
      const booked =
        guarded("move") || guarded("cancel")
          ? valueOf(await c.bookings.create(createFor(s, slot, "contract:auth-0")))
          : undefined;
      const before = await s.liveAppointments();
      const attempt = createFor(s, later, "contract:auth-1");
      const calls: Record<ContractOperation, (() => Promise<ConnectorResult<unknown>>) | undefined> = {
        catalog: () => c.catalog.read(),
        slots: () => c.slots.find({ serviceId: s.serviceId, range: s.range }),
        create: () => c.bookings.create(attempt),
        findByKey: () => findByKey(s, c, attempt),
        get: undefined,
        move: booked && (() => c.bookings.move(booked.upstreamId, { start: later.start, resourceIds: [] })),
        cancel: booked && (() => c.bookings.cancel(booked.upstreamId)),
      };
      s.inject({ kind: "revoked" });
      for (const op of guards) {
        const call = calls[op];
        if (call === undefined) throw new Error(`the suite cannot call ${op} under a revoked credential`);
        const r = await call();
        const e = errorOf(r);
        expect(e.code, op).toBe("unauthorized");
        expect(e.retryAfterMs).toBeUndefined();
        expect([401, 403]).toContain(r.upstream?.status);
      }
      // What the credential does not guard keeps working (public reads).
      for (const op of ["catalog", "slots"] as const) if (!guarded(op)) valueOf(await calls[op]!());
      s.restore();
      expect(await s.liveAppointments(), "nothing booked or cancelled").toBe(before);
      if (guarded("create")) expect(valueOf(await findByKey(s, c, attempt))).toBeNull();
      if (booked !== undefined && guarded("move")) {
        expect(valueOf(await c.bookings.get(booked.upstreamId)).start, "not moved").toBe(slot.start);
      }
      if (booked !== undefined && guarded("cancel")) {
        expect(valueOf(await c.bookings.cancel(booked.upstreamId)).status).toBe("cancelled");
        expect(await s.liveAppointments()).toBe(before - 1);
      } else expect(await s.liveAppointments()).toBe(before);
    };

    it("a revoked credential: unauthorized (not retryable) on what it guards, nothing booked; works again once restored", async () => {
      const s = await make();
      try {
        if ((s.credentialGuards ?? ALL_GUARDED).length === 0) {
          // A key-less platform: nothing to revoke, and no answer of it may read as a revoked credential.
          expect(s.credentialGuards).toEqual([]);
          return;
        }
        await revokedTest(s)();
      } finally {
        await s.close();
      }
    });

    it(
      "every result carries its own call's metadata, also under concurrency; a booking's life cycle",
      withSubject(async (s) => {
        const c = platform(s);
        const ab = abilities(s);
        const [slot, later] = await twoStarts(s);
        const request = createFor(s, slot, "contract:meta-1");
        const made = await c.bookings.create(request);
        const booking = valueOf(made);
        const changes = [made];
        const move = { start: later.start, ...(later.end === undefined ? {} : { end: later.end }) };
        const moved = await c.bookings.move(booking.upstreamId, { ...move, resourceIds: [] });
        if (ab.move) {
          expect(valueOf(moved).start).toBe(later.start);
          changes.push(moved);
        } else unsupportedWithoutCall(moved);
        const cancelled = await c.bookings.cancel(booking.upstreamId);
        if (ab.cancel) {
          expect(valueOf(cancelled).status).toBe("cancelled");
          changes.push(cancelled);
          // Cancelling again answers the booking as it is.
          const again = await c.bookings.cancel(booking.upstreamId);
          expect(valueOf(again).status).toBe("cancelled");
          if (again.upstream?.replay === true) sameCall(again.upstream, cancelled.upstream);
          expect(await s.liveAppointments()).toBe(0);
        } else {
          unsupportedWithoutCall(cancelled);
          expect(await s.liveAppointments()).toBe(1);
        }
        const calls = changes.map((r) => metaOf(r).call);
        expect(new Set(calls).size).toBe(changes.length);
        for (const r of changes) expect(r.upstream?.replay).toBeUndefined();
        const last = changes[changes.length - 1] ?? made;

        const [catalog, got, unknown, found] = await Promise.all([
          c.catalog.read(),
          c.bookings.get(booking.upstreamId),
          c.bookings.get(UNKNOWN_ID),
          findByKey(s, c, request),
        ]);
        const live = [catalog, got, unknown, found].filter((r) => r.upstream?.replay !== true);
        if (ab.readback) {
          const metas = [catalog, got, unknown, found].map(metaOf);
          // Each its own: a read of one booking never names another call's request.
          expect(metas[1]?.call).not.toBe(metas[2]?.call);
          expect(metas[1]?.status).not.toBe(metas[2]?.status);
        } else {
          metaOf(catalog);
          // No readback: the booking as the call that last changed it answered, marked a replay;
          // an id never seen has no call behind it at all.
          expect(valueOf(got).upstreamId).toBe(booking.upstreamId);
          sameCall(got.upstream, last.upstream);
          expect(unknown.ok).toBe(false);
          expect(["not_found", "verification_required"]).toContain(
            unknown.ok ? undefined : unknown.error.code,
          );
          expect(unknown.upstream).toBeUndefined();
        }
        expect(valueOf(found)?.upstreamId).toBe(booking.upstreamId);
        if (found.upstream?.replay === true) sameCall(found.upstream, last.upstream);
        const ids = live.map((r) => r.upstream?.request_id).filter((id) => id !== undefined);
        expect(new Set(ids).size).toBe(ids.length);
      }),
    );
  });
}
