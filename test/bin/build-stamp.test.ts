/**
 * bin/booking-gateway.js never runs a dist/ older than the src/ beside it: the decision
 * (bin/build-stamp.js, chooseEntry) over checkouts made in temp dirs, in process.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chooseEntry, DIST_MAIN, sourceHash, writeBuildStamp } from "../../bin/build-stamp.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "gw-bin-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(join(root, path, ".."), { recursive: true });
  await writeFile(join(root, path), text);
}

/** A checkout with sources, built (dist/ and its stamp) from them. */
async function builtCheckout(): Promise<void> {
  await put("src/gateway/cli/main.ts", "export {};\n");
  await put("src/holds/redis/lua/place-hold.lua", "return 1\n");
  await put("src/booking/README.md", "# core\n");
  await put(DIST_MAIN, "export {};\n");
  writeBuildStamp(root);
}

describe("chooseEntry", () => {
  it("runs dist/ when its stamp matches the src/ present", async () => {
    await builtCheckout();
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "dist" });
    expect(chooseEntry(root, { tsx: false })).toEqual({ run: "dist" });
  });

  it("runs src/ through tsx once a source changed after the build", async () => {
    await builtCheckout();
    await appendFile(join(root, "src/gateway/cli/main.ts"), "// changed\n");
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "src", stale: true });
  });

  it("counts a new source file and a changed Lua script, not a README", async () => {
    await builtCheckout();
    await put("src/booking/README.md", "# the core, reworded\n");
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "dist" });
    await put("src/holds/redis/lua/place-hold.lua", "return 2\n");
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "src", stale: true });
    writeBuildStamp(root);
    await put("src/gateway/new.ts", "export {};\n");
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "src", stale: true });
  });

  it("without tsx, refuses a stale dist/ with a message saying to run npm run build", async () => {
    await builtCheckout();
    await appendFile(join(root, "src/gateway/cli/main.ts"), "// changed\n");
    const entry = chooseEntry(root, { tsx: false });
    expect(entry.run).toBe("none");
    expect(entry.run === "none" && entry.message).toMatch(/not installed to run src\/: run `npm run build`/);
  });

  it("treats a dist/ without a stamp (built before stamps) as stale", async () => {
    await builtCheckout();
    await rm(join(root, "dist/build-stamp.json"));
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "src", stale: true });
    expect(chooseEntry(root, { tsx: false }).run).toBe("none");
  });

  it("runs src/ in a checkout never built, or says to build it", async () => {
    await put("src/gateway/cli/main.ts", "export {};\n");
    expect(chooseEntry(root, { tsx: true })).toEqual({ run: "src", stale: false });
    const entry = chooseEntry(root, { tsx: false });
    expect(entry.run === "none" && entry.message).toMatch(/is not built.*run `npm run build`/);
  });

  it("runs dist/ in a packed install, where there is no src/", async () => {
    await builtCheckout();
    await rm(join(root, "src"), { recursive: true });
    expect(chooseEntry(root, { tsx: false })).toEqual({ run: "dist" });
    await rm(join(root, "dist"), { recursive: true });
    expect(chooseEntry(root, { tsx: true }).run).toBe("none");
  });

  it("hashes paths as well as bytes", async () => {
    await put("src/a.ts", "x");
    const before = sourceHash(root);
    await rm(join(root, "src/a.ts"));
    await put("src/b.ts", "x");
    expect(sourceHash(root)).not.toBe(before);
  });
});
