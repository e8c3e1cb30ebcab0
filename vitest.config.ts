import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { filesByProject, PROJECTS, type Project } from "./test/support/lanes.js";

// Test lanes (README "Tests"): one vitest project per lane, each file in exactly one, decided
// here from what the file imports (test/support/lanes.ts). `vitest run` runs every lane;
// `vitest run --project unit` only the tests that need no server and start no process.
const byProject = filesByProject(import.meta.dirname);

/** Per-project settings beside the shared ones below. */
const OPTIONS: Record<Project, TestProjectInlineConfiguration["test"]> = {
  // The guard makes a process spawn or a Redis connection fail the test (test/support/unit-guard.ts).
  // isolate: false: the files share their worker's module cache instead of loading the module
  // graph (the Square SDK alone is 3,600 CommonJS modules, ajv, hono, src/…) afresh per file,
  // which was four fifths of the lane's CPU time. Files that change process-wide state (nock,
  // fake timers, process.env…: ISOLATION_MARKERS in test/support/lanes.ts) are in
  // `unit-isolated` instead, each loaded afresh as before.
  // test/support/shared-module-guard.ts fails a file that leaves such state behind.
  unit: {
    setupFiles: ["./test/support/unit-guard.ts", "./test/support/shared-module-guard.ts"],
    pool: "forks",
    isolate: false,
  },
  "unit-isolated": { setupFiles: ["./test/support/unit-guard.ts"] },
  redis: {},
  // The lanes whose tests start the gateway's CLI as a process: `npm run build` once for the run,
  // when a test first asks for it, and every child runs the built CLI (test/support/gateway-cli.ts).
  cluster: { globalSetup: ["./test/support/gateway-build.ts"] },
  "caldav-browser": {},
  processes: { globalSetup: ["./test/support/gateway-build.ts"] },
};

export default defineConfig({
  test: {
    environment: "node",
    setupFiles: ["./test/support/env-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: PROJECTS.map((name): TestProjectInlineConfiguration => ({
      extends: true,
      test: {
        ...OPTIONS[name],
        name,
        // An empty include would fall back to vitest's default: name a file that is never there.
        include: byProject[name].length > 0 ? byProject[name] : [`test/.no-${name}-tests`],
      },
    })),
  },
});
