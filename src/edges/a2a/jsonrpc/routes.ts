/**
 * The A2A protocol edge (A2A §Transport, §Agent Discovery):
 *
 *   GET  /api/servicialo/{orgSlug}/.well-known/agent.json        the host's agent card
 *   GET  /api/servicialo/{orgSlug}/.well-known/agent-card.json   its A2A 1.0 card
 *   POST /api/servicialo/{orgSlug}/a2a                           JSON-RPC 2.0 message/send
 *                                                                (and A2A 1.0's SendMessage)
 *
 * Two cards, one agent. The Servicialo spec requires a v0.3.0 card at agent.json (A2A §Fetch
 * Agent Card, §Agent Card Shape; agent-card.ts). A2A 1.0 clients (the A2A JS SDK's default
 * client among them) read only a 1.0 card: its endpoint in `supportedInterfaces`, which a
 * v0.3.0 card lacks, so they find "no compatible transport" in it. Each is served the card it
 * reads, by content negotiation on the `A2A-Version` header, which 1.0 clients send with every
 * request, the card's included, and v0.3 clients never send: agent.json answers the v0.3.0
 * card to a request without it (or with 0.x), byte for byte what the spec's clients always
 * got, and the 1.0 card (agent-card-v1.ts) to a request asking 1.x, with `Vary: A2A-Version`
 * so no cache hands one the other's. agent-card.json, the name A2A 1.0 gives the well-known
 * card, always answers the 1.0 card, so a 1.0 client given the organization's base URL
 * (`…/api/servicialo/{orgSlug}/`) finds it by default. One card carrying both sets of fields
 * would not do: the SDK reads a card with `supportedInterfaces` as 1.0 whatever else it holds,
 * and a 1.0 reader sees the v0.3.0 security schemes in a shape 1.0 does not define. This is
 * also how the A2A JS SDK's own server answers both versions.
 *
 * The endpoint speaks both wires at one URL, told apart by method: `message/send` is the
 * Servicialo wire (A2A §Protocol), `SendMessage` A2A 1.0's, whose message and answer differ
 * only in shape (envelope.ts). Both route to the same intents.
 *
 * A DataPart with `intent` routes straight to A2aIntents.run; free text goes through
 * intent-detect.ts, which either resolves a call or yields a text-only question. The result is
 * always an A2A Message (never a Task: every intent completes within the request).
 *
 * Each POST first spends one token of its (network origin, organization) bucket (A2A §Rate
 * Limits), before the body is read, so free-text questions that never reach the core are
 * bounded too; the intents keep their own limits per origin and per contact.
 *
 * HTTP status: every JSON-RPC answer is 200 (A2A §Transport) except rate limiting (429 +
 * Retry-After, -32002) and a body over the bound, which is refused with 413 before it is read
 * whole (no id is known yet), its body still a JSON-RPC -32600 error so a client that reads
 * bodies on any status understands it.
 *
 * Why not the @a2a-js/sdk server (DefaultRequestHandler and its transports), though its client
 * is what the tests talk to: it mounts on Express or gRPC while this app is Hono, and runs an
 * executor that publishes Task and Message events on a bus; the Servicialo wire is one
 * synchronous Message per request whose data part carries the REST answer, and it gives
 * -32001/-32002 its own meanings (organization not found, rate limited) where A2A has
 * TaskNotFound/TaskNotCancelable. So the envelope is written here (envelope.ts), checked
 * against the SDK client in test/e2e/a2a-sdk.test.ts.
 */
import type { Context, Hono } from "hono";
import { randomUUID } from "node:crypto";
import type { A2aHostFacts, A2aIntent, A2aIntents, IntentCall, IntentOutcome } from "../port.js";
import { readBoundedBody } from "../../http/body.js";
import { originKey } from "../../http/origin-limit.js";
import { MemoryRateLimiter } from "../../http/rate-limit.js";
import type { TokenBucketPolicy } from "../../http/rate-limit.js";
import type { RateLimiter } from "../../http/types.js";
import type { Logger } from "../../../protocol/logger.js";
import { agentCard } from "./agent-card.js";
import { agentCardV1 } from "./agent-card-v1.js";
import {
  agentMessage,
  dialectOfMethod,
  dialectOfVersion,
  errorBody,
  JSONRPC,
  orgNotFound,
  parseRequest,
  rateLimited,
  readSendParams,
  resultBody,
  SEND_METHOD,
} from "./envelope.js";
import type { AgentPart, Dialect, JsonRpcError, JsonRpcId, SendParams } from "./envelope.js";
import { detectIntent, detectLanguage } from "./intent-detect.js";
import type { Language } from "./intent-detect.js";
import { askFor, summarize } from "./reply-text.js";
import { type Clock, systemClock } from "../../../protocol/clock.js";

const A2A_PREFIX = "/api/servicialo";
const DEFAULT_A2A_MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_A2A_MAX_TEXT_CHARS = 4000;
/** A2A §Rate Limits: "A2A endpoint: 100 tasks/minute per IP + organization". */
const A2A_TASK_RATE: TokenBucketPolicy = { capacity: 100, refillPerSec: 100 / 60 };

export interface A2aJsonRpcOptions {
  /** The normalized public origin: the card's `url` is built from it, never from Host. */
  readonly publicOrigin: string;
  readonly logger: Logger;
  readonly maxBodyBytes?: number;
  readonly maxTextChars?: number;
  /** For what "hoy"/"today" means in free text (default the system clock). */
  readonly clock?: Clock;
  /** Key the network origin by the last X-Forwarded-For entry (behind a trusted proxy only). */
  readonly trustForwardedFor?: boolean;
  /**
   * The per-(network origin, organization) task bucket, taken before the body is read
   * (default: an in-process bucket at A2A_TASK_RATE; pass a shared one across processes).
   */
  readonly taskLimiter?: RateLimiter;
  /** The task bucket's clock (default the system clock): floods are measured in real time. */
  readonly wallClock?: Clock;
}

const NOT_FOUND = { error: "Organization not found or not public" };

const VERSION_HEADER = "A2A-Version";

function json(
  status: number,
  body: unknown,
  retryAfterSec?: number,
  extra?: Record<string, string>,
): Response {
  const headers = new Headers({ "content-type": "application/json", ...extra });
  if (retryAfterSec !== undefined) headers.set("retry-after", String(retryAfterSec));
  return new Response(JSON.stringify(body), { status, headers });
}

const rpcError = (id: JsonRpcId, error: JsonRpcError, status = 200, retryAfterSec?: number) =>
  json(status, errorBody(id, error), retryAfterSec);

export function mountA2aJsonRpc(app: Hono, intents: A2aIntents, options: A2aJsonRpcOptions): void {
  const maxBody = options.maxBodyBytes ?? DEFAULT_A2A_MAX_BODY_BYTES;
  const maxText = options.maxTextChars ?? DEFAULT_A2A_MAX_TEXT_CHARS;
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? systemClock;
  const taskLimiter = options.taskLimiter ?? new MemoryRateLimiter(A2A_TASK_RATE);

  // The Servicialo path: the card the request's A2A-Version reads (see the top of this file).
  app.get(`${A2A_PREFIX}/:orgSlug/.well-known/agent.json`, (c) => {
    const vary = { vary: VERSION_HEADER };
    const host = intents.host(c.req.param("orgSlug"));
    if (host === undefined) return json(404, NOT_FOUND, undefined, vary);
    const v1 = dialectOfVersion(c.req.header(VERSION_HEADER)) !== "v0.3";
    return json(200, (v1 ? agentCardV1 : agentCard)(host, options.publicOrigin), undefined, vary);
  });
  // A2A 1.0's well-known name: always the 1.0 card.
  app.get(`${A2A_PREFIX}/:orgSlug/.well-known/agent-card.json`, (c) => {
    const host = intents.host(c.req.param("orgSlug"));
    return host === undefined ? json(404, NOT_FOUND) : json(200, agentCardV1(host, options.publicOrigin));
  });

  app.post(`${A2A_PREFIX}/:orgSlug/a2a`, async (c) => {
    const origin = originKey(c.req.raw.headers, c.env, options.trustForwardedFor === true);
    const asked = dialectOfVersion(c.req.header(VERSION_HEADER));
    const taken = await taskLimiter.take(`${origin}|${c.req.param("orgSlug")}`, wallClock.now());
    if (!taken.ok) {
      const retryAfterSec = Math.max(1, Math.ceil(taken.error.retryAfterMs / 1000));
      // Before the body is read only the header tells the dialect.
      return rpcError(null, rateLimited(asked ?? "v0.3", retryAfterSec), 429, retryAfterSec);
    }
    const body = await readBoundedBody(c.req.raw, maxBody, c.env);
    if (!body.ok)
      return rpcError(
        null,
        { code: JSONRPC.INVALID_REQUEST, message: `Invalid Request: the body exceeds ${maxBody} bytes` },
        413,
      );
    const request = parseRequest(body.value);
    if (!request.ok) return rpcError(request.error.id, request.error.rpcError);
    const { id, method, params } = request.value;
    const dialect = dialectOfMethod(method);
    if (dialect === undefined)
      return rpcError(id, {
        code: JSONRPC.METHOD_NOT_FOUND,
        message: `Method not found: ${method} (only ${SEND_METHOD["v0.3"]} and ${SEND_METHOD["v1.0"]} are supported)`,
      });
    // SendMessage is A2A 1.0's: a request that says it speaks another version is not understood.
    if (dialect === "v1.0" && asked !== "v1.0" && (c.req.header(VERSION_HEADER)?.trim() ?? "") !== "")
      return rpcError(id, {
        code: JSONRPC.VERSION_NOT_SUPPORTED,
        message: `Version not supported: ${c.req.header(VERSION_HEADER)} (${SEND_METHOD["v1.0"]} is A2A 1.0)`,
      });
    const host = intents.host(c.req.param("orgSlug"));
    if (host === undefined) return rpcError(id, orgNotFound(dialect));
    const send = readSendParams(id, params, maxText, dialect);
    if (!send.ok) return rpcError(send.error.id, send.error.rpcError);
    try {
      return await answer(c, id, host, send.value, origin, dialect);
    } catch (e) {
      options.logger.error("a2a message/send failed", {
        hostId: host.hostId,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      });
      return rpcError(id, { code: JSONRPC.INTERNAL_ERROR, message: "Internal error" });
    }
  });

  async function answer(
    c: Context,
    id: JsonRpcId,
    host: A2aHostFacts,
    send: SendParams,
    origin: string,
    dialect: Dialect,
  ): Promise<Response> {
    const apiKey = c.req.header("x-org-api-key");
    const lang: Language = send.text.trim() === "" ? "es" : detectLanguage(send.text);
    const reply = (parts: readonly AgentPart[]) =>
      json(200, resultBody(id, agentMessage(dialect, randomUUID(), parts, send)));

    let call: Omit<IntentCall, "hostId" | "origin" | "apiKey">;
    if (send.data !== undefined) {
      if (!host.intents.includes(send.data.intent))
        return rpcError(id, {
          code: JSONRPC.INVALID_PARAMS,
          message: `Invalid params: intent ${send.data.intent} is not offered by this organization`,
        });
      if (send.data.intent === "reschedule_session" && send.data.params.newProviderId !== undefined)
        return reply(outcomeParts("reschedule_session", PROVIDER_CHANGE_REFUSED, lang, host.timezone));
      call = { ...send.data, params: restParams(send.data.intent, send.data.params) };
    } else {
      const detected = detectIntent(send.text, {
        now: clock.now(),
        timeZone: host.timezone,
        services: host.services,
        hasApiKey: apiKey !== undefined && apiKey !== "",
      });
      if (detected.kind === "ask")
        return reply([{ text: askFor(detected.missing, detected.candidates, detected.lang) }]);
      if (!host.intents.includes(detected.intent))
        return reply([
          {
            text:
              detected.lang === "es"
                ? "Esta organización no ofrece eso por este canal."
                : "This organization does not offer that on this channel.",
          },
        ]);
      call = {
        intent: detected.intent,
        params: detected.params,
        ...(detected.client !== undefined && { client: detected.client }),
      };
    }

    const outcome: IntentOutcome = await intents.run({
      ...call,
      hostId: host.hostId,
      origin,
      ...(apiKey !== undefined && { apiKey }),
    });
    if (outcome.httpStatus === 429)
      return rpcError(id, rateLimited(dialect, outcome.retryAfterSec ?? 1), 429, outcome.retryAfterSec ?? 1);
    return reply(outcomeParts(call.intent, outcome, lang, host.timezone));
  }
}

/** A2A §Response: the summary text part and the `{intent, status, http_status, result}` data part. */
function outcomeParts(
  intent: A2aIntent,
  outcome: IntentOutcome,
  lang: Language,
  timeZone: string,
): AgentPart[] {
  return [
    { text: summarize(intent, outcome, lang, timeZone) },
    {
      data: {
        intent,
        status: outcome.httpStatus < 400 ? "completed" : "failed",
        http_status: outcome.httpStatus,
        result: outcome.body,
      },
    },
  ];
}

/**
 * A2A §reschedule_session: "The A2A intent also accepts `newScheduledAt` and maps it to this
 * field; the REST endpoint takes `scheduledAt` only". The port takes REST parameters.
 */
function restParams(
  intent: A2aIntent,
  params: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (
    intent !== "reschedule_session" ||
    params.scheduledAt !== undefined ||
    params.newScheduledAt === undefined
  )
    return params;
  const { newScheduledAt, ...rest } = params;
  return { ...rest, scheduledAt: newScheduledAt };
}

/** A2A §reschedule_session: a provider change "is rejected explicitly rather than dropped". */
const PROVIDER_CHANGE_REFUSED: IntentOutcome = {
  httpStatus: 400,
  body: { error: "Changing the provider while rescheduling is not supported", code: "VALIDATION_ERROR" },
};
