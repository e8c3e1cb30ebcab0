/**
 * Timers as a port, so tests drive retries and periodic runs without waiting. The real one
 * unrefs its timers: a pending retry or the next sweep never keeps a process alive on its own.
 */
export interface Scheduler {
  set(fn: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

export const realScheduler: Scheduler = {
  set: (fn, delayMs) => setTimeout(fn, delayMs).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
