/**
 * What the sync and the writer share: the server, the one `send`, the clock, and a DAV call
 * (PROPFIND / REPORT answered 207) with its failures already in the port's vocabulary. The
 * Multi-Status is parsed in the parse worker (off-thread.ts), and a calendar-query's or
 * multiget's calendar data read into events there too; a parse that runs out of time or heap
 * is `unavailable` with reason `upstream_too_costly`.
 */
import type { Clock } from "../../protocol/clock.js";
import type { Logger } from "../../protocol/logger.js";
import type { ConnectorError, UpstreamMeta } from "../port.js";
import type { Collected } from "./collect.js";
import type { Multistatus } from "./dav.js";
import { multistatusOffThread, tooCostly } from "./off-thread.js";
import { statusError, type HttpAnswer, type Send } from "./upstream.js";
import type { Err, Ok } from "../../protocol/result.js";

export interface CaldavContext {
  readonly server: URL;
  readonly send: Send;
  readonly clock: Clock;
  /** Where the sync reports what it read around (skipped lines); default none. */
  readonly logger?: Pick<Logger, "warn">;
}

/** A DAV call's parsed Multi-Status. */
interface Dav {
  readonly multistatus: Multistatus;
  /** With `collect`: the resources' events by eventId, or the first unreadable one's message. */
  readonly collected?: Collected;
}

/**
 * The Multi-Status or the failure, with the call's metadata either way; a failure keeps the
 * answer, when one arrived (the caller may read a precondition from it).
 */
export type DavOutcome = (Ok<Dav> | (Err<ConnectorError> & { readonly answer?: HttpAnswer })) & {
  readonly meta: UpstreamMeta;
};

export async function davCall(
  ctx: CaldavContext,
  method: "PROPFIND" | "REPORT",
  url: URL,
  depth: "0" | "1",
  body: string,
  what: string,
  /** The calendar collection whose resources' calendar data to read into events. */
  collect?: URL,
): Promise<DavOutcome> {
  const sent = await ctx.send({
    method,
    url,
    headers: { depth, "content-type": "application/xml; charset=utf-8" },
    body,
  });
  if (!sent.ok) return sent;
  const { value: answer, meta } = sent;
  if (answer.status !== 207) {
    const error: ConnectorError =
      answer.status >= 200 && answer.status < 300
        ? {
            code: "unavailable",
            message: `${what}: the server answered ${answer.status}, not a Multi-Status`,
          }
        : statusError(answer, what, ctx.clock);
    return { ok: false, error, meta, answer };
  }
  const parsed = await multistatusOffThread(answer.bytes, answer.headers.get("content-type"), url, collect);
  if (!parsed.ok)
    return {
      ok: false,
      error: tooCostly(`${what}: the answer`),
      meta,
    };
  const { multistatus, collected } = parsed.value;
  if (multistatus === undefined)
    return {
      ok: false,
      error: { code: "unavailable", message: `${what}: the Multi-Status is not readable` },
      meta,
    };
  return { ok: true, value: { multistatus, ...(collected === undefined ? {} : { collected }) }, meta };
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;
