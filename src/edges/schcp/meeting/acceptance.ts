/**
 * A member's acceptance of a meeting booking's current contract (SchCP §5.12 Acceptances),
 * the SchCP edge's BookingEdge.verifyAcceptance hook. Valid for a member when:
 *
 * - the signature verifies with jwk, and iss is one of the members who must accept;
 * - terms_sha256 is the contract's current hash;
 * - terms − 60 ≤ iat ≤ now + 60 (seconds; terms is the contract's iat);
 * - by "person": jwk is the member's own key;
 * - by "rule": the member may answer by rule (person_required otherwise), and rule is a rule
 *   the same person signed (§7.9) that names jwk (cnf.jkt), was in force at iat
 *   (rule.iat − 60 ≤ iat < rule.exp) and covers the member's service, the start's weekday in
 *   the rule's zone, and the organizer.
 *
 * Every other failure is 400 INVALID_REQUEST acceptance_invalid. meeting_id is informative and
 * not compared.
 */
import type { BookingRefusal, HostRuntime } from "../../../booking/api.js";
import { refuse } from "../../../booking/bookings/refuse.js";
import type { BookingState } from "../../../booking/bookings/state.js";
import type { VerifiedAcceptance } from "../../../booking/meetings/types.js";
import { jwkThumbprint, principalUrn } from "../../../protocol/jose/index.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import type { MeetingContractClaims, RuleClaims } from "../../../protocol/schcp/types.js";
import { instantToWallClock, isoWeekday, parseInstant } from "../../../protocol/time/index.js";
import { verifySigned } from "./verify.js";

const SKEW_S = 60;
const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

const invalid = (message: string): BookingRefusal => refuse("invalid_request", "acceptance_invalid", message);

export async function verifyMeetingAcceptance(
  _host: HostRuntime,
  state: BookingState,
  acceptance: string,
  now: number,
): Promise<Result<VerifiedAcceptance, BookingRefusal>> {
  const meeting = state.meeting;
  if (meeting === undefined) return err(invalid("this booking is not part of a meeting"));
  const verified = await verifySigned("AcceptanceClaims", acceptance, "jwk", false);
  if (!verified.ok) return err(invalid(`the acceptance is invalid: ${verified.error}`));
  const a = verified.value.claims;
  const member = meeting.mustAccept.find((m) => m.principal === a.iss);
  if (member === undefined) return err(invalid("the acceptance is not from a member who must accept"));
  if (a.terms_sha256 !== meeting.contractSha256)
    return err(invalid("the acceptance names another contract than the booking's current one"));
  const terms = Math.floor(meeting.issuedAt / 1000);
  if (a.iat < terms - SKEW_S || a.iat > Math.floor(now / 1000) + SKEW_S)
    return err(invalid("the acceptance's iat is outside the contract's time"));
  const agentKey = jwkThumbprint(verified.value.jwk);
  if (a.by === "person") {
    if (principalUrn(agentKey) !== a.iss) return err(invalid("by person: jwk is not the member's own key"));
    return ok({ principal: a.iss, by: "person", text: acceptance });
  }
  if (member.answers === "person")
    return err(refuse("invalid_request", "person_required", `${member.name} must answer in person`));
  const rule = await verifySigned("RuleClaims", a.rule, "principal_jwk", true);
  if (!rule.ok) return err(invalid(`the acceptance's rule is invalid: ${rule.error}`));
  const r = rule.value.claims;
  if (r.iss !== a.iss) return err(invalid("the rule is not the member's own"));
  if (r.cnf.jkt !== agentKey)
    return err(invalid("the rule does not name the key that signed the acceptance"));
  if (!(r.iat - SKEW_S <= a.iat && a.iat < r.exp))
    return err(invalid("the rule was not in force when it answered"));
  const contract = contractClaims(meeting.contract);
  if (contract === undefined) throw new Error(`booking ${state.bookingId}: stored contract unreadable`);
  const covered = ruleCovers(r, contract, a.iss);
  if (covered !== undefined) return err(invalid(`the rule does not cover this meeting: ${covered}`));
  return ok({ principal: a.iss, by: "rule", rule: r.label, text: acceptance });
}

/** The stored contract's claims (verified when the booking was made). */
function contractClaims(compact: string): MeetingContractClaims | undefined {
  const payload = compact.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as MeetingContractClaims;
  } catch {
    return undefined;
  }
}

/** §7.9 coverage: the member's service, the start's weekday in the rule's zone, the organizer. */
function ruleCovers(r: RuleClaims, c: MeetingContractClaims, member: string): string | undefined {
  const entry = c.members.find((m) => m.principal === member);
  if (entry === undefined) return "the member is not in the contract";
  if (r.services !== undefined && !r.services.includes(entry.service_id)) return "service";
  if (r.weekdays !== undefined && r.tz !== undefined) {
    const start = parseInstant(c.start, "");
    if (!start.ok) return "start";
    const wall = instantToWallClock(start.value.epochMs, r.tz);
    const day = WEEKDAYS[isoWeekday({ year: wall.year, month: wall.month, day: wall.day }) - 1];
    if (day === undefined || !r.weekdays.includes(day)) return "weekday";
  }
  if (r.organizers !== undefined && !r.organizers.includes(c.iss)) return "organizer";
  return undefined;
}
