/**
 * POST /holds/{hold_id}/confirm (SchCP §5.3): the SchCP checks, then the core's two-phase
 * confirm (../confirm/confirm.ts), answered as the BookingResponse.
 *
 * The checks before anything is written: the hold's owner and state, the offer hash, access,
 * the mandate (book scope and constraints, max_bookings with this hold already counted), the
 * closed-mandate policy. Then the shared booking limits are claimed at the principals' key apps
 * (§3.3), and given back if the confirm fails.
 */
import type { SchcpCaller } from "./caller.js";
import type { BookingDeps, BookingRefusal, HoldPayload, HostRuntime, UseCase } from "../../booking/api.js";
import type { HoldRecord, HoldStore } from "../../holds/port.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import {
  checkClosedMandatePolicy,
  checkMandateAction,
  receiptConsent,
  sharedLimitLinks,
} from "../../protocol/schcp/mandate/index.js";
import type { MandateChain } from "../../protocol/schcp/mandate/index.js";
import type { BookingResponse, ConfirmRequest } from "../../protocol/schcp/types.js";
import {
  contractMismatch,
  invalidState,
  mandateRequired,
  notFound,
  refuse,
} from "../../booking/bookings/refuse.js";
import { fromMandateRefusal } from "./mandate-refusal.js";
import { loadBooking } from "../../booking/bookings/store.js";
import { holdStateRefusal } from "../../booking/confirm/checks.js";
import { fenceHold, settleUpstream } from "../../booking/confirm/confirm.js";
import type { ConfirmIntent } from "../../booking/confirm/intent.js";
import { decodeHoldOrThrow } from "../../booking/holds/payload.js";
import { authorizeOnBooking, bookingAction, mandateCounter } from "./access.js";
import { schcpBooking, schcpOffer, type SchcpOffer } from "./attachment.js";
import { bookingResponse } from "./receipt.js";
import { checkFreeTextNotes, withContactRemedy } from "../../booking/rules/index.js";
import { SCHCP } from "./attachment.js";
import type { SchcpEdgeOptions, SchcpKeyApps } from "./key-app.js";
import type { LimitClaim } from "../../booking/authority.js";
import { parseSchcpDuration } from "../../protocol/time/index.js";
import { hasRequired, type ParticipantRequest } from "../../booking/participants/rules.js";
import type { MeetingTerms } from "../../booking/meetings/types.js";
import { checkMeetingContract } from "./meeting/contract.js";
import { hostAccess, type ContactStore } from "../../booking/hosts/contacts.js";
import { answerAtOnce } from "../../booking/answers/index.js";
import { ruleYes } from "../../booking/meetings/answer.js";
import { notifyGuest } from "../../booking/bookings/edges.js";

export type ConfirmResult = { readonly status: 201 | 202; readonly body: BookingResponse };

export async function confirmHold(
  deps: BookingDeps,
  hostId: string,
  caller: SchcpCaller,
  holdId: string,
  body: ConfirmRequest,
  options: SchcpEdgeOptions = {},
): UseCase<ConfirmResult> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return err(notFound("host"));
  const now = deps.clock.now();
  const hold = await deps.store.getHold(hostId, holdId, now);
  if (hold === undefined) return err(notFound("hold"));
  const payload = decodeHoldOrThrow(hold.payload, holdId);
  // A hold placed through another edge stands on no SchCP offer: not this caller's to confirm.
  const signed = schcpOffer(payload.attachments);
  if (signed === undefined) return err(notFound("hold"));

  // A confirm that already happened (a retry after a lost answer, or a crash that
  // reconciliation settled) answers with the booking it made, for the same principal and
  // the same offer: the agent has no other way to learn the booking id.
  if (hold.state === "booked" && hold.bookingId !== undefined) {
    const recorded = await answerRecorded(deps, host, caller, hold.bookingId, signed, body);
    if (recorded !== undefined) return recorded;
  }

  const checked = await checkConfirm(
    deps.store,
    deps.contacts,
    host,
    caller,
    hold,
    payload,
    signed,
    body,
    now,
  );
  if (!checked.ok) return checked;
  // §5.3 free text: refused before anything is stored (the hold is not even fenced).
  const notes = checkFreeTextNotes(host.config.policies, body.notes);
  if (notes !== undefined) return err(withContactRemedy(notes, host.config));
  const { chain, meeting } = checked.value;
  const participants = participantsOf(body);
  if (!participants.ok) return participants;

  const shared = await claimSharedLimits(options.keyApps, hostId, holdId, chain);
  if (!shared.ok) return shared;
  const { claims, madeHere } = shared.value;

  const begun = await fenceHold(deps, hostId, holdId, now);
  if (!begun.ok) {
    if (!(await mayStillBook(deps, hostId, holdId))) await giveBackMine(options.keyApps, hostId, madeHere);
    return begun;
  }
  const { hold: fenced, fence } = begun.value;

  const consent = receiptConsent(chain, signed.offerSha256);
  // §7.9: a host_approval host says yes at once to its owner, or by a rule its person signed
  // unless the guest asked for the person's own answer (answers: "person").
  const personRequired = body.answers === "person";
  const answer = await answerAtOnce(
    host,
    { store: deps.rules, check: deps.ruleCheck },
    {
      principal: chain.principal,
      serviceId: payload.contract.service.id,
      start: payload.contract.start,
      personRequired,
      now: deps.clock.now(),
    },
  );
  // §5.12: a person member's calendar says yes at once where a rule of theirs covers the meeting.
  const meetingYes =
    meeting === undefined
      ? undefined
      : await ruleYes(deps, host, meeting, {
          serviceId: payload.contract.service.id,
          start: payload.contract.start,
          personRequired,
          now: deps.clock.now(),
        });
  const intent: ConfirmIntent = {
    principal: chain.principal,
    // §5.3 approved: "contract" when the person signed a meeting contract that names the offer.
    consent: meeting === undefined ? consent : { ...consent, approved: "contract" },
    ...(meeting !== undefined && { meeting }),
    ...(meetingYes !== undefined && { meetingYes }),
    ...(claims.length > 0 && { limitClaims: claims }),
    ...(participants.value.length > 0 && { participants: participants.value }),
    // §5.12: a meeting booking is answered as the meeting says (booking/meetings/confirm.ts).
    ...(answer !== undefined && meeting === undefined && { answer }),
    ...(personRequired && { personRequired: true as const }),
  };
  const contact = body.contact ?? chain.root.claims.contact;
  let made: Awaited<ReturnType<typeof settleUpstream>>;
  try {
    made = await settleUpstream(
      deps,
      host,
      fenced,
      fence,
      payload,
      intent,
      {
        ...(contact !== undefined && { customer: contact }),
        ...(body.notes !== undefined && { notes: body.notes }),
      },
      "schcp",
    );
  } catch (bug) {
    if (!(await mayStillBook(deps, hostId, holdId))) await giveBackMine(options.keyApps, hostId, madeHere);
    throw bug;
  }
  if (!made.ok) {
    if (!(await mayStillBook(deps, hostId, holdId))) await giveBackMine(options.keyApps, hostId, madeHere);
    return made;
  }
  // §5.12: the member's yes by rule is heard as any member's acceptance is (booking.accepted).
  if (meetingYes !== undefined && made.value.meeting?.acceptance === meetingYes.acceptance)
    await notifyGuest(deps, host, made.value, "accepted", deps.clock.now());
  return ok({ status: confirmStatus(made.value.status), body: bookingResponse(made.value, host) });
}

/** §5.3, §5.10: 201 for a booking that is final, 202 while the host or participants must answer. */
const confirmStatus = (status: string): 201 | 202 =>
  status === "pending_host" || status === "tentative" ? 202 : 201;

/** §5.10 participants in the core's terms; confirm_within read as a length. */
function participantsOf(body: ConfirmRequest): Result<ParticipantRequest[], BookingRefusal> {
  const out: ParticipantRequest[] = [];
  for (const [i, p] of (body.participants ?? []).entries()) {
    let confirmWithinMs: number | undefined;
    if (p.confirm_within !== undefined) {
      const field = `/participants/${i}/confirm_within`;
      const parsed = parseSchcpDuration(p.confirm_within, field);
      if (!parsed.ok || parsed.value <= 0)
        return err(
          refuse("invalid_request", "invalid_request", "confirm_within must be a length longer than zero", {
            details: { field },
          }),
        );
      confirmWithinMs = parsed.value;
    }
    out.push({
      ...(p.who !== undefined && { who: p.who }),
      ...(p.name !== undefined && { name: p.name }),
      role: p.role,
      ...(p.relationship !== undefined && { relationship: p.relationship }),
      ...(confirmWithinMs !== undefined && { confirmWithinMs }),
      ...(p.default !== undefined && { default: p.default }),
    });
  }
  return ok(out);
}

async function answerRecorded(
  deps: BookingDeps,
  host: HostRuntime,
  caller: SchcpCaller,
  bookingId: string,
  signed: SchcpOffer,
  body: ConfirmRequest,
): Promise<Result<ConfirmResult, BookingRefusal> | undefined> {
  if (body.offer_sha256 !== signed.offerSha256) return undefined;
  const chain = caller.mandate;
  if (chain === undefined || !chain.links.every((l) => l.claims.scope.includes("book"))) return undefined;
  const loaded = await loadBooking(deps.store, host.config.id, bookingId);
  if (loaded === undefined || schcpBooking(loaded.state.attachments) === undefined) return undefined;
  const allowed = await authorizeOnBooking(
    deps.store,
    caller,
    loaded.state,
    bookingAction("read", loaded.state),
  );
  if (!allowed.ok) return allowed;
  return ok({ status: confirmStatus(loaded.state.status), body: bookingResponse(loaded.state, host) });
}

interface CheckedConfirm {
  readonly chain: MandateChain;
  /** §5.12: the meeting contract, as this calendar checked it. */
  readonly meeting?: MeetingTerms;
}

async function checkConfirm(
  store: HoldStore,
  contacts: ContactStore | undefined,
  host: HostRuntime,
  caller: SchcpCaller,
  hold: HoldRecord,
  payload: HoldPayload,
  signed: SchcpOffer,
  body: ConfirmRequest,
  now: number,
): Promise<Result<CheckedConfirm, BookingRefusal>> {
  // §5.3 "Requires a mandate with book in scope, the same principal (iss) as the hold".
  const chain = caller.mandate;
  if (chain === undefined) return err(mandateRequired());
  // An anonymous hold belongs to the agent key that placed it, and is claimed by the
  // principal whose mandate that agent presents (§7.1). Another's hold is simply not found.
  const owned =
    payload.principal === null
      ? hold.owner.agentKey === caller.agentKey
      : payload.principal === chain.principal;
  if (!owned) return err(notFound("hold"));

  const state = holdStateRefusal(hold);
  if (state !== undefined) return err(state);
  if (payload.contract.kind !== "booking")
    return err(invalidState("a change offer is accepted with reschedule (§5.7)"));
  // §5.12: the meeting's own checks come first; a meeting names no required participants.
  let meeting: MeetingTerms | undefined;
  if (body.meeting !== undefined) {
    const terms = await checkMeetingContract(
      host,
      chain.principal,
      { contract: payload.contract, signed },
      body,
      now,
    );
    if (!terms.ok) return terms;
    meeting = terms.value;
  }
  // §5.10: "A host without policies.tentative refuses required participants (501 UNSUPPORTED)."
  if (hasRequired(body.participants) && host.config.policies.tentative === undefined) {
    return err(
      refuse("unsupported", "unsupported", "this host does not take bookings that participants must accept", {
        basis: { policy: "tentative" },
      }),
    );
  }

  // §5.3 "Every acceptance names its contract".
  if (body.offer_sha256 !== signed.offerSha256) {
    return err(contractMismatch(signed.offerSha256, "offer_sha256 does not name the hold's offer"));
  }

  // §7.8: membership is checked when the request is made, so a removed contact cannot confirm.
  const access = await hostAccess(contacts, host.config, chain.principal);
  if (access !== undefined) return err(access);

  const checked = await checkMandateAction(
    chain,
    {
      kind: "book",
      serviceId: payload.contract.service.id,
      start: payload.contract.start,
      ...(payload.contract.end !== undefined ? { end: payload.contract.end } : { openEnded: true }),
      total: payload.contract.total,
      offerSha256: signed.offerSha256,
      // The hold already counts against max_bookings (§7.1); confirming it takes no new unit.
      countedItemId: hold.holdId,
    },
    { counter: mandateCounter(store, host.config.id) },
  );
  if (!checked.ok) return err(fromMandateRefusal(checked.error));

  const closed = checkClosedMandatePolicy(chain, signed.offerSha256, host.config.policies.closedMandate);
  if (!closed.ok) return err(fromMandateRefusal(closed.error));

  return ok({ chain, ...(meeting !== undefined && { meeting }) });
}

/** The units a confirm holds at key apps, and those it claimed itself (201) in this call. */
interface SharedClaims {
  readonly claims: readonly LimitClaim[];
  readonly madeHere: readonly LimitClaim[];
}

const sharedLimitReached = (message: string): BookingRefusal =>
  refuse("authority_limit", "shared_limit_reached", message, { basis: { constraint: "shared_limit" } });

/**
 * §3.3 "One consent, several hosts": before confirming, one booking is claimed for each link
 * with a shared booking limit, root first: POST {status}/claims with claim_id "{host id}/{hold
 * id}". 201 is claimed here, 200 was claimed by an earlier call (a confirm retried under another
 * idempotency key), 409 none left. A refusal, a link without a status URL or a key app that
 * does not answer is 403 MANDATE_LIMIT shared_limit_reached: "a booking the key app cannot
 * vouch for is not made", and what this call claimed is given back.
 */
async function claimSharedLimits(
  keyApps: SchcpKeyApps | undefined,
  hostId: string,
  holdId: string,
  chain: MandateChain,
): Promise<Result<SharedClaims, BookingRefusal>> {
  const links = sharedLimitLinks(chain);
  if (links.length === 0) return ok({ claims: [], madeHere: [] });
  const id = `${hostId}/${holdId}`;
  const claims: LimitClaim[] = [];
  const madeHere: LimitClaim[] = [];
  const fail = async (message: string): Promise<Result<SharedClaims, BookingRefusal>> => {
    await giveBackMine(keyApps, hostId, madeHere);
    return err(sharedLimitReached(message));
  };
  for (const { statusUrl } of links) {
    if (statusUrl === undefined) return fail("a mandate with a shared booking limit names no status URL");
    if (keyApps === undefined) return fail("this host cannot claim a shared booking limit");
    // Two links kept by one key app under one URL hold one claim.
    if (claims.some((c) => c.keeper === statusUrl)) continue;
    const claim: LimitClaim = { edge: SCHCP, keeper: statusUrl, id };
    const answer = await keyApps.claim(statusUrl, id);
    if (answer === "claimed") madeHere.push(claim);
    else if (answer !== "already_held")
      return fail(
        answer === "none_left"
          ? "the principal's key app says no bookings are left under this mandate"
          : "the principal's key app did not vouch for this booking",
      );
    claims.push(claim);
  }
  return ok({ claims, madeHere });
}

/**
 * §3.3: "If the confirm then fails, the endpoint gives back only a claim it made in this call";
 * a 200 claim belongs to whichever call made it. A key app that does not answer is tried again
 * in the background.
 */
async function giveBackMine(
  keyApps: SchcpKeyApps | undefined,
  hostId: string,
  made: readonly LimitClaim[],
): Promise<void> {
  if (keyApps === undefined) return;
  for (const claim of made) {
    const back = await keyApps.giveBack(claim.keeper, claim.id).catch(() => false);
    if (!back) await keyApps.giveBackLater({ hostId, statusUrl: claim.keeper, claimId: claim.id });
  }
}

/**
 * Whether a failed confirm may still become a booking: a hold left confirming (an ambiguous
 * upstream answer reconciliation settles) or already booked keeps its claims.
 */
async function mayStillBook(deps: BookingDeps, hostId: string, holdId: string): Promise<boolean> {
  const after = await deps.store.getHold(hostId, holdId, deps.clock.now());
  return after !== undefined && (after.state === "confirming" || after.state === "booked");
}
