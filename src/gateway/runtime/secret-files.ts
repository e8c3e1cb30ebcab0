/**
 * Files that hold secrets in the data directory (host signing keys, the operator
 * credential): created once, owner-only (0600, in a 0700 directory), and never replaced.
 *
 * Several gateway processes may share one data directory and start at the same moment.
 * Each writes its candidate to a private temporary file and hard-links it into place;
 * link() fails when the name exists, so exactly one candidate wins and every process then
 * reads the winner. No process can ever read a half-written file.
 */
import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { tightenDir } from "../../protocol/private-files.js";

export const SECRET_FILE_MODE = 0o600;
const SECRET_DIR_MODE = 0o700;

/** Made owner-only, and tightened when it already exists wider (mkdir's mode is not applied then). */
export async function ensureSecretDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: SECRET_DIR_MODE });
  await tightenDir(dir);
}

function isCode(e: unknown, code: string): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === code;
}

/**
 * The file's contents, creating it with `create()` when it does not exist. Returns whether
 * this call created it. A file that exists with looser permissions is tightened to 0600.
 */
export async function readOrCreateSecret(
  path: string,
  create: () => string,
): Promise<{ readonly text: string; readonly created: boolean }> {
  const existing = await readIfExists(path);
  if (existing !== undefined) return { text: existing, created: false };

  await ensureSecretDir(dirname(path));
  const temp = join(dirname(path), `.${randomBytes(8).toString("hex")}.tmp`);
  await writeFile(temp, create(), { mode: SECRET_FILE_MODE, flag: "wx" });
  try {
    await link(temp, path);
    return { text: await readFile(path, "utf8"), created: true };
  } catch (e) {
    if (!isCode(e, "EEXIST")) throw e;
    // Another process won the race: its file is complete (it was linked whole).
    return { text: await readFile(path, "utf8"), created: false };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) await chmod(path, SECRET_FILE_MODE);
    return await readFile(path, "utf8");
  } catch (e) {
    if (isCode(e, "ENOENT")) return undefined;
    throw e;
  }
}
