/**
 * The agent side of a meeting (SchCP §5.12) that needs no host: step 1, "reads availability at
 * each calendar and keeps the starts all of them offer", and what a key app or a calendar agent
 * signs: the organizer's contract, a person's rule (§7.9), and a member's acceptance by person
 * or by rule. Everything signed is checked with the same pure verifiers a host uses before it
 * is handed back, so the SDK never hands out what a calendar would refuse.
 */
import { randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { jwkThumbprint, principalUrn } from "../protocol/jose/jwk.js";
import type { Ed25519PublicJwk } from "../protocol/jose/jwk.js";
import { signCompactJws } from "../protocol/jose/jws.js";
import { encodeBase64Url } from "../protocol/json/base64.js";
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import {
  ACCEPTANCE_TYP,
  acceptanceContext,
  acceptanceStatement,
  MEETING_TYP,
  organizerStatement,
  verifyAcceptance,
  verifyMeetingContract,
} from "../protocol/schcp/meeting/index.js";
import type { MeetingProblem, VerifiedContract } from "../protocol/schcp/meeting/index.js";
import { RULE_TYP, verifyRule } from "../protocol/schcp/rule/index.js";
import type {
  AcceptanceClaims,
  AvailabilityResponse,
  MeetingContractClaims,
  MeetingMember,
  RuleClaims,
  Slot,
} from "../protocol/schcp/types.js";
import { parseInstant } from "../protocol/time/index.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import type { AgentRef } from "./key-app.js";

/** One start every calendar offers, with each calendar's own slot for it (in input order). */
export interface CommonStart {
  /** The start as the first calendar wrote it. */
  readonly start: string;
  readonly epochMs: number;
  readonly slots: readonly Slot[];
}

/**
 * The starts every calendar's availability offers, earliest first. Starts are compared as
 * instants, so calendars that write the same time in different offsets agree. A slot whose
 * start does not parse is skipped (a verified response never has one). No calendar, no start.
 */
export function commonStarts(responses: readonly Pick<AvailabilityResponse, "slots">[]): CommonStart[] {
  if (responses.length === 0) return [];
  const byCalendar = responses.map((r) => {
    const starts = new Map<number, Slot>();
    for (const slot of r.slots) {
      const at = parseInstant(slot.start, "/start");
      if (at.ok && !starts.has(at.value.epochMs)) starts.set(at.value.epochMs, slot);
    }
    return starts;
  });
  const [first, ...rest] = byCalendar as [Map<number, Slot>, ...Map<number, Slot>[]];
  const common: CommonStart[] = [];
  for (const [epochMs, slot] of first) {
    const others = rest.map((m) => m.get(epochMs));
    if (others.some((s) => s === undefined)) continue;
    common.push({ start: slot.start, epochMs, slots: [slot, ...(others as Slot[])] });
  }
  return common.sort((a, b) => a.epochMs - b.epochMs);
}

// ---------------------------------------------------------------- signing (§5.12, §7.9)

/** What the organizer's key app fills in itself: iss, principal_jwk, iat and the statement. */
export type MeetingContractRequest = Omit<
  MeetingContractClaims,
  "v" | "iss" | "principal_jwk" | "iat" | "statement"
> & { readonly iat?: number };

export interface SignedMeetingContract {
  readonly compact: string;
  /** contract_sha256 (§5.12 Hash). */
  readonly sha256: string;
  readonly claims: MeetingContractClaims;
  /** The text the organizer approved: the contract's statement. */
  readonly statement: string;
}

/** A rule the person signs for their calendar's agent (§7.9). */
export interface RuleRequest {
  /** The one agent key that may answer by the rule (cnf.jkt). */
  readonly agent: AgentRef;
  /** The rule in the person's own words. */
  readonly label: string;
  readonly services?: readonly string[];
  readonly weekdays?: RuleClaims["weekdays"];
  /** Required when weekdays is given (§7.9). */
  readonly tz?: string;
  readonly organizers?: readonly string[];
  /** Lifetime in seconds from now (default 90 days), or an absolute exp. */
  readonly ttlSec?: number;
  readonly exp?: number;
  readonly jti?: string;
}

export interface SignedRule {
  readonly compact: string;
  readonly claims: RuleClaims;
}

export interface SignedAcceptance {
  readonly compact: string;
  readonly claims: AcceptanceClaims;
  /** The text the member was shown (by person), or the rule's words apply (by rule). */
  readonly statement: string;
  /** The contract it accepts, verified. */
  readonly contract: VerifiedContract;
}

export const RULE_TTL_SEC = 90 * 86400;

function agentThumbprint(agent: AgentRef): string {
  if (typeof agent === "string") return agent;
  if ("thumbprint" in agent) return agent.thumbprint;
  return jwkThumbprint(agent);
}

interface Signer {
  readonly privateKey: KeyObject;
  readonly publicJwk: Ed25519PublicJwk;
}

/**
 * The organizer's contract (§5.12 step 4): iss and principal_jwk are the signer's, iat now,
 * and statement generated from the claims (§5.3: never taken from the agent). Refused unless
 * the result verifies as every calendar will verify it.
 */
export async function signMeetingContract(
  req: MeetingContractRequest,
  signer: Signer,
  nowMs: number,
): Promise<Result<SignedMeetingContract, AgentError>> {
  const iss = principalUrn(jwkThumbprint(signer.publicJwk));
  const { iat: reqIat, ...rest } = req;
  const draft = {
    v: "0.4" as const,
    iss,
    principal_jwk: signer.publicJwk,
    iat: reqIat ?? Math.floor(nowMs / 1000),
    ...rest,
  };
  const statement = organizerStatementOf(draft);
  if (!statement.ok) return statement;
  const claims: MeetingContractClaims = { ...draft, statement: statement.value };
  const compact = await signCompactJws({ alg: "EdDSA", typ: MEETING_TYP }, { ...claims }, signer.privateKey);
  const verified = await verifyMeetingContract(compact, { now: nowMs });
  if (!verified.ok) return err(meetingError(verified.error));
  return ok({ compact, sha256: verified.value.sha256, claims, statement: statement.value });
}

/** A rule (§7.9), signed by the person's own key; refused unless it verifies. */
export async function signRule(
  req: RuleRequest,
  signer: Signer,
  nowMs: number,
): Promise<Result<SignedRule, AgentError>> {
  const iat = Math.floor(nowMs / 1000);
  const claims: RuleClaims = {
    iss: principalUrn(jwkThumbprint(signer.publicJwk)),
    principal_jwk: signer.publicJwk,
    iat,
    exp: req.exp ?? iat + (req.ttlSec ?? RULE_TTL_SEC),
    jti: req.jti ?? `r-${encodeBase64Url(randomBytes(12))}`,
    cnf: { jkt: agentThumbprint(req.agent) },
    label: req.label,
    ...(req.services !== undefined && { services: [...req.services] }),
    ...(req.weekdays !== undefined && { weekdays: [...req.weekdays] }),
    ...(req.tz !== undefined && { tz: req.tz }),
    ...(req.organizers !== undefined && { organizers: [...req.organizers] }),
  };
  const compact = await signCompactJws({ alg: "EdDSA", typ: RULE_TYP }, { ...claims }, signer.privateKey);
  const verified = await verifyRule(compact, { now: iat });
  if (!verified.ok) {
    return err(agentError("meeting_invalid", `the rule would not verify: ${verified.error.message}`));
  }
  return ok({ compact, claims });
}

/**
 * A member's own yes (§5.12, by: "person"), signed by their key app over the contract their
 * person was shown: the contract is verified, the member is the signer, and the statement is
 * generated from the contract's claims.
 */
export async function signPersonAcceptance(
  contractJws: string,
  signer: Signer,
  nowMs: number,
): Promise<Result<SignedAcceptance, AgentError>> {
  const principal = principalUrn(jwkThumbprint(signer.publicJwk));
  const found = await contractAndMember(contractJws, principal, nowMs);
  if (!found.ok) return found;
  const { contract, member } = found.value;
  const statement = acceptanceStatement(contract.claims, member);
  const claims: AcceptanceClaims = {
    iss: principal,
    iat: Math.floor(nowMs / 1000),
    terms_sha256: contract.sha256,
    meeting_id: contract.claims.meeting_id,
    by: "person",
    statement,
    jwk: signer.publicJwk,
  };
  return finishAcceptance(claims, signer, contract, member, nowMs, statement);
}

/**
 * A yes by rule (§5.12 by: "rule", §7.9): the member's calendar agent signs with the key the
 * rule's cnf.jkt names and carries the rule. Refused (meeting_invalid) where the acceptance
 * would be: the contract asks this member to answer in person, or the rule does not cover it.
 */
export async function signRuleAcceptance(
  contractJws: string,
  opts: {
    /** The rule the member signed (KeyApp.signRule), naming agentKey in cnf.jkt. */
    readonly rule: string;
    /** The calendar agent's key. */
    readonly agentKey: Signer;
    /** Epoch milliseconds; defaults to the system clock. */
    readonly now?: number;
  },
): Promise<Result<SignedAcceptance, AgentError>> {
  const { rule, agentKey: agent } = opts;
  const nowMs = opts.now ?? Date.now();
  const verifiedRule = await verifyRule(rule, { now: Math.floor(nowMs / 1000) });
  if (!verifiedRule.ok) {
    return err(agentError("meeting_invalid", `the rule does not verify: ${verifiedRule.error.message}`));
  }
  const found = await contractAndMember(contractJws, verifiedRule.value.claims.iss, nowMs);
  if (!found.ok) return found;
  const { contract, member } = found.value;
  const statement = acceptanceStatement(contract.claims, member);
  const claims: AcceptanceClaims = {
    iss: member.principal,
    iat: Math.floor(nowMs / 1000),
    terms_sha256: contract.sha256,
    meeting_id: contract.claims.meeting_id,
    by: "rule",
    statement,
    jwk: agent.publicJwk,
    rule,
  };
  return finishAcceptance(claims, agent, contract, member, nowMs, statement);
}

async function finishAcceptance(
  claims: AcceptanceClaims,
  signer: Signer,
  contract: VerifiedContract,
  member: MeetingMember,
  nowMs: number,
  statement: string,
): Promise<Result<SignedAcceptance, AgentError>> {
  const compact = await signCompactJws(
    { alg: "EdDSA", typ: ACCEPTANCE_TYP },
    { ...claims },
    signer.privateKey,
  );
  const checked = await verifyAcceptance(compact, acceptanceContext(contract, member, nowMs));
  if (!checked.ok) return err(meetingError(checked.error));
  return ok({ compact, claims, statement, contract });
}

async function contractAndMember(
  contractJws: string,
  principal: string,
  nowMs: number,
): Promise<Result<{ contract: VerifiedContract; member: MeetingMember }, AgentError>> {
  const contract = await verifyMeetingContract(contractJws, { now: nowMs });
  if (!contract.ok) return err(meetingError(contract.error));
  const member = contract.value.claims.members.find((m) => m.principal === principal && m.business !== true);
  if (member === undefined) {
    return err(agentError("meeting_invalid", "the contract names no person member with this principal"));
  }
  if (member.principal === contract.value.organizer) {
    return err(
      agentError("meeting_invalid", "the organizer's signature is their yes; they send no acceptance"),
    );
  }
  return ok({ contract: contract.value, member });
}

function organizerStatementOf(claims: Parameters<typeof organizerStatement>[0]): Result<string, AgentError> {
  try {
    return ok(organizerStatement(claims));
  } catch (e) {
    return err(agentError("meeting_invalid", e instanceof Error ? e.message : String(e)));
  }
}

function meetingError(p: MeetingProblem): AgentError {
  return agentError("meeting_invalid", `${p.reason}: ${p.message}`, { field: p.field });
}
