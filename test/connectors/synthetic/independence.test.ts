/**
 * The synthetic platform stands for an outside system (docs/ARCHITECTURE.md, Folders): its hours, slots and
 * allocation are its own code. It may use the connector port and src/protocol's pure helpers
 * (time, money, results) and the Redis helpers (client, connection, key names, scripts), never
 * the gateway's hold store, booking core, calendar arithmetic or edges, so tests can catch the
 * gateway and a platform disagreeing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const DIR = join(import.meta.dirname, "../../../src/connectors/synthetic");
const ALLOWED = [
  /^\.\/[\w-]+\.js$/,
  /^\.\.\/port\.js$/,
  /^\.\.\/\.\.\/protocol\//,
  /^\.\.\/\.\.\/redis\/(script|client|connection|keys)\.js$/,
  /^node:/,
  /^ioredis$/,
  /^temporal-polyfill$/,
];

describe("the synthetic platform imports none of the gateway's own code", () => {
  it("every import of src/connectors/synthetic is the port, protocol helpers or a library", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    const bad: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(DIR, f), "utf8");
      for (const m of text.matchAll(/\bfrom\s+"([^"]+)"/g)) {
        const spec = m[1] ?? "";
        if (!ALLOWED.some((re) => re.test(spec))) bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
