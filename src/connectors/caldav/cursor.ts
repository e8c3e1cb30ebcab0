/**
 * The sync cursor: the collection's RFC 6578 sync-token, and the instant up to which the full
 * sync that began this lineage read the calendar. A sync-collection reports every change
 * whatever its date, but an event that already existed past the full sync's window and never
 * changed is still unknown, so an incremental sync answers the lineage's `readUntil` (the
 * horizon moves only with a new full sync). Opaque to the caller: base64url of a small JSON.
 */
export interface SyncCursor {
  readonly token: string;
  readonly readUntil: number;
}

export function encodeCursor(cursor: SyncCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, t: cursor.token, u: cursor.readUntil }), "utf8").toString(
    "base64url",
  );
}

/** undefined for a cursor this connector did not write (the caller restarts with a full sync). */
export function decodeCursor(text: string): SyncCursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown;
    if (typeof value !== "object" || value === null) return undefined;
    const { v, t, u } = value as { v?: unknown; t?: unknown; u?: unknown };
    if (v !== 1 || typeof t !== "string" || t === "" || typeof u !== "number" || !Number.isFinite(u))
      return undefined;
    return { token: t, readUntil: u };
  } catch {
    return undefined;
  }
}
