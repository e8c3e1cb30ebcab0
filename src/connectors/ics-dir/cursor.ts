/**
 * The ics-dir sync cursor: every file's version with its size, mtime and inode at the last
 * sync, as base64url of one JSON object { eventId: [version, size, mtime ms, inode] } — the
 * format earlier versions wrote and read, so stored sync state keeps working both ways.
 *
 * Writing it whole on every sync would cost a JSON encoding of every file after one change, so
 * it is built from pieces that are encoded once and joined:
 * - each entry is encoded on its own (a `,"id":[…]` fragment padded with JSON whitespace to a
 *   multiple of 3 bytes, so base64 of the pieces joined is base64 of the text joined), and a
 *   tuple carried unchanged keeps its fragment (a WeakMap on the tuple);
 * - a Listing is a `base` (its encoded chunk kept) and a small `overlay` of what changed since:
 *   the overlay's entries follow the base's in the text, and JSON.parse keeps the last value of
 *   a repeated key, so the overlay wins. A file gone is `"id":0` (not an array: absent). When
 *   the overlay grows past a sixteenth of the base it is folded into a new base (amortized:
 *   a few fragments per change).
 * The string returned is the base chunk and the overlay chunk concatenated; V8 concatenates
 * without copying, so an unchanged majority is not touched again.
 */

/** A file as the cursor remembers it: [version, size, mtime ms, inode]; size -1: read again. */
export type Seen = readonly [string, number, number, number];

/** What a sync compares against: this process's listing, or a decoded cursor. */
export interface Previous {
  /** A string: an earlier cursor's version alone (the file is read and compared). */
  get(id: string): Seen | string | undefined;
  ids(): Iterable<string>;
}

/** Pads the ASCII text to a multiple of 3 bytes with spaces, and encodes it. */
function chunk(text: string): string {
  const pad = (3 - (text.length % 3)) % 3;
  return Buffer.from(pad === 0 ? text : text + " ".repeat(pad), "latin1").toString("base64url");
}
// Event ids (connector.ts's ID), versions (base64url) and numbers are ASCII: no escaping needed.
const text = (id: string, seen: Seen | null) =>
  seen === null ? `"${id}":0` : `"${id}":[${JSON.stringify(seen[0])},${seen[1]},${seen[2]},${seen[3]}]`;

const fragments = new WeakMap<Seen, string>();
function fragment(id: string, seen: Seen): string {
  let f = fragments.get(seen);
  if (f === undefined) {
    f = chunk(`,${text(id, seen)}`);
    fragments.set(seen, f);
  }
  return f;
}
const OPEN = chunk("{");
const CLOSE = Buffer.from("}").toString("base64url");

export class Listing implements Previous {
  readonly #base: ReadonlyMap<string, Seen>;
  /** base64url of "{" and the base's entries (each padded): `OPEN` when there are none. */
  readonly #baseChunk: string;
  readonly #overlay: ReadonlyMap<string, Seen | null>;
  #encoded: string | undefined;

  private constructor(
    base: ReadonlyMap<string, Seen>,
    baseChunk: string,
    overlay: ReadonlyMap<string, Seen | null>,
  ) {
    this.#base = base;
    this.#baseChunk = baseChunk;
    this.#overlay = overlay;
  }

  /** Every file of a full listing (its map is kept, never changed). */
  static of(files: ReadonlyMap<string, Seen>): Listing {
    const parts: string[] = [];
    let first = true;
    for (const [id, seen] of files) {
      // The first entry has no comma before it; it alone is encoded here each time.
      parts.push(first ? chunk(`{${text(id, seen)}`) : fragment(id, seen));
      first = false;
    }
    return new Listing(files, first ? OPEN : parts.join(""), new Map());
  }

  get(id: string): Seen | undefined {
    const o = this.#overlay.get(id);
    if (o !== undefined) return o ?? undefined;
    return this.#overlay.has(id) ? undefined : this.#base.get(id);
  }

  *ids(): Iterable<string> {
    for (const id of this.#base.keys()) if (!this.#overlay.has(id)) yield id;
    for (const [id, seen] of this.#overlay) if (seen !== null) yield id;
  }

  /** This listing with `changes` (null: gone); this one is left as it is. */
  with(changes: ReadonlyMap<string, Seen | null>): Listing {
    if (changes.size === 0) return this;
    const overlay = new Map(this.#overlay);
    for (const [id, seen] of changes) {
      // Gone and never in the base: nothing to override.
      if (seen === null && !this.#base.has(id)) overlay.delete(id);
      else overlay.set(id, seen);
    }
    if (overlay.size <= Math.max(64, this.#base.size >> 4))
      return new Listing(this.#base, this.#baseChunk, overlay);
    const files = new Map<string, Seen>();
    for (const [id, seen] of this.#base) if (!overlay.has(id)) files.set(id, seen);
    for (const [id, seen] of overlay) if (seen !== null) files.set(id, seen);
    return Listing.of(files);
  }

  /** The cursor: base64url of the JSON object, the base's chunk reused as it is. */
  encode(): string {
    if (this.#encoded !== undefined) return this.#encoded;
    let tail = "";
    let first = this.#baseChunk === OPEN;
    for (const [id, seen] of this.#overlay) {
      if (first) tail += chunk(text(id, seen));
      else tail += seen === null ? chunk(`,${text(id, null)}`) : fragment(id, seen);
      first = false;
    }
    this.#encoded = this.#baseChunk + tail + CLOSE;
    return this.#encoded;
  }
}

/**
 * A cursor read back (another process wrote it, or this one before a restart): today's format
 * and the earliest one ({ id: version }) alike. Undefined when it is not one this connector
 * wrote.
 */
export function decodeCursor(cursor: string): Previous | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const map = new Map<string, Seen | string>();
  for (const [id, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof v === "string") map.set(id, v);
    else if (
      Array.isArray(v) &&
      v.length === 4 &&
      typeof v[0] === "string" &&
      v.slice(1).every(Number.isFinite)
    )
      map.set(id, v as unknown as Seen);
    // Anything else (0: a file gone, see the header) is absent.
  }
  return { get: (id) => map.get(id), ids: () => map.keys() };
}
