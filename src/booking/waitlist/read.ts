/**
 * Reading and leaving a waitlist entry (SchCP §5.9). Only the entry's principal reads or leaves
 * it; reading is checked against the grant's window (the edge checks the rest of its
 * mandate's constraints, and scope hold for leaving, as releasing a hold does). Leaving while
 * holding an offer releases the offer to the next entry in the same step (offer.ts).
 */
import { err, ok } from "../../protocol/result.js";
import type { BookingDeps, Caller, HostRuntime, UseCase } from "../api.js";
import { principalOf } from "../authority.js";
import { decodeHoldOrThrow } from "../holds/payload.js";
import { notFound } from "../rules/index.js";
import { entryView, type WaitlistEntryView } from "./entry.js";
import { offerFreedTime } from "./offer.js";

async function ownEntry(deps: BookingDeps, host: HostRuntime, caller: Caller, entryId: string) {
  const record = await deps.store.getWaitlistEntry(host.config.id, entryId);
  const principal = principalOf(caller);
  // Another principal's entry is not found: its existence is not theirs to learn.
  if (record === undefined || principal === null || record.principal !== principal) return undefined;
  const authority = caller.authority;
  if (authority?.covers !== undefined && !authority.covers(record.window.start, record.window.end))
    return undefined;
  return record;
}

export async function readWaitlistEntry(
  deps: BookingDeps,
  host: HostRuntime,
  caller: Caller,
  entryId: string,
): UseCase<WaitlistEntryView> {
  const record = await ownEntry(deps, host, caller, entryId);
  if (record === undefined) return err(notFound(`waitlist entry ${entryId}`));
  if (record.status !== "waiting") return ok(entryView(record));
  const line = await deps.store.waitingEntries(host.config.id, 10_000);
  const at = line.findIndex((e) => e.entryId === entryId);
  return ok(entryView(record, at >= 0 ? at + 1 : undefined));
}

/** DELETE: left; an offer it held goes to the next entry (§5.9). Leaving again returns it. */
export async function leaveWaitlist(
  deps: BookingDeps,
  host: HostRuntime,
  caller: Caller,
  entryId: string,
): UseCase<WaitlistEntryView> {
  const hostId = host.config.id;
  const record = await ownEntry(deps, host, caller, entryId);
  if (record === undefined) return err(notFound(`waitlist entry ${entryId}`));
  const now = deps.clock.now();
  if (record.status === "waiting") {
    const left = await deps.store.setWaitlistStatus(hostId, entryId, ["waiting"], "left");
    if (left !== undefined) return ok(entryView(left));
  }
  const current = (await deps.store.getWaitlistEntry(hostId, entryId)) ?? record;
  if (current.status === "offered" && current.holdId !== undefined) {
    const hold = await deps.store.getHold(hostId, current.holdId, now);
    if (hold?.state === "held" || hold?.state === "expired" || hold?.state === "released") {
      const payload = decodeHoldOrThrow(hold.payload, hold.holdId);
      await offerFreedTime(
        deps,
        host,
        {
          kind: "offer",
          holdId: hold.holdId,
          entryId,
          entryStatus: hold.state === "expired" ? "lapsed" : "left",
        },
        { start: payload.contract.start, offersMade: payload.waitlist?.round ?? 1 },
        now,
      );
    } else {
      // The offer is being confirmed or was booked: the entry is no longer the agent's to leave.
      await deps.store.setWaitlistStatus(hostId, entryId, ["offered"], "left");
    }
  }
  const after = (await deps.store.getWaitlistEntry(hostId, entryId)) ?? current;
  return ok(entryView(after));
}
