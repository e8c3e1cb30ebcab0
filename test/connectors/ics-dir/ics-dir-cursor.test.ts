import { describe, expect, it } from "vitest";
import { decodeCursor, Listing, type Seen } from "../../../src/connectors/ics-dir/cursor.js";

const seen = (i: number, v: number): Seen => [`v${i}-${v}`, 100 + v, 1_700_000_000_000 + v, 1000 + i];
const asObject = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;

describe("the ics-dir cursor: a base and an overlay, one JSON object when decoded", () => {
  it("decodes to every file as it is after any series of changes (folding the overlay as it grows)", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const truth = new Map<string, Seen>();
    for (let i = 0; i < 200; i++) truth.set(`e${i}`, seen(i, 0));
    let listing = Listing.of(new Map(truth));
    for (let round = 1; round < 60; round++) {
      const changes = new Map<string, Seen | null>();
      for (let k = 0; k < 1 + rand(6); k++) {
        const i = rand(260);
        const id = `e${i}`;
        const gone = rand(4) === 0;
        changes.set(id, gone ? null : seen(i, round));
      }
      for (const [id, s] of changes)
        if (s === null) truth.delete(id);
        else truth.set(id, s);
      const before = listing;
      listing = listing.with(changes);
      // The listing it came from is unchanged (a caller may come back to its cursor).
      expect(before.encode()).toBe(before.encode());
      const decoded = decodeCursor(listing.encode());
      expect(decoded).toBeDefined();
      expect(new Set(decoded?.ids())).toEqual(new Set(truth.keys()));
      for (const [id, s] of truth) expect(decoded?.get(id)).toEqual(s);
      expect(new Set(listing.ids())).toEqual(new Set(truth.keys()));
      for (const [id, s] of truth) expect(listing.get(id)).toEqual(s);
      // What an earlier version reads: the same files, a gone one as a non-array it skips.
      const plain = asObject(listing.encode());
      expect(
        Object.keys(plain)
          .filter((k) => Array.isArray(plain[k]))
          .sort(),
      ).toEqual([...truth.keys()].sort());
    }
  });

  it("an empty directory, and one file added to it", () => {
    const empty = Listing.of(new Map());
    expect(asObject(empty.encode())).toEqual({});
    const one = empty.with(new Map([["a", seen(1, 1)]]));
    expect(asObject(one.encode())).toEqual({ a: [...seen(1, 1)] });
  });

  it("a cursor that is not a JSON object is not one this connector wrote", () => {
    expect(decodeCursor("bm90IGpzb24")).toBeUndefined();
    expect(decodeCursor(Buffer.from("[1,2]").toString("base64url"))).toBeUndefined();
  });
});
