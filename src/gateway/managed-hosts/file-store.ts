/**
 * ManagedHostStore in the data directory, for a gateway without Redis: one file per host,
 * <dataDir>/hosts/<id>.json, owner-only (a config may name a calendar path or an approver's
 * address), written whole to a temporary file and renamed into place so a reader never sees
 * half a record. Writes hold a lock file (<dataDir>/hosts/.lock, created exclusively; one left
 * by a crashed process is taken over after LOCK_STALE_MS) so a compare-then-replace is never
 * split by another process sharing the directory. `version()` is a token rewritten (fresh
 * random) on every write, so a second process on the same directory notices any change.
 *
 * Which owner has which hosts is kept in memory (owner-index.ts), built from the files once
 * and kept with this process's own writes; a version token this process did not write (a
 * second process wrote) has it built again. An owner's page then reads that owner's files only.
 */
import { randomBytes } from "node:crypto";
import { link, readFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { ensureSecretDir, SECRET_FILE_MODE } from "../runtime/secret-files.js";
import { OwnerIndex } from "./owner-index.js";
import type {
  CreateAnswer,
  ManagedHostRecord,
  ManagedHostStore,
  OwnerCaps,
} from "../../edges/console/managed-hosts.js";
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
  /** The per-owner index and the version token it reflects. */
  private indexed: { version: string; owners: OwnerIndex } | undefined;

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

  async listOwnedBy(owner: string): Promise<ManagedHostRecord[]> {
    const ids = (await this.index()).ids(owner);
    const records: ManagedHostRecord[] = [];
    for (const id of ids) {
      const r = await this.get(id);
      if (r?.owner === owner) records.push(r);
    }
    return records;
  }

  create(record: ManagedHostRecord, caps: OwnerCaps): Promise<CreateAnswer> {
    return this.serial(async () => {
      const over = (await this.index()).overCap(record, caps);
      if (over !== undefined) return (await this.get(record.id)) === undefined ? over : "exists";
      const done = await this.write(record);
      return done === "conflict" ? "exists" : done;
    });
  }

  put(record: ManagedHostRecord, ifUpdatedAt?: number): Promise<"ok" | "exists" | "conflict"> {
    return this.serial(() => this.write(record, ifUpdatedAt));
  }

  /** put's work, inside serial(). */
  private async write(
    record: ManagedHostRecord,
    ifUpdatedAt?: number,
  ): Promise<"ok" | "exists" | "conflict"> {
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
        if (stored?.updatedAt !== ifUpdatedAt || stored.owner !== record.owner) return "conflict";
        await rename(temp, path);
      }
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    await this.bump((owners) => owners.set(record));
    return "ok";
  }

  delete(id: string): Promise<void> {
    return this.serial(async () => {
      if (!isHostId(id)) return;
      const stored = await this.get(id);
      try {
        await unlink(this.path(id));
      } catch (e) {
        if (isCode(e, "ENOENT")) return;
        throw e;
      }
      // An unreadable record has no known owner: the index is built again instead.
      await this.bump(stored === undefined ? undefined : (owners) => owners.delete(stored));
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

  /**
   * A new version token; `change` keeps the index with it when the index was current before
   * this write (inside serial(), under the lock: no other write came between).
   */
  private async bump(change?: (owners: OwnerIndex) => void): Promise<void> {
    const before = await this.version();
    const token = `${Date.now()}-${randomBytes(8).toString("hex")}`;
    const temp = this.temp();
    await writeFile(temp, `${token}\n`, { mode: SECRET_FILE_MODE });
    await rename(temp, join(this.dir, VERSION_FILE));
    const current = this.indexed;
    if (change !== undefined && current?.version === before) {
      change(current.owners);
      this.indexed = { version: token, owners: current.owners };
    } else this.indexed = undefined;
  }

  /** The per-owner index, built from every file when another process (or nothing yet) wrote last. */
  private async index(): Promise<OwnerIndex> {
    const version = await this.version();
    if (this.indexed?.version === version) return this.indexed.owners;
    const owners = OwnerIndex.of(await this.list());
    // Kept only if nothing was written meanwhile; else built again next time.
    if ((await this.version()) === version) this.indexed = { version, owners };
    return owners;
  }

  close(): Promise<void> {
    return this.queue.then(() => undefined);
  }
}
