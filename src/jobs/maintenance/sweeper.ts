/**
 * The active sweeper: frees lapsed holds and reports each expiry once (the store hands every
 * ExpiryEvent to exactly one consumer, across processes). For each expiry it records
 * "expired" for the agent, the principal and the attester (SchCP §7.3 reputation-scaled TTL)
 * and, when the hold was placed with a callback_url, queues hold.expired (§5.8).
 *
 * Failures are contained: one host's error does not stop the others, one expiry's does not
 * stop the rest of its batch.
 */
import type { Clock, Outbox } from "../../booking/api.js";
import type { ExpiryEvent, HoldStore, ReputationStore, ReputationSubject } from "../../holds/port.js";
import { describeError } from "../logger.js";
import type { JobLogger } from "../logger.js";
import { decodeHoldPayload } from "../../booking/holds/payload.js";
import { schcpHold } from "../../booking/schcp/attachment.js";
import { buildHoldExpiredEvent } from "./hold-expired.js";

export interface SweeperDeps {
  readonly store: HoldStore & ReputationStore;
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly logger: JobLogger;
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
  const subjects: ReputationSubject[] = [{ kind: "agent", id: owner.agentKey }];
  if (owner.principal !== null) subjects.push({ kind: "principal", id: owner.principal });
  if (owner.attester !== undefined) subjects.push({ kind: "attester", id: owner.attester });
  await Promise.all(subjects.map((s) => deps.store.recordOutcome(s, "expired", now)));

  const record = await deps.store.getHold(event.hostId, event.holdId, now);
  if (record === undefined) return false; // pruned long after it ended: nothing left to send
  const payload = decodeHoldPayload(record.payload);
  if (!payload.ok) {
    deps.logger.error("sweeper: unreadable hold payload", {
      host_id: event.hostId,
      hold_id: event.holdId,
      ...payload.error,
    });
    return false;
  }
  const callbackUrl = payload.value.callbackUrl;
  // A change offer's hold is a proposal, not a hold the agent placed: it has no hold.expired;
  // nor has a hold placed through an edge without webhooks (no SchCP Hold kept with it).
  const signed = schcpHold(payload.value.attachments);
  if (callbackUrl === undefined || payload.value.contract.kind !== "booking" || signed === undefined)
    return false;
  const built = buildHoldExpiredEvent(record, signed);
  if (!built.ok) {
    deps.logger.error("sweeper: hold.expired does not match the WebhookEvent schema", {
      host_id: event.hostId,
      hold_id: event.holdId,
      ...built.error,
    });
    return false;
  }
  await deps.outbox.enqueue({ hostId: event.hostId, callbackUrl, event: { ...built.value } });
  return true;
}
