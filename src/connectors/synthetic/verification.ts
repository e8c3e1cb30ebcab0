/**
 * Customer verification as a platform does it (OSBP verification.send / verify, and
 * requires_verification on create): a six-digit code sent by SMS or email, valid for ten
 * minutes, consumed by the booking it verifies. The code is derived from the host, contact
 * and send time (a sandbox scenario's testVerificationCode instead); it is "sent" to the connector's message sink (messages.ts), and tests may
 * also read it with `lastCodeFor(contact)`. Sends are rate-limited per contact
 * (send-limit.ts), as a real platform's are.
 */
import { createHash } from "node:crypto";
import type { UpstreamCustomer } from "../port.js";
import { answer, refuse, type Answer, type SyntheticContext } from "./context.js";
import { verificationText } from "./messages.js";

export const CODE_TTL_MS = 10 * 60_000;

type Method = "sms" | "email";

export function verificationMethodOf(ctx: SyntheticContext): Method | undefined {
  const m = ctx.scenario.verificationMethod;
  return m === "sms" || m === "email" ? m : undefined;
}

/** The phone (sms) or email the code goes to. */
function contactOf(method: Method, customer: UpstreamCustomer | undefined): string | undefined {
  const c = method === "sms" ? customer?.phone : customer?.email;
  return typeof c === "string" && c.trim() !== "" ? c.trim() : undefined;
}

function deriveCode(hostId: string, contact: string, issuedAt: number): string {
  const digest = createHash("sha256").update(`${hostId}\n${contact}\n${issuedAt}`).digest();
  return String(digest.readUInt32BE(0) % 1_000_000).padStart(6, "0");
}

function precheck(
  ctx: SyntheticContext,
  customer: UpstreamCustomer,
  purpose: unknown,
): Answer<[Method, string]> {
  const method = verificationMethodOf(ctx);
  if (method === undefined) return refuse("unsupported", "this platform does not verify customers");
  if (typeof purpose !== "string" || purpose === "" || purpose.length > 100)
    return refuse("invalid_request", "purpose is a short, non-empty string");
  const contact = contactOf(method, customer);
  if (contact === undefined)
    return refuse("invalid_request", `the customer's ${method === "sms" ? "phone" : "email"} is required`);
  return answer([method, contact]);
}

export async function sendVerification(
  ctx: SyntheticContext,
  customer: UpstreamCustomer,
  purpose: string,
): Promise<Answer<{ readonly method: Method }>> {
  const checked = precheck(ctx, customer, purpose);
  if (!checked.ok) return checked;
  const [method, contact] = checked.value;
  const now = ctx.clock.now();
  // The limit counts attempts the platform accepted, whether or not the provider delivers.
  const admission = await ctx.backend.admitSend(ctx.hostId, contact, now, ctx.sendLimit);
  if (!admission.admitted)
    return {
      ok: false,
      error: {
        code: "rate_limited",
        message: "too many verification codes were sent to this contact; try again later",
        retryAfterMs: admission.retryAfterMs,
      },
    };
  const code = ctx.scenario.testVerificationCode ?? deriveCode(ctx.hostId, contact, now);
  await ctx.backend.putCode(ctx.hostId, contact, { code, expiresAt: now + CODE_TTL_MS });
  if (ctx.messages !== undefined) {
    const text = verificationText(ctx.scenario.organization.name, code, CODE_TTL_MS);
    try {
      await ctx.messages({
        sentAt: new Date(now).toISOString(),
        hostId: ctx.hostId,
        method,
        to: contact,
        text,
      });
    } catch {
      // The SMS or email provider failed: a real platform answers 5xx and the customer has no code.
      return refuse("unavailable", "the platform could not deliver the verification code; try again");
    }
  }
  return answer({ method }, 201);
}

/** An independent check: it does not consume the code, which the booking create still needs. */
export async function verifyCode(
  ctx: SyntheticContext,
  customer: UpstreamCustomer,
  purpose: string,
  code: string,
): Promise<Answer<{ readonly method: Method }>> {
  const checked = precheck(ctx, customer, purpose);
  if (!checked.ok) return checked;
  const [method, contact] = checked.value;
  return (await codeMatches(ctx, contact, code)) ? answer({ method }) : failed();
}

/**
 * For a create of a service that requires verification: the contact whose code the
 * create consumes once it succeeds, or the refusal.
 */
export async function checkCreateVerification(
  ctx: SyntheticContext,
  customer: UpstreamCustomer | undefined,
  code: string | undefined,
): Promise<Answer<string>> {
  const method = verificationMethodOf(ctx) ?? "sms";
  const contact = contactOf(method, customer);
  if (code === undefined)
    return {
      ok: false,
      error: {
        code: "verification_required",
        message: "the customer must be verified first",
        verificationMethod: method,
      },
    };
  if (contact === undefined)
    return refuse("invalid_request", `the customer's ${method === "sms" ? "phone" : "email"} is required`);
  return (await codeMatches(ctx, contact, code)) ? answer(contact) : failed();
}

async function codeMatches(ctx: SyntheticContext, contact: string, code: unknown): Promise<boolean> {
  const record = await ctx.backend.getCode(ctx.hostId, contact);
  return (
    record !== undefined &&
    record.expiresAt > ctx.clock.now() &&
    typeof code === "string" &&
    record.code === code
  );
}

const failed = <T>(): Answer<T> =>
  refuse("verification_failed", "the code is wrong or has expired; send a new one");
