// Which code bin/booking-gateway.js runs: never a dist/ older than the src/ beside it.
//
// `npm run build` ends with `node bin/build-stamp.js`, which writes dist/build-stamp.json: a
// SHA-256 over every file under src/ but Markdown (each file's path and bytes, in path order).
// bin/booking-gateway.js then chooses (chooseEntry):
//   - no src/ (a packed install, the Docker image): dist/, the only code there is;
//   - dist/ whose stamp matches the src/ present: dist/;
//   - else (never built, built before src/ changed, stamp missing): src/ through tsx, as
//     `npm start` runs it, when tsx is installed;
//   - else: nothing, with a message saying to run `npm run build`.
// A hash rather than modification times: a checkout, stash or copy can give a changed file an
// older time, and a touched file an unchanged content; hashing src/ takes tens of milliseconds.
// Plain JavaScript, since it runs before tsx is loaded (build-stamp.d.ts types it for tests).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const STAMP_PATH = "dist/build-stamp.json";
export const DIST_MAIN = "dist/gateway/cli/main.js";
export const SRC_MAIN = "src/gateway/cli/main.ts";

/** The SHA-256 (hex) of the sources under <root>/src: paths and bytes; Markdown left out. */
export function sourceHash(root) {
  const hash = createHash("sha256");
  const walk = (rel) => {
    const entries = readdirSync(join(root, rel), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !entry.name.endsWith(".md")) {
        hash.update(`${path}\0`);
        hash.update(readFileSync(join(root, path)));
        hash.update("\0");
      }
    }
  };
  walk("src");
  return hash.digest("hex");
}

/** Writes <root>/dist/build-stamp.json for the src/ present (the last step of `npm run build`). */
export function writeBuildStamp(root) {
  const path = join(root, STAMP_PATH);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ src: sourceHash(root) })}\n`);
}

function stampOf(root) {
  try {
    const src = JSON.parse(readFileSync(join(root, STAMP_PATH), "utf8")).src;
    return typeof src === "string" ? src : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What to run in the checkout or install at `root`; `tsx`: whether tsx can be loaded.
 * { run: "dist" }, { run: "src", stale } (stale: dist/ exists but was built from other
 * sources) or { run: "none", message }.
 */
export function chooseEntry(root, { tsx }) {
  const hasDist = existsSync(join(root, DIST_MAIN));
  if (!existsSync(join(root, "src"))) {
    return hasDist
      ? { run: "dist" }
      : { run: "none", message: `neither ${DIST_MAIN} nor src/ is in ${root}: reinstall the package` };
  }
  const stamp = hasDist ? stampOf(root) : undefined;
  if (stamp !== undefined && stamp === sourceHash(root)) return { run: "dist" };
  if (tsx) return { run: "src", stale: hasDist };
  return {
    run: "none",
    message: hasDist
      ? `${DIST_MAIN} was built from other sources than the src/ in ${root}, and tsx is not installed to run src/: run \`npm run build\``
      : `${DIST_MAIN} is not built, and tsx is not installed to run src/: run \`npm run build\``,
  };
}

// `node bin/build-stamp.js`: stamp the checkout this file is in.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeBuildStamp(fileURLToPath(new URL("..", import.meta.url)));
}
