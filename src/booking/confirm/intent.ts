/**
 * The confirm intent: who is confirming a hold and how the person agreed (§5.3 consent),
 * written durably BEFORE the upstream create, so that reconciliation after a crash records
 * the booking exactly as the confirm would have, receipt consent included.
 *
 * WHY the idempotency store: the hold store port has no place for it (a hold's payload is
 * fixed when it is placed, and beginConfirm takes no data), and the idempotency store is the
 * one shared, durable, keyed record the port offers in memory and Redis alike. It is used
 * under its own agent-key namespace, so no agent request can ever collide with it. The first
 * intent written for a hold stays (a later confirm attempt of the same hold under another
 * mandate keeps the first one's consent; see the report's open questions).
 */
import type { IdempotencyScope, IdempotencyStore } from "../../holds/port.js";
import { sha256Base64Url } from "../../protocol/json/index.js";
import { storedConsent, type Consent } from "../contract.js";
import type { LimitClaim } from "../authority.js";
import type { ParticipantRequest } from "../participants/rules.js";
import type { MeetingRuleYes, MeetingTerms } from "../meetings/types.js";
import type { BookingAnswer } from "../bookings/state.js";

export interface ConfirmIntent {
  /** The confirming chain's root principal: it claims an anonymous hold (§7.1). */
  readonly principal: string;
  readonly consent: Consent;
  /**
   * Units of outside limits the edge claimed before the confirm (SchCP §3.3 shared booking
   * limits): the booking keeps them, so they are given back if it will not happen. Written
   * here so a booking that reconciliation records keeps them too.
   */
  readonly limitClaims?: readonly LimitClaim[];
  /**
   * §5.10 participants the confirm named, so a booking recovered after a crash waits on the
   * same people as the confirm would have made it.
   */
  readonly participants?: readonly ParticipantRequest[];
  /** SchCP §5.12: the meeting contract the hold is confirmed with, as the edge verified it. */
  readonly meeting?: MeetingTerms;
  /** SchCP §5.12, §7.9: a rule of the member answered the meeting at once (meetings/answer.ts ruleYes). */
  readonly meetingYes?: MeetingRuleYes;
  /**
   * SchCP §7.9: the yes a host_approval host gave at once (its owner's own booking, or a rule
   * its person signed; answers/decide.ts), decided before the upstream create, so a booking
   * recovered after a crash is confirmed with the same answer.
   */
  readonly answer?: BookingAnswer;
  /** §7.9 answers: "person": the guest asked that the person answer themselves (moves too). */
  readonly personRequired?: true;
}

const NAMESPACE = "schcp-gateway:confirm-intent";
const LOCK_MS = 5_000;
/** Kept well past any hold's life and a reconciler's retries. */
const RETAIN_MS = 7 * 24 * 3_600_000;

const scope = (hostId: string, holdId: string): IdempotencyScope => ({
  agentKey: NAMESPACE,
  idempotencyKey: `${hostId}:${holdId}`,
});

export async function writeConfirmIntent(
  store: IdempotencyStore,
  hostId: string,
  holdId: string,
  intent: ConfirmIntent,
  now: number,
): Promise<void> {
  const body = JSON.stringify(intent);
  const s = scope(hostId, holdId);
  const begun = await store.beginIdempotent(s, sha256Base64Url(body), now, LOCK_MS);
  if (begun.state !== "new") return;
  const record = {
    requestHash: sha256Base64Url(body),
    principal: intent.principal,
    response: { status: 200, body },
  };
  await store.completeIdempotent(s, begun.fence, record, now, RETAIN_MS);
}

export async function readConfirmIntent(
  store: IdempotencyStore,
  hostId: string,
  holdId: string,
  now: number,
): Promise<ConfirmIntent | undefined> {
  const s = scope(hostId, holdId);
  const begun = await store.beginIdempotent(s, "read", now, 1);
  if (begun.state === "new") {
    await store.abandonIdempotent(s, begun.fence);
    return undefined;
  }
  if (begun.state === "in_progress") return undefined;
  try {
    const value = JSON.parse(begun.record.response.body) as Partial<ConfirmIntent>;
    return typeof value.principal === "string" && typeof value.consent === "object" && value.consent !== null
      ? { ...(value as ConfirmIntent), consent: storedConsent(value.consent) }
      : undefined;
  } catch {
    return undefined;
  }
}
