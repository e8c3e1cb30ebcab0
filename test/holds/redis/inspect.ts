/**
 * Reads a host's raw state out of Redis, independently of the store's scripts, and
 * checks the invariants a crash or race must never break:
 * - no resource is used beyond its capacity at any moment (a sweep over its allocations);
 * - every live hold (held, confirming) and active booking has all of its allocations;
 * - every allocation belongs to a live hold or an active booking (no orphan, no half hold).
 * Used by the race, fault and benchmark runs, on one server or a Redis Cluster: a host's keys
 * share its hash tag, so they live on one master; SCAN walks every master (`eachMaster`) and
 * the reads go through the client, which routes them to the slot's master.
 */
import type { Redis } from "ioredis";
import { once } from "node:events";
import { eachMaster, isCluster, type RedisClient } from "../../../src/redis/client.js";
import { RedisKeys } from "../../../src/holds/redis/keys.js";

export interface AllocationRow {
  readonly resourceId: string;
  readonly holdId: string;
  readonly start: number;
  readonly end: number;
  readonly units: number;
}

export interface HostState {
  readonly holds: ReadonlyMap<string, Record<string, string>>;
  readonly bookings: ReadonlyMap<string, Record<string, string>>;
  readonly allocations: readonly AllocationRow[];
}

async function scanKeys(redis: RedisClient, match: string): Promise<string[]> {
  // A Cluster client knows its masters only once it has read the slot map: before "ready",
  // eachMaster would walk no node at all and find nothing.
  if (isCluster(redis) && redis.status !== "ready") await once(redis, "ready");
  return (await eachMaster(redis, (node) => scanNode(node, match))).flat();
}

async function scanNode(redis: Redis, match: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", match, "COUNT", "1000");
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found;
}

/** SCAN patterns treat these as wildcards: escape them in the literal part of the prefix. */
const glob = (literal: string): string => literal.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export async function readHostState(redis: RedisClient, prefix: string, hostId: string): Promise<HostState> {
  const base = new RedisKeys(prefix).host(hostId);
  const holds = new Map<string, Record<string, string>>();
  for (const key of await scanKeys(redis, `${glob(base)}hold:*`)) {
    holds.set(key.slice(`${base}hold:`.length), await redis.hgetall(key));
  }
  const bookings = new Map<string, Record<string, string>>();
  for (const key of await scanKeys(redis, `${glob(base)}bk:*`)) {
    bookings.set(key.slice(`${base}bk:`.length), await redis.hgetall(key));
  }
  const allocations: AllocationRow[] = [];
  for (const key of await scanKeys(redis, `${glob(base)}occ:*`)) {
    const resourceId = key.slice(`${base}occ:`.length);
    const rows = await redis.zrange(key, "0", "-1", "WITHSCORES");
    for (let i = 0; i + 1 < rows.length; i += 2) {
      // "h|<start>|<units>|<expiresAt>|<holdId>" (src/holds/redis/lua/lib.lua)
      const match = /^h\|(-?\d+)\|(\d+)\|(-?\d+)\|(.*)$/s.exec(rows[i] ?? "");
      if (match === null) continue; // a busy block
      allocations.push({
        resourceId,
        holdId: match[4] ?? "",
        start: Number(match[1]),
        end: Number(rows[i + 1]),
        units: Number(match[2]),
      });
    }
  }
  return { holds, bookings, allocations };
}

/** Units over capacity, summed over every moment's worst excess per resource. */
export function overbooked(
  allocations: readonly AllocationRow[],
  capacityOf: (resourceId: string) => number,
): number {
  const byResource = new Map<string, AllocationRow[]>();
  for (const a of allocations) byResource.set(a.resourceId, [...(byResource.get(a.resourceId) ?? []), a]);
  let excess = 0;
  for (const [resourceId, rows] of byResource) {
    const events = rows.flatMap((r): Array<[number, number]> => [
      [r.start, r.units],
      [r.end, -r.units],
    ]);
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let sum = 0;
    let worst = 0;
    for (const [, delta] of events) {
      sum += delta;
      worst = Math.max(worst, sum);
    }
    excess += Math.max(0, worst - capacityOf(resourceId));
  }
  return excess;
}

/** Every problem found, as text (empty when the state is consistent). */
export function consistencyProblems(state: HostState): string[] {
  const problems: string[] = [];
  const owner = new Map<string, string>(); // holdId whose members a booking keeps -> bookingId
  for (const [bookingId, b] of state.bookings) if (b["s"] === "active") owner.set(b["hd"] ?? "", bookingId);

  const membersOf = new Map<string, AllocationRow[]>();
  for (const a of state.allocations) membersOf.set(a.holdId, [...(membersOf.get(a.holdId) ?? []), a]);

  for (const [holdId, rows] of membersOf) {
    const h = state.holds.get(holdId);
    const live = h !== undefined && (h["s"] === "held" || h["s"] === "confirming");
    if (!live && !owner.has(holdId)) problems.push(`allocation of ${holdId} has no live hold or booking`);
    if (h !== undefined && !sameAllocations(h["al"] ?? "[]", rows)) {
      problems.push(`allocations of ${holdId} differ from its record`);
    }
  }
  for (const [holdId, h] of state.holds) {
    const live = h["s"] === "held" || h["s"] === "confirming" || owner.has(holdId);
    const expected = parseAllocations(h["al"] ?? "[]");
    if (live && expected.length > 0 && !membersOf.has(holdId))
      problems.push(`live hold ${holdId} has no allocation`);
  }
  return problems;
}

function parseAllocations(json: string): Array<{ resourceId: string; units: number }> {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? (parsed as Array<{ resourceId: string; units: number }>) : [];
}

function sameAllocations(json: string, rows: readonly AllocationRow[]): boolean {
  const key = (a: { resourceId: string; units: number }): string => `${a.resourceId}#${a.units}`;
  const expected = parseAllocations(json).map(key).sort();
  const actual = rows.map(key).sort();
  return expected.length === actual.length && expected.every((k, i) => k === actual[i]);
}
