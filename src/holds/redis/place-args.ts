/**
 * The arguments of lua/place-hold.lua: one key, the hold's (it carries the host's hash tag,
 * so a Redis Cluster client routes the call by it), and the request as compact JSON. The
 * script builds every other key from the host's base ("<prefix>{<hostId>}:", keys.ts) and
 * the ids in the request: keys of one host share the hold key's slot, which Redis allows a
 * script to touch undeclared. Sending ~8 long key names per call cost both ends more than
 * the script's own work (issue #15: most of the client's busy time went on encoding them).
 *
 * The pool a hold draws on is decided here (§7.2, §7.5), as MemoryHoldStore's `poolOf`
 * does: none for a proven principal, an honoured attester's pool for its vouchees,
 * otherwise the unproven pool (anonymous holds included).
 *
 * This runs for every hold, so it allocates little: the JSON is written directly rather
 * than built as objects and then serialised (with many requests in flight, short-lived
 * garbage is what the client's CPU goes on).
 */
import type { HoldOwner, HoldRequest, Requirement } from "../port.js";
import type { RedisKeys } from "./keys.js";

export interface PlaceArgs {
  readonly keys: string[];
  readonly args: string[];
}

const str = JSON.stringify;

function num(n: number, what: string): string {
  if (!Number.isFinite(n)) throw new RangeError(`${what} must be a finite number, got ${n}`);
  return String(n);
}

/** Only the port's fields: what is stored is what getHold and expiry events return. */
export function ownerJson(owner: HoldOwner): string {
  let mandates = "";
  for (const m of owner.mandates) {
    if (mandates !== "") mandates += ",";
    mandates += `{"rootIss":${str(m.rootIss)},"jti":${str(m.jti)},"maxBookings":${num(m.maxBookings, "maxBookings")}}`;
  }
  const attester = owner.attester === undefined ? "" : `,"attester":${str(owner.attester)}`;
  return `{"agentKey":${str(owner.agentKey)},"principal":${str(owner.principal)}${attester},"mandates":[${mandates}]}`;
}

export class PlaceArgsBuilder {
  constructor(private readonly keys: RedisKeys) {}

  /** KEYS and ARGV of place-hold.lua (its header gives the layout). */
  build(request: HoldRequest, retentionMs: number): PlaceArgs {
    const { owner, caps, hostId } = request;

    // pk: 0 no pool, 1 unproven, 2 attester. An anonymous hold is never a proven principal's.
    let pk = 0;
    let mp: number | undefined;
    if (owner.principal === null || !caps.principalProven) {
      if (owner.attester !== undefined) {
        pk = 2;
        mp = caps.maxActivePerAttester;
      } else {
        pk = 1;
        mp = caps.maxActiveUnproven;
      }
    }

    const { interval } = request;
    let json =
      `{"id":${str(request.holdId)},"svc":${str(request.serviceId)},"s":${num(interval.start, "start")}` +
      `,"e":${num(interval.end, "end")},"ttl":${num(request.ttlMs, "ttlMs")},"now":${num(request.now, "now")}` +
      `,"ex":${num(request.now + request.ttlMs, "expiresAt")},"pk":${pk},"rt":${num(retentionMs, "retention")}` +
      `,"ag":${str(owner.agentKey)},"rq":${requirements(request.requirements)}`;
    // Absent members decode to nil in Lua: no cap, no link, no reserve, no alternative.
    if (pk === 2) json += `,"at":${str(owner.attester)}`;
    if (caps.maxActivePerAgent !== undefined)
      json += `,"ma":${num(caps.maxActivePerAgent, "maxActivePerAgent")}`;
    if (mp !== undefined) json += `,"mp":${num(mp, "pool cap")}`;
    if (owner.mandates.length > 0) {
      // [cap, "<n>:<rootIss><jti>"]: the key's tail exactly as keys.ts joins it (JS string
      // lengths count UTF-16 units, Lua's bytes, so the script must not join it itself).
      const tail = this.keys.host(hostId).length + "mand:".length;
      let md = "";
      for (const m of owner.mandates) {
        const link = this.keys.mandate(hostId, m.rootIss, m.jti).slice(tail);
        md += `${md === "" ? "" : ","}[${num(m.maxBookings, "maxBookings")},${str(link)}]`;
      }
      json += `,"md":[${md}]`;
    }
    const reserves = caps.walkInReserves;
    if (reserves !== undefined && reserves.length > 0) {
      let w = "";
      for (const r of reserves) {
        w += `${w === "" ? "" : ","}[${str(r.resourceType)},${num(r.keep, "keep")},${num(r.typeCount, "typeCount")}]`;
      }
      json += `,"w":[${w}]`;
    }
    if (request.overlapBookingId !== undefined) json += `,"ob":${str(request.overlapBookingId)}`;
    const alternatives = request.alternatives;
    if (alternatives !== undefined && alternatives.length > 0) {
      let al = "";
      for (const a of alternatives) {
        al +=
          `${al === "" ? "" : ","}[${num(a.start, "alternative start")},${num(a.interval.start, "start")}` +
          `,${num(a.interval.end, "end")},${requirements(a.requirements)}]`;
      }
      json += `,"al":[${al}]`;
    }
    json += "}";
    return {
      keys: [this.keys.hold(hostId, request.holdId)],
      args: [json, ownerJson(owner), request.payload],
    };
  }
}

/** [[type, units, combine (0|1), [id, capacity, id, capacity, …]], …]: arrays decode fastest. */
function requirements(requirements: readonly Requirement[]): string {
  let out = "";
  for (const r of requirements) {
    let candidates = "";
    for (const c of r.candidates) {
      candidates += `${candidates === "" ? "" : ","}${str(c.id)},${num(c.capacity, "capacity")}`;
    }
    out +=
      `${out === "" ? "" : ","}[${str(r.type)},${num(r.units, "units")},${r.combine === true ? 1 : 0}` +
      `,[${candidates}]]`;
  }
  return `[${out}]`;
}
