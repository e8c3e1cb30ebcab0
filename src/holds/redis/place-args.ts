/**
 * The arguments of lua/place-hold.lua: every key the script can know in advance (so a
 * Redis Cluster routes it and sees them declared) and the request as compact JSON. The
 * pool a hold draws on is decided here (§7.2, §7.5), as MemoryHoldStore's `poolOf`
 * does: none for a proven principal, an honoured attester's pool for its vouchees,
 * otherwise the unproven pool (anonymous holds included).
 *
 * This runs for every hold, so it allocates little: key names are cached per host and
 * the JSON is written directly rather than built as objects and then serialised (with
 * many requests in flight, short-lived garbage is what the client's CPU goes on).
 */
import type { HoldOwner, PlaceHoldRequest, Requirement } from "../port.js";
import type { RedisKeys } from "./keys.js";

export interface PlaceArgs {
  readonly keys: string[];
  readonly args: string[];
}

/** Key names of one host, computed once (bounded: cleared when they grow large). */
interface HostKeys {
  readonly base: string;
  readonly fixed: readonly [hexp: string, events: string, occlen: string];
  readonly unproven: string;
  /** kind ("agent:", "occ:", …) → name → `<base><kind><name>` */
  readonly names: Map<string, Map<string, string>>;
}

const MAX_HOSTS = 1000;
const MAX_NAMES_PER_HOST = 10_000;

const str = JSON.stringify;

function num(n: number, what: string): string {
  if (!Number.isFinite(n)) throw new RangeError(`${what} must be a finite number, got ${n}`);
  return String(n);
}

/** Only the port's fields: what is stored is what getHold and expiry events return. */
function ownerJson(owner: HoldOwner): string {
  let mandates = "";
  for (const m of owner.mandates) {
    if (mandates !== "") mandates += ",";
    mandates += `{"rootIss":${str(m.rootIss)},"jti":${str(m.jti)},"maxBookings":${num(m.maxBookings, "maxBookings")}}`;
  }
  const attester = owner.attester === undefined ? "" : `,"attester":${str(owner.attester)}`;
  const offered = owner.offeredByHost === true ? `,"offeredByHost":true` : "";
  return `{"agentKey":${str(owner.agentKey)},"principal":${str(owner.principal)}${attester},"mandates":[${mandates}]${offered}}`;
}

export class PlaceArgsBuilder {
  private readonly hosts = new Map<string, HostKeys>();

  constructor(private readonly keys: RedisKeys) {}

  /** KEYS and ARGV of place-hold.lua (its header gives the layout). */
  build(request: PlaceHoldRequest, retentionMs: number): PlaceArgs {
    const { owner, caps } = request;
    const host = this.host(request.hostId);
    const agentKey = this.name(host, "agent:", owner.agentKey);

    // pk: 0 no pool, 1 unproven, 2 attester. An anonymous hold is never a proven principal's.
    let pk = 0;
    let pool = agentKey;
    let mp: number | undefined;
    if (owner.principal === null || !caps.principalProven) {
      if (owner.attester !== undefined) {
        pk = 2;
        pool = this.name(host, "pool:att:", owner.attester);
        mp = caps.maxActivePerAttester;
      } else {
        pk = 1;
        pool = host.unproven;
        mp = caps.maxActiveUnproven;
      }
    }

    const declared = [`${host.base}hold:${request.holdId}`, ...host.fixed, agentKey, pool];
    let md = "";
    for (const m of owner.mandates) {
      declared.push(this.keys.mandate(request.hostId, m.rootIss, m.jti));
      md += `${md === "" ? "" : ","}${num(m.maxBookings, "maxBookings")}`;
    }
    // Declared once each; a Set only when several requirements could repeat a name.
    const seen =
      request.requirements.length > 1 || request.alternatives !== undefined ? new Set<string>() : undefined;
    const { interval } = request;
    let json =
      `{"id":${str(request.holdId)},"svc":${str(request.serviceId)},"s":${num(interval.start, "start")}` +
      `,"e":${num(interval.end, "end")},"ttl":${num(request.ttlMs, "ttlMs")},"now":${num(request.now, "now")}` +
      `,"ex":${num(request.now + request.ttlMs, "expiresAt")},"pk":${pk},"rt":${num(retentionMs, "retention")}` +
      `,"rq":${this.requirements(request.requirements, host, declared, seen)}`;
    // Absent members decode to nil in Lua: no cap, no link, no reserve, no alternative.
    if (caps.maxActivePerAgent !== undefined)
      json += `,"ma":${num(caps.maxActivePerAgent, "maxActivePerAgent")}`;
    if (mp !== undefined) json += `,"mp":${num(mp, "pool cap")}`;
    if (md !== "") json += `,"md":[${md}]`;
    const reserves = caps.walkInReserves;
    if (reserves !== undefined && reserves.length > 0) {
      let w = "";
      for (const r of reserves) {
        w += `${w === "" ? "" : ","}[${str(r.resourceType)},${num(r.keep, "keep")},${num(r.typeCount, "typeCount")}]`;
      }
      json += `,"w":[${w}]`;
    }
    if (request.overlapBookingId !== undefined) {
      const bookingKey = this.keys.booking(request.hostId, request.overlapBookingId);
      declared.push(bookingKey);
      json += `,"ob":${str(bookingKey)}`;
    }
    const alternatives = request.alternatives;
    if (alternatives !== undefined && alternatives.length > 0) {
      let al = "";
      for (const a of alternatives) {
        const rq = this.requirements(a.requirements, host, declared, seen);
        al +=
          `${al === "" ? "" : ","}[${num(a.start, "alternative start")},${num(a.interval.start, "start")}` +
          `,${num(a.interval.end, "end")},${rq}]`;
      }
      json += `,"al":[${al}]`;
    }
    json += "}";
    return { keys: declared, args: [json, ownerJson(owner), request.payload] };
  }

  /** [[type, units, combine (0|1), [id, capacity, id, capacity, …]], …]: arrays decode fastest. */
  private requirements(
    requirements: readonly Requirement[],
    host: HostKeys,
    declared: string[],
    seen: Set<string> | undefined,
  ): string {
    let out = "";
    for (const r of requirements) {
      this.declare(this.name(host, "agt:", r.type), declared, seen);
      let candidates = "";
      for (const c of r.candidates) {
        this.declare(this.name(host, "occ:", c.id), declared, seen);
        candidates += `${candidates === "" ? "" : ","}${str(c.id)},${num(c.capacity, "capacity")}`;
      }
      out +=
        `${out === "" ? "" : ","}[${str(r.type)},${num(r.units, "units")},${r.combine === true ? 1 : 0}` +
        `,[${candidates}]]`;
    }
    return `[${out}]`;
  }

  private declare(key: string, declared: string[], seen: Set<string> | undefined): void {
    if (seen === undefined) {
      declared.push(key);
    } else if (!seen.has(key)) {
      seen.add(key);
      declared.push(key);
    }
  }

  private host(hostId: string): HostKeys {
    let host = this.hosts.get(hostId);
    if (host === undefined) {
      if (this.hosts.size >= MAX_HOSTS) this.hosts.clear();
      const base = this.keys.host(hostId);
      host = {
        base,
        fixed: [`${base}hexp`, `${base}events`, `${base}occlen`],
        unproven: `${base}pool:unproven`,
        names: new Map(),
      };
      this.hosts.set(hostId, host);
    }
    return host;
  }

  /** `<base><kind><name>`, cached (the same names come back hold after hold). */
  private name(host: HostKeys, kind: string, name: string): string {
    let names = host.names.get(kind);
    if (names === undefined) {
      names = new Map();
      host.names.set(kind, names);
    }
    let key = names.get(name);
    if (key === undefined) {
      if (names.size >= MAX_NAMES_PER_HOST) names.clear();
      key = host.base + kind + name;
      names.set(name, key);
    }
    return key;
  }
}
