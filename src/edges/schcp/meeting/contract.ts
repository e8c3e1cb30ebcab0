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
 *
 * The contract's own rules and this calendar's entry are read by the pure module
 * (src/protocol/schcp/meeting: verifyMeetingContract, memberFor); the offer is compared here.
 */
import type { BookingRefusal, HostRuntime } from "../../../booking/api.js";
import { contractMismatch } from "../../../booking/bookings/refuse.js";
import { hostOwner, takesMeetings } from "../../../booking/meetings/host.js";
import type { MeetingAnswerer, MeetingTerms } from "../../../booking/meetings/types.js";
import type { BookingContract } from "../../../booking/contract.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import {
  answersFor,
  memberFor,
  membersWhoAccept,
  verifyMeetingContract,
} from "../../../protocol/schcp/meeting/index.js";
import type { ConfirmRequest } from "../../../protocol/schcp/types.js";
import { parseInstant } from "../../../protocol/time/index.js";
import type { SchcpOffer } from "../attachment.js";
import { meetingInvalid, meetingRefusal } from "./verify.js";

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
  // The signature, the shape, the Members, Businesses and Terms rules, exp (the pure module).
  const verified = await verifyMeetingContract(compact, { now });
  if (!verified.ok) return err(meetingRefusal(verified.error));
  const contract = verified.value;
  const c = contract.claims;
  if (c.iss !== booker) return err(meetingInvalid("the contract's organizer is not the mandate's principal"));

  // "Each calendar checks only its own entry": the one member naming it, with the hold's service.
  const business = config.kind !== "person";
  const owner = hostOwner(config);
  const mine = memberFor(contract, {
    hostId: config.id,
    kind: business ? "business" : "person",
    ...(owner !== undefined && { owner }),
    serviceId: hold.contract.service.id,
  });
  if (!mine.ok) return err(meetingRefusal(mine.error));
  const member = mine.value;

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

  const mustAccept: MeetingAnswerer[] = membersWhoAccept(contract).map((m) => ({
    principal: m.principal,
    name: m.name,
    answers: answersFor(contract, m),
  }));
  return ok({
    meetingId: c.meeting_id,
    revision: c.revision,
    contractSha256: contract.sha256,
    contract: contract.jws,
    organizer: c.iss,
    issuedAt: c.iat * 1000,
    expiresAt: c.exp * 1000,
    member: member.principal,
    role: business ? "business" : member.principal === c.iss ? "organizer" : "person",
    memberAnswers: answersFor(contract, member),
    mustAccept,
  });
}
