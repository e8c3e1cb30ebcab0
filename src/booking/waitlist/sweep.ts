/**
 * The waitlist's part of the sweeper (SchCP §5.9): an offered hold that lapsed makes its entry
 * lapsed and its time goes to the next entry (offer.ts; the expiry counts against agent and
 * principal like any, §7.3, through the store's expiry events); an offer confirmed makes the
 * entry booked; a waiting entry whose window passed or whose mandate expired is expired.
 */
import type { BookingDeps, HostRuntime } from "../api.js";
import { decodeHoldOrThrow } from "../holds/payload.js";
import { offerFreedTime } from "./offer.js";

const BATCH = 100;

export interface WaitlistSweep {
  readonly lapsed: number;
  readonly booked: number;
  readonly expired: number;
}

export async function sweepWaitlist(
  deps: BookingDeps,
  host: HostRuntime,
  now: number,
): Promise<WaitlistSweep> {
  const hostId = host.config.id;
  let lapsed = 0;
  let booked = 0;
  let expired = 0;
  for (const entry of await deps.store.offeredEntries(hostId, BATCH)) {
    if (entry.holdId === undefined) continue;
    const hold = await deps.store.getHold(hostId, entry.holdId, now);
    if (hold === undefined) continue;
    if (hold.state === "booked") {
      if (await deps.store.setWaitlistStatus(hostId, entry.entryId, ["offered"], "booked")) booked++;
      continue;
    }
    if (hold.state !== "expired" && hold.state !== "released") continue;
    const payload = decodeHoldOrThrow(hold.payload, hold.holdId);
    const done = await offerFreedTime(
      deps,
      host,
      { kind: "offer", holdId: hold.holdId, entryId: entry.entryId, entryStatus: "lapsed" },
      { start: payload.contract.start, offersMade: payload.waitlist?.round ?? 1 },
      now,
    );
    if (done.ok) lapsed++;
  }
  for (const entry of await deps.store.waitingEntries(hostId, 10 * BATCH)) {
    if (entry.until > now) continue;
    if (await deps.store.setWaitlistStatus(hostId, entry.entryId, ["waiting"], "expired")) expired++;
  }
  return { lapsed, booked, expired };
}
