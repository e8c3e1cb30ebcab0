// Layer boundaries, enforced by ESLint's built-in `no-restricted-imports` (docs/ARCHITECTURE.md,
// Layers). No plugin that resolves imports (eslint-plugin-boundaries, import-x's
// no-restricted-paths, dependency-cruiser) is installed, and the built-in rule is enough: every
// import in src is relative, so for each folder under src this file computes the exact relative
// specifier of each forbidden folder from there and restricts it with an anchored regex. The
// rule sees `import`, `import type` and `export … from`; it does not see dynamic `import()`
// (src has none across layers).
//
// The folder list is read when ESLint loads the config, so a new folder is covered at once.
// A new folder of a layer is classified by `layerOf` below.
import { readdirSync } from "node:fs";
import path from "node:path";

const ROOT = import.meta.dirname;
const SEE = ": see docs/ARCHITECTURE.md, Layers";

/** The edges: one folder each under src/edges, but for the shared HTTP kit (edges/http). */
export const EDGE_FOLDERS = readdirSync(path.join(ROOT, "src", "edges"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "http")
  .map((entry) => `edges/${entry.name}/`);

/** The layer of a folder or file, by its path under src/ (posix, no leading "src/"). */
export function layerOf(rel) {
  const p = rel.endsWith("/") ? rel : `${rel}/`;
  if (p.startsWith("edges/http/")) return "edge-kit";
  const edge = EDGE_FOLDERS.find((folder) => p.startsWith(folder));
  if (edge !== undefined) return `edge:${edge.slice("edges/".length, -1)}`;
  if (p.startsWith("booking/")) return "core";
  if (p.startsWith("connectors/")) return "connectors";
  if (p.startsWith("protocol/")) return "protocol";
  if (p.startsWith("calendar/")) return "calendar";
  if (p.startsWith("redis/")) return "redis";
  // gateway/ (the composition root: cli, runtime, app, credentials, managed-hosts, metrics), holds/,
  // jobs/ and agent/ compose or implement the layers above; only the rules that name them apply.
  return "other";
}

/**
 * The gateway's own stores, which the console's Connect and setup pages manage: the credential
 * vault (gateway/credentials) and the console-created hosts (gateway/managed-hosts). An edge may
 * import them; everything else under gateway/ is the root's wiring.
 */
export const ROOT_STORES = ["gateway/credentials/", "gateway/managed-hosts/"];

/** Everything under src/gateway but ROOT_STORES: folders with a trailing slash, files as named. */
export const ROOT_WIRING = readdirSync(path.join(ROOT, "src", "gateway"), { withFileTypes: true })
  .map((entry) => (entry.isDirectory() ? `gateway/${entry.name}/` : `gateway/${entry.name}`))
  .filter((entry) => !ROOT_STORES.includes(entry));

const EDGES = Object.fromEntries(
  EDGE_FOLDERS.map((folder) => [`edge:${folder.slice("edges/".length, -1)}`, [folder]]),
);

/**
 * The rules: for a layer, the folders (trailing "/") or files under src it must not import,
 * less `allow` (folders or files it may import all the same). `id` names the rule in exceptions.
 */
export const RULES = [
  {
    id: "core-no-edge",
    from: ["core"],
    // The composition root (gateway/) and every edge, with the shared HTTP kit.
    forbid: ["gateway/", "edges/"],
    message: "core must not import an edge",
  },
  {
    id: "core-no-edge-protocol",
    from: ["core"],
    forbid: ["protocol/schcp/", "protocol/osbp/"],
    message: "core must not import an edge's wire protocol (protocol/schcp, protocol/osbp)",
  },
  {
    id: "core-no-redis-store",
    from: ["core"],
    forbid: ["holds/redis/"],
    message: "core must not import a Redis store implementation (holds/redis)",
  },
  {
    id: "connector-no-store",
    from: ["connectors"],
    forbid: ["holds/"],
    message: "a connector must not import a store (holds)",
  },
  {
    id: "connector-no-core",
    from: ["connectors"],
    forbid: ["booking/"],
    message: "a connector must not import the core's internals (booking)",
  },
  {
    id: "connector-no-edge",
    from: ["connectors"],
    forbid: ["gateway/", "edges/"],
    message: "a connector must not import an edge",
  },
  {
    id: "edge-no-connector-impl",
    from: Object.keys(EDGES),
    // Nothing of the connectors, their ports included: the core stands between. What an edge
    // reads of a host's upstream is the core's own (booking/catalog.ts, booking/upstream.ts,
    // the UpstreamFailure of booking/errors.ts).
    forbid: ["connectors/"],
    message: "an edge must not import a connector or its port (the core's types stand between)",
  },
  {
    id: "edge-no-redis-store",
    from: Object.keys(EDGES),
    forbid: ["holds/redis/"],
    message: "an edge must not import a Redis store implementation (holds/redis)",
  },
  {
    // An edge is handed what it needs by the composition root; it never reaches into the root's
    // wiring (the app, the runtime, the CLI, the booking service it composes…: everything under
    // gateway/, read from the tree, but ROOT_STORES). What an edge needs of the wiring it states
    // itself (a port in the edge, like the console's managed hosts or A2A keys) or takes from a
    // layer below, and the root implements it.
    id: "edge-no-root",
    from: Object.keys(EDGES),
    forbid: ROOT_WIRING,
    message:
      "an edge must not import the composition root's wiring (gateway/): the root hands it what it needs",
  },
  ...Object.entries(EDGES).map(([edge]) => ({
    id: "edge-no-other-edge",
    from: [edge],
    forbid: Object.entries(EDGES)
      .filter(([other]) => other !== edge)
      .flatMap(([, folders]) => folders),
    message: "an edge must not import another edge's files",
  })),
  {
    // The shared HTTP kit (body reading, origin and rate limits, the page layout) sits below
    // every edge: each may import it, so it imports none of them, nor what an edge stands on
    // (the core, connectors, stores, the composition in gateway/); only protocol/ leaves.
    id: "edge-kit-is-a-leaf",
    from: ["edge-kit"],
    forbid: [
      "booking/",
      "gateway/",
      "connectors/",
      "holds/",
      "jobs/",
      "agent/",
      "calendar/",
      "redis/",
      ...EDGE_FOLDERS,
    ],
    message:
      "the shared HTTP kit (edges/http) must import no edge, core, connector or store (only edges/http and protocol/)",
  },
  {
    id: "protocol-is-a-leaf",
    from: ["protocol"],
    forbid: [
      "booking/",
      "gateway/",
      "connectors/",
      "holds/",
      "jobs/",
      "agent/",
      "calendar/",
      "redis/",
      "edges/",
    ],
    message: "protocol must import nothing above it (only protocol/)",
  },
  {
    id: "calendar-is-a-leaf",
    from: ["calendar"],
    forbid: [
      "booking/",
      "gateway/",
      "connectors/",
      "holds/",
      "jobs/",
      "agent/",
      "redis/",
      "protocol/schcp/",
      "protocol/osbp/",
      "edges/",
    ],
    message: "calendar must import nothing above it (only calendar/ and protocol/)",
  },
  {
    id: "redis-is-a-leaf",
    from: ["redis"],
    forbid: [
      "booking/",
      "gateway/",
      "connectors/",
      "holds/",
      "jobs/",
      "agent/",
      "calendar/",
      "protocol/",
      "edges/",
    ],
    message: "redis/ (client, scripts, lock) must import nothing of the project",
  },
];

/**
 * The imports that break a rule today, each named: the file (under src), the rule and the
 * files (under src) it may still import against that rule. This list may only shrink: the
 * architecture test fails when an entry no longer matches an import of its file.
 */
export const EXCEPTIONS = [];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The relative specifier, as written in an import, of `target` (under src) from folder `dir`. */
function specifier(dir, target) {
  const isFolder = target.endsWith("/");
  const rel = path.posix.relative(dir, isFolder ? target.slice(0, -1) : target);
  const spec = rel.startsWith("..") ? rel : `./${rel}`;
  return isFolder ? `${spec}/` : spec.replace(/\.ts$/, ".js");
}

/** A regex source matching the import of `target` from `dir` (a folder: anything inside it). */
function matcher(dir, target) {
  const spec = escape(specifier(dir, target));
  return target.endsWith("/") ? `${spec}` : `${spec}$`;
}

/** The `no-restricted-imports` patterns for a file in folder `dir`, less its exceptions. */
function patternsFor(dir, layer, excepted) {
  const layered = RULES.filter((rule) => rule.from.includes(layer)).flatMap((rule) => {
    const allowed = [...(rule.allow ?? []), ...(excepted.get(rule.id) ?? [])];
    const notAllowed = allowed.length === 0 ? "" : `(?!${allowed.map((a) => matcher(dir, a)).join("|")})`;
    return rule.forbid
      .filter((target) => !`${dir}/`.startsWith(target))
      .map((target) => ({
        regex: `^${notAllowed}${matcher(dir, target)}`,
        caseSensitive: true,
        message: `${rule.message} [${rule.id}]${SEE}`,
      }));
  });
  return [...layered, CANONICAL];
}

/**
 * The rules above read the specifier as written, so it must be the plain one: a path that
 * steps into a folder and back out (`../booking/../gateway/x.js`, `./../x.js`, `a//b`) could
 * name a forbidden folder without its text.
 */
const CANONICAL = {
  regex: "(^|/)[^/.][^/]*/\\.\\.?(/|$)|^\\./\\.\\.?/|//",
  message: `an import path must be plain (no ./ or ../ after a folder name, no //), so the layer rules can read it [canonical-import]${SEE}`,
};

function foldersUnder(absolute) {
  const out = [absolute];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...foldersUnder(path.join(absolute, entry.name)));
  }
  return out;
}

/**
 * Flat-config blocks: one per folder under src (its own files), then one per file with
 * exceptions. `withExceptions: false` gives the rules with no exception (the architecture test
 * uses it to show each exception is still needed).
 */
export function boundaryBlocks({ withExceptions = true } = {}) {
  const src = path.join(ROOT, "src");
  const blocks = [];
  for (const folder of foldersUnder(src)) {
    const dir = path.relative(src, folder).split(path.sep).join("/");
    const layer = layerOf(dir);
    const patterns = patternsFor(dir, layer, new Map());
    blocks.push({
      name: `boundaries/${dir || "."}`,
      files: [dir === "" ? "src/*.ts" : `src/${dir}/*.ts`],
      rules: { "no-restricted-imports": ["error", { patterns }] },
    });
  }
  if (!withExceptions) return blocks;
  const byFile = new Map();
  for (const exception of EXCEPTIONS) {
    const rules = byFile.get(exception.file) ?? new Map();
    rules.set(exception.rule, [...(rules.get(exception.rule) ?? []), ...exception.imports]);
    byFile.set(exception.file, rules);
  }
  for (const [file, excepted] of byFile) {
    const dir = path.posix.dirname(file);
    blocks.push({
      name: `boundaries/exceptions/${file}`,
      files: [`src/${file}`],
      rules: {
        "no-restricted-imports": ["error", { patterns: patternsFor(dir, layerOf(dir), excepted) }],
      },
    });
  }
  return blocks;
}
