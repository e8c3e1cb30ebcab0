/**
 * How far a calendar host's calendars were read (host-connector.ts knownUntil), remembered
 * for a moment. Every availability query on a calendar host needs it, and the Redis calendar
 * state keeps it inside one JSON value per calendar with every synced event: reading it per
 * query cost a round trip and a parse of the whole calendar. The horizon only moves when a
 * sync completes; this process's own syncs forget it at once (forgetReadHorizon), another
 * process's are seen within READ_HORIZON_TTL_MS. Until then the older horizon is used: it
 * offers less, never time the calendar was not read for, unless a calendar's state was
 * dropped (a reconnection), which is then seen within the same bound (§10: nothing past what
 * was read is offered; §5.1: availability is a snapshot).
 */
import { performance } from "node:perf_hooks";

const READ_HORIZON_TTL_MS = 1_000;

interface Known {
  /** Shared by every query that asks while it is read: one read per host at a time. */
  readonly value: Promise<number | undefined>;
  readonly at: number;
}

/** Per state store (one per process, more in tests), per host. Entries lapse after the TTL. */
const known = new WeakMap<object, Map<string, Known>>();

export async function cachedReadHorizon(
  state: object,
  hostId: string,
  read: () => Promise<number | undefined>,
  ttlMs = READ_HORIZON_TTL_MS,
): Promise<number | undefined> {
  let hosts = known.get(state);
  if (hosts === undefined) known.set(state, (hosts = new Map<string, Known>()));
  const now = performance.now();
  const hit = hosts.get(hostId);
  if (hit !== undefined && now - hit.at < ttlMs) return hit.value;
  // Lapsed entries of other hosts go as this one is written: the map holds recent hosts only.
  if (hosts.size >= 64) for (const [id, k] of hosts) if (now - k.at >= ttlMs) hosts.delete(id);
  const value = read();
  const entry = { value, at: now };
  hosts.set(hostId, entry);
  // A failed read is not remembered: the next query tries again.
  value.catch(() => {
    if (hosts.get(hostId) === entry) hosts.delete(hostId);
  });
  return value;
}

/** A sync of this process changed the host's horizon: the next query reads it again. */
export function forgetReadHorizon(state: object, hostId: string): void {
  known.get(state)?.delete(hostId);
}
