/**
 * One calendar file read under a byte cap: its size is checked before a byte is read, and the read itself stops one byte
 * past the cap (a file that grew after the check is caught too), so a file of gigabytes costs
 * no more than the cap.
 */
import { open } from "node:fs/promises";

export type CappedFile =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly tooLarge: true; readonly size: number };

/** The file's bytes, at most `maxBytes` of them; throws what fs throws (ENOENT…). */
export async function readFileCapped(path: string, maxBytes: number): Promise<CappedFile> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) return { ok: false, tooLarge: true, size };
    // One byte more than the cap: reading it means the file is over the cap after all.
    const buffer = new Uint8Array(Math.min(size, maxBytes) + 1);
    let read = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, read, buffer.byteLength - read, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read === buffer.byteLength) {
        if (read > maxBytes) return { ok: false, tooLarge: true, size: read };
        break;
      }
    }
    return { ok: true, bytes: buffer.slice(0, read) };
  } finally {
    await handle.close();
  }
}
