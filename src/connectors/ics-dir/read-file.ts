/**
 * One calendar file read under a byte cap: its size is checked before a byte is read, and the read itself stops one byte
 * past the cap (a file that grew after the check is caught too), so a file of gigabytes costs
 * no more than the cap.
 */
import { open } from "node:fs/promises";
import type { Result } from "../../protocol/result.js";

/** The file's bytes, or the size that put it over the cap. */
export type CappedFile = Result<Uint8Array, { readonly tooLarge: true; readonly size: number }>;

/** The file's bytes, at most `maxBytes` of them; throws what fs throws (ENOENT…). */
export async function readFileCapped(path: string, maxBytes: number): Promise<CappedFile> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) return { ok: false, error: { tooLarge: true, size } };
    // One byte more than the cap: reading it means the file is over the cap after all.
    const buffer = new Uint8Array(Math.min(size, maxBytes) + 1);
    let read = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, read, buffer.byteLength - read, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read === buffer.byteLength) {
        if (read > maxBytes) return { ok: false, error: { tooLarge: true, size: read } };
        break;
      }
    }
    return { ok: true, value: buffer.slice(0, read) };
  } finally {
    await handle.close();
  }
}
