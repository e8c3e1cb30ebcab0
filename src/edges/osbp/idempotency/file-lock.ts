/**
 * One process per idempotency file. Two processes each caching the file in memory would each
 * grant "started" for the same key, and the second rename would erase the first's receipts:
 * exactly the double booking the store exists to prevent. So the store takes `<file>.lock`,
 * created exclusively and holding the owner's pid.
 *
 * A lock is stale when its pid is no longer running (a crash or kill skipped close()), or
 * when it names this very pid but no store in this process holds it (a container restarted
 * and the new process got the old pid, usually 1). A stale lock is replaced; a live one is
 * refused with an error that says how to recover.
 *
 * Limits, deliberately accepted because the check is meant to be cheap: a stale lock whose pid
 * was reused by an unrelated process is refused (the message says to delete it); pids are
 * only meaningful on one host, so a file shared over a network filesystem is not protected;
 * two processes replacing the same stale lock at the same instant can both succeed.
 */
import { randomBytes } from "node:crypto";
import { readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { PRIVATE_FILE_MODE } from "./durable-file.js";
import { errorCode, messageOf } from "./errors.js";
import { IdempotencyStoreError } from "./port.js";

interface LockContents {
  readonly pid: number;
  readonly token: string;
  readonly hostname?: string;
  readonly acquired_at?: string;
}

/** Lock paths held by stores of this process (so a second open here is refused, not stale). */
const heldHere = new Set<string>();

export interface FileLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Takes `lockPath` for the file `guarded`. Pass canonical paths (symlinks resolved): the
 * in-process check compares strings.
 */
export async function acquireFileLock(lockPath: string, guarded: string): Promise<FileLock> {
  if (heldHere.has(lockPath)) {
    throw new IdempotencyStoreError(
      `idempotency file ${guarded} is already open in this process (lock ${lockPath}); ` +
        "share one store instead of opening the file twice",
    );
  }
  // Reserved before the first await, so two opens racing in this process cannot both win.
  heldHere.add(lockPath);
  try {
    const token = await createLock(lockPath, guarded);
    return { path: lockPath, release: () => releaseLock(lockPath, token) };
  } catch (error) {
    heldHere.delete(lockPath);
    throw error;
  }
}

async function createLock(lockPath: string, guarded: string): Promise<string> {
  const contents: LockContents = {
    pid: process.pid,
    token: randomBytes(12).toString("hex"),
    hostname: hostname(),
    acquired_at: new Date().toISOString(),
  };
  // Two rounds: the second follows the removal of a stale lock.
  for (let round = 0; round < 2; round++) {
    try {
      await writeFile(lockPath, `${JSON.stringify(contents)}\n`, { flag: "wx", mode: PRIVATE_FILE_MODE });
      return contents.token;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") {
        throw new IdempotencyStoreError(
          `cannot create the lock ${lockPath} for ${guarded}: ${messageOf(error)}`,
          { cause: error },
        );
      }
    }
    const holder = await readLock(lockPath, guarded);
    if (holder === undefined) continue; // removed meanwhile: try again
    if (!isStale(holder)) {
      throw new IdempotencyStoreError(
        `idempotency file ${guarded} is in use by process ${holder.pid} (lock ${lockPath}); ` +
          "two processes on one idempotency file are not supported (use the Redis store to share state). " +
          `If process ${holder.pid} is not an OSBP server, delete ${lockPath}.`,
      );
    }
    await unlink(lockPath).catch((error: unknown) => {
      if (errorCode(error) === "ENOENT") return;
      throw new IdempotencyStoreError(`cannot remove the stale lock ${lockPath}: ${messageOf(error)}`, {
        cause: error,
      });
    });
  }
  throw new IdempotencyStoreError(
    `could not take the lock ${lockPath} for ${guarded}: another process keeps taking it`,
  );
}

async function readLock(lockPath: string, guarded: string): Promise<LockContents | undefined> {
  let text: string;
  try {
    text = await readFile(lockPath, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new IdempotencyStoreError(`cannot read the lock ${lockPath} for ${guarded}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const parsed = safeParse(text);
  if (parsed === undefined) {
    // Empty or garbled: possibly a process that is writing it right now. Fail closed.
    throw new IdempotencyStoreError(
      `the lock ${lockPath} for ${guarded} is unreadable; if no other OSBP server uses this file, delete it`,
    );
  }
  return parsed;
}

function safeParse(text: string): LockContents | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { pid, token } = value as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0 || typeof token !== "string") {
      return undefined;
    }
    return { pid, token };
  } catch {
    return undefined;
  }
}

function isStale(holder: LockContents): boolean {
  // Our own pid, and the caller reserved this path in heldHere itself, so no store of this
  // process holds it: left by an earlier process that had the same pid.
  if (holder.pid === process.pid) return true;
  return !processIsAlive(holder.pid);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return errorCode(error) === "EPERM";
  }
}

/** Removes the lock only if it is still ours (an operator may have deleted and reissued it). */
async function releaseLock(lockPath: string, token: string): Promise<void> {
  heldHere.delete(lockPath);
  const text = await readFile(lockPath, "utf8").catch(() => undefined);
  if (text !== undefined && safeParse(text)?.token === token) {
    await unlink(lockPath).catch(() => undefined);
  }
}
