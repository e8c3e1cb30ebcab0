/**
 * A small world for the booking use-case tests: MemoryHoldStore, two hosts on fake
 * connectors (one instant, one host_approval), a settable clock, sequential ids, a recording
 * outbox, mandates issued and verified as the edge would, and holds placed with a signed
 * offer the way builds before the core/SchCP split stored them (HoldPayload version 1), so every use
 * case test also proves such holds still confirm, change and read (holds/payload.ts).
 */
import { schcpRefusal, type SchcpRefusal } from "../../../src/edges/schcp/refusal.js";
import type {
  BookingDeps,
  HoldPayload,
  HostConfig,
  HostPolicies,
  HostRuntime,
  OutboundEvent,
} from "../../../src/booking/api.js";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import type { Catalog } from "../../../src/connectors/port.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import type { HoldRecord } from "../../../src/holds/port.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../../src/protocol/jose/index.js";
import { issueMandate, verifyMandate } from "../../../src/protocol/schcp/mandate/index.js";
import type { RootMandateClaims, SigningKey } from "../../../src/protocol/schcp/mandate/index.js";
import { offerSha256, signOffer } from "../../../src/protocol/schcp/offer/index.js";
import type { HostSigningKey } from "../../../src/protocol/schcp/offer/index.js";
import type { Hold, MandateConstraints, OfferClaims } from "../../../src/protocol/schcp/types.js";
import { formatInstant } from "../../../src/protocol/time/index.js";
import { storeBookingIndex } from "../../../src/booking/bookings/booking-index.js";
import { FakeConnector } from "./fake-connector.js";
import { decodeHoldOrThrow } from "../../../src/booking/holds/payload.js";
import { schcpEdge } from "../../../src/edges/schcp/edge.js";
import { mandateChainOf } from "../../../src/edges/schcp/mandate-authority.js";
import { schcpOffer } from "../../../src/edges/schcp/attachment.js";
import type { CreateHold } from "../../../src/booking/changes/hold-engine.js";
import type { BookingRefusal } from "../../../src/booking/api.js";
import type { Result } from "../../../src/protocol/result.js";
import { isRegisteredReason } from "../../../src/protocol/schcp/refusals.js";
import type { Jwk } from "../../../src/protocol/schcp/types.js";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** "Now" in every test: Monday 2030-01-07 14:00 UTC (09:00 in Toronto). */
export const NOW = Date.UTC(2030, 0, 7, 14, 0);
/** A slot the next day, 10:00 Toronto (15:00 UTC). */
export const SLOT = Date.UTC(2030, 0, 8, 15, 0);

export const INSTANT = "maple-street-auto";
export const APPROVAL = "harbourview-dental";

export class TestClock {
  constructor(public t = NOW) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export class SeqIds {
  private n = 0;
  next(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(4, "0")}`;
  }
}

export class RecordingOutbox {
  readonly events: OutboundEvent[] = [];
  enqueue(event: OutboundEvent): Promise<void> {
    this.events.push(event);
    return Promise.resolve();
  }
  types(): string[] {
    return this.events.map((e) => String(e.event.type));
  }
}

const policies = (over: Partial<HostPolicies>): HostPolicies => ({
  holds: {
    maxTtlMs: 10 * MINUTE,
    maxActivePerAgent: 3,
    requiresMandate: true,
    maxActiveUnproven: 8,
    maxActivePerAttester: 8,
  },
  confirmation: "instant",
  closedMandate: "never",
  retention: "P365D",
  access: "public",
  approvalTimeoutMs: 2 * HOUR,
  allowWildcardAudience: false,
  horizonMs: 31 * DAY,
  ...over,
});

const catalog = (name: string, tz: string): Catalog => ({
  organization: { id: "org", name, timezone: tz, currency: "CAD" },
  services: [
    {
      id: "oil-change",
      name: "Synthetic oil change",
      duration: 45 * MINUTE,
      bufferAfterMs: 15 * MINUTE,
      price: { minor: 7900, currency: "CAD" },
      requires: [{ resourceType: "bay" }],
    },
  ],
  resources: [
    { id: "bay-1", type: "bay", name: "Bay 1", capacity: 1, hours: [] },
    { id: "bay-2", type: "bay", name: "Bay 2", capacity: 1, hours: [] },
  ],
  taxes: [{ label: "HST", percent: "13" }],
});

export interface TestHost {
  readonly runtime: HostRuntime;
  readonly connector: FakeConnector;
}

export function makeHost(id: string, name: string, over: Partial<HostPolicies> = {}): TestHost {
  const tz = "America/Toronto";
  const kp = generateEd25519KeyPair();
  const key: HostSigningKey = { kid: `${id}-2030-01`, privateKey: kp.privateKey, publicJwk: kp.publicJwk };
  const config: HostConfig = {
    id,
    name,
    kind: "business",
    timezone: tz,
    domain: null,
    connector: { type: "fake", settings: {} },
    policies: policies(over),
    services: [{ serviceId: "oil-change" }],
  };
  const cat = catalog(name, tz);
  const connector = new FakeConnector(cat);
  return { runtime: { config, connector, catalog: cat, keys: [key] }, connector };
}

export interface World {
  readonly deps: BookingDeps;
  readonly store: MemoryHoldStore;
  readonly clock: TestClock;
  readonly outbox: RecordingOutbox;
  readonly hosts: Map<string, TestHost>;
  host(id?: string): TestHost;
}

export function makeWorld(extra: TestHost[] = []): World {
  const clock = new TestClock();
  const store = new MemoryHoldStore({ clock });
  const outbox = new RecordingOutbox();
  const hosts = new Map<string, TestHost>();
  for (const h of [
    makeHost(INSTANT, "Maple Street Auto"),
    makeHost(APPROVAL, "Harbourview Dental", { confirmation: "host_approval" }),
    ...extra,
  ]) {
    hosts.set(h.runtime.config.id, h);
  }
  const deps: BookingDeps = {
    hosts: { get: (id) => hosts.get(id)?.runtime, list: () => [...hosts.values()].map((h) => h.runtime) },
    store,
    clock,
    ids: new SeqIds(),
    outbox,
    bookingIndex: storeBookingIndex(store),
    edges: { schcp: schcpEdge },
  };
  return {
    deps,
    store,
    clock,
    outbox,
    hosts,
    host: (id = INSTANT) => {
      const h = hosts.get(id);
      if (h === undefined) throw new Error(`no host ${id}`);
      return h;
    },
  };
}

// ---- parties and mandates ------------------------------------------------------------

export interface Party {
  readonly principal: SigningKey;
  readonly agent: SigningKey;
}

export const newParty = (): Party => ({
  principal: generateEd25519KeyPair(),
  agent: generateEd25519KeyPair(),
});

export interface MandateOptions {
  readonly hostId?: string;
  readonly scope?: RootMandateClaims["scope"];
  readonly constraints?: MandateConstraints;
  readonly jti?: string;
}

/** A SchcpCaller as the edge hands it over: the agent's thumbprint and the verified chain. */
export async function callerFor(world: World, party: Party, opts: MandateOptions = {}): Promise<SchcpCaller> {
  const agentKey = jwkThumbprint(party.agent.publicJwk);
  const nowSec = Math.floor(world.clock.now() / 1000);
  const compact = await issueMandate(
    {
      sub: "guest",
      aud: opts.hostId ?? INSTANT,
      iat: nowSec - 10,
      exp: nowSec + 30 * 86_400,
      jti: opts.jti ?? `m-${Math.random().toString(36).slice(2)}`,
      cnf: { jkt: agentKey },
      scope: opts.scope ?? ["hold", "book", "cancel", "reschedule"],
      ...(opts.constraints !== undefined && { constraints: opts.constraints }),
      consent: { mode: "human_present" },
    },
    party.principal,
  );
  const chain = await verifyMandate(compact, {
    hostId: opts.hostId ?? INSTANT,
    nowSec,
    requestKeyThumbprint: agentKey,
  });
  if (!chain.ok) throw new Error(`mandate: ${JSON.stringify(chain.error)}`);
  return { agentKey, mandate: chain.value };
}

// ---- holds as the hold use case stores them ---------------------------------------------

export interface TestHoldOptions {
  readonly start?: number;
  readonly callbackUrl?: string;
  readonly ttlMs?: number;
  readonly kind?: "booking" | "change";
  readonly bookingId?: string;
  readonly prev?: string;
  readonly resource?: string;
  readonly proposalId?: string;
  readonly by?: "guest" | "host";
}

export interface TestHold {
  readonly record: HoldRecord;
  /** The payload as the core decodes it (version 2, the offer in attachments.schcp). */
  readonly payload: HoldPayload;
  readonly offer: string;
  readonly offerSha256: string;
}

/** Signs an offer for the oil change and places the hold in the store (one bay). */
export async function placeTestHold(
  world: World,
  host: TestHost,
  caller: SchcpCaller,
  opts: TestHoldOptions = {},
): Promise<TestHold> {
  const rt = host.runtime;
  const tz = rt.config.timezone;
  const now = world.clock.now();
  const start = opts.start ?? SLOT;
  const end = start + 45 * MINUTE;
  const ttlMs = opts.ttlMs ?? 10 * MINUTE;
  const holdId = world.deps.ids.next("h_");
  const price = { amount: "79.00", currency: "CAD" };
  const total = { amount: "89.27", currency: "CAD" };
  const claims: OfferClaims = {
    v: "0.4",
    kind: opts.kind ?? "booking",
    iss: rt.config.id,
    // A change offer names its booking and prev, not a hold (§5.7; the OfferClaims schema).
    ...(opts.kind === "change"
      ? { booking_id: opts.bookingId, prev: opts.prev ?? null }
      : { hold_id: holdId }),
    iat: Math.floor(now / 1000),
    exp: Math.floor((now + ttlMs) / 1000),
    host: { name: rt.config.name, tz },
    service: { id: "oil-change", name: "Synthetic oil change" },
    slot: { start: formatInstant(start, tz), end: formatInstant(end, tz) },
    price,
    total,
    lines: [
      { kind: "service", label: "Synthetic oil change", amount: price },
      { kind: "tax", label: "HST 13%", amount: { amount: "10.27", currency: "CAD" } },
    ],
    retention: rt.config.policies.retention,
    ...(rt.config.policies.confirmation === "host_approval" && {
      approval_by: formatInstant(now + 2 * HOUR),
    }),
  };
  const key = rt.keys[0];
  if (key === undefined) throw new Error("no key");
  const signed = await signOffer(claims, key);
  if (!signed.ok) throw new Error(`offer: ${JSON.stringify(signed.error)}`);
  const offer = signed.value;
  const hold: Hold = {
    hold_id: holdId,
    status: "held",
    service_id: "oil-change",
    start: claims.slot.start,
    end: formatInstant(end, tz),
    expires_at: formatInstant(now + ttlMs),
    price,
    total,
    offer,
  };
  const v1 = {
    v: 1,
    hold,
    offer,
    offerSha256: offerSha256(offer),
    claims,
    kind: opts.kind ?? "booking",
    ...(opts.bookingId !== undefined && { bookingId: opts.bookingId }),
    ...(opts.proposalId !== undefined && { proposalId: opts.proposalId }),
    ...(opts.by !== undefined && { by: opts.by }),
    agentKey: caller.agentKey,
    principal: caller.mandate?.principal ?? null,
    ...(opts.callbackUrl !== undefined && { callbackUrl: opts.callbackUrl }),
    partySize: 1,
    serviceId: "oil-change",
    start,
    end,
    resourceIds: ["bay-1"],
    total: { minor: 8927, currency: "CAD" },
  };
  const mandates = (caller.mandate?.links ?? [])
    .filter((l) => l.claims.constraints?.max_bookings !== undefined)
    .map((l) => ({
      rootIss: caller.mandate?.rootIss ?? "",
      jti: l.claims.jti,
      maxBookings: l.claims.constraints?.max_bookings ?? 0,
    }));
  const outcome = await world.store.placeHold({
    hostId: rt.config.id,
    holdId,
    serviceId: "oil-change",
    interval: { start, end: end + 15 * MINUTE },
    requirements: [
      {
        type: "bay",
        candidates: (opts.resource === undefined ? ["bay-1", "bay-2"] : [opts.resource]).map((id) => ({
          id,
          capacity: 1,
        })),
        units: 1,
      },
    ],
    ttlMs,
    now,
    owner: { agentKey: caller.agentKey, principal: caller.mandate?.principal ?? null, mandates },
    caps: { principalProven: true },
    ...(opts.bookingId !== undefined && { overlapBookingId: opts.bookingId }),
    payload: JSON.stringify(v1),
  });
  if (!outcome.ok) throw new HoldRefused(outcome.error.reason);
  return {
    record: outcome.value,
    payload: decodeHoldOrThrow(outcome.value.payload, holdId),
    offer,
    offerSha256: v1.offerSha256,
  };
}

export class HoldRefused extends Error {
  constructor(readonly reason: string) {
    super(`placeHold: ${reason}`);
  }
}

/**
 * A stand-in for the hold use case's createHold: signs a change offer and places its
 * hold the way the hold use case stores it, without the §5.2 rules.
 */
export function testCreateHold(world: World): CreateHold {
  return async (_deps, runtime, params) => {
    const host = world.host(runtime.config.id);
    try {
      // The core hands the change hold the caller's Authority; the SchCP chain is behind it.
      const chain = mandateChainOf(params.caller.authority);
      const caller: SchcpCaller = {
        agentKey: params.caller.agentKey,
        ...(chain !== undefined && { mandate: chain }),
      };
      const made = await placeTestHold(world, host, caller, {
        start: params.start,
        kind: "change",
        bookingId: params.bookingId,
        ...(schcpOffer(params.booking.attachments) !== undefined && {
          prev: schcpOffer(params.booking.attachments)?.offerSha256,
        }),
        ttlMs: Math.min(params.ttlMs, runtime.config.policies.holds.maxTtlMs),
        proposalId: params.proposalId,
        by: params.by,
        ...(params.callbackUrl !== undefined && { callbackUrl: params.callbackUrl }),
      });
      return { ok: true, value: made };
    } catch (e) {
      if (e instanceof HoldRefused && e.reason === "slot_taken") {
        return {
          ok: false,
          error: { code: "slot_unavailable", reason: "slot_taken", message: "taken" },
        };
      }
      throw e;
    }
  };
}

// ---- assertions ---------------------------------------------------------------------------

export function unwrap<T>(r: Result<T, BookingRefusal>): T {
  if (!r.ok) throw new Error(`expected success, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** The refusal as the SchCP edge answers it (edges/schcp/refusal.ts), checked against code and reason. */
export function refusalOf<T>(r: Result<T, BookingRefusal>, code: string, reason?: string): SchcpRefusal {
  if (r.ok) throw new Error(`expected ${code}, got success`);
  const wire = schcpRefusal(r.error, "America/Toronto");
  if (wire.code !== code || (reason !== undefined && wire.reason !== reason)) {
    throw new Error(`expected ${code}/${reason ?? "*"}, got ${JSON.stringify(wire)}`);
  }
  if (!isRegisteredReason(wire.code, wire.reason)) throw new Error(`unregistered reason ${wire.reason}`);
  return wire;
}

/** The host's keys as its discovery document publishes them. */
export const discoveryKeys = (host: TestHost): Jwk[] =>
  host.runtime.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, use: "sig" as const }));
