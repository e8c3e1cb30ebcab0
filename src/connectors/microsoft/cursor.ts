/**
 * The sync cursor handed to the caller: Graph's own link, kept byte for byte and replayed as
 * written, plus the horizon the lineage was read to (`readUntil`: the window of the round's
 * first request, which Graph encodes into its links where it cannot be read back) and, for a
 * nextLink, whether the round is the initial full one (which has nothing to remove).
 */
export type GraphCursor =
  | { readonly k: "next"; readonly link: string; readonly readUntil: number; readonly full: boolean }
  | { readonly k: "delta"; readonly link: string; readonly readUntil: number };

const PREFIX = "msgraph1.";

export function encodeCursor(cursor: GraphCursor): string {
  return PREFIX + Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url");
}

/** The cursor, or undefined when it is not one of ours or its link is not Graph's (https). */
export function decodeCursor(text: string, base: string): GraphCursor | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  try {
    const c = JSON.parse(Buffer.from(text.slice(PREFIX.length), "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    if (typeof c.link !== "string" || typeof c.readUntil !== "number" || !Number.isFinite(c.readUntil))
      return undefined;
    // Only ever replay a link to the Graph host we talk to: a cursor is stored data.
    if (new URL(c.link).origin !== new URL(base).origin) return undefined;
    if (c.k === "next" && typeof c.full === "boolean")
      return { k: "next", link: c.link, readUntil: c.readUntil, full: c.full };
    if (c.k === "delta") return { k: "delta", link: c.link, readUntil: c.readUntil };
    return undefined;
  } catch {
    return undefined;
  }
}
