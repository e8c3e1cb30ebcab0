/**
 * GET and DELETE /holds/{id} (SchCP §5.2, §5.4). Both return the closed Hold with the SAME
 * offer bytes it was created with, its status read from the store's record (held, released,
 * expired, or confirmed once a booking consumed it).
 *
 * Who may: the agent that placed the hold, or an agent acting for its principal (a mandate
 * from the same principal). A mandate, when sent, binds the action (§3.3): a read must fall
 * within its constraints, and a release is checked against the hold's service, time and price
 * (a closed mandate cannot release at all, §5.3). Anyone else is told the hold does not
 * exist. Release is idempotent; releasing in the last fifth of the TTL counts as an expiry
 * for reputation (§7.2), otherwise as a release (§7.3).
 */
import type { SchcpCaller } from "./caller.js";
import type { HoldRecord, HoldState, ReputationOutcome } from "../../holds/port.js";
import { err, ok, type Result } from "../../protocol/result.js";
import type { Hold, HoldStatus } from "../../protocol/schcp/types.js";
import { formatInstant } from "../../protocol/time/index.js";
import type { BookingDeps, BookingRefusal, HoldPayload, HostRuntime, UseCase } from "../../booking/api.js";
import { checkAction } from "./mandate-authority.js";
import { decodeHoldPayload } from "../../booking/holds/payload.js";
import { bookingRefusal, notFound, withContactRemedy } from "../../booking/rules/index.js";
import { schcpHold, type SchcpHoldAttachment } from "./attachment.js";

const STATUS: Record<HoldState, HoldStatus> = {
  held: "held",
  // The confirm is under way; to the agent the hold is still held (§6).
  confirming: "held",
  booked: "confirmed",
  released: "released",
  expired: "expired",
};

/** The wire Hold as the record stands: the created body, its status and expiry re-derived. */
function holdView(signed: SchcpHoldAttachment, record: HoldRecord): Hold {
  return { ...signed.hold, status: STATUS[record.state], expires_at: formatInstant(record.expiresAt) };
}

interface OwnHold {
  readonly runtime: HostRuntime;
  readonly record: HoldRecord;
  readonly payload: HoldPayload;
  readonly signed: SchcpHoldAttachment;
}

async function ownHold(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  holdId: string,
  action: "read" | "release",
  now: number,
): Promise<Result<OwnHold, BookingRefusal>> {
  const runtime = deps.hosts.get(hostId);
  if (runtime === undefined) return err(notFound(`host ${hostId}`));
  const fail = (r: BookingRefusal) => err(withContactRemedy(r, runtime.config));
  const record = await deps.store.getHold(hostId, holdId, now);
  if (record === undefined) return fail(notFound(`hold ${holdId}`));
  const decoded = decodeHoldPayload(record.payload);
  if (!decoded.ok) throw new Error(`hold ${hostId}/${holdId}: ${decoded.error.message}`);
  const payload = decoded.value;
  // A change offer's hold is reached through its booking (§5.7), never as a Hold; a hold
  // placed through another edge has no SchCP offer and is not found here either.
  const signed = schcpHold(payload.attachments);
  if (payload.contract.kind !== "booking" || signed === undefined) return fail(notFound(`hold ${holdId}`));
  const chain = caller.mandate;
  const mine =
    chain !== undefined && payload.principal !== null
      ? chain.principal === payload.principal
      : caller.agentKey === payload.agentKey;
  if (!mine) return fail(notFound(`hold ${holdId}`));
  if (chain !== undefined) {
    const allowed = await checkAction(deps.store, hostId, chain, {
      kind: action,
      serviceId: payload.contract.service.id,
      start: payload.contract.start,
      ...(payload.contract.end === undefined ? { openEnded: true } : { end: payload.contract.end }),
      total: payload.contract.total,
      offerSha256: signed.offerSha256,
    });
    if (!allowed.ok) return fail(allowed.error);
  }
  return ok({ runtime, record, payload, signed });
}

export async function getHold(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  holdId: string,
): UseCase<Hold> {
  const found = await ownHold(deps, hostId, caller, holdId, "read", deps.clock.now());
  return found.ok ? ok(holdView(found.value.signed, found.value.record)) : found;
}

export async function releaseHold(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  holdId: string,
): UseCase<Hold> {
  const now = deps.clock.now();
  const found = await ownHold(deps, hostId, caller, holdId, "release", now);
  if (!found.ok) return found;
  const { runtime, signed } = found.value;
  const released = await deps.store.releaseHold(hostId, holdId, now);
  if (!released.ok) {
    const r =
      released.error.reason === "not_found"
        ? notFound(`hold ${holdId}`)
        : bookingRefusal("invalid_state", {
            message:
              released.error.reason === "booked" || released.error.reason === "confirming"
                ? "the hold has been confirmed; cancel the booking instead"
                : "the hold cannot be released now",
          });
    return err(withContactRemedy(r, runtime.config));
  }
  const { hold, changed, countsAsExpiry } = released.value;
  if (changed) {
    const outcome: ReputationOutcome = countsAsExpiry ? "expired" : "released";
    const owner = hold.owner;
    await deps.store.recordOutcome({ kind: "agent", id: owner.agentKey }, outcome, now);
    if (owner.principal !== null)
      await deps.store.recordOutcome({ kind: "principal", id: owner.principal }, outcome, now);
    if (owner.attester !== undefined)
      await deps.store.recordOutcome({ kind: "attester", id: owner.attester }, outcome, now);
  }
  return ok(holdView(signed, hold));
}
