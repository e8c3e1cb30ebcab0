/**
 * listOccupancy for Redis: a read-only snapshot for availability (SchCP §5.1: a snapshot,
 * not a promise; placeHold is where allocation is atomic). One read-only script
 * (lua/list-occupancy.lua), so the snapshot is consistent; it judges liveness as place-hold
 * does (lapsed held holds occupy nothing).
 *
 * Reads of one host are gathered: while a call for a host is in flight, further reads of it
 * wait and then go together in ONE script call, each with its own resources, range and now.
 * Under concurrent queries this spends one round trip, one script run and one reply on many
 * reads. A read never joins a call already sent: every read is answered by a call sent after
 * it was asked, so it sees every write that had completed by then (this process's own
 * placeHold, confirm or release included), exactly as a read of its own would. What is kept
 * per host (its queue) goes as soon as nothing is queued or in flight.
 */
import type { Interval } from "../../calendar/index.js";
import type { OccupancyEntry } from "../port.js";
import { MalformedReplyError, text } from "./codec.js";
import { checkInterval, decode, type StoreContext } from "./context.js";

export type OccupancyMap = ReadonlyMap<string, readonly OccupancyEntry[]>;

/** Calls in flight per host before reads queue; reads one call answers at most. */
export const MAX_IN_FLIGHT_PER_HOST = 1;
export const MAX_READS_PER_CALL = 32;

interface Read {
  readonly resourceIds: readonly string[];
  readonly range: Interval;
  readonly now: number;
  readonly resolve: (value: OccupancyMap) => void;
  readonly reject: (error: unknown) => void;
}

interface HostReads {
  inFlight: number;
  queue: Read[];
}

/** Per store (its context), per host: only hosts with a read queued or in flight. */
const pending = new WeakMap<StoreContext, Map<string, HostReads>>();

export async function listOccupancy(
  ctx: StoreContext,
  hostId: string,
  resourceIds: readonly string[],
  range: Interval,
  now: number,
): Promise<OccupancyMap> {
  if (resourceIds.length === 0) return new Map();
  checkInterval(range);
  let hosts = pending.get(ctx);
  if (hosts === undefined) pending.set(ctx, (hosts = new Map<string, HostReads>()));
  let host = hosts.get(hostId);
  if (host === undefined) hosts.set(hostId, (host = { inFlight: 0, queue: [] }));
  const h = host;
  const map = hosts;
  return new Promise<OccupancyMap>((resolve, reject) => {
    h.queue.push({ resourceIds, range, now, resolve, reject });
    if (h.inFlight < MAX_IN_FLIGHT_PER_HOST) send(ctx, map, hostId, h);
  });
}

/** Hosts with reads queued or in flight (tests: nothing is kept once they are answered). */
export function hostsReading(ctx: StoreContext): number {
  return pending.get(ctx)?.size ?? 0;
}

function send(ctx: StoreContext, hosts: Map<string, HostReads>, hostId: string, h: HostReads): void {
  const reads = h.queue.length <= MAX_READS_PER_CALL ? h.queue : h.queue.slice(0, MAX_READS_PER_CALL);
  h.queue = reads === h.queue ? [] : h.queue.slice(MAX_READS_PER_CALL);
  h.inFlight++;
  const done = (): void => {
    h.inFlight--;
    if (h.queue.length > 0) send(ctx, hosts, hostId, h);
    else if (h.inFlight === 0) hosts.delete(hostId);
  };
  readMany(ctx, hostId, reads).then(
    (answers) => {
      done();
      for (let i = 0; i < reads.length; i++) reads[i]!.resolve(answers[i]!);
    },
    (error: unknown) => {
      done();
      for (const r of reads) r.reject(error);
    },
  );
}

/** One script call for several reads of a host; answers in the reads' order. */
async function readMany(ctx: StoreContext, hostId: string, reads: readonly Read[]): Promise<OccupancyMap[]> {
  // Each resource named once (its key, its longest entry); each read by the indexes of its own.
  const index = new Map<string, number>();
  const ids: string[] = [];
  const perRead: (string | number)[] = [];
  for (const r of reads) {
    perRead.push(r.range.start, r.range.end, r.now, r.resourceIds.length);
    for (const id of r.resourceIds) {
      let i = index.get(id);
      if (i === undefined) {
        ids.push(id);
        index.set(id, (i = ids.length));
      }
      perRead.push(i);
    }
  }
  const k = ctx.keys;
  const keys = ids.map((id) => k.occupancy(hostId, id));
  keys.push(k.holdExpiry(hostId), `${k.host(hostId)}occlen`);
  const reply = await ctx.list("list-occupancy", keys, [ids.length, ...ids, ...perRead]);
  return decode("listOccupancy", () => {
    let at = 0;
    return reads.map((r) => {
      const out = new Map<string, OccupancyEntry[]>();
      for (const id of r.resourceIds) out.set(id, parseEntries(text(reply[at++])));
      return out;
    });
  });
}

/**
 * "start,end,units;…" (units empty for a busy block, which fills any capacity and is the
 * host's own, not an agent's). Integers are read digit by digit: the reply is made of them.
 */
export function parseEntries(s: string): OccupancyEntry[] {
  const entries: OccupancyEntry[] = [];
  const length = s.length;
  let i = 0;
  while (i < length) {
    const start = readInt(s, i, 44);
    i = readEnd;
    const end = readInt(s, i, 44);
    i = readEnd;
    const busy = i >= length || s.charCodeAt(i) === 59;
    const units = busy ? Number.POSITIVE_INFINITY : readInt(s, i, 59);
    i = busy ? i + 1 : readEnd;
    entries.push({ start, end, units, agent: !busy });
  }
  return entries;
}

/** Where readInt stopped: past the separator. */
let readEnd = 0;

function readInt(s: string, from: number, separator: number): number {
  let i = from;
  const negative = s.charCodeAt(i) === 45;
  if (negative) i++;
  const first = i;
  let n = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === separator) break;
    if (c < 48 || c > 57)
      throw new MalformedReplyError(`occupancy reply: unexpected ${JSON.stringify(s[i])}`);
    n = n * 10 + (c - 48);
  }
  if (i === first || i - first > 16 || !Number.isSafeInteger(n))
    throw new MalformedReplyError(`occupancy reply: bad integer at ${from}`);
  readEnd = i + 1;
  return negative ? -n : n;
}
