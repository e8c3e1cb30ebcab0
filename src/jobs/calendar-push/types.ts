/**
 * The calendar push port: what the lifecycle job and the receivers share. The
 * job knows no platform; a provider (made by the runtime from a Google or Graph connector)
 * opens, extends and closes one calendar's channel or subscription.
 */
import type { Result } from "../../protocol/result.js";

export type PushVendor = "google" | "microsoft";

/** One live channel (Google) or subscription (Graph) of one host's calendar. */
export interface PushEntry {
  readonly vendor: PushVendor;
  readonly calendarId: string;
  /** What every notification names: Google's channel id (ours), Graph's subscription id. */
  readonly id: string;
  /** The channel token / clientState every notification must carry. */
  readonly secret: string;
  /** Google's id of the watched resource (channels.stop needs it). */
  readonly resourceId?: string;
  /** The receiver URL the platform posts to (a changed push_url makes a new one). */
  readonly address: string;
  /** Epoch ms when it was made or last extended, and when the platform stops posting. */
  readonly obtainedAt: number;
  readonly expiresAt: number;
}

export type PushResult<T> = Result<T, { readonly code: string; readonly message: string }>;

export interface PushProvider {
  readonly vendor: PushVendor;
  open(request: {
    readonly calendarId: string;
    readonly address: string;
    readonly secret: string;
  }): Promise<PushResult<PushEntry>>;
  /**
   * Graph: PATCH the expiry, same id and secret. Absent (Google, which renews nothing): a
   * successor is opened and the old one closed.
   */
  extend?(entry: PushEntry): Promise<PushResult<PushEntry>>;
  close(entry: PushEntry): Promise<PushResult<void>>;
}

/** One host whose calendars are watched. */
export interface PushHost {
  readonly hostId: string;
  readonly calendarIds: readonly string[];
  /** The receiver URL: <push_url>/push/<vendor>/<hostId>. */
  readonly address: string;
  readonly provider: PushProvider;
  /** For the fallback's log line: the periodic sync that carries on without push. */
  readonly syncEveryMs: number;
}

/**
 * Timers as a port, so renewal is tested with a manual clock. `run` may return the work it
 * started, so a manual clock can wait for it; real timers do not.
 */
export interface Timers {
  set(run: () => void | Promise<void>, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set(run, ms) {
    // setTimeout's ceiling is 2^31-1 ms (~24.8 days); longer waits fire early and re-check.
    const t = setTimeout(() => void run(), Math.min(Math.max(ms, 0), 2_147_483_647));
    t.unref();
    return t;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
