/**
 * Sealed token records in the data directory: `<dataDir>/credentials/<host id>.json`, one
 * file per host, owner-only (0600 in a 0700 directory, as the other secrets there:
 * runtime/secret-files.ts).
 *
 * Unlike those write-once secrets a record is replaced on every refresh, so a write goes to a
 * private temporary file (created 0600, flushed) and is renamed over the old one: rename is
 * atomic within a directory, so a reader (another process sharing the data dir) sees the old
 * record or the new one, never a torn file, and a crash mid-write leaves the old record.
 */
import { randomBytes } from "node:crypto";
import { chmod, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ensureSecretDir, SECRET_FILE_MODE } from "../runtime/secret-files.js";
import { checkHostId, type SealedStore } from "./store.js";

export const CREDENTIALS_DIR = "credentials";

const isCode = (e: unknown, code: string): boolean =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;

export class FileSealedStore implements SealedStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, CREDENTIALS_DIR);
  }

  private path(hostId: string): string {
    checkHostId(hostId);
    return join(this.dir, `${hostId}.json`);
  }

  async read(hostId: string): Promise<string | undefined> {
    try {
      return await readFile(this.path(hostId), "utf8");
    } catch (e) {
      if (isCode(e, "ENOENT")) return undefined;
      throw e;
    }
  }

  async write(hostId: string, sealed: string): Promise<void> {
    const target = this.path(hostId);
    await ensureSecretDir(this.dir);
    const temp = join(this.dir, `.${hostId}.${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temp, "wx", SECRET_FILE_MODE);
    try {
      await handle.writeFile(sealed, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      // The umask may have narrowed nothing, but an odd one could widen nothing either: be exact.
      await chmod(temp, SECRET_FILE_MODE);
      await rename(temp, target);
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
  }

  async delete(hostId: string): Promise<void> {
    await unlink(this.path(hostId)).catch((e: unknown) => {
      if (!isCode(e, "ENOENT")) throw e;
    });
  }

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if (isCode(e, "ENOENT")) return [];
      throw e;
    }
    return names
      .filter((n) => n.endsWith(".json") && !n.startsWith("."))
      .map((n) => n.slice(0, -".json".length))
      .sort();
  }
}
