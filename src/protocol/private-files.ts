/**
 * Files the gateway keeps that hold a secret or a person's data (approval links, guests' names
 * in calendar events, booking details, tokens, keys, audit records): owner-only, 0600 in a 0700
 * directory, whatever the process's umask and whatever mode an existing file or directory was
 * left with. The mode given to open() and mkdir() is masked by the umask and ignored for what
 * already exists, so each is set again with chmod on the handle or path.
 */
import { chmod, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";

export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/** The directory, made if missing, owner-only (the parents it makes too; an existing one tightened). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await tightenDir(dir);
}

/**
 * chmod 0700, except where the process may not (a volume another user owns, as a container
 * platform mounts it, or a read-only one): the files in it are owner-only all the same, and a
 * directory the gateway cannot tighten must not stop it from starting.
 */
export async function tightenDir(dir: string): Promise<void> {
  try {
    await chmod(dir, PRIVATE_DIR_MODE);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "EROFS") throw e;
  }
}

export interface PrivateWriteOptions {
  /** "w" (default), "a" to append, "wx" to create only. */
  readonly flag?: "w" | "a" | "wx";
  /**
   * Tighten the directory too when it already exists: only for the gateway's own directories
   * (the data dir and what is under it), never one an operator named for something else.
   */
  readonly privateDir?: boolean;
}

/**
 * Writes `data` to `path` through a handle that is owner-only before the first byte lands; a
 * missing directory is made owner-only.
 */
export async function writePrivateFile(
  path: string,
  data: string | Uint8Array,
  options: PrivateWriteOptions = {},
): Promise<void> {
  if (options.privateDir === true) await ensurePrivateDir(dirname(path));
  else await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  const handle = await open(path, options.flag ?? "w", PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/** Appends one record (a line) to an owner-only file. */
export function appendPrivateFile(
  path: string,
  data: string,
  options: Omit<PrivateWriteOptions, "flag"> = {},
): Promise<void> {
  return writePrivateFile(path, data, { ...options, flag: "a" });
}
