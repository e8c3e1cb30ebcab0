/**
 * A short-lived cache of the platform catalog, so one tool call (and the calls of one booking
 * conversation) does not fetch it several times. Concurrent readers share one in-flight read;
 * a failed read is not kept, so the next call asks the platform again.
 */
import type { Catalog, ConnectorResult } from "../../connectors/port.js";

export const DEFAULT_CATALOG_TTL_MS = 60_000;

export interface CatalogCache {
  get(): Promise<ConnectorResult<Catalog>>;
}

export function createCatalogCache(
  read: () => Promise<ConnectorResult<Catalog>>,
  clock: { now(): number },
  ttlMs: number = DEFAULT_CATALOG_TTL_MS,
): CatalogCache {
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0)
    throw new TypeError(`catalogTtlMs must be a non-negative integer, got ${ttlMs}`);
  let kept: { readonly at: number; readonly answer: Promise<ConnectorResult<Catalog>> } | undefined;

  return {
    get() {
      const now = clock.now();
      if (kept !== undefined && now - kept.at < ttlMs) return kept.answer;
      const entry = { at: now, answer: read() };
      kept = entry;
      // Forget failures (and throws) so they are not served for the whole TTL.
      entry.answer.then(
        (r) => {
          if (!r.ok && kept === entry) kept = undefined;
        },
        () => {
          if (kept === entry) kept = undefined;
        },
      );
      return entry.answer;
    },
  };
}
