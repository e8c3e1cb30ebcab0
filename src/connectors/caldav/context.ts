/**
 * What the sync and the writer share: the server, the one `send`, the clock, and a DAV call
 * (PROPFIND / REPORT answered 207) with its failures already in the port's vocabulary.
 */
import type { ConnectorError, UpstreamMeta } from "../port.js";
import { readMultistatus, type Multistatus } from "./dav.js";
import { statusError, type HttpAnswer, type Send } from "./upstream.js";

export interface CaldavContext {
  readonly server: URL;
  readonly send: Send;
  readonly clock: { now(): number };
}

export type DavOutcome =
  | { readonly ok: true; readonly multistatus: Multistatus; readonly meta: UpstreamMeta }
  | {
      readonly ok: false;
      readonly error: ConnectorError;
      readonly meta: UpstreamMeta;
      /** The answer, when one arrived (the caller may read a precondition from it). */
      readonly answer?: HttpAnswer;
    };

export async function davCall(
  ctx: CaldavContext,
  method: "PROPFIND" | "REPORT",
  url: URL,
  depth: "0" | "1",
  body: string,
  what: string,
): Promise<DavOutcome> {
  const sent = await ctx.send({
    method,
    url,
    headers: { depth, "content-type": "application/xml; charset=utf-8" },
    body,
  });
  if (!sent.ok) return sent;
  const { answer, meta } = sent;
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
  const multistatus = await readMultistatus(answer, url);
  if (multistatus === undefined)
    return {
      ok: false,
      error: { code: "unavailable", message: `${what}: the Multi-Status is not readable` },
      meta,
    };
  return { ok: true, multistatus, meta };
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;
