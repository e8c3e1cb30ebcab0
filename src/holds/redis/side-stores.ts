/**
 * The stores that live beside the holds in the same Redis: reputation (§7.3), RFC 9421
 * replay memory (§3.2) and idempotency records (§9.1). None is per host: an operator
 * keeps reputation per subject across its tenants (§7.3), and nonces and idempotency
 * keys are scoped by agent key.
 */
import type {
  IdempotencyBegin,
  IdempotencyRecord,
  IdempotencyScope,
  ReputationCounts,
  ReputationOutcome,
  ReputationSubject,
  StoredResponse,
} from "../port.js";
import { decay, emptyCounts, HALF_LIFE_MS } from "../reputation.js";
import { fieldsOf, type Fields, int, MalformedReplyError, text } from "./codec.js";
import { decode, type StoreContext } from "./context.js";

/** How long Redis keeps an idempotency lock beyond lockMs (garbage collection only). */
const LOCK_GC_MARGIN_MS = 60 * 60 * 1000;

export class SideStores {
  constructor(private readonly ctx: StoreContext) {}

  /** Decays and adds in one script (record-outcome.lua), so concurrent outcomes all count. */
  async recordOutcome(subject: ReputationSubject, outcome: ReputationOutcome, now: number): Promise<void> {
    const key = this.ctx.keys.reputation(subject.kind, subject.id);
    await this.ctx.script("record-outcome", [key], [outcome, now, HALF_LIFE_MS]);
  }

  /** The stored counts decayed to `now` with reputation.ts, as MemoryHoldStore does. */
  async reputation(subject: ReputationSubject, now: number): Promise<ReputationCounts> {
    const key = this.ctx.keys.reputation(subject.kind, subject.id);
    const stored = await this.ctx.call("reputation", () => this.ctx.redis.hgetall(key));
    if (Object.keys(stored).length === 0) return emptyCounts(now);
    return decode("reputation", () =>
      decay(
        {
          expired: num(stored["expired"]),
          confirmed: num(stored["confirmed"]),
          released: num(stored["released"]),
          lifetime: num(stored["lifetime"]),
          at: num(stored["at"]),
        },
        now,
      ),
    );
  }

  /**
   * SET NX with the expiry as an absolute time: the first writer wins, and Redis forgets
   * the nonce at expiresAtSec by its own clock (the port passes no `now` here). An expiry
   * already past is accepted and forgotten at once.
   */
  async rememberIfNew(keyid: string, nonce: string, expiresAtSec: number): Promise<boolean> {
    const key = this.ctx.keys.nonce(keyid, nonce);
    const expiry = Math.max(1, Math.ceil(expiresAtSec));
    const reply = await this.ctx.call("rememberIfNew", () =>
      this.ctx.redis.set(key, "1", "EXAT", expiry, "NX"),
    );
    return reply === "OK";
  }

  async beginIdempotent(
    scope: IdempotencyScope,
    requestHash: string,
    now: number,
    lockMs: number,
    fence: string,
  ): Promise<IdempotencyBegin> {
    const key = this.ctx.keys.idempotency(scope.agentKey, scope.idempotencyKey);
    const gcMs = lockMs + LOCK_GC_MARGIN_MS;
    const list = await this.ctx.list("idem-begin", [key], [requestHash, now, lockMs, fence, gcMs]);
    return decode("beginIdempotent", (): IdempotencyBegin => {
      const state = text(list[0]);
      switch (state) {
        case "new":
          return { state: "new", fence: text(list[1]) };
        case "in_progress":
          return { state: "in_progress" };
        case "replay":
        case "conflict":
          return { state, record: recordOf(fieldsOf(list[1])) };
        default:
          throw new MalformedReplyError(`unknown idempotency state ${state}`);
      }
    });
  }

  async completeIdempotent(
    scope: IdempotencyScope,
    fence: string,
    record: { requestHash: string; principal: string | null; response: StoredResponse },
    now: number,
    retainMs: number,
  ): Promise<boolean> {
    const key = this.ctx.keys.idempotency(scope.agentKey, scope.idempotencyKey);
    const reply = await this.ctx.script(
      "idem-complete",
      [key],
      [
        fence,
        record.requestHash,
        record.principal ?? "",
        record.principal === null ? "0" : "1",
        record.response.status,
        record.response.body,
        now,
        retainMs,
      ],
    );
    return reply === 1;
  }

  async abandonIdempotent(scope: IdempotencyScope, fence: string): Promise<void> {
    const key = this.ctx.keys.idempotency(scope.agentKey, scope.idempotencyKey);
    await this.ctx.script("idem-abandon", [key], [fence]);
  }
}

function recordOf(f: Fields): IdempotencyRecord {
  const need = (field: string): string => {
    const value = f[field];
    if (value === undefined) throw new MalformedReplyError(`idempotency record lacks ${field}`);
    return value;
  };
  return {
    requestHash: need("rh"),
    principal: f["pr"] ?? null,
    response: { status: int(need("rs")), body: need("rb") },
    createdAt: int(need("ca")),
  };
}

function num(value: string | undefined): number {
  const n = Number(value ?? "0");
  if (!Number.isFinite(n)) throw new MalformedReplyError(`not a number: ${value}`);
  return n;
}
