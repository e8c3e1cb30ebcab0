/**
 * The embedded (no Redis) mode's state kept in the data directory between processes, for
 * commands that run one short process per client session: `mcp` started afresh for each
 * call by an MCP client must still find the booking an earlier process made, and the
 * synthetic platform must still have its appointment (an outside platform would).
 *
 * One process at a time: the state is taken with `<dir>/memory.lock` (created exclusively,
 * holding the owner's pid; a lock whose process is gone is stale and replaced) for the
 * process's whole life, waiting a bounded time for the previous process to finish. Two
 * processes each with a private copy would each grant the same time, so a second one is
 * refused after the wait, with a message that says to use Redis (docs/mcp.md).
 *
 * The file is written whole through a temporary file, fsync and rename (0600 in a 0700
 * directory), after every call and on close, so it is always one complete state. It is
 * capped in bytes on read and on write: past the cap nothing is written and the write is
 * reported, never half-done. A file that exists but cannot be read makes the start fail:
 * starting empty would offer time that is already booked.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { acquireFileLock, type FileLock } from "../../edges/osbp/idempotency/file-lock.js";
import { replaceFileDurably } from "../../edges/osbp/idempotency/durable-file.js";
import { errorCode, messageOf } from "../../edges/osbp/idempotency/errors.js";
import { IdempotencyStoreError } from "../../edges/osbp/idempotency/port.js";

const FORMAT = "booking-gateway-memory-state";
const VERSION = 1;
/** Far above what a day of human-approved bookings writes; bounds the work of each save. */
const MAX_MEMORY_STATE_BYTES = 32 * 1024 * 1024;
const LOCK_WAIT_MS = 15_000;
const LOCK_POLL_MS = 100;

/** A store whose whole state can be exported and replaced (the in-memory stores). */
interface Snapshotting<S> {
  exportState(): S;
  importState(state: S): void;
}

export type SnapshotParts = Readonly<Record<string, Snapshotting<never>>>;

export interface MemoryStateFile {
  readonly path: string;
  /** Writes every part's state now. */
  save(): Promise<void>;
  /** Saves, then releases the lock. Idempotent. */
  close(): Promise<void>;
}

/** Maps and Sets survive JSON as tagged entry lists; number keys stay numbers. */
function encode(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value] };
  if (value instanceof Set) return { $set: [...value] };
  return value;
}

function decode(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$map")
      return new Map((value as { $map: [unknown, unknown][] }).$map);
    if (keys.length === 1 && keys[0] === "$set") return new Set((value as { $set: unknown[] }).$set);
  }
  return value;
}

/**
 * Takes the lock on `dir`, loads the file into every part (absent: each keeps its empty
 * state) and hands back the saver. Rejects when the lock stays taken or the file is unusable.
 */
export async function openMemoryStateFile(dir: string, parts: SnapshotParts): Promise<MemoryStateFile> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "memory.json");
  const lock = await waitForLock(join(dir, "memory.lock"), path);
  try {
    const loaded = await load(path);
    if (loaded !== undefined) {
      for (const [name, part] of Object.entries(parts)) {
        const state = loaded.get(name);
        if (state !== undefined) part.importState(state as never);
      }
    }
  } catch (error) {
    await lock.release();
    throw error;
  }
  let closed = false;
  let tail: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    const run = tail.then(() => write(path, parts));
    tail = run.catch(() => undefined);
    return run;
  };
  return {
    path,
    save,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await save();
      } finally {
        await lock.release();
      }
    },
  };
}

async function waitForLock(lockPath: string, guarded: string): Promise<FileLock> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await acquireFileLock(lockPath, guarded);
    } catch (error) {
      const busy = error instanceof IdempotencyStoreError && error.message.includes("is in use by process");
      if (!busy || Date.now() >= until) {
        throw new IdempotencyStoreError(
          `the gateway state in ${guarded} is in use by another process without Redis; ` +
            `set REDIS_URL to serve one host from several processes at once (${messageOf(error)})`,
          { cause: error },
        );
      }
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
  }
}

async function write(path: string, parts: SnapshotParts): Promise<void> {
  const state = Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, part.exportState()]));
  const text = `${JSON.stringify({ format: FORMAT, version: VERSION, state: new Map(Object.entries(state)) }, encode)}\n`;
  if (Buffer.byteLength(text) > MAX_MEMORY_STATE_BYTES) {
    throw new IdempotencyStoreError(
      `the gateway state would exceed ${MAX_MEMORY_STATE_BYTES} bytes; not written to ${path} (use Redis)`,
    );
  }
  await replaceFileDurably(path, text);
}

async function load(path: string): Promise<Map<string, unknown> | undefined> {
  let text: string;
  try {
    const info = await stat(path);
    if (info.size > MAX_MEMORY_STATE_BYTES)
      throw new IdempotencyStoreError(`${path} is larger than ${MAX_MEMORY_STATE_BYTES} bytes`);
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, decode);
  } catch (error) {
    throw new IdempotencyStoreError(`${path} is corrupt (${messageOf(error)}); move it aside to start empty`);
  }
  const { format, version, state } = (parsed ?? {}) as Record<string, unknown>;
  if (format !== FORMAT || version !== VERSION || !(state instanceof Map))
    throw new IdempotencyStoreError(`${path} is not a version ${VERSION} gateway state file`);
  return state as Map<string, unknown>;
}
