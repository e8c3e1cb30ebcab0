/**
 * The test lanes (vitest.config.ts, test/support/lanes.ts): every test file runs in exactly one
 * vitest project, so `vitest run` runs each test once; a unit-lane file names nothing that
 * reaches a server or starts a process; and the classifier reads what it should.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import config from "../vitest.config.js";
import {
  classify,
  codeMarkers,
  CODE_MARKERS,
  filesByProject,
  HELPER_LANES,
  ISOLATION_MARKERS,
  LANES,
  laneOf,
  NOCK_MARKER,
  PROJECTS,
  projectOf,
  stripComments,
  testFiles,
} from "./support/lanes.js";

const ROOT = join(import.meta.dirname, "..");

describe("test lanes", () => {
  it("the config's projects are the lanes' projects that have files, and every test file is in exactly one", () => {
    const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include: string[] } }>;
    const byProject = filesByProject(ROOT);
    expect(projects.map((p) => p.test.name)).toEqual(PROJECTS.filter((p) => byProject[p].length > 0));
    const seen = new Map<string, string[]>();
    for (const { test } of projects) {
      for (const file of test.include) seen.set(file, [...(seen.get(file) ?? []), test.name]);
    }
    const all = testFiles(ROOT);
    expect(all.length).toBeGreaterThan(300);
    for (const file of all) expect(seen.get(file), file).toHaveLength(1);
    // Nothing but test files.
    for (const file of seen.keys()) expect(all.includes(file), file).toBe(true);
  });

  it("the root config names no include of its own (a project would inherit it and run every file)", () => {
    expect(config.test?.include).toBeUndefined();
  });

  it("a unit-lane file, and every test helper it imports, names no server and starts no process", () => {
    const byProject = filesByProject(ROOT);
    const unit = [
      ...byProject.unit,
      ...byProject["unit-nock"],
      ...byProject["unit-isolated"],
      ...byProject["unit-alone"],
    ];
    expect(unit.length).toBeGreaterThan(200);
    for (const { file, lane, reasons } of classify(ROOT, unit)) {
      expect({ file, lane, reasons }).toEqual({ file, lane: "unit", reasons: [] });
      expect(codeMarkers(readFileSync(join(ROOT, file), "utf8")), file).toEqual([]);
    }
  });

  it("files of the shared-module projects (two per lane) change no process-wide state but nock's, and only in -nock", () => {
    const byProject = filesByProject(ROOT);
    for (const lane of LANES) {
      for (const file of [...byProject[lane], ...byProject[`${lane}-nock`]]) {
        const code = stripComments(readFileSync(join(ROOT, file), "utf8"));
        expect(ISOLATION_MARKERS.filter((m) => m.test(code)).map(String), file).toEqual([]);
      }
      for (const file of byProject[lane]) {
        const code = stripComments(readFileSync(join(ROOT, file), "utf8"));
        expect(NOCK_MARKER.test(code), file).toBe(false);
      }
    }
    expect(byProject["unit-nock"].length).toBeGreaterThan(20);
  });

  it("a file that scripts HTTP with nock shares modules only with other such files; one that also fakes timers is loaded afresh", () => {
    const [nocked] = classify(ROOT, ["test/connectors/openings/openings.test.ts"]);
    expect(nocked && projectOf(nocked)).toBe("unit-nock");
    // Through a helper: the Google tests script Google's API with nock in a shared fake.
    const [helped] = classify(ROOT, ["test/connectors/google/sync.test.ts"]);
    expect(helped && projectOf(helped)).toBe("unit-nock");
    const [timers] = classify(ROOT, ["test/calendar/budget-cache.test.ts"]);
    expect(timers && projectOf(timers)).toBe("unit-isolated");
  });

  it("each lane is its shared project, its -nock one, its -isolated one and its -alone one", () => {
    expect([...PROJECTS]).toEqual(
      LANES.flatMap((lane) => [lane, `${lane}-nock`, `${lane}-isolated`, `${lane}-alone`]),
    );
    expect(PROJECTS.every((p) => laneOf(p) === LANES.find((l) => p.startsWith(l)))).toBe(true);
  });

  it("a file that measures the event loop's latency runs alone, loaded afresh", () => {
    const [bounded] = classify(ROOT, ["test/gateway/runtime/bounded-upstream.test.ts"]);
    expect(bounded && projectOf(bounded)).toBe("processes-alone");
    const [burst] = classify(ROOT, ["test/edges/console/sign-in-burst.test.ts"]);
    expect(burst && projectOf(burst)).toBe("redis-isolated");
  });

  it("every helper the classifier knows by path exists (a renamed helper would drop its lane)", () => {
    for (const helper of Object.keys(HELPER_LANES)) expect(existsSync(join(ROOT, helper)), helper).toBe(true);
  });

  it("known files land in their lanes", () => {
    const lane = (file: string) => classify(ROOT, [file])[0]?.lane;
    expect(lane("test/holds/redis/redis-contract.test.ts")).toBe("redis");
    expect(lane("test/cluster/failover.test.ts")).toBe("cluster");
    expect(lane("test/e2e/approval-page.test.ts")).toBe("caldav-browser");
    expect(lane("test/connectors/caldav/sync.xandikos.test.ts")).toBe("caldav-browser");
    expect(lane("test/edges/osbp/mcp/stdio.e2e.test.ts")).toBe("processes");
    expect(lane("test/lanes.test.ts")).toBe("unit");
  });
});

describe("the classifier reads code, not comments or data", () => {
  // The samples are assembled from parts so that this file, a unit test, names no marker itself.
  const src = (...parts: string[]) => parts.join("");

  it("finds what reaches a server or starts a process", () => {
    expect(codeMarkers(src('import { spawn } from "node:child', '_process";'))).toEqual(["processes"]);
    expect(codeMarkers(src('import { Redis } from "io', 'redis";'))).toEqual(["redis"]);
    expect(codeMarkers(src("const url = process.env.REDIS", '_URL ?? "x";'))).toEqual(["redis"]);
    expect(codeMarkers(src('const n = process.env["TEST_REDIS_CLUSTER', '_NODES"];'))).toEqual(["cluster"]);
    expect(codeMarkers(src('import { chromium } from "play', 'wright-core";'))).toEqual(["caldav-browser"]);
    expect(codeMarkers(src("new StdioClient", 'Transport({ command: "node" })'))).toEqual(["processes"]);
  });

  it("ignores comments, type-only imports and strings handed to a parser", () => {
    expect(codeMarkers(src('// import { spawn } from "node:child', '_process";'))).toEqual([]);
    expect(codeMarkers(src('/* uses it: import "io', 'redis" */ const a = 1;'))).toEqual([]);
    expect(codeMarkers(src('import type { BrowserContext } from "play', 'wright-core";'))).toEqual([]);
    expect(codeMarkers('parse("redis+cluster://a:1,b:2"); read({ REDIS_URL: "redis://h:1" });')).toEqual([]);
  });

  it("every server lane has markers", () => {
    expect(new Set(CODE_MARKERS.map((m) => m.lane))).toEqual(
      new Set(["cluster", "caldav-browser", "processes", "redis"]),
    );
  });
});
