/**
 * POST /holds/{id}/confirm with meeting (SchCP §5.12 "Confirming with a contract"): besides
 * everything §5.3 checks, this calendar checks its own entry of the contract against its own
 * offer, and nothing else:
 *
 * - the signature verifies with principal_jwk, iss is that key's principal, the claims have
 *   the contract's shape (400 INVALID_REQUEST meeting_invalid);
 * - iss is the booker (the mandate's principal) and exp has not passed (meeting_invalid);
 * - this host takes part in meetings, and exactly one member names it: on a person's calendar
 *   its owner, on a business's the member marked business: true named by the host principal,
 *   with this hold's service (meeting_invalid);
 * - that member's offer_sha256 is this hold's offer (409 CONTRACT_MISMATCH, this offer's hash
 *   in details), and the contract's start, end or open_end and place are this offer's
 *   (CONTRACT_MISMATCH; an offer that names no place is not compared);
 * - no required participant (§5.10) is named (meeting_invalid).
 */
import type { BookingRefusal, HostRuntime } from "../../../booking/api.js";
import { contractMismatch, refuse } from "../../../booking/bookings/refuse.js";
import { hostOwner, takesMeetings } from "../../../booking/meetings/host.js";
import type { MeetingAnswerer, MeetingAnswers, MeetingTerms } from "../../../booking/meetings/types.js";
import type { BookingContract } from "../../../booking/contract.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { offerSha256 } from "../../../protocol/schcp/offer/index.js";
import type { ConfirmRequest, MeetingContractClaims } from "../../../protocol/schcp/types.js";
import { parseInstant } from "../../../protocol/time/index.js";
import type { SchcpOffer } from "../attachment.js";
import { verifySigned } from "./verify.js";

export const meetingInvalid = (message: string): BookingRefusal =>
  refuse("invalid_request", "meeting_invalid", message);

/** urn:schcp:host:<host id>: a business member's principal (§5.12 Businesses). */
export const hostPrincipal = (hostId: string): string => `urn:schcp:host:${hostId}`;

const instant = (t: string): number | undefined => {
  const p = parseInstant(t, "");
  return p.ok ? p.value.epochMs : undefined;
};

/** Two places name the same spot: the same members with the same values. */
function samePlace(a: object, b: object): boolean {
  const ka = Object.entries(a).sort(([x], [y]) => x.localeCompare(y));
  const kb = Object.entries(b).sort(([x], [y]) => x.localeCompare(y));
  return JSON.stringify(ka) === JSON.stringify(kb);
}

/** The contract's shape beyond its schema (§5.12 Members, Businesses). */
function checkMembers(c: MeetingContractClaims): string | undefined {
  const principals = new Set(c.members.map((m) => m.principal));
  if (principals.size !== c.members.length) return "the members are not distinct principals";
  const hosts = new Set(c.members.map((m) => m.host));
  if (hosts.size !== c.members.length) return "each member has a calendar of their own";
  const organizer = c.members.find((m) => m.principal === c.iss);
  if (organizer === undefined || organizer.business === true) return "the organizer is not a person member";
  if (!c.members.some((m) => m.principal !== c.iss && m.business !== true))
    return "at least one member other than the organizer is a person";
  return undefined;
}

export interface HoldUnderContract {
  readonly contract: BookingContract;
  readonly signed: SchcpOffer;
}

/** The contract's verified terms for this calendar, or the refusal the confirm answers. */
export async function checkMeetingContract(
  host: HostRuntime,
  booker: string,
  hold: HoldUnderContract,
  body: ConfirmRequest,
  now: number,
): Promise<Result<MeetingTerms, BookingRefusal>> {
  const config = host.config;
  if (!takesMeetings(config)) return err(meetingInvalid("this calendar does not take part in meetings"));
  const compact = body.meeting as string;
  const verified = await verifySigned("MeetingContractClaims", compact, "principal_jwk", true);
  if (!verified.ok) return err(meetingInvalid(`the meeting contract is invalid: ${verified.error}`));
  const c = verified.value.claims;
  const shape = checkMembers(c);
  if (shape !== undefined) return err(meetingInvalid(shape));
  if (c.iss !== booker) return err(meetingInvalid("the contract's organizer is not the mandate's principal"));
  if (c.exp * 1000 <= now) return err(meetingInvalid("the meeting contract has expired"));

  const mine = c.members.filter((m) => m.host === config.id);
  if (mine.length !== 1) return err(meetingInvalid("exactly one member must name this calendar"));
  const member = mine[0]!;
  const business = config.kind !== "person";
  if (business) {
    if (member.business !== true || member.principal !== hostPrincipal(config.id))
      return err(meetingInvalid("this calendar's member is not this business"));
  } else {
    const owner = hostOwner(config);
    if (owner === undefined || member.business === true || member.principal !== owner)
      return err(meetingInvalid("this calendar's member is not its owner"));
  }
  if (member.service_id !== hold.contract.service.id)
    return err(meetingInvalid("this calendar's member names another service than the hold's"));

  if (member.offer_sha256 !== hold.signed.offerSha256)
    return err(contractMismatch(hold.signed.offerSha256, "the contract does not name this hold's offer"));
  const start = instant(c.start);
  const end = c.end === undefined ? undefined : instant(c.end);
  const sameTime =
    start === hold.contract.start &&
    (hold.contract.end === undefined ? c.open_end === true : end === hold.contract.end);
  if (!sameTime)
    return err(contractMismatch(hold.signed.offerSha256, "the contract's time is not this offer's"));
  // An offer that names no place is for the host's own premises: the contract's place is the
  // host's, and this calendar does not compare it (§5.12 Businesses; read the same way for a
  // person's calendar whose service happens at their own place).
  const offered = hold.signed.claims.place;
  if (offered !== undefined && !samePlace(offered, c.place))
    return err(contractMismatch(hold.signed.offerSha256, "the contract's place is not this offer's"));

  if ((body.participants ?? []).some((p) => p.who !== undefined))
    return err(
      meetingInvalid(
        "a meeting names no required participants: the members answer, anyone else is an attendee",
      ),
    );

  const defaultAnswers: MeetingAnswers = c.answers ?? "person_or_rule";
  const mustAccept: MeetingAnswerer[] = c.members
    .filter((m) => m.principal !== c.iss && m.business !== true)
    .map((m) => ({ principal: m.principal, name: m.name, answers: m.answers ?? defaultAnswers }));
  return ok({
    meetingId: c.meeting_id,
    revision: c.revision,
    contractSha256: offerSha256(compact),
    contract: compact,
    organizer: c.iss,
    issuedAt: c.iat * 1000,
    expiresAt: c.exp * 1000,
    member: member.principal,
    role: business ? "business" : member.principal === c.iss ? "organizer" : "person",
    memberAnswers: member.answers ?? defaultAnswers,
    mustAccept,
  });
}
