/**
 * listOccupancy for Redis: a read-only snapshot for availability (SchCP §5.1: a snapshot,
 * not a promise; placeHold is where allocation is atomic). One read-only script
 * (lua/list-occupancy.lua), so the snapshot is consistent; it judges liveness as place-hold
 * does (lapsed held holds occupy nothing).
 *
 * Reads of one host are gathered: a read is not sent at once but queued, and the queue goes
 * as ONE script call (each read with its own resources, range and now) once the current turn
 * of the event loop is over (setImmediate), so every read the turn's queries asked shares the
 * call. While MAX_IN_FLIGHT_PER_HOST calls of the host are out, the queue waits for one of
 * them to be answered. Under concurrent queries this spends one round trip, one script run and
 * one reply on many reads. A read never joins a call already sent: every read is answered by
 * a call sent after it was asked, so it sees every write that had completed by then (this
 * process's own placeHold, confirm or release included, and another process's whose answer
 * came before the read was asked), exactly as a read of its own would. What is kept per host
 * (its queue) goes as soon as nothing is queued or in flight.
 */
import type { Interval } from "../../calendar/index.js";
import type { OccupancyEntry, OccupancyMap } from "../port.js";
import { MalformedReplyError, text } from "./codec.js";
import { checkInterval, decode, type StoreContext } from "./context.js";

/**
 * Calls in flight per host (two: the reads that the answer to one call lets go ask again in
 * that turn are sent while the other call is still out, so the server runs them as soon as it
 * is done with it while this process works on the answer; with one, this process sat idle
 * whenever the server took longer than that work. Reads sent at once rather than at the end of
 * a turn made a second call carry one read: more calls, fewer answers a second); reads one
 * call answers at most (a script blocks the server while it runs).
 */
const MAX_IN_FLIGHT_PER_HOST = 2;
const MAX_READS_PER_CALL = 32;

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
  /** A send is scheduled for the end of the current turn of the event loop. */
  flushing: boolean;
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
  if (host === undefined) hosts.set(hostId, (host = { inFlight: 0, queue: [], flushing: false }));
  const h = host;
  const map = hosts;
  return new Promise<OccupancyMap>((resolve, reject) => {
    h.queue.push({ resourceIds, range, now, resolve, reject });
    schedule(ctx, map, hostId, h);
  });
}

/** Hosts with reads queued or in flight (tests: nothing is kept once they are answered). */
export function hostsReading(ctx: StoreContext): number {
  return pending.get(ctx)?.size ?? 0;
}

/** Sends the host's queue once the current turn is over, unless a send is already scheduled. */
function schedule(ctx: StoreContext, hosts: Map<string, HostReads>, hostId: string, h: HostReads): void {
  if (h.flushing || h.queue.length === 0 || h.inFlight >= MAX_IN_FLIGHT_PER_HOST) return;
  h.flushing = true;
  setImmediate(() => {
    h.flushing = false;
    while (h.queue.length > 0 && h.inFlight < MAX_IN_FLIGHT_PER_HOST) send(ctx, hosts, hostId, h);
  });
}

function send(ctx: StoreContext, hosts: Map<string, HostReads>, hostId: string, h: HostReads): void {
  const reads = h.queue.length <= MAX_READS_PER_CALL ? h.queue : h.queue.slice(0, MAX_READS_PER_CALL);
  h.queue = reads === h.queue ? [] : h.queue.slice(MAX_READS_PER_CALL);
  h.inFlight++;
  const done = (): void => {
    h.inFlight--;
    // The reads this answer lets go ask again in this turn: they go with the queue, after it.
    if (h.queue.length > 0) schedule(ctx, hosts, hostId, h);
    else if (h.inFlight === 0 && !h.flushing) hosts.delete(hostId);
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

/**
 * What one script call scans: reads of the same resources whose ranges overlap are scanned as
 * their union once, at the earliest of their nows, and each read takes its part of it. An
 * earlier now can only count more holds as live (a held hold lapses as time passes, nothing
 * starts to occupy by itself), so a read answered at a gathered read's now is shown the same
 * or more occupied: it may offer less, never more (§5.1).
 */
interface Scan {
  readonly resourceIds: readonly string[];
  start: number;
  end: number;
  now: number;
  readonly reads: number[];
}

function scansOf(reads: readonly Read[]): Scan[] {
  if (reads.length === 1) {
    const r = reads[0]!;
    return [{ resourceIds: r.resourceIds, start: r.range.start, end: r.range.end, now: r.now, reads: [0] }];
  }
  const groups = new Map<string, number[]>();
  reads.forEach((r, i) => {
    const key = r.resourceIds.join("\u0000");
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [i]);
    else group.push(i);
  });
  const scans: Scan[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => reads[a]!.range.start - reads[b]!.range.start);
    let scan: Scan | undefined;
    for (const i of group) {
      const { range, now, resourceIds } = reads[i]!;
      if (scan !== undefined && range.start <= scan.end) {
        scan.end = Math.max(scan.end, range.end);
        scan.now = Math.min(scan.now, now);
        scan.reads.push(i);
      } else {
        scans.push((scan = { resourceIds, start: range.start, end: range.end, now, reads: [i] }));
      }
    }
  }
  return scans;
}

/** One script call for several reads of a host; answers in the reads' order. */
async function readMany(ctx: StoreContext, hostId: string, reads: readonly Read[]): Promise<OccupancyMap[]> {
  const scans = scansOf(reads);
  // Each resource named once (its key, its longest entry); each scan by the indexes of its own.
  const index = new Map<string, number>();
  const ids: string[] = [];
  const args: (string | number)[] = [];
  for (const scan of scans) {
    args.push(scan.start, scan.end, scan.now, scan.resourceIds.length);
    for (const id of scan.resourceIds) {
      let i = index.get(id);
      if (i === undefined) {
        ids.push(id);
        index.set(id, (i = ids.length));
      }
      args.push(i);
    }
  }
  const k = ctx.keys;
  const keys = ids.map((id) => k.occupancy(hostId, id));
  keys.push(k.holdExpiry(hostId), `${k.host(hostId)}occlen`);
  const reply = await ctx.script("list-occupancy", keys, [ids.length, ...ids, ...args]);
  return decode("listOccupancy", () => {
    // One JSON text: JSON.parse reads it natively, without a string operation per row here.
    const lists: unknown = JSON.parse(text(reply));
    const expected = scans.reduce((n, scan) => n + scan.resourceIds.length, 0);
    if (!Array.isArray(lists) || lists.length !== expected)
      throw new MalformedReplyError(`occupancy reply: expected ${expected} lists`);
    const answers: OccupancyMap[] = new Array<OccupancyMap>(reads.length);
    let at = 0;
    for (const scan of scans) {
      const scanned = scan.resourceIds.map(() => entriesOf(lists[at++], scan));
      for (const i of scan.reads) {
        const { range } = reads[i]!;
        const whole = range.start === scan.start && range.end === scan.end;
        const answer = new Map<string, readonly OccupancyEntry[]>();
        scan.resourceIds.forEach((id, j) => {
          const entries = scanned[j]!;
          answer.set(id, whole ? entries.entries : within(entries, range));
        });
        answers[i] = answer;
      }
    }
    return answers;
  });
}

/** Entries in the order of their ends, with the longest one's length. */
export interface ParsedEntries {
  readonly entries: OccupancyEntry[];
  readonly longest: number;
}

/**
 * One resource's [start, end, units, …] (units 0 for a busy block, which fills any capacity
 * and is the host's own, not an agent's), keeping the entries that overlap `range` (the script
 * leaves busy blocks starting at or after its end in). Anything but whole numbers is refused.
 */
export function entriesOf(flat: unknown, range: Interval): ParsedEntries {
  if (!Array.isArray(flat) || flat.length % 3 !== 0)
    throw new MalformedReplyError("occupancy reply: expected [start, end, units, …]");
  const entries: OccupancyEntry[] = [];
  let longest = 0;
  for (let i = 0; i < flat.length; i += 3) {
    const start: unknown = flat[i];
    const end: unknown = flat[i + 1];
    const units: unknown = flat[i + 2];
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || !Number.isSafeInteger(units))
      throw new MalformedReplyError(
        `occupancy reply: not whole numbers: ${JSON.stringify(flat.slice(i, i + 3))}`,
      );
    const s = start as number;
    const e = end as number;
    if (s >= range.end || e <= range.start) continue;
    const busy = units === 0;
    entries.push({
      start: s,
      end: e,
      units: busy ? Number.POSITIVE_INFINITY : (units as number),
      agent: !busy,
    });
    if (e - s > longest) longest = e - s;
  }
  return { entries, longest };
}

/**
 * The entries overlapping `range`, from a scan's entries in the order of their ends (the
 * sorted set's): from the first ending after its start, up to the first that ends too late to
 * start before its end (it would be longer than the longest entry scanned).
 */
function within({ entries, longest }: ParsedEntries, range: Interval): OccupancyEntry[] {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.end > range.start) hi = mid;
    else lo = mid + 1;
  }
  const out: OccupancyEntry[] = [];
  const last = range.end + longest;
  for (let i = lo; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.end > last) break;
    if (e.start < range.end) out.push(e);
  }
  return out;
}
