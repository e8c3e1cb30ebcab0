/**
 * The sync cursor handed to the caller: opaque, versioned, and carrying what the next call
 * needs besides Google's own token. A full sync's pages must repeat its timeMin/timeMax, and
 * an incremental sync (syncToken, which refuses timeMin/timeMax) has still only read the
 * calendar in full up to the window of the full sync that began its lineage, so that window's
 * end travels along as `readUntil`.
 */
export type GoogleCursor =
  | { readonly k: "full"; readonly pageToken: string; readonly start: number; readonly end: number }
  | {
      readonly k: "incr";
      readonly syncToken: string;
      readonly pageToken?: string;
      readonly readUntil: number;
    };

const PREFIX = "gcal1.";

export function encodeCursor(cursor: GoogleCursor): string {
  return PREFIX + Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");
}

/** The cursor, or undefined when it is not one of ours (the caller then restarts: cursor_expired). */
export function decodeCursor(text: string): GoogleCursor | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  try {
    const c = JSON.parse(Buffer.from(text.slice(PREFIX.length), "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    const str = (v: unknown): v is string => typeof v === "string" && v.length > 0;
    const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
    if (c.k === "full" && str(c.pageToken) && num(c.start) && num(c.end)) {
      return { k: "full", pageToken: c.pageToken, start: c.start, end: c.end };
    }
    if (
      c.k === "incr" &&
      str(c.syncToken) &&
      num(c.readUntil) &&
      (c.pageToken === undefined || str(c.pageToken))
    ) {
      return {
        k: "incr",
        syncToken: c.syncToken,
        readUntil: c.readUntil,
        ...(str(c.pageToken) && { pageToken: c.pageToken }),
      };
    }
    return undefined;
  } catch {
    return undefined;
  }
}
