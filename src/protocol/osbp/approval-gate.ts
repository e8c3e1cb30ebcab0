/**
 * The final-confirmation gate of OSBP "booking.create" and "Mandate Enforcement" (the
 * "final confirmation is present before any platform appointment create" bullet).
 *
 * A validated booking.create without approval gets requires_user_confirmation (retryable) whose
 * message is the approval summary followed by a machine retry instruction carrying
 * approval.token="<token>". The token is an HMAC over the payload hash (approval and
 * verification_code excluded), the idempotency_key, the hash of the summary the user saw, an
 * expiry and a nonce. It is stateless on purpose: any gateway process holding the secret can
 * check it, and the approved retry after requires_verification reuses it (OSBP: "the same
 * approval plus verification_code"). A second create under the same key is the idempotency
 * cache's job; a new key needs a new token.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { canonicalJson, bookingPayloadHash, sha256Hex } from "./payload-hash.js";
import { buildApprovalSummary, type ApprovalFacts } from "./approval-summary.js";
import { isPlainObject } from "./mandate-shape.js";
import { problem } from "./problems.js";
import type { BookingCreateInput, Problem } from "./types.js";
import type { Clock } from "../clock.js";

/** The reference gate's TTL (OSBP "booking.create": "the reference gate uses ten minutes"). */
const DEFAULT_APPROVAL_TTL_MS = 10 * 60 * 1000;

/** apv1.<expiry, epoch ms base 36>.<16-byte nonce>.<HMAC-SHA256>, base64url without padding. */
export const APPROVAL_TOKEN_PATTERN = /^apv1\.[0-9a-z]{1,11}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

/** The retry instruction as OSBP requires it to appear in the message: approval.token="<token>". */
export const APPROVAL_INSTRUCTION_PATTERN = /approval\.token="([^"]*)"/;

export interface ApprovalContext {
  /** The booking.create input as received; approval and verification_code are ignored. */
  readonly input: BookingCreateInput;
  /** The facts resolved for this attempt now: a change re-challenges. */
  readonly facts: ApprovalFacts;
}

type ApprovalRefusal = "missing" | "malformed" | "not_confirmed" | "mismatch" | "expired";

type ApprovalCheck =
  | { readonly outcome: "approved"; readonly expiresAt: number }
  /** Show the fresh challenge instead of creating: the token does not approve these facts. */
  | { readonly outcome: "rechallenge"; readonly reason: ApprovalRefusal; readonly problem: Problem };

export interface ApprovalGate {
  challenge(ctx: ApprovalContext): Problem;
  check(ctx: ApprovalContext, approval: unknown): ApprovalCheck;
}

export interface ApprovalGateOptions {
  /** HMAC key, at least 32 bytes; a random one per gate when omitted (tokens then die with the process). */
  readonly secret?: Uint8Array;
  readonly clock: Clock;
  readonly ttlMs?: number;
}

/** The token inside a challenge message, or undefined when the message carries none. */
export function extractApprovalToken(message: string): string | undefined {
  return APPROVAL_INSTRUCTION_PATTERN.exec(message)?.[1];
}

export function createApprovalGate(opts: ApprovalGateOptions): ApprovalGate {
  const secret = opts.secret ?? randomBytes(32);
  if (secret.byteLength < 32) throw new TypeError("approval gate secret must be at least 32 bytes");
  const ttlMs = opts.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new TypeError(`ttlMs must be a positive integer, got ${ttlMs}`);

  const mac = (ctx: ApprovalContext, summary: string, expires: string, nonce: string): Buffer =>
    createHmac("sha256", secret)
      .update(
        canonicalJson([
          "osbp-approval-v1",
          bookingPayloadHash(ctx.input),
          ctx.input.idempotency_key,
          sha256Hex(summary),
          expires,
          nonce,
        ]),
      )
      .digest();

  function challenge(ctx: ApprovalContext): Problem {
    const summary = buildApprovalSummary(ctx.facts);
    const expires = (opts.clock.now() + ttlMs).toString(36);
    const nonce = randomBytes(16).toString("base64url");
    const token = `apv1.${expires}.${nonce}.${mac(ctx, summary, expires, nonce).toString("base64url")}`;
    const instruction =
      "Agent instruction, not for the user: show only the summary above and get the user's confirmation, then " +
      "retry booking.create with the same payload and the same idempotency_key plus approval.confirmed=true and " +
      `approval.token="${token}".`;
    return problem("requires_user_confirmation", `${summary}\n\n${instruction}`, { retryable: true });
  }

  const rechallenge = (ctx: ApprovalContext, reason: ApprovalRefusal): ApprovalCheck => ({
    outcome: "rechallenge",
    reason,
    problem: challenge(ctx),
  });

  function check(ctx: ApprovalContext, approval: unknown): ApprovalCheck {
    if (approval === undefined) return rechallenge(ctx, "missing");
    if (
      !isPlainObject(approval) ||
      typeof approval.token !== "string" ||
      !APPROVAL_TOKEN_PATTERN.test(approval.token)
    ) {
      return rechallenge(ctx, "malformed");
    }
    if (approval.confirmed !== true) return rechallenge(ctx, "not_confirmed");
    const [, expires = "", nonce = "", given = ""] = approval.token.split(".");
    const expected = mac(ctx, buildApprovalSummary(ctx.facts), expires, nonce);
    const actual = Buffer.from(given, "base64url");
    // The MAC is checked before the expiry so a forged expiry is a mismatch, not "expired".
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
      return rechallenge(ctx, "mismatch");
    const expiresAt = parseInt(expires, 36);
    if (opts.clock.now() >= expiresAt) return rechallenge(ctx, "expired");
    return { outcome: "approved", expiresAt };
  }

  return { challenge, check };
}
