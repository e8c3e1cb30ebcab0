import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { filesByProject, laneOf, PROJECTS, type Lane, type Project } from "./test/support/lanes.js";
import LongestFirst from "./test/support/sequencer.js";

// Test lanes (README "Tests"): up to three vitest projects per lane, each file in exactly one,
// decided here from what the file imports (test/support/lanes.ts). `vitest run` runs every
// lane; `vitest run --project 'unit*'` only the tests that need no server and start no process.
const byProject = filesByProject(import.meta.dirname);

/** Per-lane settings beside the shared ones below. */
const LANE_OPTIONS: Record<Lane, TestProjectInlineConfiguration["test"]> = {
  // The guard makes a process spawn or a Redis connection fail the test (test/support/unit-guard.ts).
  unit: { setupFiles: ["./test/support/unit-guard.ts"] },
  redis: {},
  // The lanes whose tests start the gateway's CLI as a process: `npm run build` once for the run,
  // beside the first tests, and every child runs the built CLI (test/support/gateway-cli.ts).
  cluster: { globalSetup: ["./test/support/gateway-build.ts"] },
  "caldav-browser": {},
  processes: { globalSetup: ["./test/support/gateway-build.ts"] },
};

/**
 * `<lane>`: isolate: false, the files of a worker share its module cache instead of loading
 * the module graph (the Square SDK alone is 3,600 CommonJS modules, ajv, hono, src/…) afresh
 * per file, which was four fifths of the unit lane's CPU time and half the Redis lane's.
 * test/support/shared-module-guard.ts fails a file there that leaves process-wide state behind.
 * `<lane>-nock`: isolate: false too, among the files that script HTTP with nock and change
 * nothing else the process shares (NOCK_MARKER in test/support/lanes.ts): nock patches node:http
 * once per worker, and test/support/nock-module-guard.ts keeps its interceptors from passing on.
 * `<lane>-isolated`: the files that change other such state (fake timers, process.env…:
 * ISOLATION_MARKERS in test/support/lanes.ts), each loaded afresh.
 * `<lane>-alone`: the files that measure the event loop's latency (ALONE_MARKERS), each loaded
 * afresh, one at a time after every other file (groupOrder 1), with no build beside them.
 */
function options(project: Project): TestProjectInlineConfiguration["test"] {
  const lane = LANE_OPTIONS[laneOf(project)];
  if (project.endsWith("-alone")) {
    const { globalSetup: _build, ...rest } = lane ?? {};
    return { ...rest, maxWorkers: 1, sequence: { groupOrder: 1 } };
  }
  if (project.endsWith("-isolated")) return lane;
  const guard = project.endsWith("-nock")
    ? "./test/support/nock-module-guard.ts"
    : "./test/support/shared-module-guard.ts";
  return {
    ...lane,
    setupFiles: [...[lane?.setupFiles ?? []].flat(), guard],
    pool: "forks",
    isolate: false,
  };
}

export default defineConfig({
  test: {
    environment: "node",
    setupFiles: ["./test/support/env-setup.ts"],
    // A worker per core: the files of the server lanes mostly wait (on processes, Redis, a
    // browser), and those of the unit lane are short; latency checks keep their own margins.
    maxWorkers: "100%",
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // The longest files first, each shared-module project's files together (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // The projects that have files (an empty include would fall back to vitest's default).
    projects: PROJECTS.filter((name) => byProject[name].length > 0).map(
      (name): TestProjectInlineConfiguration => ({
        extends: true,
        test: { ...options(name), name, include: byProject[name] },
      }),
    ),
  },
});
