/**
 * Shared material for the hold use case tests: a small fake platform Connector with switches,
 * a maple-like catalog, host runtimes, deps with a settable clock, mandates, and refusal
 * assertions.
 */
import { schcpRefusal, type SchcpRefusal } from "../../../src/edges/schcp/refusal.js";
import type { BookingState } from "../../../src/booking/bookings/state.js";
import { schcpEdge } from "../../../src/edges/schcp/edge.js";
import type {
  AvailabilityQuery,
  BookingPort,
  Catalog,
  CatalogService,
  Connector,
  ConnectorError,
  ConnectorResult,
  UpstreamSlot,
} from "../../../src/connectors/port.js";
import { expect } from "vitest";
import { isRegisteredReason } from "../../../src/protocol/schcp/refusals.js";
import type {
  BookingDeps,
  BookingRefusal,
  HostConfig,
  HostRuntime,
  OutboundEvent,
} from "../../../src/booking/api.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { createHostDirectory, parseHostsConfig } from "../../../src/booking/hosts/index.js";
import type { GatewayStore, Interval } from "../../../src/holds/port.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { HoursIndex } from "../../../src/calendar/index.js";
import { spanZoneView } from "../../../src/booking/rules/index.js";
import { generateEd25519KeyPair, jwkThumbprint, principalUrn } from "../../../src/protocol/jose/jwk.js";
import { err, ok } from "../../../src/protocol/result.js";
import {
  issueMandate,
  verifyMandate,
  type MandateChain,
  type RootMandateClaims,
  type SigningKey,
} from "../../../src/protocol/schcp/mandate/index.js";
import type { HostSigningKey } from "../../../src/protocol/schcp/offer/index.js";
import { parseInstant } from "../../../src/protocol/time/index.js";

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

/** Epoch ms of an RFC 3339 instant (test input is always valid). */
export function at(text: string): number {
  const r = parseInstant(text, "");
  if (!r.ok) throw new Error(r.error.message);
  return r.value.epochMs;
}

/** §5.1's as_of: Tuesday 13 October 2026, 17:00 in Toronto. */
export const NOW = at("2026-10-13T21:00:00Z");
/** §5.2's slot: Thursday 15 October 2026, 13:00 in Toronto. */
export const THU_1300 = at("2026-10-15T13:00:00-04:00");

const cad = (minor: number) => ({ minor, currency: "CAD" });
const WEEK = [1, 2, 3, 4, 5] as const;
const hours = [
  ...WEEK.map((day) => ({ day, open: "08:00", close: "18:00" })),
  { day: 6 as const, open: "09:00", close: "14:00" },
];

export const OIL: CatalogService = {
  id: "oil-change",
  name: "Synthetic oil change",
  duration: 45 * MIN,
  bufferAfterMs: 15 * MIN,
  price: cad(7900),
  requires: [{ resourceType: "bay" }, { resourceType: "technician" }],
};

export function mapleCatalog(over: Partial<Catalog> = {}): Catalog {
  return {
    organization: {
      id: "maple-street-auto",
      name: "Maple Street Auto",
      timezone: "America/Toronto",
      currency: "CAD",
    },
    services: [
      OIL,
      {
        id: "brake-inspection",
        name: "Brake inspection",
        duration: 60 * MIN,
        bufferAfterMs: 0,
        price: cad(12000),
        requires: [{ resourceType: "bay" }, { resourceType: "technician" }],
      },
      {
        id: "diagnosis",
        name: "Drop-off diagnosis",
        duration: "open",
        bufferAfterMs: 0,
        setAside: "until_close",
        requires: [{ resourceType: "bay" }],
      },
      {
        id: "mobile-tire-swap",
        name: "Mobile tire swap",
        duration: 60 * MIN,
        bufferAfterMs: 0,
        price: cad(9000),
        requires: [{ resourceType: "technician" }],
      },
    ],
    resources: [
      { id: "bay-1", type: "bay", name: "Bay 1", capacity: 1, hours },
      { id: "bay-2", type: "bay", name: "Bay 2", capacity: 1, hours },
      { id: "tech-alex", type: "technician", name: "Alex", capacity: 1, hours },
      { id: "tech-sam", type: "technician", name: "Sam", capacity: 1, hours },
      { id: "tech-priya", type: "technician", name: "Priya", capacity: 1, hours },
    ],
    taxes: [{ label: "HST", percent: "13" }],
    ...over,
  };
}

/**
 * A fake platform: free starts on a 15-minute grid where every required type has a resource
 * within hours and not booked upstream. Switches: `gone` (starts someone booked elsewhere),
 * `booked` (resource appointments), `failWith` (the next calls fail).
 */
export class FakeConnector implements Connector {
  readonly kind = "platform" as const;
  readonly platform = { vendor: "fake", api_version: "test" };
  readonly calls: AvailabilityQuery[] = [];
  readonly gone = new Set<number>();
  readonly booked: Array<{ resourceId: string; interval: Interval }> = [];
  failWith: ConnectorError | undefined;
  catalogFails = false;

  constructor(readonly data: Catalog) {}

  readonly catalog = { read: () => this.readCatalog() };
  readonly slots = { find: (query: AvailabilityQuery) => this.findAvailability(query) };
  readonly bookings: BookingPort = {
    create: () => this.unsupported(),
    get: () => this.unsupported(),
    findByIdempotencyKey: () => this.unsupported(),
    move: () => this.unsupported(),
    cancel: () => this.unsupported(),
    setStatus: () => this.unsupported(),
  };

  readCatalog(): Promise<ConnectorResult<Catalog>> {
    if (this.catalogFails) return Promise.resolve(err({ code: "unavailable", message: "down" }));
    return Promise.resolve(ok(this.data));
  }

  findAvailability(query: AvailabilityQuery): Promise<ConnectorResult<readonly UpstreamSlot[]>> {
    this.calls.push(query);
    if (this.failWith !== undefined) return Promise.resolve(err(this.failWith));
    const service = this.data.services.find((s) => s.id === query.serviceId);
    if (service === undefined) return Promise.resolve(err({ code: "not_found", message: "no service" }));
    const zone = this.data.organization.timezone;
    const step = 15 * MIN;
    const span = { start: query.range.start, end: query.range.end + 8 * DAY };
    const hours = new HoursIndex(spanZoneView(zone, span), span);
    const out: UpstreamSlot[] = [];
    for (let s = Math.ceil(query.range.start / step) * step; s < query.range.end; s += step) {
      if (this.gone.has(s)) continue;
      const end = service.duration === "open" ? s + step : s + service.duration + service.bufferAfterMs;
      const free = this.data.resources.filter(
        (r) =>
          service.requires.some((q) => q.resourceType === r.type) &&
          (query.resourceIds === undefined ||
            query.resourceIds.includes(r.id) ||
            !query.resourceIds.some((id) => this.data.resources.find((x) => x.id === id)?.type === r.type)) &&
          hours.covers({ ...r, zone }, { start: s, end }) &&
          !this.booked.some((b) => b.resourceId === r.id && b.interval.start < end && s < b.interval.end),
      );
      if (service.requires.every((q) => free.some((r) => r.type === q.resourceType))) {
        out.push({
          serviceId: service.id,
          start: s,
          ...(service.duration !== "open" && { end: s + service.duration }),
          resourceIds: free.map((r) => r.id),
        });
      }
    }
    return Promise.resolve(ok(out));
  }

  private unsupported<T>(): Promise<ConnectorResult<T>> {
    return Promise.resolve(err({ code: "unsupported", message: "not in this fake" }));
  }
}

export const hostKey = (kid = "msa-2026-10"): HostSigningKey => {
  const { publicJwk, privateKey } = generateEd25519KeyPair();
  return { kid, privateKey, publicJwk };
};

/** A host config through the real parser (config JSON as a deployment writes it). */
export function hostConfig(
  over: Record<string, unknown> = {},
  policies: Record<string, unknown> = {},
  services: unknown[] = [],
): HostConfig {
  const parsed = parseHostsConfig({
    hosts: [
      {
        id: "maple-street-auto",
        name: "Maple Street Auto",
        timezone: "America/Toronto",
        address: { locality: "Toronto", region: "ON", country: "CA" },
        contact: { phone: "+1-416-555-0177" },
        connector: { type: "fake" },
        policies: { retention: "P365D", ...policies },
        services,
        ...over,
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const [config] = parsed.value;
  if (config === undefined) throw new Error("no host");
  return config;
}

export function runtime(
  config: HostConfig = hostConfig(),
  catalog: Catalog = mapleCatalog(),
): HostRuntime & { connector: FakeConnector } {
  return { config, connector: new FakeConnector(catalog), catalog, keys: [hostKey()] };
}

/** A MemoryHoldStore that counts listOccupancy reads (availability reads it once per query). */
export function countingStore(inner = new MemoryHoldStore()): MemoryHoldStore & { occupancyReads: number } {
  const counted = Object.assign(inner, { occupancyReads: 0 });
  const read = inner.listOccupancy.bind(inner);
  counted.listOccupancy = (...args: Parameters<MemoryHoldStore["listOccupancy"]>) => {
    counted.occupancyReads++;
    return read(...args);
  };
  return counted;
}

export interface TestDeps extends BookingDeps {
  readonly clock: { now(): number; set(ms: number): void; advance(ms: number): void };
  readonly events: OutboundEvent[];
}

export function deps(
  runtimes: readonly HostRuntime[],
  store: GatewayStore = new MemoryHoldStore(),
  now = NOW,
): TestDeps {
  let t = now;
  let n = 0;
  const events: OutboundEvent[] = [];
  return {
    hosts: createHostDirectory(runtimes),
    store,
    clock: { now: () => t, set: (ms) => (t = ms), advance: (ms) => (t += ms) },
    ids: { next: (prefix) => `${prefix}${String(++n).padStart(4, "0")}` },
    outbox: { enqueue: (e) => Promise.resolve(void events.push(e)) },
    edges: { schcp: schcpEdge },
    events,
  };
}

/**
 * The booking a change hold is for, as createHold reads it: only its SchCP record matters
 * (the prev of the change offer, §5.7); `prev` null is a booking made through another edge.
 */
export function bookingFor(bookingId: string, prev: string | null): BookingState {
  return {
    v: 2,
    bookingId,
    hostId: "maple-street-auto",
    holdId: "h_0",
    status: "confirmed",
    sequence: 0,
    serviceId: "oil-change",
    start: NOW,
    resourceIds: [],
    contract: {
      kind: "booking",
      service: { id: "oil-change", name: "Synthetic oil change" },
      start: NOW,
      partySize: 1,
      price: null,
      total: null,
      lines: [],
      retention: "P365D",
    },
    consent: { approved: "limits", mandate: "m-0" },
    upstreamId: "up_0",
    agentKey: "agent",
    principal: "principal",
    createdAt: NOW,
    updatedAt: NOW,
    ...(prev !== null && { attachments: { schcp: { offer: "a.b.c", offerSha256: prev, claims: {} } } }),
  };
}

export const principal: SigningKey = generateEd25519KeyPair();
export const otherPrincipal: SigningKey = generateEd25519KeyPair();
export const agent: SigningKey = generateEd25519KeyPair();
export const otherAgent: SigningKey = generateEd25519KeyPair();
export const thumb = (k: SigningKey): string => jwkThumbprint(k.publicJwk);
export const principalOf = (k: SigningKey): string => principalUrn(thumb(k));

/** A verified chain for `agent` under `who`'s root mandate (§3.3), as the edge would pass it. */
export async function mandate(
  over: Partial<RootMandateClaims> = {},
  who: SigningKey = principal,
  by: SigningKey = agent,
  nowMs = NOW,
  hostId = "maple-street-auto",
): Promise<MandateChain> {
  const nowSec = Math.floor(nowMs / 1000);
  const compact = await issueMandate(
    {
      sub: "pseudonym",
      aud: hostId,
      iat: nowSec - 10,
      exp: nowSec + 3600,
      jti: "m-1",
      cnf: { jkt: thumb(by) },
      scope: ["hold", "book", "cancel", "reschedule"],
      ...over,
    },
    who,
  );
  const chain = await verifyMandate(compact, { hostId, nowSec, requestKeyThumbprint: thumb(by) });
  if (!chain.ok) throw new Error(JSON.stringify(chain.error));
  return chain.value;
}

export async function caller(
  over: Partial<RootMandateClaims> = {},
  who: SigningKey = principal,
  by: SigningKey = agent,
): Promise<SchcpCaller> {
  return { agentKey: thumb(by), mandate: await mandate(over, who, by) };
}

/**
 * Asserts the refusal as the SchCP edge answers it (the core's refusal through
 * edges/schcp/refusal.ts): code, registered reason and (when given) basis (§9.2).
 */
export function refusalOf<T>(
  r: { ok: true; value: T } | { ok: false; error: BookingRefusal },
  code: string,
  reason: string,
  basis?: Record<string, unknown>,
): SchcpRefusal {
  if (r.ok) throw new Error(`expected ${code}/${reason}, got a result`);
  const wire = schcpRefusal(r.error, "America/Toronto");
  expect({ code: wire.code, reason: wire.reason }, r.error.message).toEqual({ code, reason });
  expect(isRegisteredReason(code, reason), `${code}/${reason} is registered`).toBe(true);
  if (basis !== undefined) expect(wire.basis).toEqual(basis);
  return wire;
}

export function valueOf<T>(r: { ok: true; value: T } | { ok: false; error: BookingRefusal }): T {
  if (!r.ok) throw new Error(`expected a result, got ${JSON.stringify(r.error)}`);
  return r.value;
}
