/** Servicialo's answers as the port's results. */
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "../ports/result.js";

export const fail = <T>(error: ConnectorError, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: false, error } : { ok: false, error, upstream };

export const withMeta = <T>(value: T, upstream?: UpstreamMeta): ConnectorResult<T> =>
  upstream === undefined ? { ok: true, value } : { ok: true, value, upstream };

export const unreadable = <T>(what: string, upstream?: UpstreamMeta): ConnectorResult<T> =>
  fail({ code: "unavailable", message: `Servicialo answered an unreadable ${what}` }, upstream);
