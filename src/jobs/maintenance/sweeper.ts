/**
 * The active sweeper: frees lapsed holds and reports each expiry once (the store hands every
 * ExpiryEvent to exactly one consumer, across processes). For each expiry of a hold the guest
 * placed it records "expired" for the agent, the principal and the attester (SchCP §7.3
 * reputation-scaled TTL; not for a host's own offer, HoldOwner.offeredByHost)
 * and, when the hold was placed with a callback_url, queues hold.expired (§5.8).
 *
 * Failures are contained: one host's error does not stop the others, one expiry's does not
 * stop the rest of its batch.
 */
import type { Clock } from "../../protocol/clock.js";
import type { Outbox, OutboundEvent } from "../../booking/api.js";
import type {
  ExpiryEvent,
  HoldRecord,
  HoldStore,
  ReputationStore,
  ReputationSubject,
} from "../../holds/port.js";
import type { Result } from "../../protocol/result.js";
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";

/**
 * The webhook a lapsed hold sends, if any (the booking core's SchCP edge builds hold.expired:
 * edges/schcp/hold-expired.ts holdExpiredWebhook); an error names a record it cannot read.
 */
export type ExpiryNotice = (
  record: HoldRecord,
) => Result<OutboundEvent | undefined, { readonly field?: string; readonly message: string }>;

export interface SweeperDeps {
  readonly store: HoldStore & ReputationStore;
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly logger: Logger;
  readonly expiryNotice: ExpiryNotice;
  /**
   * Before the host's lapsed holds are swept: its lapsed waitlist offers go down the line in the
   * step that expires them (SchCP §5.9; the core's sweepWaitlist).
   */
  readonly waitlist?: (hostId: string) => Promise<unknown>;
}

export interface SweepOptions {
  /** Holds expired, and events taken, per store call (default 200). */
  readonly batch?: number;
  /** Calls per host and run, so one run is bounded (default 10). */
  readonly maxBatches?: number;
}

export interface SweepReport {
  hosts: number;
  expired: number;
  events: number;
  webhooks: number;
  errors: number;
}

export async function sweepExpiredHolds(deps: SweeperDeps, options: SweepOptions = {}): Promise<SweepReport> {
  const report: SweepReport = { hosts: 0, expired: 0, events: 0, webhooks: 0, errors: 0 };
  let hostIds: readonly string[];
  try {
    hostIds = await deps.store.listHosts();
  } catch (error) {
    deps.logger.error("sweeper: cannot list hosts", { error: describeError(error) });
    report.errors++;
    return report;
  }
  for (const hostId of hostIds) {
    report.hosts++;
    try {
      await sweepHost(deps, hostId, options, report);
    } catch (error) {
      deps.logger.error("sweeper: host sweep failed", { host_id: hostId, error: describeError(error) });
      report.errors++;
    }
  }
  return report;
}

async function sweepHost(deps: SweeperDeps, hostId: string, options: SweepOptions, report: SweepReport) {
  const batch = options.batch ?? 200;
  const maxBatches = options.maxBatches ?? 10;
  if (deps.waitlist !== undefined) await deps.waitlist(hostId);
  for (let i = 0; i < maxBatches; i++) {
    const expired = await deps.store.sweepExpired(hostId, deps.clock.now(), batch);
    report.expired += expired;
    if (expired < batch) break;
  }
  // Events also come from lazy expiry (a hold placed over a lapsed one), not only this sweep.
  for (let i = 0; i < maxBatches; i++) {
    const events = await deps.store.takeExpiryEvents(hostId, batch);
    for (const event of events) {
      report.events++;
      try {
        if (await handleExpiry(deps, event)) report.webhooks++;
      } catch (error) {
        deps.logger.error("sweeper: expiry not fully handled", {
          host_id: hostId,
          hold_id: event.holdId,
          error: describeError(error),
        });
        report.errors++;
      }
    }
    if (events.length < batch) break;
  }
}

/** Reputation, then the webhook; true when a webhook was queued. */
async function handleExpiry(deps: SweeperDeps, event: ExpiryEvent): Promise<boolean> {
  const now = deps.clock.now();
  const { owner } = event;
  // A host's own offer the guest let lapse is no abandoned hold of theirs (§7.3; HoldOwner).
  if (owner.offeredByHost !== true) {
    const subjects: ReputationSubject[] = [{ kind: "agent", id: owner.agentKey }];
    if (owner.principal !== null) subjects.push({ kind: "principal", id: owner.principal });
    if (owner.attester !== undefined) subjects.push({ kind: "attester", id: owner.attester });
    await Promise.all(subjects.map((s) => deps.store.recordOutcome(s, "expired", now)));
  }

  const record = await deps.store.getHold(event.hostId, event.holdId, now);
  if (record === undefined) return false; // pruned long after it ended: nothing left to send
  const notice = deps.expiryNotice(record);
  if (!notice.ok) {
    deps.logger.error(
      "sweeper: no hold.expired sent: its payload is unreadable or the event fails the WebhookEvent schema",
      {
        host_id: event.hostId,
        hold_id: event.holdId,
        ...notice.error,
      },
    );
    return false;
  }
  if (notice.value === undefined) return false;
  await deps.outbox.enqueue(notice.value);
  return true;
}
