/**
 * The meeting contract (SchCP §5.12): a compact JWS, typ schcp-meeting+jwt, signed by the
 * organizer's own key. Pure: the caller gives the time.
 *
 * verifyMeetingContract checks what holds for every calendar alike (the signature, the shape,
 * the Members, Businesses and Terms rules, exp); memberFor then picks the one entry a calendar
 * checks against its own offer ("Each calendar checks only its own entry").
 */
import { jwkThumbprint, principalUrn } from "../../jose/jwk.js";
import type { Ed25519PublicJwk } from "../../jose/jwk.js";
import { verifyJwsSignature } from "../../jose/jws.js";
import { err, ok } from "../../result.js";
import type { Result } from "../../result.js";
import { parseInstant } from "../../time/index.js";
import { offerSha256 } from "../offer/hash.js";
import type { Answers, MeetingContractClaims, MeetingMember } from "../types.js";
import { decodeMeetingJws, signingJwk } from "./jws.js";
import { meetingInvalid } from "./problem.js";
import type { MeetingProblem } from "./problem.js";

export const MEETING_TYP = "schcp-meeting+jwt";

/** A business member's principal: urn:schcp:host:<host id> (§5.12 Businesses). */
export const HOST_PRINCIPAL_PREFIX = "urn:schcp:host:";

export function hostPrincipal(hostId: string): string {
  return `${HOST_PRINCIPAL_PREFIX}${hostId}`;
}

export interface VerifiedContract {
  readonly claims: MeetingContractClaims;
  /** The compact JWS exactly as received. */
  readonly jws: string;
  /** contract_sha256: what every member accepts and every booking and receipt names. */
  readonly sha256: string;
  /** The organizer's key (principal_jwk). */
  readonly principalJwk: Ed25519PublicJwk;
  /** The organizer's principal (iss). */
  readonly organizer: string;
}

export interface VerifyContractOptions {
  /** The verifier's clock, epoch milliseconds. */
  readonly now: number;
}

/**
 * contract_sha256 (§5.12 Hash): the base64url SHA-256 of the compact JWS, "exactly as for
 * offers" (§5.3).
 */
export function contractSha256(jws: string): string {
  return offerSha256(jws);
}

/**
 * A contract a calendar may act on (§5.12 "Confirming with a contract", first two bullets and
 * the contract's own rules). A passed exp is meeting_invalid with expired: true, reported only
 * when nothing else is wrong.
 */
export async function verifyMeetingContract(
  jws: unknown,
  opts: VerifyContractOptions,
): Promise<Result<VerifiedContract, MeetingProblem>> {
  const decoded = decodeMeetingJws(jws, MEETING_TYP, "MeetingContractClaims", meetingInvalid);
  if (!decoded.ok) return decoded;
  const { claims } = decoded.value;

  const jwk = signingJwk(claims.principal_jwk, "/payload/principal_jwk", meetingInvalid);
  if (!jwk.ok) return jwk;
  if (!(await verifyJwsSignature(decoded.value.jws, jwk.value))) {
    return err(meetingInvalid("the contract's signature does not verify with principal_jwk", "/signature"));
  }
  if (claims.iss !== principalUrn(jwkThumbprint(jwk.value))) {
    return err(meetingInvalid("iss is not the principal of principal_jwk", "/payload/iss"));
  }

  const rules = checkContractRules(claims);
  if (!rules.ok) return rules;

  const verified: VerifiedContract = {
    claims,
    jws: decoded.value.jws.compact,
    sha256: contractSha256(decoded.value.jws.compact),
    principalJwk: jwk.value,
    organizer: claims.iss,
  };
  // §5.12 "exp is the deadline for everyone's answer"; no skew, as for a mandate's exp (§3.3).
  if (opts.now >= claims.exp * 1000) {
    return err({
      ...meetingInvalid("the contract's deadline (exp) has passed", "/payload/exp"),
      expired: true,
    });
  }
  return ok(verified);
}

/** §5.12 Members, Businesses and Terms: what the schema alone cannot say. */
function checkContractRules(c: MeetingContractClaims): Result<true, MeetingProblem> {
  if (c.exp <= c.iat) return err(meetingInvalid("exp must be after iat", "/payload/exp"));

  const start = parseInstant(c.start, "/payload/start");
  if (!start.ok) return err(meetingInvalid(start.error.message, start.error.field));
  if (c.end !== undefined) {
    const end = parseInstant(c.end, "/payload/end");
    if (!end.ok) return err(meetingInvalid(end.error.message, end.error.field));
    if (end.value.epochMs <= start.value.epochMs) {
      return err(meetingInvalid("end must be after start", "/payload/end"));
    }
  }

  const principals = new Set<string>();
  const calendars = new Set<string>();
  let organizer: MeetingMember | undefined;
  let otherPersons = 0;
  for (const [i, m] of c.members.entries()) {
    const at = `/payload/members/${i}`;
    if (principals.has(m.principal)) {
      return err(meetingInvalid("members must be distinct principals", `${at}/principal`));
    }
    principals.add(m.principal);
    // "each with their own calendar": one entry per calendar, so exactly one can name it.
    const calendar = `${m.domain ?? ""}\n${m.host}`;
    if (calendars.has(calendar)) {
      return err(meetingInvalid("two members name the same calendar", `${at}/host`));
    }
    calendars.add(calendar);
    if (m.business === true) {
      if (m.principal !== hostPrincipal(m.host)) {
        return err(
          meetingInvalid(
            `a business member's principal is ${HOST_PRINCIPAL_PREFIX}<its host id>`,
            `${at}/principal`,
          ),
        );
      }
      // The schema forbids answers on a business already; kept explicit for the reader.
      if (m.answers !== undefined) {
        return err(meetingInvalid("a business answers by its offer, not by answers", `${at}/answers`));
      }
      continue;
    }
    if (m.principal === c.iss) organizer = m;
    else otherPersons += 1;
  }
  if (organizer === undefined) {
    const business = c.members.some((m) => m.business === true && m.principal === c.iss);
    return err(
      meetingInvalid(
        business
          ? "the organizer is always a person, never a business"
          : "the organizer (iss) must be a member",
        "/payload/iss",
      ),
    );
  }
  if (otherPersons === 0) {
    return err(
      meetingInvalid(
        "at least one member besides the organizer must be a person (an organizer and a business alone are an ordinary booking)",
        "/payload/members",
      ),
    );
  }
  return ok(true);
}

export interface CalendarRef {
  /** This calendar's host id. */
  readonly hostId: string;
  /** A person's calendar (§7.7) or a business's. */
  readonly kind: "person" | "business";
  /** A person's calendar: its owner's principal (host.owner). */
  readonly owner?: string;
  /** When given, the member's service_id must be this (the hold's service). */
  readonly serviceId?: string;
}

/**
 * The one member naming this calendar (§5.12 "exactly one member names it. On a person's
 * calendar that member's principal is the owner; on a business's, the member is marked
 * business: true and named by the host principal"), and its service_id when asked.
 */
export function memberFor(
  contract: Pick<VerifiedContract, "claims">,
  cal: CalendarRef,
): Result<MeetingMember, MeetingProblem> {
  const naming = contract.claims.members.filter((m) => m.host === cal.hostId);
  if (naming.length !== 1) {
    return err(
      meetingInvalid(
        naming.length === 0
          ? `no member of the contract names this calendar (${cal.hostId})`
          : `more than one member names this calendar (${cal.hostId})`,
        "/payload/members",
      ),
    );
  }
  const member = naming[0] as MeetingMember;
  const at = `/payload/members/${contract.claims.members.indexOf(member)}`;
  if (cal.kind === "person") {
    if (member.business === true) {
      return err(meetingInvalid("this is a person's calendar, not a business's", `${at}/business`));
    }
    if (cal.owner === undefined || member.principal !== cal.owner) {
      return err(meetingInvalid("the member's principal is not this calendar's owner", `${at}/principal`));
    }
  } else {
    if (member.business !== true) {
      return err(meetingInvalid("a business's member is marked business: true", `${at}/business`));
    }
    if (member.principal !== hostPrincipal(cal.hostId)) {
      return err(meetingInvalid("the member is not named by this host's principal", `${at}/principal`));
    }
  }
  if (cal.serviceId !== undefined && member.service_id !== cal.serviceId) {
    return err(meetingInvalid("the member's service_id is not this hold's service", `${at}/service_id`));
  }
  return ok(member);
}

/** §5.12 answers: the member's own, else the contract's, else "person_or_rule". */
export function answersFor(contract: Pick<VerifiedContract, "claims">, member: MeetingMember): Answers {
  return member.answers ?? contract.claims.answers ?? "person_or_rule";
}

/** The members who must accept (§5.12 Commit): every person except the organizer. */
export function membersWhoAccept(contract: Pick<VerifiedContract, "claims">): MeetingMember[] {
  const iss = contract.claims.iss;
  return contract.claims.members.filter((m) => m.business !== true && m.principal !== iss);
}
