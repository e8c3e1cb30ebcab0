/**
 * ManagedHostStore in the data directory, for a gateway without Redis: one file per host,
 * <dataDir>/hosts/<id>.json, owner-only (a config may name a calendar path or an approver's
 * address), written whole to a temporary file and renamed into place so a reader never sees
 * half a record. Writes hold a lock file (<dataDir>/hosts/.lock, created exclusively; one left
 * by a crashed process is taken over after LOCK_STALE_MS) so a compare-then-replace is never
 * split by another process sharing the directory. `version()` is a token rewritten (fresh
 * random) on every write, so a second process on the same directory notices any change.
 */
import { randomBytes } from "node:crypto";
import { link, readFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { ensureSecretDir, SECRET_FILE_MODE } from "../runtime/secret-files.js";
import type { ManagedHostRecord, ManagedHostStore } from "./port.js";
import { isHostId, parseRecord } from "./record-json.js";

const VERSION_FILE = ".version";
const LOCK_FILE = ".lock";
/** A write takes milliseconds: a lock this old belongs to a process that died holding it. */
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

const isCode = (e: unknown, code: string): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

export class FileManagedHostStore implements ManagedHostStore {
  readonly dir: string;
  /** Writes in this process one at a time: a compare-then-replace is not split by another. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.dir = join(dataDir, "hosts");
  }

  private path(id: string): string {
    // The id becomes a file name: only a host id (no dots, no slashes) may.
    if (!isHostId(id)) throw new Error(`not a host id: ${JSON.stringify(id)}`);
    return join(this.dir, `${id}.json`);
  }

  private temp(): string {
    return join(this.dir, `.${randomBytes(8).toString("hex")}.tmp`);
  }

  /** One write at a time: in this process by a queue, across processes by the lock file. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const locked = async (): Promise<T> => {
      await ensureSecretDir(this.dir);
      const release = await this.lock();
      try {
        return await fn();
      } finally {
        await release();
      }
    };
    const run = this.queue.then(locked, locked);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async lock(): Promise<() => Promise<void>> {
    const path = join(this.dir, LOCK_FILE);
    const token = randomBytes(8).toString("hex");
    const until = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        await writeFile(path, token, { mode: SECRET_FILE_MODE, flag: "wx" });
        return () => unlink(path).catch(() => undefined);
      } catch (e) {
        if (!isCode(e, "EEXIST")) throw e;
      }
      const held = await stat(path).catch(() => undefined);
      if (held !== undefined && Date.now() - held.mtimeMs > LOCK_STALE_MS) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      if (Date.now() > until) throw new Error(`managed hosts: ${path} stays locked`);
      await sleep(5 + Math.random() * 10);
    }
  }

  async list(): Promise<ManagedHostRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if (isCode(e, "ENOENT")) return [];
      throw e;
    }
    const records: ManagedHostRecord[] = [];
    for (const name of names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) {
      const r = await this.get(name.slice(0, -".json".length));
      if (r !== undefined) records.push(r);
    }
    return records;
  }

  async get(id: string): Promise<ManagedHostRecord | undefined> {
    if (!isHostId(id)) return undefined;
    try {
      const r = parseRecord(await readFile(this.path(id), "utf8"));
      return r?.id === id ? r : undefined;
    } catch (e) {
      if (isCode(e, "ENOENT")) return undefined;
      throw e;
    }
  }

  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    return this.serial(async () => {
      const path = this.path(record.id);
      const temp = this.temp();
      await writeFile(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: SECRET_FILE_MODE, flag: "wx" });
      try {
        if (ifUpdatedAt === undefined) {
          try {
            await link(temp, path);
          } catch (e) {
            if (isCode(e, "EEXIST")) return "exists";
            throw e;
          }
        } else {
          const stored = await this.get(record.id);
          if (stored?.updatedAt !== ifUpdatedAt) return "conflict";
          await rename(temp, path);
        }
      } finally {
        await unlink(temp).catch(() => undefined);
      }
      await this.bump();
      return "ok";
    });
  }

  delete(id: string): Promise<void> {
    return this.serial(async () => {
      if (!isHostId(id)) return;
      try {
        await unlink(this.path(id));
      } catch (e) {
        if (isCode(e, "ENOENT")) return;
        throw e;
      }
      await this.bump();
    });
  }

  async version(): Promise<string> {
    try {
      return (await readFile(join(this.dir, VERSION_FILE), "utf8")).trim();
    } catch (e) {
      if (isCode(e, "ENOENT")) return "";
      throw e;
    }
  }

  private async bump(): Promise<void> {
    const temp = this.temp();
    await writeFile(temp, `${Date.now()}-${randomBytes(8).toString("hex")}\n`, { mode: SECRET_FILE_MODE });
    await rename(temp, join(this.dir, VERSION_FILE));
  }

  close(): Promise<void> {
    return this.queue.then(() => undefined);
  }
}
