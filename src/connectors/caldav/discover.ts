/**
 * Calendar discovery for onboarding: the calendars an account can book into, found the way
 * CalDAV clients find them (RFC 6764 /.well-known/caldav, RFC 5397 current-user-principal,
 * RFC 4791 §6.2.1 calendar-home-set, then the home's calendar collections). Not a port
 * capability: the onboarding pages call it to let the business pick its calendarPath.
 *
 * tsdav does the walk (createAccount + fetchCalendars, discover-walk.ts) in a worker of its own
 * (off-thread.ts), because it parses every answer itself and that parse is not linear for every
 * hostile answer; the walk's requests come back to this thread and go through upstream.ts's
 * `send`, that is through connectors/http.ts's capturing fetch, so every request is bounded in
 * time and bytes (discovery's small cap, http/limits.ts), captured and credentialed in the one
 * place, and a request to another origin (a redirect or an href pointing away) is refused
 * rather than sent with the account's credentials. tsdav reports a failed step by throwing; the
 * answer that made it fail is what the result reports, in the port's vocabulary.
 */
import { upstreamLimits } from "../http/limits.js";
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "../port.js";
import type { CaldavContext } from "./context.js";
import { discoverOffThread, tooCostly } from "./off-thread.js";
import { statusError, type HttpAnswer } from "./upstream.js";

export interface DiscoveredCalendar {
  /** The collection's path: the calendarId (and calendarPath setting) that names it. */
  readonly calendarId: string;
  readonly displayName?: string;
  /** Component types it accepts (VEVENT is what the gateway needs). */
  readonly components: readonly string[];
  /** It offers RFC 6578 sync (incremental syncs); without it every sync is a full one. */
  readonly syncCollection: boolean;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function headersOf(asked: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of asked) if (key.toLowerCase() !== "authorization") out[key] = value;
  return out;
}

export async function discoverCalendars(
  ctx: CaldavContext,
): Promise<ConnectorResult<readonly DiscoveredCalendar[]>> {
  let meta: UpstreamMeta | undefined;
  let failure: ConnectorError | undefined;
  let refused: HttpAnswer | undefined;

  const answer = async (ask: {
    readonly method: string;
    readonly url: string;
    readonly headers: ReadonlyArray<readonly [string, string]>;
    readonly body?: string;
  }) => {
    const url = new URL(ask.url);
    if (url.origin !== ctx.server.origin) {
      failure ??= {
        code: "unavailable",
        message: "discovery led to another server; give the calendar's path instead",
      };
      return undefined;
    }
    const sent = await ctx.send({
      method: ask.method,
      url,
      headers: headersOf(ask.headers),
      ...(ask.body === undefined ? {} : { body: ask.body }),
      maxBytes: upstreamLimits().discoveryBytes,
    });
    meta = sent.meta;
    if (!sent.ok) {
      failure ??= sent.error;
      return undefined;
    }
    const got = sent.value;
    // A 404 or a redirect is part of the walk (/.well-known/caldav may be either); a refusal
    // of the credentials, a rate limit or a server failure is what to report if the walk fails.
    if ([401, 403, 429].includes(got.status) || got.status >= 500) refused ??= got;
    return {
      status: got.status,
      headers: [...got.headers.entries()],
      // The bytes go to the parse worker (transferred); a refusal kept for its message is copied.
      body: NULL_BODY.has(got.status) ? null : refused === got ? got.bytes.slice() : got.bytes,
    };
  };

  const walked = await discoverOffThread(ctx.server.href, answer);
  const upstream = meta === undefined ? {} : { upstream: meta };
  if (!walked.ok)
    return {
      ok: false,
      error: tooCostly("the server's discovery answers"),
      ...upstream,
    };
  const { calendars } = walked.value;
  if (calendars === undefined) {
    const error = (refused === undefined
      ? undefined
      : statusError(refused, "discovering calendars", ctx.clock)) ??
      failure ?? { code: "unavailable" as const, message: "the server does not answer CalDAV discovery" };
    return { ok: false, error, ...upstream };
  }
  const value = calendars
    .filter((c) => c.components === undefined || c.components.includes("VEVENT"))
    .map((c) => ({
      calendarId: new URL(c.url, ctx.server).pathname,
      ...(typeof c.displayName === "string" && c.displayName !== "" ? { displayName: c.displayName } : {}),
      components: c.components ?? [],
      syncCollection: c.syncToken !== undefined && c.syncToken !== "",
    }));
  return { ok: true, value, ...upstream };
}
