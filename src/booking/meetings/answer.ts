/**
 * A meeting member answers on their own calendar (SchCP §5.12 Acceptances; §7.9): an
 * operation of the host, reached through the operator API, not through the agent-facing API.
 *
 * - accept: the member's acceptance of the booking's current contract, checked by the edge
 *   that verified the contract (api.ts BookingEdge.verifyAcceptance). The booking becomes
 *   tentative, carries it (meeting.acceptance) and answer says who said yes (person, or a rule
 *   and its label); the organizer hears booking.accepted.
 * - takeBack: until the meeting is final, the member takes back a yes (their own or their
 *   rule's), or says no while it is still pending: the calendar declines the booking as if it
 *   had never answered, with the person's message (answer by person, sequence + 1 where a yes
 *   is taken back, §6), and the time comes free.
 * - ruleYes: at confirm, the yes a rule of the member gives at once (§5.12 "If a rule of
 *   theirs covers it and the contract allows rules, it is tentative at once, with the host's
 *   acceptance in meeting.acceptance"): the calendar, as its person's agent, signs an
 *   acceptance by rule with its signing key, which the rule's cnf.jkt must name (the same
 *   reading as answers/decide.ts for an ordinary booking).
 */
import type { BookingDeps, BookingRefusal, HostRuntime, UseCase } from "../api.js";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { endBooking } from "../bookings/cancel.js";
import { edgesOf } from "../contract.js";
import { notifyGuest } from "../bookings/edges.js";
import { invalidState, refuse } from "../bookings/refuse.js";
import type { BookingAnswer, BookingEnding, BookingState } from "../bookings/state.js";
import { hostBooking, saveBooking } from "../bookings/store.js";
import { coveringRule } from "../answers/decide.js";
import type { MeetingRuleYes, MeetingTerms, StoredMeeting, VerifiedAcceptance } from "./types.js";

export const meetingInvalid = (message: string): BookingRefusal =>
  refuse("invalid_request", "meeting_invalid", message);

export const acceptanceInvalid = (message: string): BookingRefusal =>
  refuse("invalid_request", "acceptance_invalid", message);

/** The booking's answer an acceptance gives (§7.9): the person, or a rule and its label. */
export const answerOf = (v: Pick<VerifiedAcceptance, "by" | "rule">, at: number): BookingAnswer => ({
  by: v.by,
  ...(v.rule !== undefined && { rule: v.rule }),
  at,
});

/** Checks one acceptance through the edge that keeps the booking's contract. */
export async function verifyAcceptanceOf(
  deps: Pick<BookingDeps, "edges">,
  host: HostRuntime,
  state: BookingState,
  acceptance: string,
  now: number,
): Promise<Result<VerifiedAcceptance, BookingRefusal>> {
  for (const name of edgesOf(state.attachments)) {
    const edge = deps.edges?.[name];
    if (edge?.verifyAcceptance !== undefined) return edge.verifyAcceptance(host, state, acceptance, now);
  }
  return err(acceptanceInvalid("this booking's contract cannot be checked here"));
}

/** The meeting of a booking whose member answers on this calendar (a person, not the organizer). */
function memberMeeting(state: BookingState): Result<StoredMeeting, BookingRefusal> {
  const m = state.meeting;
  if (m === undefined) return err(meetingInvalid("this booking is not part of a meeting"));
  if (m.role !== "person")
    return err(
      invalidState(
        m.role === "organizer"
          ? "the organizer's own calendar has nothing to accept: their signature is their yes"
          : "a business answers a meeting by its offer, as the host (§5.12)",
      ),
    );
  if (state.status !== "pending_host" && state.status !== "tentative")
    return err(invalidState(`a ${state.status} meeting booking cannot be answered`));
  return ok(m);
}

export async function acceptMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  acceptance: string,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const m = memberMeeting(state);
  if (!m.ok) return m;
  if (m.value.acceptance === acceptance) return ok(state);
  const now = deps.clock.now();
  const verified = await verifyAcceptanceOf(deps, host, state, acceptance, now);
  if (!verified.ok) return verified;
  const v = verified.value;
  if (v.principal !== m.value.member)
    return err(acceptanceInvalid("the acceptance is not from this calendar's member"));
  const hash = m.value.contractSha256;
  const saved = await saveBooking(
    deps,
    host,
    bookingId,
    (s) => {
      const again = memberMeeting(s);
      if (!again.ok) return again;
      // A revision arrived in between: this acceptance names a hash that is no longer current.
      if (again.value.contractSha256 !== hash)
        return err(acceptanceInvalid("the acceptance names an earlier revision of the contract"));
      const { approvalBy: _a, ...rest } = s;
      return ok({
        ...rest,
        status: "tentative",
        answer: answerOf(v, now),
        meeting: { ...again.value, acceptance },
      });
    },
    now,
  );
  if (!saved.ok) return saved;
  await notifyGuest(deps, host, saved.value, "accepted", now);
  return saved;
}

export async function takeBackMeeting(
  deps: BookingDeps,
  hostId: string,
  bookingId: string,
  message: string | undefined,
): UseCase<BookingState> {
  const found = await hostBooking(deps, hostId, bookingId);
  if (!found.ok) return found;
  const { host, loaded } = found.value;
  const state = loaded.state;
  const m = memberMeeting(state);
  if (!m.ok) return m;
  const now = deps.clock.now();
  const refusal: BookingEnding = {
    kind: "declined",
    reason: "host_declined",
    message: message ?? "the member declined the meeting",
  };
  const saved = await endBooking(deps, host, state, refusal.message, "host", now, (s) => {
    if (!memberMeeting(s).ok) return undefined;
    const { approvalBy: _a, meeting, ...rest } = s;
    const { acceptance: _given, ...withoutAcceptance } = meeting as StoredMeeting;
    const hadYes = s.status === "tentative";
    return {
      ...rest,
      status: "declined",
      refusal,
      // §7.9: "a no is the host's own answer ... by: "person" ... including when a member
      // takes back the yes their rule gave".
      answer: { by: "person", at: now },
      meeting: withoutAcceptance,
      ...(hadYes && { sequence: s.sequence + 1 }),
    };
  });
  if (!saved.ok) return saved;
  if (saved.value.status !== "declined") return err(invalidState(`the booking is ${saved.value.status}`));
  await notifyGuest(deps, host, saved.value, "declined", now, { refusal });
  return saved;
}

export interface RuleYesQuestion {
  /** The hold's service and start (epoch ms): what the rule must cover, with the organizer. */
  readonly serviceId: string;
  readonly start: number;
  /** The confirm asked for the person's own answer (§7.9 answers: "person"). */
  readonly personRequired: boolean;
  readonly now: number;
}

/**
 * The yes a rule the member signed gives their meeting booking at confirm, or undefined when
 * the member must be asked: another role than a person member, a member who must answer in
 * person (the contract's or their own answers, or the confirm's), or no rule of the owner's
 * that names this calendar's signing key and covers the service, the start and the organizer.
 */
export async function ruleYes(
  deps: Pick<BookingDeps, "rules" | "ruleCheck" | "meetingSigner">,
  host: HostRuntime,
  terms: MeetingTerms,
  q: RuleYesQuestion,
): Promise<MeetingRuleYes | undefined> {
  if (terms.role !== "person" || terms.memberAnswers !== "person_or_rule" || q.personRequired)
    return undefined;
  const { rules, ruleCheck, meetingSigner } = deps;
  const key = host.keys[0];
  if (rules === undefined || ruleCheck === undefined || meetingSigner === undefined || key === undefined)
    return undefined;
  if (host.config.owner !== terms.member) return undefined;
  const rule = coveringRule(host, ruleCheck, await rules.list(host.config.id, q.now), {
    principal: terms.organizer,
    serviceId: q.serviceId,
    start: q.start,
    personRequired: false,
    now: q.now,
  });
  if (rule === undefined) return undefined;
  const acceptance = await meetingSigner.acceptByRule({
    contract: terms.contract,
    member: terms.member,
    rule: rule.jws,
    key,
    now: q.now,
  });
  return acceptance === undefined
    ? undefined
    : { acceptance, answer: { by: "rule", rule: rule.claims.label, at: q.now } };
}
