/**
 * The REST equivalents of the five intents (A2A §Alternative: REST Endpoints), under
 * /api/servicialo/{orgSlug}/ with orgSlug = host id. Translate only: query or JSON body in,
 * A2aIntents.run, its status and body out (Retry-After on 429). Bodies are bounded (413) and
 * must be a JSON object (400 on malformed JSON). An intent the host cannot serve (Openings takes
 * no cancel or move; a contacts-only host no public booking) is 404 INTENT_NOT_AVAILABLE, as
 * its agent card leaves it out (intents/capabilities.ts).
 */
import type { Context, Hono } from "hono";
import { readBoundedBody } from "../http/body.js";
import { originKey } from "../http/origin-limit.js";
import type { A2aIntent, A2aIntents, IntentOutcome } from "./port.js";

const A2A_PREFIX = "/api/servicialo";
/** Bookings and changes are small; 16 KiB is far above any honest one. */
const A2A_MAX_BODY_BYTES = 16 * 1024;

export interface A2aRestDeps {
  readonly intents: A2aIntents;
  /** Key by the last X-Forwarded-For entry (behind a trusted proxy only), as the origin limit does. */
  readonly trustForwardedFor?: boolean;
}

function send(c: Context, out: IntentOutcome): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (out.retryAfterSec !== undefined) headers["retry-after"] = String(out.retryAfterSec);
  return new Response(JSON.stringify(out.body), { status: out.httpStatus, headers });
}

async function jsonBody(c: Context): Promise<Record<string, unknown> | Response> {
  const read = await readBoundedBody(c.req.raw, A2A_MAX_BODY_BYTES, c.env);
  if (!read.ok) return c.json({ error: `Request body larger than ${A2A_MAX_BODY_BYTES} bytes` }, 413);
  if (read.value.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(read.value));
  } catch {
    return c.json({ error: "Malformed JSON body" }, 400);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return c.json({ error: "The body must be a JSON object" }, 400);
  return parsed as Record<string, unknown>;
}

export function mountA2aRest(app: Hono, deps: A2aRestDeps): void {
  const run = async (c: Context, intent: A2aIntent, params: Record<string, unknown>) =>
    send(
      c,
      await deps.intents.run({
        hostId: c.req.param("org") ?? "",
        intent,
        params,
        ...(c.req.header("x-org-api-key") !== undefined && { apiKey: c.req.header("x-org-api-key") }),
        origin: originKey(c.req.raw.headers, c.env, deps.trustForwardedFor === true),
      }),
    );
  const withBody =
    (intent: A2aIntent, extra: (c: Context) => Record<string, unknown> = () => ({})) =>
    async (c: Context) => {
      const body = await jsonBody(c);
      return body instanceof Response ? body : run(c, intent, { ...body, ...extra(c) });
    };

  app.get(`${A2A_PREFIX}/:org/services`, (c) => run(c, "list_services", {}));
  app.get(`${A2A_PREFIX}/:org/availability`, (c) => run(c, "check_availability", c.req.query()));
  app.post(`${A2A_PREFIX}/:org/book`, withBody("book_session"));
  app.post(
    `${A2A_PREFIX}/:org/sessions/:id/cancel`,
    withBody("cancel_session", (c) => ({ sessionId: c.req.param("id") })),
  );
  // The REST endpoint takes scheduledAt only (A2A §5); the newScheduledAt alias is the intent's.
  app.post(
    `${A2A_PREFIX}/:org/sessions/:id/reschedule`,
    withBody("reschedule_session", (c) => ({ sessionId: c.req.param("id"), newScheduledAt: undefined })),
  );
}
