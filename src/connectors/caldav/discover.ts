/**
 * Calendar discovery for onboarding: the calendars an account can book into, found the way
 * CalDAV clients find them (RFC 6764 /.well-known/caldav, RFC 5397 current-user-principal,
 * RFC 4791 §6.2.1 calendar-home-set, then the home's calendar collections). Not a port
 * capability: the onboarding pages call it to let the business pick its calendarPath.
 *
 * tsdav does the walk (createAccount + fetchCalendars); its fetch is routed through upstream.ts's
 * `send`, that is through connectors/http.ts's capturing fetch, so every request is bounded,
 * captured and credentialed in the one place, and a request to
 * another origin (a redirect or an href pointing away) is refused rather than sent with the
 * account's credentials. tsdav reports a failed step by throwing; the answer that made it fail
 * is what the result reports, in the port's vocabulary.
 */
import { createAccount, fetchCalendars } from "tsdav";
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "../port.js";
import type { CaldavContext } from "./context.js";
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

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    if (key !== "authorization") out[key] = value;
  });
  return out;
}

export async function discoverCalendars(
  ctx: CaldavContext,
): Promise<ConnectorResult<readonly DiscoveredCalendar[]>> {
  let meta: UpstreamMeta | undefined;
  let failure: ConnectorError | undefined;
  let refused: HttpAnswer | undefined;

  const fetchThroughSend: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    if (url.origin !== ctx.server.origin) {
      failure ??= {
        code: "unavailable",
        message: "discovery led to another server; give the calendar's path instead",
      };
      throw new Error("refused: another origin");
    }
    const sent = await ctx.send({
      method,
      url,
      headers: headersOf(init),
      ...(typeof init?.body === "string" ? { body: init.body } : {}),
    });
    meta = sent.meta;
    if (!sent.ok) {
      failure ??= sent.error;
      throw new Error(sent.error.code);
    }
    const { answer } = sent;
    // A 404 or a redirect is part of the walk (/.well-known/caldav may be either); a refusal
    // of the credentials, a rate limit or a server failure is what to report if the walk fails.
    if ([401, 403, 429].includes(answer.status) || answer.status >= 500) refused ??= answer;
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  };

  try {
    const account = await createAccount({
      account: { serverUrl: ctx.server.href, accountType: "caldav" },
      headers: {},
      fetch: fetchThroughSend,
    });
    const calendars = await fetchCalendars({ account, headers: {}, fetch: fetchThroughSend });
    const value = calendars
      .filter((c) => c.components === undefined || c.components.includes("VEVENT"))
      .map((c) => ({
        calendarId: new URL(c.url, ctx.server).pathname,
        ...(typeof c.displayName === "string" && c.displayName !== "" ? { displayName: c.displayName } : {}),
        components: c.components ?? [],
        syncCollection: c.syncToken !== undefined && c.syncToken !== "",
      }));
    return { ok: true, value, ...(meta === undefined ? {} : { upstream: meta }) };
  } catch {
    const error = (refused === undefined
      ? undefined
      : statusError(refused, "discovering calendars", ctx.clock)) ??
      failure ?? { code: "unavailable" as const, message: "the server does not answer CalDAV discovery" };
    return { ok: false, error, ...(meta === undefined ? {} : { upstream: meta }) };
  }
}
