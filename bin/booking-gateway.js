#!/usr/bin/env node
// Runs the built CLI (dist/) only when it was built from the src/ beside it, else the
// TypeScript entry through tsx, as `npm start` does, so this never runs older code than the
// source; without tsx it says to run `npm run build`. In a packed install (no src/), dist/.
// The decision and the build stamp it reads: build-stamp.js.
import { fileURLToPath } from "node:url";
import { chooseEntry, DIST_MAIN, SRC_MAIN } from "./build-stamp.js";

const root = fileURLToPath(new URL("..", import.meta.url));
let tsx = true;
try {
  import.meta.resolve("tsx/esm/api");
} catch {
  tsx = false;
}
const entry = chooseEntry(root, { tsx });
if (entry.run === "dist") {
  await import(new URL(`../${DIST_MAIN}`, import.meta.url).href);
} else if (entry.run === "src") {
  if (entry.stale)
    process.stderr.write(
      `booking-gateway: ${DIST_MAIN} was not built from the src/ present: running src/ through tsx (\`npm run build\` updates dist/)\n`,
    );
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL(`../${SRC_MAIN}`, import.meta.url).href);
} else {
  process.stderr.write(`booking-gateway: ${entry.message}\n`);
  process.exitCode = 1;
}
