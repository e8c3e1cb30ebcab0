/**
 * The spec's default idempotency store (OSBP "Security and Privacy Considerations":
 * "an in-process cache backed by a local file"): the core's entry decisions
 * (src/booking/idempotency/entry.ts) over a map that is written to disk before begin, settle or release resolves, so a restarted MCP
 * process still replays a settled receipt and still honours a live lease.
 *
 * Why whole-file snapshots rather than an append-only journal: each change rewrites the file
 * through a temporary file, fsync and rename, so the file on disk is always one complete,
 * parseable state and "unparseable" can only mean damage, never a crash mid-append that the
 * reader would have to tell apart from damage. The cost is O(entries) per write, which is fine
 * at the pace of human-approved bookings; expired entries are pruned on every write, so the
 * file holds at most the bookings settled within the retention window.
 *
 * A file that exists but cannot be read or parsed makes open() fail: starting empty would
 * forget receipts and let a retried booking.create reach the platform twice. One process per
 * file (file-lock.ts); operations of one store are serialized in call order.
 */
import { mkdir, readFile, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import {
  decideBegin,
  heldBy,
  type IdempotencyAttempt,
  type IdempotencyBegin,
  type IdempotencyEntry,
  type IdempotencyKey,
} from "../../../booking/idempotency/index.js";
import type { Receipt } from "../../../protocol/osbp/index.js";
import { replaceFileDurably, removeStrayTempFiles } from "./durable-file.js";
import { parseEntry, resolveTimings, storedEntry, type ResolvedTimings } from "./entry-codec.js";
import { errorCode, messageOf } from "./errors.js";
import { acquireFileLock, type FileLock } from "./file-lock.js";
import {
  IdempotencyStoreError,
  storedKey,
  type IdempotencyTimings,
  type OsbpIdempotencyStore,
} from "./port.js";

/** Relative to the working directory, beside the audit log's default (.osbp/audit/). */
export const DEFAULT_IDEMPOTENCY_PATH = ".osbp/idempotency.json";
export const IDEMPOTENCY_PATH_ENV = "OSBP_IDEMPOTENCY_PATH";

const FORMAT = "osbp-idempotency";
const VERSION = 1;

/** By storedKey. */
type Entries = ReadonlyMap<string, IdempotencyEntry<Receipt>>;

export class FileIdempotencyStore implements OsbpIdempotencyStore {
  /** Absolute path of the file. */
  readonly path: string;
  #entries: Entries;
  readonly #timings: ResolvedTimings;
  readonly #lock: FileLock;
  /** The last queued operation; each new one starts after it settles. */
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, entries: Entries, timings: ResolvedTimings, lock: FileLock) {
    this.path = path;
    this.#entries = entries;
    this.#timings = timings;
    this.#lock = lock;
  }

  /**
   * Creates missing parent directories, takes `<path>.lock`, removes temporary files a
   * crashed writer left, and loads the file (absent: empty). Rejects with
   * IdempotencyStoreError naming the path when any of that fails.
   */
  static async open(path: string, timings?: IdempotencyTimings): Promise<FileIdempotencyStore> {
    const resolved = resolveTimings(timings);
    let absolute = resolve(path);
    try {
      await mkdir(dirname(absolute), { recursive: true, mode: 0o700 });
      // Canonical, so two spellings of one directory (a symlink) share one lock check.
      absolute = join(await realpath(dirname(absolute)), basename(absolute));
    } catch (error) {
      throw new IdempotencyStoreError(
        `cannot create the directory of idempotency file ${absolute}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    const lock = await acquireFileLock(`${absolute}.lock`, absolute);
    try {
      await removeStrayTempFiles(absolute).catch((error: unknown) => {
        throw new IdempotencyStoreError(
          `cannot clean up temporary files beside idempotency file ${absolute}: ${messageOf(error)}`,
          { cause: error },
        );
      });
      return new FileIdempotencyStore(absolute, await load(absolute), resolved, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  begin(id: IdempotencyKey, fingerprint: string, now: number): Promise<IdempotencyBegin<Receipt>> {
    const key = storedKey(id);
    return this.#serial(async (): Promise<IdempotencyBegin<Receipt>> => {
      const decision = decideBegin(this.#entries.get(key), fingerprint, now);
      if (decision.kind === "replay") return { kind: "replay", answer: structuredClone(decision.answer) };
      if (decision.kind !== "free") return decision;
      await this.#commit(now, (next) =>
        next.set(key, { state: "started", fingerprint, until: now + this.#timings.leaseMs }),
      );
      return { kind: "started", claim: fingerprint };
    });
  }

  settle(attempt: IdempotencyAttempt, receipt: Receipt, now: number): Promise<void> {
    const key = storedKey(attempt.id);
    return this.#serial(async () => {
      if (!heldBy(this.#entries.get(key), attempt.claim)) return;
      const stored = structuredClone(receipt);
      await this.#commit(now, (next) =>
        next.set(key, {
          state: "settled",
          fingerprint: attempt.claim,
          answer: stored,
          until: now + this.#timings.retentionMs,
        }),
      );
    });
  }

  release(attempt: IdempotencyAttempt): Promise<void> {
    const key = storedKey(attempt.id);
    return this.#serial(async () => {
      if (!heldBy(this.#entries.get(key), attempt.claim)) return;
      // The port gives release no clock, so nothing is pruned on this write.
      await this.#commit(undefined, (next) => next.delete(key));
    });
  }

  /** Waits for queued operations, then releases the lock. Later operations reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail;
    await this.#lock.release();
  }

  #serial<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new IdempotencyStoreError(`idempotency store ${this.path} is closed`));
    }
    const run = this.#tail.then(operation);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /**
   * Applies `change` to a copy without entries expired at `now`, writes the copy durably, and
   * only then adopts it: a failed write leaves memory as the file was, which is what the
   * caller (told of the failure) must assume.
   */
  async #commit(
    now: number | undefined,
    change: (next: Map<string, IdempotencyEntry<Receipt>>) => void,
  ): Promise<void> {
    const next = new Map(
      now === undefined ? this.#entries : [...this.#entries].filter(([, entry]) => entry.until > now),
    );
    change(next);
    try {
      await replaceFileDurably(this.path, serialize(next));
    } catch (error) {
      throw new IdempotencyStoreError(`cannot write idempotency file ${this.path}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    this.#entries = next;
  }
}

function serialize(entries: Entries): string {
  const list = [...entries].map(([key, entry]) => ({ key, ...storedEntry(entry) }));
  return `${JSON.stringify({ format: FORMAT, version: VERSION, entries: list })}\n`;
}

async function load(path: string): Promise<Entries> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return new Map();
    throw new IdempotencyStoreError(`cannot read idempotency file ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const parsed = parseFile(text);
  if (typeof parsed === "string") {
    throw new IdempotencyStoreError(
      `idempotency file ${path} is corrupt (${parsed}); refusing to start with an empty cache, ` +
        "which could let a retried booking.create reach the platform twice. " +
        "Inspect the file or move it aside, then start again.",
    );
  }
  return parsed;
}

function parseFile(text: string): Entries | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${messageOf(error)}`;
  }
  if (typeof value !== "object" || value === null) return "not a JSON object";
  const { format, version, entries } = value as Record<string, unknown>;
  if (format !== FORMAT) return `format is ${JSON.stringify(format)}, expected "${FORMAT}"`;
  if (version !== VERSION) return `unsupported version ${JSON.stringify(version)}`;
  if (!Array.isArray(entries)) return "entries is not an array";
  const map = new Map<string, IdempotencyEntry<Receipt>>();
  for (const [index, item] of (entries as unknown[]).entries()) {
    const key = (item as { key?: unknown } | null)?.key;
    if (typeof key !== "string") return `entry ${index} has no string key`;
    if (map.has(key)) return `key ${JSON.stringify(key)} appears twice`;
    const entry = parseEntry(item);
    if (typeof entry === "string") return `entry ${index}: ${entry}`;
    map.set(key, entry);
  }
  return map;
}
