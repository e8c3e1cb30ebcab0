/** Shared by the calendar push tests: a manual clock for timers, and a logger that keeps its lines. */
import type { Timers } from "../../../src/jobs/calendar-push/index.js";
import type { Logger } from "../../../src/protocol/logger.js";

interface Pending {
  readonly id: number;
  readonly at: number;
  readonly run: () => void | Promise<void>;
}

/** Time moves only when told; due timers run in order, and the work each starts is awaited. */
export class ManualClock implements Timers {
  #pending: Pending[] = [];
  #next = 1;

  constructor(public current: number) {}

  readonly now = (): number => this.current;

  set(run: () => void | Promise<void>, ms: number): unknown {
    const id = this.#next++;
    this.#pending.push({ id, at: this.current + Math.max(0, ms), run });
    return id;
  }

  clear(handle: unknown): void {
    this.#pending = this.#pending.filter((p) => p.id !== handle);
  }

  /** When the earliest timer is due (undefined: none armed). */
  nextAt(): number | undefined {
    return this.#pending.reduce<number | undefined>(
      (min, p) => (min === undefined || p.at < min ? p.at : min),
      undefined,
    );
  }

  async advance(ms: number): Promise<void> {
    const until = this.current + ms;
    for (;;) {
      const due = this.#pending.filter((p) => p.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#pending = this.#pending.filter((p) => p !== due);
      this.current = due.at;
      await due.run();
    }
    this.current = until;
  }
}

export interface LogLine {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export function recordingLogger(): Logger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine["level"]) =>
    (message: string, fields: Readonly<Record<string, unknown>> = {}) =>
      void lines.push({ level, message, fields });
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}
