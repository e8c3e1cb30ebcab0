/**
 * Test lanes: which vitest project (vitest.config.ts) runs each test file, decided when the
 * config loads from what the file uses, so nobody keeps a list by hand and a new test cannot be
 * filed in the wrong lane.
 *
 * A file's markers are found in its own source and in every test-side module it imports
 * (relative imports under test/, followed transitively; src/ holds no server or process code).
 * The helpers that start a server are known by path and stop the walk, each naming its lane;
 * anything else is recognised by what its code names (imports of child_process, ioredis,
 * playwright-core, the MCP stdio transport, REDIS_URL…). Comments are ignored.
 *
 * A file with markers of several lanes runs in the first of LANES that it needs (a test that
 * spawns gateway processes against Redis is in `processes`); every lane but `unit` may use
 * Redis, which .ci/run starts. `unit` is what is left: no Redis, no cluster, no CalDAV server,
 * no browser, no child process. Its setup file (test/support/unit-guard.ts) makes a process
 * spawn or a connection to the configured Redis servers throw, so a marker this scan does not
 * know fails the test loudly instead of slowing the lane down silently.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** In priority order: a file needing several runs in the first. `unit` is the rest. */
export const LANES = ["cluster", "caldav-browser", "processes", "redis", "unit"] as const;
export type Lane = (typeof LANES)[number];

/** Helpers that start (or reach) a server: their importers are in that lane; not scanned. */
export const HELPER_LANES: Readonly<Record<string, Exclude<Lane, "unit">>> = {
  "test/support/redis-cluster.ts": "cluster",
  "test/support/xandikos.ts": "caldav-browser",
  "test/support/chromium.ts": "caldav-browser",
  "test/support/mcp.ts": "processes",
  "test/e2e/support/processes.ts": "processes",
  "test/support/redis.ts": "redis",
};

/** Not scanned: this file names every marker in its patterns, and loads nothing of them. */
const SELF = "test/support/lanes.ts";

/**
 * What code names that puts a file in a lane, matched with comments and type-only imports
 * stripped: imports of what reaches a server or starts a process, and reads of the variables
 * that name the shared servers (a string such as "redis://h:1" handed to a parser is no marker).
 */
export const CODE_MARKERS: ReadonlyArray<{ readonly lane: Exclude<Lane, "unit">; readonly pattern: RegExp }> =
  [
    {
      lane: "cluster",
      pattern:
        /startTestRedisCluster|startOwnRedisCluster|process\.env(\.|\[["'])(TEST_)?REDIS_CLUSTER_NODES/,
    },
    { lane: "caldav-browser", pattern: /["']playwright(-core)?["']|["']xandikos["']/ },
    {
      lane: "processes",
      pattern:
        /["'](node:)?child_process["']|["'](node:)?worker_threads["']|StdioClientTransport|["']tsx["']/,
    },
    {
      lane: "redis",
      pattern: /["']ioredis["']|["']bullmq["']|startTestRedis|startOwnRedis|process\.env(\.|\[["'])REDIS_URL/,
    },
  ];

/**
 * Each lane runs as up to four vitest projects: `<lane>` shares one module cache across the
 * files of a worker (isolate: false, much faster), `<lane>-nock` too but only among files that
 * script HTTP with nock, `<lane>-isolated` loads each file afresh, `<lane>-alone` too, and runs
 * after every other file, one at a time (ALONE_MARKERS).
 *
 * A file goes to `<lane>-isolated` when it, or a test helper it imports, changes what the process
 * shares: fake timers or clocks (a module-level timer made by an earlier file is a real one),
 * process.env or globals written, modules mocked, the working directory changed. nock patches
 * node:http and fetch for every later file in the process, which a file that does not expect it
 * must never meet; a file whose only such change is nock (NOCK_MARKER) goes to `<lane>-nock`,
 * where every file expects the patch and each must leave no interceptor and net connect allowed
 * (test/support/nock-module-guard.ts).
 */
export const NOCK_MARKER = /["']nock["']/;

export const ISOLATION_MARKERS: readonly RegExp[] = [
  /\bvi\.(useFakeTimers|setSystemTime|mock|doMock|stubEnv|stubGlobal|spyOn)\b/,
  /\bprocess\.env(\.[\w$]+|\[[^\]]+\])\s*(=[^=]|\?\?=|\|\|=)|\bdelete\s+process\.env\b|Object\.assign\(\s*process\.env\b/,
  /\bglobalThis(\.[\w$]+|\[[^\]]+\])\s*=[^=]|\bprocess\.chdir\b|\bsyncBuiltinESMExports\b/,
];

/**
 * A file that measures how late the event loop answers (monitorEventLoopDelay, and the latency
 * of the answers it polls for beside it) runs in `<lane>-alone`: after every other file of the
 * run, with no other file beside it, since another file's work on the same cores would be what
 * it measures. Matched in the file's own code.
 */
export const ALONE_MARKERS: readonly RegExp[] = [/\bmonitorEventLoopDelay\b/];

export interface Classified {
  /** Repository-relative, forward slashes: "test/holds/redis/contract.test.ts". */
  readonly file: string;
  readonly lane: Lane;
  /** Loaded afresh, in `<lane>-isolated` (see ISOLATION_MARKERS) or `<lane>-alone`. */
  readonly isolated: boolean;
  /** Scripts HTTP with nock and changes nothing else the process shares: `<lane>-nock`. */
  readonly nock: boolean;
  /** Runs alone, after the rest, in `<lane>-alone` (see ALONE_MARKERS). */
  readonly alone: boolean;
  /** Why: "marker in <file>" or "imports <helper>"; empty for unit. */
  readonly reasons: readonly string[];
}

const TEST_FILE = /\.test\.ts$/;

/** Every test file under test/ (what vitest's include `test/**\/*.test.ts` matches). */
export function testFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (TEST_FILE.test(entry.name)) out.push(toRepoPath(root, path));
    }
  };
  walk(join(root, "test"));
  return out.sort();
}

/** The lane of each test file, with the reasons. */
export function classify(root: string, files: readonly string[] = testFiles(root)): Classified[] {
  const memo = new Map<string, ReadonlyArray<readonly [Exclude<Lane, "unit">, string]>>();
  return files.map((file) => {
    const found = markersOf(root, file, memo, new Set());
    const lanes = new Set(found.map(([lane]) => lane));
    const lane = LANES.find((l) => l === "unit" || lanes.has(l)) ?? "unit";
    const reasons = found.filter(([l]) => l === lane).map(([, why]) => why);
    // A file that measures the loop, itself or through a test helper it imports, runs alone.
    const shared = sharedState(root, file, new Set());
    const alone = shared.has("alone");
    const isolated = alone || shared.has("other");
    return { file, lane, isolated, nock: !isolated && shared.has("nock"), alone, reasons };
  });
}

/** The vitest projects: up to four per lane, `<lane>` and `-nock` (shared modules), `-isolated`, `-alone`. */
export type Project = Lane | `${Lane}-nock` | `${Lane}-isolated` | `${Lane}-alone`;
export const PROJECTS: readonly Project[] = LANES.flatMap((lane) => [
  lane,
  `${lane}-nock` as const,
  `${lane}-isolated` as const,
  `${lane}-alone` as const,
]);

/** The lane a project belongs to. */
export function laneOf(project: Project): Lane {
  return project.replace(/-(nock|isolated|alone)$/, "") as Lane;
}

/** The project of a classified file. */
export function projectOf({ lane, isolated, nock, alone }: Classified): Project {
  return alone ? `${lane}-alone` : isolated ? `${lane}-isolated` : nock ? `${lane}-nock` : lane;
}

/** Test files by vitest project, every project present (possibly empty). */
export function filesByProject(root: string): Record<Project, string[]> {
  const by = Object.fromEntries(PROJECTS.map((p) => [p, [] as string[]])) as Record<Project, string[]>;
  for (const c of classify(root)) by[projectOf(c)].push(c.file);
  return by;
}

/**
 * What process-wide state a file or a test helper it imports changes: "nock" (NOCK_MARKER),
 * "other" (ISOLATION_MARKERS), both or neither.
 */
function sharedState(root: string, file: string, seen: Set<string>): Set<"nock" | "other" | "alone"> {
  const found = new Set<"nock" | "other" | "alone">();
  if (seen.has(file) || file === SELF) return found;
  seen.add(file);
  const code = stripTypeImports(stripComments(readFileSync(join(root, file), "utf8")));
  if (NOCK_MARKER.test(code)) found.add("nock");
  if (ISOLATION_MARKERS.some((pattern) => pattern.test(code))) found.add("other");
  if (ALONE_MARKERS.some((pattern) => pattern.test(code))) found.add("alone");
  for (const spec of relativeImports(code)) {
    const target = resolveImport(root, file, spec);
    if (target === undefined || !target.startsWith("test/")) continue;
    for (const kind of sharedState(root, target, seen)) found.add(kind);
  }
  return found;
}

/** The markers of one source text alone (imports not followed): for the classifier's own tests. */
export function codeMarkers(source: string): Array<Exclude<Lane, "unit">> {
  const code = stripTypeImports(stripComments(source));
  return CODE_MARKERS.filter(({ pattern }) => pattern.test(code)).map(({ lane }) => lane);
}

function markersOf(
  root: string,
  file: string,
  memo: Map<string, ReadonlyArray<readonly [Exclude<Lane, "unit">, string]>>,
  visiting: Set<string>,
): ReadonlyArray<readonly [Exclude<Lane, "unit">, string]> {
  const cached = memo.get(file);
  if (cached !== undefined) return cached;
  const helper = HELPER_LANES[file];
  if (helper !== undefined) return [[helper, `imports ${file}`]];
  if (visiting.has(file) || file === SELF) return [];
  visiting.add(file);
  const code = stripTypeImports(stripComments(readFileSync(join(root, file), "utf8")));
  const found: Array<readonly [Exclude<Lane, "unit">, string]> = [];
  for (const { lane, pattern } of CODE_MARKERS) {
    const hit = pattern.exec(code);
    if (hit !== null) found.push([lane, `${hit[0]} in ${file}`]);
  }
  for (const spec of relativeImports(code)) {
    const target = resolveImport(root, file, spec);
    if (target === undefined || !target.startsWith("test/")) continue;
    found.push(...markersOf(root, target, memo, visiting));
  }
  visiting.delete(file);
  memo.set(file, found);
  return found;
}

/** `from "./x.js"`, `import("./x.js")`, `import "./x.js"`: the relative specifiers. */
function relativeImports(code: string): string[] {
  const specs: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;
  for (let m = pattern.exec(code); m !== null; m = pattern.exec(code)) specs.push(m[1] as string);
  return specs;
}

function resolveImport(root: string, from: string, spec: string): string | undefined {
  const base = resolve(root, dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
  const hit = candidates.find((c) => c.endsWith(".ts") && existsSync(c));
  return hit === undefined ? undefined : toRepoPath(root, hit);
}

/** Drops `import type … from "…"` and `export type … from "…"`: they load nothing. */
function stripTypeImports(code: string): string {
  return code.replace(/\b(?:import|export)\s+type\s[^;"']*?\bfrom\s*["'][^"']+["']/g, " ");
}

/** Drops // and /* comments, leaving strings and template literals as they are. */
export function stripComments(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i += 1;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      const start = i;
      i += 1;
      while (i < source.length && source[i] !== c) i += source[i] === "\\" ? 2 : 1;
      i += 1;
      out += source.slice(start, i);
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

function toRepoPath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}
