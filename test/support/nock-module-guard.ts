/**
 * Setup file of each lane's `-nock` project, whose files share one module cache per worker
 * (vitest isolate: false, vitest.config.ts) and all script HTTP with nock (NOCK_MARKER in
 * test/support/lanes.ts). nock patches node:http and fetch once, when the worker first loads it,
 * and every file here expects that patch; what must not pass from one file to the next is nock's
 * state. So each file starts with no interceptor and net connect allowed, and fails if it leaves
 * an interceptor behind. As in the shared projects (test/support/shared-module-guard.ts), it must
 * also leave process.env as it found it and timers real.
 */
import nock from "nock";
import { afterAll, beforeAll, expect, vi } from "vitest";

const WHY =
  "this file leaves state behind that the next nock file in its worker would meet: clean up " +
  "with nock.cleanAll() and nock.enableNetConnect() in afterAll (test/support/nock-module-guard.ts)";

let env: Record<string, string | undefined> = {};
beforeAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  env = { ...process.env };
});
afterAll(() => {
  expect(nock.activeMocks(), WHY).toEqual([]);
  expect(vi.isFakeTimers(), WHY).toBe(false);
  expect({ ...process.env }, WHY).toEqual(env);
});
