/**
 * FileIdempotencyStore: the shared contract, then what only a file must do (OSBP "Security
 * and Privacy Considerations": "an in-process cache backed by a local file"): survive a
 * restart, refuse a damaged file instead of starting empty, never leave a torn or temporary
 * file, keep the file private, and keep a second process off the same file.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_IDEMPOTENCY_PATH,
  FileIdempotencyStore,
  IDEMPOTENCY_PATH_ENV,
} from "../../../../src/edges/osbp/idempotency/file.js";
import { IdempotencyStoreError } from "../../../../src/edges/osbp/idempotency/port.js";
import type { IdempotencyKey } from "../../../../src/booking/idempotency/index.js";
import {
  HASH_A,
  HASH_B,
  held,
  idempotencyStoreContract,
  LEASE_MS,
  receipt,
  RETENTION_MS,
  T0,
} from "./contract.js";

const id = (key: string): IdempotencyKey => ({ scope: "org_1", key });
const K = id("k");

const dirs: string[] = [];
const stores: FileIdempotencyStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  // Canonical (the store names its file by its real path), e.g. macOS's /var -> /private/var.
  const dir = await realpath(await mkdtemp(join(tmpdir(), "osbp-idem-")));
  dirs.push(dir);
  return dir;
}

async function openAt(path: string): Promise<FileIdempotencyStore> {
  const store = await FileIdempotencyStore.open(path, { leaseMs: LEASE_MS, retentionMs: RETENTION_MS });
  stores.push(store);
  return store;
}

/** A pid no process has: above Linux's largest pid_max (2^22). */
const DEAD_PID = 2 ** 22 + 12_345;

idempotencyStoreContract("FileIdempotencyStore", async (timings) => {
  const dir = await mkdtemp(join(tmpdir(), "osbp-idem-contract-"));
  const store = await FileIdempotencyStore.open(join(dir, "idempotency.json"), timings);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe("FileIdempotencyStore", () => {
  it("exports the default path and its environment variable", () => {
    expect(DEFAULT_IDEMPOTENCY_PATH).toBe(".osbp/idempotency.json");
    expect(IDEMPOTENCY_PATH_ENV).toBe("OSBP_IDEMPOTENCY_PATH");
  });

  it("replays a settled receipt after close and reopen (survives an MCP restart)", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const first = await FileIdempotencyStore.open(path);
    await first.begin(K, HASH_A, T0);
    await first.settle(held(K, HASH_A), receipt(4), T0 + 1);
    await first.close();

    const second = await openAt(path);
    expect(await second.begin(K, HASH_A, T0 + 2)).toEqual({ kind: "replay", answer: receipt(4) });
    expect(await second.begin(K, HASH_B, T0 + 3)).toEqual({ kind: "conflict" });
  });

  it("keeps a live lease across a reopen, so a restarted process does not start it twice", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const first = await FileIdempotencyStore.open(path, { leaseMs: LEASE_MS });
    await first.begin(K, HASH_A, T0);
    await first.close();

    const second = await openAt(path);
    expect(await second.begin(K, HASH_A, T0 + 1)).toEqual({ kind: "in_progress" });
  });

  it("has the change on disk when begin and settle resolve, without close", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const store = await openAt(path);
    await store.begin(K, HASH_A, T0);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      entries: [{ key: "org_1:k", state: "started", payloadHash: HASH_A, until: T0 + LEASE_MS }],
    });
    await store.settle(held(K, HASH_A), receipt(), T0 + 1);
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      entries: [{ key: "org_1:k", state: "settled", receipt: receipt(), until: T0 + 1 + RETENTION_MS }],
    });
  });

  it("reads a file the previous version wrote, and writes entries in the same format", async () => {
    // Written as the previous version wrote it: one JSON line, each entry its stored key
    // ("<organization>:<idempotency_key>") and fields.
    const path = join(await tempDir(), "idempotency.json");
    const old = {
      format: "osbp-idempotency",
      version: 1,
      entries: [
        {
          key: "org_1:idem_done",
          state: "settled",
          payloadHash: HASH_A,
          receipt: receipt(5),
          until: T0 + RETENTION_MS,
        },
        { key: "org_1:idem_running", state: "started", payloadHash: HASH_A, until: T0 + LEASE_MS },
      ],
    };
    await writeFile(path, `${JSON.stringify(old)}\n`);
    const store = await openAt(path);
    expect(await store.begin(id("idem_done"), HASH_A, T0 + 1)).toEqual({
      kind: "replay",
      answer: receipt(5),
    });
    expect(await store.begin(id("idem_done"), HASH_B, T0 + 1)).toEqual({ kind: "conflict" });
    expect(await store.begin(id("idem_running"), HASH_A, T0 + 1)).toEqual({ kind: "in_progress" });
    expect(await store.begin(id("idem_running"), HASH_B, T0 + 1)).toEqual({ kind: "conflict" });

    await store.begin(id("idem_new"), HASH_B, T0 + 2);
    await store.settle(held(id("idem_new"), HASH_B), receipt(6), T0 + 3);
    const text = await readFile(path, "utf8");
    expect(text.endsWith("}\n") && !text.slice(0, -1).includes("\n")).toBe(true);
    expect(JSON.parse(text)).toEqual({
      ...old,
      entries: [
        ...old.entries,
        {
          key: "org_1:idem_new",
          state: "settled",
          payloadHash: HASH_B,
          receipt: receipt(6),
          until: T0 + 3 + RETENTION_MS,
        },
      ],
    });
  });

  it("creates missing parent directories and writes the file with mode 0600", async () => {
    const path = join(await tempDir(), "a", "b", "idempotency.json");
    const store = await openAt(path);
    await store.begin(K, HASH_A, T0);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("leaves no temporary files behind after many writes", async () => {
    const dir = await tempDir();
    const store = await openAt(join(dir, "idempotency.json"));
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await store.begin(id(`k${i}`), HASH_A, T0);
        if (i % 2 === 0) await store.settle(held(id(`k${i}`), HASH_A), receipt(i), T0 + 1);
        else await store.release(held(id(`k${i}`), HASH_A));
      }),
    );
    expect((await readdir(dir)).sort()).toEqual(["idempotency.json", "idempotency.json.lock"]);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(await readdir(dir)).toEqual(["idempotency.json"]);
  });

  it("removes a temporary file a crashed writer left, on open", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "idempotency.json.4242.0123abcd.tmp"), '{"half":');
    await writeFile(join(dir, "unrelated.tmp"), "keep me");
    await openAt(join(dir, "idempotency.json"));
    expect((await readdir(dir)).sort()).toEqual(["idempotency.json.lock", "unrelated.tmp"]);
  });

  it("prunes expired entries from the file on the next write", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const store = await openAt(path);
    await store.begin(id("old"), HASH_A, T0);
    await store.begin(id("new"), HASH_A, T0 + LEASE_MS);
    const keys = (
      JSON.parse(await readFile(path, "utf8")) as { entries: Array<{ key: string }> }
    ).entries.map((e) => e.key);
    expect(keys).toEqual(["org_1:new"]);
  });

  describe("a damaged file is an error naming the path, never an empty cache", () => {
    const cases: Array<[string, string]> = [
      ["not JSON", '{"format":"osbp-idempotency","version":1,"entries":[{"key":"k","sta'],
      ["empty", ""],
      ["wrong format", '{"format":"something-else","version":1,"entries":[]}'],
      ["unknown version", '{"format":"osbp-idempotency","version":99,"entries":[]}'],
      [
        "a settled entry without a receipt",
        '{"format":"osbp-idempotency","version":1,"entries":[{"key":"k","state":"settled","payloadHash":"h","until":1}]}',
      ],
      [
        "a duplicate key",
        '{"format":"osbp-idempotency","version":1,"entries":[' +
          '{"key":"k","state":"started","payloadHash":"h","until":1},' +
          '{"key":"k","state":"started","payloadHash":"h","until":1}]}',
      ],
    ];
    for (const [label, contents] of cases) {
      it(label, async () => {
        const dir = await tempDir();
        const path = join(dir, "idempotency.json");
        await writeFile(path, contents);
        const opening = FileIdempotencyStore.open(path);
        await expect(opening).rejects.toBeInstanceOf(IdempotencyStoreError);
        await expect(opening).rejects.toThrow(path);
        await expect(opening).rejects.toThrow(/corrupt/);
        // The file is left for the operator, and the failed open does not keep the lock.
        expect(await readFile(path, "utf8")).toBe(contents);
        expect(await readdir(dir)).toEqual(["idempotency.json"]);
      });
    }
  });

  it("an unreadable path (a directory) is an error naming the path", async () => {
    const path = join(await tempDir(), "idempotency.json");
    await mkdir(path);
    const opening = FileIdempotencyStore.open(path);
    await expect(opening).rejects.toBeInstanceOf(IdempotencyStoreError);
    await expect(opening).rejects.toThrow(path);
  });

  it("a failed write rejects and changes nothing; the store works again once the disk does", async () => {
    const dir = await tempDir();
    const path = join(dir, "store", "idempotency.json");
    const store = await openAt(path);
    // Swap the directory for a file: the temporary file cannot be created.
    await rm(join(dir, "store"), { recursive: true });
    await writeFile(join(dir, "store"), "");
    await expect(store.begin(K, HASH_A, T0)).rejects.toBeInstanceOf(IdempotencyStoreError);

    await rm(join(dir, "store"));
    await mkdir(join(dir, "store"));
    expect(await store.begin(K, HASH_A, T0 + 1)).toEqual({ kind: "started", claim: HASH_A });
  });

  describe("one process per file (lock file with the owner's pid)", () => {
    it("refuses a second open of the same file in this process", async () => {
      const path = join(await tempDir(), "idempotency.json");
      await openAt(path);
      await expect(FileIdempotencyStore.open(path)).rejects.toThrow(/already open in this process/);
    });

    it("two opens racing in this process: exactly one succeeds", async () => {
      const path = join(await tempDir(), "idempotency.json");
      const results = await Promise.allSettled([
        FileIdempotencyStore.open(path),
        FileIdempotencyStore.open(path),
      ]);
      const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      stores.push(...opened);
      expect(opened).toHaveLength(1);
    });

    it("refuses the same file reached through a symlinked directory", async () => {
      const dir = await tempDir();
      await mkdir(join(dir, "real"));
      await symlink(join(dir, "real"), join(dir, "link"));
      const store = await openAt(join(dir, "real", "idempotency.json"));
      expect(store.path).toBe(join(dir, "real", "idempotency.json"));
      await expect(FileIdempotencyStore.open(join(dir, "link", "idempotency.json"))).rejects.toThrow(
        /already open in this process/,
      );
    });

    it("refuses a file whose lock belongs to another live process", async () => {
      const path = join(await tempDir(), "idempotency.json");
      // Our parent (the vitest runner) is alive for the whole test.
      await writeFile(`${path}.lock`, JSON.stringify({ pid: process.ppid, token: "other" }));
      const opening = FileIdempotencyStore.open(path);
      await expect(opening).rejects.toBeInstanceOf(IdempotencyStoreError);
      await expect(opening).rejects.toThrow(`in use by process ${process.ppid}`);
    });

    it("takes over a stale lock left by a process that is gone", async () => {
      const path = join(await tempDir(), "idempotency.json");
      await writeFile(`${path}.lock`, JSON.stringify({ pid: DEAD_PID, token: "dead" }));
      const store = await openAt(path);
      expect(await store.begin(K, HASH_A, T0)).toEqual({ kind: "started", claim: HASH_A });
      expect(JSON.parse(await readFile(`${path}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    });

    it("takes over a lock naming this pid that no store here holds (a restarted container)", async () => {
      const path = join(await tempDir(), "idempotency.json");
      await writeFile(`${path}.lock`, JSON.stringify({ pid: process.pid, token: "previous-life" }));
      await expect(openAt(path)).resolves.toBeInstanceOf(FileIdempotencyStore);
    });

    it("refuses an unreadable lock rather than guessing", async () => {
      const path = join(await tempDir(), "idempotency.json");
      await writeFile(`${path}.lock`, "");
      await expect(FileIdempotencyStore.open(path)).rejects.toThrow(/lock .* is unreadable/);
    });

    it("a process that exits without close leaves a lock the next open takes over", async () => {
      const path = join(await tempDir(), "idempotency.json");
      const child = spawnSync(process.execPath, [
        "-e",
        `require("node:fs").writeFileSync(${JSON.stringify(`${path}.lock`)}, JSON.stringify({ pid: process.pid, token: "child" }))`,
      ]);
      expect(child.status).toBe(0);
      await expect(openAt(path)).resolves.toBeInstanceOf(FileIdempotencyStore);
    });

    it("close releases the lock so the file can be opened again", async () => {
      const path = join(await tempDir(), "idempotency.json");
      const store = await FileIdempotencyStore.open(path);
      await store.close();
      await expect(openAt(path)).resolves.toBeInstanceOf(FileIdempotencyStore);
    });
  });

  it("close waits for queued writes; later calls reject", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const store = await FileIdempotencyStore.open(path);
    const pending = store.begin(K, HASH_A, T0);
    await store.close();
    expect(await pending).toEqual({ kind: "started", claim: HASH_A });
    await expect(store.begin(id("k2"), HASH_A, T0)).rejects.toThrow(/closed/);
    expect(await readFile(path, "utf8")).toContain('"key":"org_1:k"');
  });

  it("a replayed receipt is a copy: mutating it does not change the cache", async () => {
    const path = join(await tempDir(), "idempotency.json");
    const store = await openAt(path);
    await store.begin(K, HASH_A, T0);
    await store.settle(held(K, HASH_A), receipt(), T0 + 1);
    const first = await store.begin(K, HASH_A, T0 + 2);
    if (first.kind !== "replay") throw new Error(`expected a replay, got ${first.kind}`);
    first.answer.text = "changed";
    expect(await store.begin(K, HASH_A, T0 + 3)).toEqual({ kind: "replay", answer: receipt() });
  });

  it("rejects non-positive timings", async () => {
    const path = join(await tempDir(), "idempotency.json");
    await expect(FileIdempotencyStore.open(path, { leaseMs: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});
