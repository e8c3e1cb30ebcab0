/**
 * How many console credential checks run at once. An owner's password is checked with scrypt
 * (accounts-password.ts: about 100 ms of a libuv pool thread and 32 MiB each), so a burst of
 * sign-ins must neither queue without end nor take every thread: at most `perOrigin` checks
 * per network origin (running or waiting), at most `concurrent` running in the process, and
 * at most `queue` waiting for a turn. Anything past that is answered at once ("busy": the
 * console says try again shortly) instead of waiting.
 *
 * The bound this gives (tested in test/edges/console/sign-in-burst.test.ts): a burst from
 * one origin holds at most `perOrigin` of the `concurrent` places, so a sign-in from another
 * origin starts at once and completes within about two checks' time (its own, beside the
 * burst's one on the other core); with many origins at once, a sign-in that is let in waits
 * for at most ceil(queue / concurrent) checks before its own.
 */
import type { Result } from "../../protocol/result.js";

export interface SignInGatePolicy {
  /** Checks per origin, running or waiting. */
  readonly perOrigin: number;
  /** Checks running at once in this process. */
  readonly concurrent: number;
  /** Checks waiting for a place. */
  readonly queue: number;
}

/**
 * 1 per origin, 2 at once (of libuv's 4 pool threads, leaving two for file and DNS work), 8
 * waiting: a check let in finishes within 5 checks' time (~0.5 s at the default scrypt cost).
 */
export const DEFAULT_SIGN_IN_GATE: SignInGatePolicy = { perOrigin: 1, concurrent: 2, queue: 8 };

export class SignInGate {
  readonly #perOrigin = new Map<string, number>();
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(readonly policy: SignInGatePolicy = DEFAULT_SIGN_IN_GATE) {}

  /**
   * Runs `check` when its turn comes, or answers "busy" at once when `origin` already has its
   * share or the queue is full.
   */
  async run<T>(origin: string, check: () => Promise<T>): Promise<Result<T, "busy">> {
    const mine = this.#perOrigin.get(origin) ?? 0;
    if (mine >= this.policy.perOrigin) return { ok: false, error: "busy" };
    const now = this.#running < this.policy.concurrent;
    if (!now && this.#waiting.length >= this.policy.queue) return { ok: false, error: "busy" };
    this.#perOrigin.set(origin, mine + 1);
    try {
      if (now) this.#running += 1;
      else await new Promise<void>((start) => this.#waiting.push(start));
      try {
        return { ok: true, value: await check() };
      } finally {
        this.#release();
      }
    } finally {
      const left = (this.#perOrigin.get(origin) ?? 1) - 1;
      if (left <= 0) this.#perOrigin.delete(origin);
      else this.#perOrigin.set(origin, left);
    }
  }

  /** A place is free: the next waiting check takes it (the running count stays), or it is given up. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#running -= 1;
  }
}
