/**
 * Whole-file replacement that is never torn and survives a crash once it resolves: write a
 * temporary file beside the target (same directory, so rename stays on one filesystem),
 * fsync it, rename it over the target, fsync the directory so the rename itself is on disk.
 * A crash at any point leaves either the old file or the new one, plus at worst a stray
 * temporary file that `removeStrayTempFiles` collects on the next open.
 */
import { randomBytes } from "node:crypto";
import { open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Owner read/write only: the file holds receipts whose text may name the customer. */
export const PRIVATE_FILE_MODE = 0o600;

const tempName = (target: string): string =>
  `${basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;

const strayPattern = (target: string): RegExp =>
  new RegExp(`^${basename(target).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.\\d+\\.[0-9a-f]+\\.tmp$`);

export async function replaceFileDurably(target: string, contents: string): Promise<void> {
  const temp = join(dirname(target), tempName(target));
  try {
    const handle = await open(temp, "wx", PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(contents, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(target));
}

/** Makes a rename or unlink in `dir` durable. Windows cannot open a directory; it journals renames itself. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Deletes temporary files a crashed writer left beside `target`. Only call while holding
 * the target's lock: a live writer's temporary file looks the same.
 */
export async function removeStrayTempFiles(target: string): Promise<void> {
  const pattern = strayPattern(target);
  const names = await readdir(dirname(target));
  await Promise.all(
    names.filter((name) => pattern.test(name)).map((name) => unlink(join(dirname(target), name))),
  );
}
