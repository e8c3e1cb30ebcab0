/**
 * Push notifications come in bursts (Graph batches and repeats them; a Google calendar edit
 * can notify several times), and each one only says "something changed". The first push for
 * a host opens a short window; the pushes inside it are absorbed, and at its end one sync is
 * asked for. A change made inside the window is read by that sync (it starts after the
 * window), and a push after it opens the next window, so nothing is lost. The sync queue
 * (src/jobs/calendar-sync/queue.ts) then coalesces with a sync already running.
 */
import { describeError } from "../logger.js";
import type { Logger } from "../../protocol/logger.js";
import { realTimers, type Timers } from "./types.js";

const DEFAULT_PUSH_WINDOW_MS = 2_000;

export interface PushCoalescer {
  /** A verified notification for this host: a sync soon, once per window. */
  push(hostId: string, reason: string): void;
  /** Drops pending windows (shutdown). */
  close(): void;
}

export function pushCoalescer(
  request: (hostId: string, reason: string) => Promise<void>,
  logger: Logger,
  opts: { readonly windowMs?: number; readonly timers?: Timers } = {},
): PushCoalescer {
  const timers = opts.timers ?? realTimers;
  const windowMs = opts.windowMs ?? DEFAULT_PUSH_WINDOW_MS;
  const open = new Map<string, unknown>();
  let closed = false;
  return {
    push(hostId, reason) {
      if (closed || open.has(hostId)) return;
      const handle = timers.set(() => {
        open.delete(hostId);
        return request(hostId, reason).catch((e: unknown) =>
          logger.error("calendar push: the sync could not be queued", {
            host_id: hostId,
            error: describeError(e),
          }),
        );
      }, windowMs);
      open.set(hostId, handle);
    },
    close() {
      closed = true;
      for (const handle of open.values()) timers.clear(handle);
      open.clear();
    },
  };
}
