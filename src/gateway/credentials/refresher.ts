/**
 * A host's access token from the vault, kept fresh:
 *
 * - refreshed before it expires (`marginMs`, 5 minutes by default), so calls do not hit a 401;
 * - single flight per host: concurrent callers share one refresh, never racing two grants
 *   (Microsoft rotates the refresh token, and a second refresh with the spent one could fail);
 * - refreshed once more when the upstream refuses it: the wiring calls `invalidate(token)` on a
 *   401 and asks again (retry-on-401.ts);
 * - before refreshing it reads the vault again: another gateway process on the same store may
 *   have refreshed already, and its token is used instead of spending the grant twice;
 * - across processes (scale-out), with a `refreshLock` (refresh-lock.ts): the
 *   refresh happens only while holding the host's lock, after reading the vault once more under
 *   it, and the lock is freed once the new grant is in the vault. A process that finds the lock
 *   held polls the vault for the holder's fresh token instead; when none comes in time it uses
 *   the current token while it has not expired, else fails `unavailable` (transient, never
 *   "unauthorized"). With a lock configured it never refreshes without holding it;
 * - a refresh refused for good (invalid_grant, a 4xx) is `unauthorized`: http.ts and the Square
 *   client map it so, and host health turns the host "needs_reconnection" (booking/hosts/
 *   health.ts), which refuses its time. It is logged loudly once, and no further refresh is
 *   tried until the vault holds a different grant (the operator reconnected);
 * - the vault is read on every call (a sealed record, one file or Redis read): a record deleted
 *   by a disconnect (connect/disconnect.ts) is unauthorized on the next call in every process;
 * - a refresh that fails for now (network, 5xx, 429) is `unavailable`, tried again on the next
 *   call; a token that has not expired yet is still used meanwhile.
 *
 * No message or log line carries a token, a secret or an upstream error description.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../protocol/logger.js";
import type { TokenRecord } from "./record.js";
import type { RefreshLock, ReleaseRefreshLock } from "./refresh-lock.js";
import { refreshGrant, type OAuthClient, type RefreshOutcome } from "./token-endpoints.js";
import type { TokenVault } from "./vault.js";
import { type Clock, systemClock } from "../../protocol/clock.js";

const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;
/** Longer than a refresh takes (the token endpoint call times out after 10 s: token-endpoints.ts). */
const DEFAULT_REFRESH_LOCK_TTL_MS = 30_000;
const DEFAULT_REFRESH_LOCK_WAIT_MS = 5_000;
const DEFAULT_REFRESH_LOCK_POLL_MS = 100;

/** What http.ts (`credentialError`) and the Square client read: `code` "unauthorized" or not. */
export class TokenUnavailableError extends Error {
  constructor(
    readonly code: "unauthorized" | "unavailable",
    message: string,
  ) {
    super(message);
    this.name = "TokenUnavailableError";
  }
}

export const isRevokedGrant = (e: unknown): boolean =>
  e instanceof TokenUnavailableError && e.code === "unauthorized";

export interface TokenProvider {
  /** A current access token, refreshing first when it is due or was refused. */
  accessToken(): Promise<string>;
  /** The upstream refused `token` (a 401): the next accessToken() refreshes. */
  invalidate(token: string): void;
}

export interface TokenProviderOptions {
  readonly hostId: string;
  readonly vault: TokenVault;
  readonly client: OAuthClient;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly marginMs?: number;
  readonly squareVersion?: string;
  /** One refresh at a time across the processes sharing `vault` (refresh-lock.ts). */
  readonly refreshLock?: RefreshLock;
  /** How long a refresh may hold the lock (DEFAULT_REFRESH_LOCK_TTL_MS). */
  readonly lockTtlMs?: number;
  /** How long to wait for another process's refresh (DEFAULT_REFRESH_LOCK_WAIT_MS)... */
  readonly lockWaitMs?: number;
  /** ...reading the vault every `lockPollMs` (DEFAULT_REFRESH_LOCK_POLL_MS). */
  readonly lockPollMs?: number;
}

/** A grant's identity for "has the operator put a new one": its refresh token, else its access token. */
const grantOf = (r: TokenRecord): string => r.refreshToken ?? r.accessToken;

export function createTokenProvider(opts: TokenProviderOptions): TokenProvider {
  const clock = opts.clock ?? systemClock;
  const margin = opts.marginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const { hostId, vault } = opts;
  let cached: TokenRecord | undefined;
  /** An access token the upstream refused: not handed out again. */
  let refused: string | undefined;
  /** The grant a refresh was refused for good; cleared when the vault holds another. */
  let revokedGrant: string | undefined;
  let inflight: Promise<string> | undefined;

  const fresh = (r: TokenRecord): boolean =>
    r.accessToken !== refused && (r.expiresAt === undefined || r.expiresAt - margin > clock.now());
  const usable = (r: TokenRecord): boolean =>
    r.accessToken !== refused && (r.expiresAt === undefined || r.expiresAt > clock.now());
  const fields = (r: TokenRecord | undefined) => ({ host_id: hostId, ...(r && { provider: r.provider }) });

  const revoked = (
    record: TokenRecord,
    outcome: { status: number; error?: string },
  ): TokenUnavailableError => {
    if (revokedGrant !== grantOf(record)) {
      revokedGrant = grantOf(record);
      opts.logger?.error(
        "OAuth refresh refused for good: the host needs reconnection and offers no time until then",
        {
          ...fields(record),
          status: outcome.status,
          ...(outcome.error !== undefined && { oauth_error: outcome.error }),
        },
      );
    }
    return new TokenUnavailableError(
      "unauthorized",
      `host "${hostId}": the ${record.provider} grant was refused${outcome.error !== undefined ? ` (${outcome.error})` : ""}: reconnect it`,
    );
  };

  async function load(): Promise<TokenRecord> {
    const record = await vault.get(hostId);
    if (record === undefined)
      throw new TokenUnavailableError(
        "unauthorized",
        `host "${hostId}" has no token record in the vault: connect it (booking-gateway credentials set)`,
      );
    if (revokedGrant !== undefined && revokedGrant !== grantOf(record)) revokedGrant = undefined;
    cached = record;
    return record;
  }

  async function refresh(): Promise<string> {
    // Another process may have refreshed (or the operator reconnected) since we last read.
    const record = await load();
    if (fresh(record)) return record.accessToken;
    if (revokedGrant === grantOf(record)) throw revoked(record, { status: 0 });
    return opts.refreshLock === undefined ? refreshGrantOf(record) : refreshLocked(opts.refreshLock, record);
  }

  /** Due, but the refresh is another process's (or the lock is out of reach): the token while it lasts. */
  const stillUsable = (record: TokenRecord, why: string): string => {
    opts.logger?.warn("OAuth refresh left for now: the cross-process refresh lock was not ours", {
      ...fields(record),
      why,
    });
    if (usable(record)) return record.accessToken;
    throw new TokenUnavailableError(
      "unavailable",
      `host "${hostId}": the ${record.provider} token is being refreshed elsewhere; try again shortly`,
    );
  };

  async function refreshLocked(lock: RefreshLock, first: TokenRecord): Promise<string> {
    const ttl = opts.lockTtlMs ?? DEFAULT_REFRESH_LOCK_TTL_MS;
    const poll = opts.lockPollMs ?? DEFAULT_REFRESH_LOCK_POLL_MS;
    // Counted in rounds, not by `now`: tests hold the clock still.
    const rounds = Math.ceil((opts.lockWaitMs ?? DEFAULT_REFRESH_LOCK_WAIT_MS) / poll);
    let record = first;
    for (let round = 0; ; round++) {
      let release: ReleaseRefreshLock | undefined;
      try {
        release = await lock.acquire(hostId, ttl);
      } catch (e) {
        return stillUsable(record, `the lock could not be taken (${e instanceof Error ? e.name : "error"})`);
      }
      if (release !== undefined) {
        try {
          // Under the lock: the previous holder may have written its grant just before we took it.
          const held = await load();
          if (fresh(held)) return held.accessToken;
          if (revokedGrant === grantOf(held)) throw revoked(held, { status: 0 });
          return await refreshGrantOf(held);
        } finally {
          // A release that fails (Redis gone) leaves the lock to expire after `ttl`.
          await release().catch(() => undefined);
        }
      }
      if (round >= rounds) return stillUsable(record, "waited for its refresh without a new token");
      await sleep(poll);
      // The holder's grant, once it is in the vault; a deleted record is unauthorized (load()).
      record = await load();
      if (fresh(record)) return record.accessToken;
    }
  }

  async function refreshGrantOf(record: TokenRecord): Promise<string> {
    const outcome: RefreshOutcome = await refreshGrant({
      record,
      client: opts.client,
      fetch: fetchFn,
      now: clock.now(),
      ...(opts.squareVersion !== undefined && { squareVersion: opts.squareVersion }),
    });
    if (outcome.kind === "revoked") throw revoked(record, outcome);
    if (outcome.kind === "transient") {
      opts.logger?.warn("OAuth refresh failed for now; tried again on the next call", {
        ...fields(record),
        ...(outcome.status !== undefined && { status: outcome.status }),
        why: outcome.why,
      });
      if (usable(record)) return record.accessToken;
      throw new TokenUnavailableError(
        "unavailable",
        `host "${hostId}": the ${record.provider} token could not be refreshed now`,
      );
    }
    const next: TokenRecord = {
      ...record,
      accessToken: outcome.accessToken,
      ...(outcome.refreshToken !== undefined && { refreshToken: outcome.refreshToken }),
      ...(outcome.expiresAt !== undefined ? { expiresAt: outcome.expiresAt } : { expiresAt: undefined }),
      ...(outcome.scope !== undefined && { scope: outcome.scope }),
    };
    if (next.expiresAt === undefined) delete (next as { expiresAt?: number }).expiresAt;
    await vault.put(hostId, next);
    cached = next;
    refused = undefined;
    opts.logger?.info("OAuth access token refreshed", {
      ...fields(next),
      ...(next.expiresAt !== undefined && { expires_at: new Date(next.expiresAt).toISOString() }),
    });
    return next.accessToken;
  }

  return {
    async accessToken() {
      // Read every time, not from `cached`: a disconnect deletes the record (in any process
      // sharing the store) and must stop the host's calls at once, not when the token expires.
      const record = await load();
      if (fresh(record) && revokedGrant !== grantOf(record)) return record.accessToken;
      inflight ??= refresh().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    invalidate(token) {
      if (cached?.accessToken === token) refused = token;
    },
  };
}
