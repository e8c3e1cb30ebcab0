/**
 * createA2aIntents: the five Servicialo intents (A2A §Intent Reference) over the booking core,
 * answering exactly what each REST endpoint answers. The REST routes (../rest-routes.ts) and
 * the JSON-RPC edge (../jsonrpc) both call run(), so they never disagree.
 *
 * Order per call: host (404), an intent the host cannot serve (404 INTENT_NOT_AVAILABLE,
 * capabilities.ts), abuse limits (429: per network origin + host, A2A §Rate Limits
 * "100/min per IP + organization"; book_session also per contact email), the API key for
 * cancel/reschedule (401, before anything about the session is revealed), then the intent.
 * Every call leaves one audit line without PII: {edge, host, intent, outcome, http_status,
 * booking_id?} — never an email, phone or name.
 *
 * The caller the core sees: agentKey "a2a:<origin>" and no Authority — an anonymous agent,
 * the least privilege there is. A host that acts only under a mandate (requires_mandate) or
 * for its contacts refuses it (403 NOT_PERMITTED); its public booking is what the spec's
 * "No*" allows and nothing more.
 */
import { createHash } from "node:crypto";
import type { BookingDeps, Caller, HostRuntime } from "../../../booking/api.js";
import type { BookingCoreApi } from "../../../booking/core.js";
import type { RateLimiter } from "../../http/types.js";
import type { Logger } from "../../../protocol/logger.js";
import type { A2aApiKeys } from "../api-keys.js";
import { confirmationOf } from "../../../booking/discovery/index.js";
import type { A2aHostFacts, A2aIntent, A2aIntents, IntentCall, IntentOutcome } from "../port.js";
import { A2A_INTENTS } from "../port.js";
import { checkAvailability } from "./availability.js";
import { hostIntents, notOffered } from "./capabilities.js";
import { bookSession, parseBook } from "./book.js";
import { cancelSession, rescheduleSession } from "./change.js";
import { listServices, publicServices } from "./services.js";
import { answer, failure, invalidData, orgNotFound, unauthorized } from "./wire.js";
import { type Clock, systemClock } from "../../../protocol/clock.js";

/** A2A §Rate Limits: 100 a minute per network origin and organization. */
export const A2A_ORIGIN_RATE = { capacity: 100, refillPerSec: 100 / 60 };
/** Bookings per contact email and host: 10 at once, then 10 an hour. */
export const A2A_CONTACT_RATE = { capacity: 10, refillPerSec: 10 / 3600 };

export interface A2aIntentDeps {
  readonly core: BookingCoreApi;
  /** The core's deps, for the host-side change engine (reschedule) and booking lookups. */
  readonly booking: BookingDeps;
  readonly keys: A2aApiKeys;
  readonly limits: { readonly origin: RateLimiter; readonly contact: RateLimiter };
  readonly logger: Logger;
  /** The abuse buckets' clock (default the system clock), as the origin limit does. */
  readonly wallClock?: Clock;
}

const hashed = (s: string): string => createHash("sha256").update(s).digest("base64url").slice(0, 22);

export function createA2aIntents(deps: A2aIntentDeps): A2aIntents {
  const wallClock = deps.wallClock ?? systemClock;
  const facts = (host: HostRuntime): A2aHostFacts => ({
    hostId: host.config.id,
    name: host.config.name,
    timezone: host.config.timezone,
    confirmation: confirmationOf(host),
    intents: hostIntents(host),
    services: publicServices(host).map((s) => ({ id: s.id, name: s.name })),
  });

  async function limited(limiter: RateLimiter, key: string): Promise<IntentOutcome | undefined> {
    const taken = await limiter.take(key, wallClock.now());
    if (taken.ok) return undefined;
    const sec = Math.max(1, Math.ceil(taken.error.retryAfterMs / 1000));
    return answer(429, { error: "Too many requests", code: "RATE_LIMITED", retryAfterSec: sec }, sec);
  }

  async function dispatch(call: IntentCall, host: HostRuntime): Promise<IntentOutcome> {
    const hostId = host.config.id;
    const over = await limited(deps.limits.origin, `a2a:${call.origin}:${hostId}`);
    if (over !== undefined) return over;
    const caller: Caller = { agentKey: `a2a:${call.origin}`, origin: call.origin };
    const now = deps.booking.clock.now();
    switch (call.intent) {
      case "list_services":
        return listServices(host, now);
      case "check_availability":
        return checkAvailability(deps.core, host, caller, call.params, now);
      case "book_session": {
        const parsed = parseBook(call.params, call.client);
        if (!parsed.ok) return invalidData(parsed.error, "VALIDATION_ERROR");
        const input = parsed.value;
        const contact = await limited(deps.limits.contact, `a2a-contact:${hostId}:${hashed(input.email)}`);
        if (contact !== undefined) return contact;
        // Booking is public; one made with the host's own key is the business booking for
        // itself, which the public booking pool does not limit (booking/public-pool/standing.ts).
        // A key that does not verify is refused rather than read as no key.
        if (call.apiKey !== undefined && !(await deps.keys.verify(hostId, call.apiKey)))
          return unauthorized();
        return bookSession(deps.core, host, caller, input, now, call.apiKey !== undefined);
      }
      case "cancel_session":
      case "reschedule_session": {
        if (!(await deps.keys.verify(hostId, call.apiKey))) return unauthorized();
        const sessionId = call.params.sessionId;
        if (typeof sessionId !== "string" || sessionId === "") return failure(404, "Session not found");
        return call.intent === "cancel_session"
          ? cancelSession(deps.core, deps.booking, hostId, sessionId, call.params, now)
          : rescheduleSession(deps.booking, hostId, sessionId, call.params, now);
      }
    }
  }

  function audit(call: IntentCall, out: IntentOutcome): void {
    const session = (out.body.session as { id?: unknown } | undefined)?.id ?? out.body.sessionId;
    deps.logger.info("a2a intent", {
      edge: "a2a",
      host: call.hostId,
      intent: call.intent,
      outcome: out.httpStatus < 400 ? "completed" : "failed",
      http_status: out.httpStatus,
      ...(typeof session === "string" && { booking_id: session }),
    });
  }

  return {
    host: (hostId) => {
      const host = deps.core.host(hostId);
      return host === undefined ? undefined : facts(host);
    },
    async run(call) {
      const host = deps.core.host(call.hostId);
      let out: IntentOutcome;
      if (host === undefined) out = orgNotFound();
      else if (!(A2A_INTENTS as readonly A2aIntent[]).includes(call.intent))
        out = failure(400, "Unknown intent");
      else if (!hostIntents(host).includes(call.intent)) out = notOffered(call.intent);
      else {
        try {
          out = await dispatch(call, host);
        } catch (e) {
          deps.logger.error("a2a intent failed", {
            edge: "a2a",
            host: call.hostId,
            intent: call.intent,
            error: String(e),
          });
          out = failure(500, "Internal error");
        }
      }
      audit(call, out);
      return out;
    },
  };
}
