/**
 * Reconciliation of confirms that never finished (docs/ARCHITECTURE.md, Two-phase
 * confirm and reconciliation): a
 * hold left "confirming" past its lease means a process died, or lost its answer, between
 * the upstream create and the local record. The upstream is ASKED by the hold's idempotency
 * key, and never asked to create: found -> the booking is recorded as the confirm would have
 * recorded it; not found -> the hold goes back to held (or is released when its own expiry
 * has passed); an upstream error -> left for the next run (the re-fenced lease runs out again).
 */
import type { BookingDeps } from "../api.js";
import { decodeHoldOrThrow } from "../holds/payload.js";
import { readConfirmIntent } from "../confirm/intent.js";
import type { ConfirmIntent } from "../confirm/intent.js";
import { CONFIRM_LEASE_MS, upstreamCreate } from "../confirm/confirm.js";
import { recordBooking } from "../confirm/record-booking.js";
import type { HoldRecord } from "../../holds/port.js";

export interface ReconcileReport {
  /** Bookings recorded from an upstream booking found by key. */
  readonly recorded: readonly string[];
  /** Holds given back (held or released): nothing was made upstream. */
  readonly returned: readonly string[];
  /** Holds left confirming for the next run (upstream unreachable, or already settled by another). */
  readonly left: readonly string[];
}

export interface ReconcileOptions {
  /** How long this reconciler holds a claimed hold before another may take it over. */
  readonly leaseMs?: number;
  readonly limit?: number;
}

export async function reconcileStuckConfirms(
  deps: BookingDeps,
  hostId: string,
  opts: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const host = deps.hosts.get(hostId);
  const report = { recorded: [] as string[], returned: [] as string[], left: [] as string[] };
  if (host === undefined) return report;
  const now = deps.clock.now();
  const claimed = await deps.store.claimStuckConfirming(
    hostId,
    now,
    opts.leaseMs ?? CONFIRM_LEASE_MS,
    opts.limit ?? 50,
  );
  for (const { hold, fence } of claimed) {
    const payload = decodeHoldOrThrow(hold.payload, hold.holdId);
    // What the create asked (less what is kept nowhere: the customer's contact and any
    // verification code), so a platform without its own key lookup can still recognise it.
    const attempt = upstreamCreate(host, hold, payload, {});
    const found = await host.connector.bookings.findByIdempotencyKey(attempt.idempotencyKey, attempt);
    if (!found.ok) {
      report.left.push(hold.holdId);
      continue;
    }
    const at = deps.clock.now();
    if (found.value === null) {
      const disposition = hold.expiresAt <= at ? "release" : "held";
      const back = await deps.store.abortConfirm(hostId, hold.holdId, fence, disposition, at);
      (back.ok ? report.returned : report.left).push(hold.holdId);
      continue;
    }
    const intent = (await readConfirmIntent(deps.store, hostId, hold.holdId, at)) ?? fallbackIntent(hold);
    const recorded = await recordBooking(deps, host, hold, fence, payload, found.value, intent, at);
    if (recorded.ok) report.recorded.push(recorded.value.bookingId);
    else report.left.push(hold.holdId);
  }
  return report;
}

/**
 * Only when the intent record is gone (it outlives any hold by days): the hold's own owner
 * and the first mandate link it counted against, as an open mandate's consent ("limits").
 */
function fallbackIntent(hold: HoldRecord): ConfirmIntent {
  const principal = hold.owner.principal ?? hold.owner.agentKey;
  return { principal, consent: { approved: "limits", mandate: hold.owner.mandates[0]?.jti ?? "unknown" } };
}
