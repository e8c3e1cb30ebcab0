/**
 * A member's acceptance of a meeting booking's current contract (SchCP §5.12 Acceptances),
 * the SchCP edge's BookingEdge.verifyAcceptance hook. The acceptance must come from one of the
 * members who must accept (every person but the organizer); what makes it valid for that
 * member is the pure module's verifyAcceptance (src/protocol/schcp/meeting), in the context of
 * the booking's current contract (acceptanceContext): the signature, iss, terms_sha256, iat,
 * and by "person" or by "rule" (person_required where the member must answer in person).
 * Every other failure is 400 INVALID_REQUEST acceptance_invalid.
 */
import type { BookingRefusal, HostRuntime } from "../../../booking/api.js";
import { refuse } from "../../../booking/bookings/refuse.js";
import type { BookingState } from "../../../booking/bookings/state.js";
import type { MeetingRuleSigner, VerifiedAcceptance } from "../../../booking/meetings/types.js";
import { decodeCompactJws, signCompactJws } from "../../../protocol/jose/index.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import {
  ACCEPTANCE_TYP,
  acceptanceContext,
  acceptanceStatement,
  membersWhoAccept,
  verifyAcceptance,
  verifyMeetingContract,
} from "../../../protocol/schcp/meeting/index.js";
import type { VerifiedContract } from "../../../protocol/schcp/meeting/index.js";
import type { AcceptanceClaims } from "../../../protocol/schcp/types.js";
import { meetingRefusal } from "./verify.js";

const invalid = (message: string): BookingRefusal => refuse("invalid_request", "acceptance_invalid", message);

/**
 * The booking's current contract, verified when the booking took it: read again as of its own
 * iat, so a contract whose deadline has since passed still says what it said (the deadline is
 * the lapse runner's, booking/meetings/lapse.ts).
 */
export async function storedContract(state: BookingState): Promise<VerifiedContract | undefined> {
  const m = state.meeting;
  if (m === undefined) return undefined;
  const verified = await verifyMeetingContract(m.contract, { now: m.issuedAt });
  if (!verified.ok || verified.value.sha256 !== m.contractSha256)
    throw new Error(`booking ${state.bookingId}: its stored meeting contract does not verify`);
  return verified.value;
}

export async function verifyMeetingAcceptance(
  _host: HostRuntime,
  state: BookingState,
  acceptance: string,
  now: number,
): Promise<Result<VerifiedAcceptance, BookingRefusal>> {
  const contract = await storedContract(state);
  if (contract === undefined) return err(invalid("this booking is not part of a meeting"));
  // Whose acceptance it claims to be picks the member it is checked for; verifyAcceptance then
  // checks that claim with everything else.
  const decoded = decodeCompactJws(acceptance, "");
  const iss = decoded.ok ? decoded.value.payload["iss"] : undefined;
  if (!decoded.ok) return err(invalid(`the acceptance is not a compact JWS: ${decoded.error.message}`));
  const member = membersWhoAccept(contract).find((m) => m.principal === iss);
  if (member === undefined) return err(invalid("the acceptance is not from a member who must accept"));
  const verified = await verifyAcceptance(acceptance, acceptanceContext(contract, member, now));
  if (!verified.ok) return err(meetingRefusal(verified.error));
  const v = verified.value;
  return ok({
    principal: member.principal,
    by: v.by,
    ...(v.ruleLabel !== undefined && { rule: v.ruleLabel }),
    text: v.jws,
  });
}

/**
 * The calendar's acceptance by rule (§5.12 Acceptances, by: "rule"; §7.9), signed as its
 * person's agent with the host's signing key, iat now, carrying the rule; checked with the
 * same verifyAcceptance every other calendar uses before it is handed out. The core's
 * MeetingRuleSigner (booking/meetings/types.ts), wired by the composition root.
 */
export const schcpMeetingSigner: MeetingRuleSigner = {
  async acceptByRule({ contract: compact, member: principal, rule, key, now }) {
    const contract = await verifyMeetingContract(compact, { now });
    if (!contract.ok) return undefined;
    const member = membersWhoAccept(contract.value).find((m) => m.principal === principal);
    if (member === undefined) return undefined;
    const { kty, crv, x } = key.publicJwk;
    const claims: AcceptanceClaims = {
      iss: member.principal,
      iat: Math.floor(now / 1000),
      terms_sha256: contract.value.sha256,
      meeting_id: contract.value.claims.meeting_id,
      by: "rule",
      statement: acceptanceStatement(contract.value.claims, member),
      jwk: { kty, crv, x },
      rule,
    };
    const jws = await signCompactJws(
      { alg: "EdDSA", typ: ACCEPTANCE_TYP, kid: key.kid },
      { ...claims },
      key.privateKey,
    );
    const checked = await verifyAcceptance(jws, acceptanceContext(contract.value, member, now));
    return checked.ok ? jws : undefined;
  },
};
