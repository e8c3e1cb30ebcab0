/**
 * What every RedisHoldStore operation shares: the client, the key layout, the scripts,
 * and one way to turn a Redis failure or an unreadable reply into the port's
 * HoldStoreUnavailableError (src/holds/port.ts). Domain refusals come back from the
 * scripts as {"no", reason, hold?} and become Transition results here.
 */
import type { RedisClient } from "../../redis/client.js";
import type { Interval } from "../../calendar/index.js";
import type { HoldRecord, Transition, TransitionRefusal } from "../port.js";
import { fieldsOf, MalformedReplyError, text } from "./codec.js";
import { unavailable } from "./unavailable.js";
import type { RedisKeys } from "./keys.js";
import { PlaceArgsBuilder } from "./place-args.js";
import type { ScriptName, ScriptRunner } from "./scripts.js";

export interface StoreSettings {
  /** How long Redis keeps a hold record after it ended (0 = forever). */
  readonly retentionMs: number;
  /** The sweeper prunes occupancy entries that ended this long before `now`. */
  readonly pruneAfterMs: number;
}

export class StoreContext {
  readonly placeArgs: PlaceArgsBuilder;

  constructor(
    readonly redis: RedisClient,
    readonly keys: RedisKeys,
    readonly runner: ScriptRunner,
    readonly settings: StoreSettings,
  ) {
    this.placeArgs = new PlaceArgsBuilder(keys);
  }

  /** Runs a script whose reply is a list. */
  async list(name: ScriptName, keys: string[], args: ReadonlyArray<string | number>): Promise<unknown[]> {
    return asList(await this.script(name, keys, args));
  }

  script(name: ScriptName, keys: string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    return this.call(name, () => this.runner.run(name, keys, args));
  }

  call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return run().catch((error: unknown) => {
      throw unavailable(operation, error);
    });
  }
}

/** Reads a reply; anything malformed is a store fault, never a half-read record. */
export function decode<T>(operation: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw unavailable(`${operation} (reading the reply)`, error);
  }
}

function asList(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw unavailable("script", new MalformedReplyError("expected a list reply"));
  return reply;
}

const TRANSITION_REFUSALS: ReadonlySet<string> = new Set<TransitionRefusal>([
  "not_found",
  "expired",
  "released",
  "booked",
  "confirming",
  "stale_fence",
  "invalid_state",
  "stale",
]);

/** {"ok", "", …} → value(reply); {"no", reason, hold?} → a refusal with the hold as it stands. */
export function transition<T>(
  reply: unknown[],
  value: (reply: unknown[]) => T,
  hold?: (fields: Record<string, string>) => HoldRecord,
): Transition<T> {
  return decode("transition", () => {
    if (text(reply[0]) === "ok") return { ok: true, value: value(reply) };
    const reason = text(reply[1]);
    if (!TRANSITION_REFUSALS.has(reason)) throw new MalformedReplyError(`unknown refusal ${reason}`);
    const fields = reply[2] === undefined || hold === undefined ? undefined : fieldsOf(reply[2]);
    return {
      ok: false,
      error: {
        reason: reason as TransitionRefusal,
        ...(fields === undefined || hold === undefined ? {} : { hold: hold(fields) }),
      },
    };
  });
}

/** Programmer errors (the booking core computes these), not domain outcomes. */
export function checkInterval(interval: Interval): void {
  if (
    !Number.isSafeInteger(interval.start) ||
    !Number.isSafeInteger(interval.end) ||
    interval.start >= interval.end
  ) {
    throw new RangeError(`interval must be integer epoch ms with start < end: ${JSON.stringify(interval)}`);
  }
}

export function checkTimes(interval: Interval, now: number, ttlMs: number): void {
  checkInterval(interval);
  if (!Number.isSafeInteger(now) || !Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`now and ttlMs must be integers, ttlMs > 0 (got ${now}, ${ttlMs})`);
  }
}
