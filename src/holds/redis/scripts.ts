/**
 * The Lua scripts: read once from src/holds/redis/lua/, each prefixed with the shared
 * lib.lua and any file it includes (Redis scripts cannot import one another), SCRIPT
 * LOADed once (on every master of a cluster) and called by SHA. A server that lost its script
 * cache (a restart, SCRIPT FLUSH, a promoted replica) answers NOSCRIPT: nothing ran, so the
 * call is made once more with EVAL (redis/script.ts).
 *
 * Every script starts with a `#!lua` shebang: Redis then refuses a writing script up
 * front when it is out of memory, instead of failing at a write half way through, and
 * read-only scripts declare `no-writes`.
 *
 * On a Redis Cluster each script starts with lua/slot-guard.lua: while its host's slot is
 * being moved to another master the script stops before its first write, and the runner calls
 * it again until the move is over (or answers an error once `slotMoveWaitMs` has passed).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { eachMaster, isCluster, type RedisClient } from "../../redis/client.js";
import { evalScript, loadScript, type RedisScript } from "../../redis/script.js";

export const SCRIPT_NAMES = [
  "place-hold",
  "release-hold",
  "begin-confirm",
  "complete-confirm",
  "abort-confirm",
  "claim-stuck",
  "release-booking",
  "move-booking",
  "update-booking",
  "list-bookings",
  "bookings-overlapping",
  "index-backfill",
  "is-proven",
  "list-occupancy",
  "replace-busy",
  "count-mandate",
  "sweep",
  "record-outcome",
  "idem-begin",
  "idem-complete",
  "idem-abandon",
  "wl-join",
  "wl-status",
  "offer-freed",
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

const READ_ONLY: ReadonlySet<ScriptName> = new Set<ScriptName>([
  "is-proven",
  "count-mandate",
  "list-occupancy",
  "list-bookings",
  "bookings-overlapping",
]);
/** Files placed between lib.lua and a script's own body. */
const INCLUDES: Partial<Record<ScriptName, readonly string[]>> = {
  "place-hold": ["allocation", "place"],
  "wl-status": ["waitlist"],
  "offer-freed": ["allocation", "booking-index", "place", "waitlist"],
  "complete-confirm": ["booking-index"],
  "update-booking": ["booking-index"],
  "move-booking": ["booking-index"],
  "release-booking": ["booking-index"],
  "index-backfill": ["booking-index"],
};

export interface LoadedScript extends RedisScript {
  readonly name: ScriptName;
}

/**
 * Finds lua/ beside this module (tsx runs the sources), or, when running compiled from
 * dist/holds/redis/ (tsc does not copy .lua files), in the source tree it was built from.
 */
export function luaDirectory(): string {
  const candidates = [
    new URL("./lua/", import.meta.url),
    new URL("../../../src/holds/redis/lua/", import.meta.url),
  ];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(`${path}lib.lua`)) return path;
  }
  throw new Error(`the hold store's Lua scripts were not found (looked in ${candidates.join(", ")})`);
}

export interface ScriptOptions {
  /** Start every script with lua/slot-guard.lua (a Redis Cluster's scripts). */
  readonly slotGuard?: boolean;
}

export function readScripts(
  directory = luaDirectory(),
  options: ScriptOptions = {},
): ReadonlyMap<ScriptName, LoadedScript> {
  const lib = readFileSync(`${directory}lib.lua`, "utf8");
  const guard = options.slotGuard === true ? [readFileSync(`${directory}slot-guard.lua`, "utf8")] : [];
  const scripts = new Map<ScriptName, LoadedScript>();
  for (const name of SCRIPT_NAMES) {
    const parts = [
      ...guard,
      lib,
      ...(INCLUDES[name] ?? []).map((file) => readFileSync(`${directory}${file}.lua`, "utf8")),
    ];
    parts.push(readFileSync(`${directory}${name}.lua`, "utf8"));
    const shebang = READ_ONLY.has(name) ? "#!lua flags=no-writes" : "#!lua";
    const source = `${shebang}\n${parts.join("\n")}`;
    scripts.set(name, { name, source, sha: createHash("sha1").update(source).digest("hex") });
  }
  return scripts;
}

/**
 * What a slot move answers, and only that: the slot guard refusing the script on a migrating or
 * importing slot (it wrote nothing), or ioredis giving up after TRYAGAIN / ASK redirections
 * (no node ran it). A chain of redirections that ends in anything else is not called again: in
 * a failover ioredis resends a command whose connection closed, which may have run on the old
 * master, so "Too many Cluster redirections. Last error: Connection is closed" or CLUSTERDOWN
 * stays the caller's explicit error (try again with the same idempotency key).
 */
const SLOT_MOVING =
  /^ERR Script attempted to access a non local key|^Too many Cluster redirections\. Last error: ReplyError: (?:TRYAGAIN|ASK) |^TRYAGAIN /;

/** Whether an error is a slot move's answer, so the script ran nothing and may be called again. */
export function isSlotMoving(error: unknown): boolean {
  return SLOT_MOVING.test(error instanceof Error ? error.message : String(error));
}

export interface RunnerOptions {
  /** How long a script waits out a slot move on a cluster before its error is answered (default 5 s). */
  readonly slotMoveWaitMs?: number;
}

export class ScriptRunner {
  /** Scripts loaded again after NOSCRIPT (a restarted or flushed server); for operators. */
  reloads = 0;
  /** Calls made again because their host's slot was moving (cluster only); for operators. */
  slotMoveRetries = 0;
  readonly slotMoveWaitMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: ReadonlyMap<ScriptName, LoadedScript>,
    options: RunnerOptions = {},
  ) {
    this.slotMoveWaitMs = options.slotMoveWaitMs ?? 5000;
  }

  /**
   * SCRIPT LOAD every script the server does not have yet (one SCRIPT EXISTS first, so
   * many processes starting against one Redis do not each upload every script).
   */
  async loadAll(): Promise<void> {
    const scripts = [...this.scripts.values()];
    // On a cluster, each master keeps its own script cache.
    await eachMaster(this.redis, async (node) => {
      const exists = (await node.script("EXISTS", ...scripts.map((s) => s.sha))) as unknown[];
      await Promise.all(scripts.filter((_, i) => exists[i] !== 1).map((script) => loadScript(node, script)));
    });
  }

  async run(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const script = this.scripts.get(name);
    if (script === undefined) throw new Error(`unknown script ${name}`);
    const once = () => evalScript(this.redis, script, keys, args, () => this.reloads++);
    if (!isCluster(this.redis)) return once();
    const deadline = Date.now() + this.slotMoveWaitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      try {
        return await once();
      } catch (error) {
        if (!isSlotMoving(error) || Date.now() + pause > deadline) throw error;
        this.slotMoveRetries++;
        await new Promise((resume) => setTimeout(resume, pause));
      }
    }
  }
}
