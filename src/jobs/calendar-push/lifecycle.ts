/**
 * The push lifecycle job: for every Google/Microsoft calendar host with a
 * `push_url`, each of its calendars gets a watch channel (Google) or subscription (Graph) at
 * start, kept in the push store, and renewed before it lapses:
 *
 * - Google renews nothing: a successor channel is opened, stored, and the old one stopped
 *   (guide "Push notifications", "Renew notification channels" / "Stop notifications");
 * - Graph extends in place: PATCH expirationDateTime, at most 10 080 minutes ahead for
 *   Outlook events (resource "subscription", "Maximum length of subscription per resource
 *   type"); a subscription Graph no longer has is replaced by a new one.
 *
 * Renewal is due `renewBeforeMs` before expiry (1 h by default, at most half the lifetime the
 * platform granted). A failure to open or renew is logged and retried after `retryMs`; until
 * then the host is synced periodically only, as a host without push is, and a channel still
 * valid keeps serving. With a shared (Redis) store every process runs this job; a per-host lock
 * lets one of them do the work, and the others find its result and re-arm their timers.
 */
import { randomBytes } from "node:crypto";
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import type { PushStore, Release } from "./store.js";
import { realTimers, type PushEntry, type PushHost, type Timers } from "./types.js";
import type { Clock } from "../../protocol/clock.js";

export interface PushLifecycleDeps {
  readonly hosts: readonly PushHost[];
  readonly store: PushStore;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timers?: Timers;
  /** Renew this long before expiry (default 1 h; at most half of what was granted). */
  readonly renewBeforeMs?: number;
  /** After a failure, try again after this long (default 15 min). */
  readonly retryMs?: number;
  /** Longest hold of a host's lock (default 2 min: a few upstream calls with their timeouts). */
  readonly lockMs?: number;
  /** A new channel token / clientState (default 32 random bytes, base64url: 43 characters). */
  readonly secret?: () => string;
}

/** What a Graph lifecycle notification asks of a subscription. */
interface RecheckHint {
  /** subscriptionRemoved: forget it, open a new one. */
  readonly drop?: string;
  /** reauthorizationRequired: extend it now (a renewal reauthorizes it). */
  readonly renew?: string;
}

export interface PushLifecycle {
  /** Resolves once every host's first check has run (whatever its outcome). */
  readonly ready: Promise<void>;
  recheck(hostId: string, hint?: RecheckHint): Promise<void>;
  /** Stops the timers; with a process-local store, also stops every channel it made. */
  close(): Promise<void>;
}

const DEFAULT_RENEW_BEFORE_MS = 3_600_000;
const DEFAULT_PUSH_RETRY_MS = 15 * 60_000;

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

export function startPushLifecycle(deps: PushLifecycleDeps): PushLifecycle {
  const { store, logger } = deps;
  const timers = deps.timers ?? realTimers;
  const renewBeforeMs = deps.renewBeforeMs ?? DEFAULT_RENEW_BEFORE_MS;
  const retryMs = deps.retryMs ?? DEFAULT_PUSH_RETRY_MS;
  const lockMs = deps.lockMs ?? 120_000;
  const secret = deps.secret ?? (() => randomBytes(32).toString("base64url"));
  const armed = new Map<string, unknown>();
  const running = new Map<string, Promise<void>>();
  let closed = false;

  const renewAt = (e: PushEntry) =>
    e.expiresAt - Math.min(renewBeforeMs, Math.max(0, e.expiresAt - e.obtainedAt) / 2);

  const fields = (host: PushHost, calendarId?: string) => ({
    host_id: host.hostId,
    vendor: host.provider.vendor,
    ...(calendarId !== undefined && { calendar_id: calendarId }),
  });

  const fallback = (
    host: PushHost,
    calendarId: string,
    what: string,
    error: { code: string; message: string },
  ) =>
    logger.warn(
      `calendar push: ${what} failed; host ${host.hostId} is synced every ${minutes(host.syncEveryMs)} only until it works (retry in ${minutes(retryMs)})`,
      { ...fields(host, calendarId), error_code: error.code, error: error.message },
    );

  /** Closes a channel that is no longer the calendar's, and forgets it. */
  async function retire(host: PushHost, entry: PushEntry, now: number): Promise<void> {
    if (entry.expiresAt > now) {
      const r = await host.provider.close(entry);
      if (!r.ok)
        logger.warn("calendar push: an old channel could not be stopped; it lapses on its own", {
          ...fields(host, entry.calendarId),
          expires_at: new Date(entry.expiresAt).toISOString(),
          error_code: r.error.code,
          error: r.error.message,
        });
    }
    await store.delete(host.hostId, entry.id);
  }

  /** Keeps one calendar's channel; answers when it needs looking at again (epoch ms). */
  async function keepCalendar(
    host: PushHost,
    calendarId: string,
    entries: readonly PushEntry[],
    hint: RecheckHint,
  ): Promise<number> {
    const now = deps.clock.now();
    const live = entries
      .filter((e) => e.address === host.address && e.expiresAt > now)
      .sort((a, b) => b.expiresAt - a.expiresAt)[0];
    let current: PushEntry | undefined;
    if (live !== undefined && renewAt(live) > now && hint.renew !== live.id) current = live;
    else if (live !== undefined && host.provider.extend !== undefined) {
      const r = await host.provider.extend(live);
      if (r.ok) {
        current = r.value;
        await store.put(host.hostId, current);
        logger.info("calendar push: subscription renewed", {
          ...fields(host, calendarId),
          expires_at: new Date(current.expiresAt).toISOString(),
        });
      } else {
        logger.warn("calendar push: the subscription could not be renewed; opening a new one", {
          ...fields(host, calendarId),
          error_code: r.error.code,
          error: r.error.message,
        });
      }
    }
    if (current === undefined) {
      const r = await host.provider.open({ calendarId, address: host.address, secret: secret() });
      if (!r.ok) {
        fallback(
          host,
          calendarId,
          live === undefined ? "opening the channel" : "renewing the channel",
          r.error,
        );
        for (const e of entries) if (e.expiresAt <= now) await store.delete(host.hostId, e.id);
        return deps.clock.now() + retryMs;
      }
      current = r.value;
      await store.put(host.hostId, current);
      logger.info(
        live === undefined
          ? "calendar push on: changes are synced as they are notified"
          : "calendar push: channel renewed",
        { ...fields(host, calendarId), expires_at: new Date(current.expiresAt).toISOString() },
      );
    }
    const kept = current;
    for (const e of entries) if (e.id !== kept.id) await retire(host, e, deps.clock.now());
    return renewAt(kept);
  }

  async function checkLocked(host: PushHost, hint: RecheckHint): Promise<number> {
    if (hint.drop !== undefined) await store.delete(host.hostId, hint.drop);
    const all = (await store.list(host.hostId)).filter((e) => e.vendor === host.provider.vendor);
    let next = Number.POSITIVE_INFINITY;
    for (const calendarId of host.calendarIds) {
      const at = await keepCalendar(
        host,
        calendarId,
        all.filter((e) => e.calendarId === calendarId),
        hint,
      );
      next = Math.min(next, at);
    }
    // A calendar no longer configured: its channel is stopped.
    for (const e of all)
      if (!host.calendarIds.includes(e.calendarId)) await retire(host, e, deps.clock.now());
    return next;
  }

  function arm(host: PushHost, at: number): void {
    const previous = armed.get(host.hostId);
    if (previous !== undefined) timers.clear(previous);
    if (closed || !Number.isFinite(at)) return;
    armed.set(
      host.hostId,
      timers.set(() => {
        armed.delete(host.hostId);
        return run(host, {});
      }, at - deps.clock.now()),
    );
  }

  async function check(host: PushHost, hint: RecheckHint): Promise<void> {
    if (closed) return;
    let release: Release | undefined;
    try {
      release = await store.lock(host.hostId, lockMs);
    } catch (e) {
      logger.error("calendar push: the push store is not answering", {
        ...fields(host),
        error: describeError(e),
      });
      arm(host, deps.clock.now() + retryMs);
      return;
    }
    // Another process is opening or renewing this host's channels: look again shortly.
    if (release === undefined) return arm(host, deps.clock.now() + Math.min(retryMs, 30_000));
    let next: number;
    try {
      next = await checkLocked(host, hint);
    } catch (e) {
      logger.error("calendar push: the channel check failed; periodic sync continues", {
        ...fields(host),
        error: describeError(e),
      });
      next = deps.clock.now() + retryMs;
    } finally {
      await release().catch(() => undefined);
    }
    arm(host, next);
  }

  /** One check per host at a time; a second one waits for the first. */
  function run(host: PushHost, hint: RecheckHint): Promise<void> {
    const before = running.get(host.hostId) ?? Promise.resolve();
    const p = before.then(() => check(host, hint));
    running.set(host.hostId, p);
    void p.finally(() => {
      if (running.get(host.hostId) === p) running.delete(host.hostId);
    });
    return p;
  }

  const ready = Promise.all(deps.hosts.map((h) => run(h, {}))).then(() => undefined);

  return {
    ready,
    recheck(hostId, hint = {}) {
      const host = deps.hosts.find((h) => h.hostId === hostId);
      return host === undefined ? Promise.resolve() : run(host, hint);
    },
    async close() {
      closed = true;
      for (const handle of armed.values()) timers.clear(handle);
      armed.clear();
      await Promise.all([...running.values()]);
      if (store.shared) return;
      // Nobody else knows these channels: stop them rather than leave them posting to nothing.
      const now = deps.clock.now();
      for (const host of deps.hosts)
        for (const e of await store.list(host.hostId)) await retire(host, e, now).catch(() => undefined);
    },
  };
}
