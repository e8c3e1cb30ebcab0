/**
 * Setup file of each lane's shared project (`unit`, `redis`…), whose files share one module
 * cache per worker (vitest isolate: false, vitest.config.ts). A file there must leave the
 * process as it found it: after its tests, process.env is as before, timers are real, and
 * node:http is not patched (nock). Otherwise the file fails, saying it belongs in its lane's
 * `-isolated` project: what it changed would reach the next file in the worker. test/support/lanes.ts sends such files there by what they name
 * (ISOLATION_MARKERS); this catches one it missed.
 */
import http from "node:http";
import https from "node:https";
import { afterAll, beforeAll, expect, vi } from "vitest";

const ORIGINAL = Symbol.for("booking-gateway.shared-module-guard");
const holder = globalThis as { [ORIGINAL]?: readonly unknown[] };
const functions = (): readonly unknown[] => [
  http.request,
  http.get,
  https.request,
  https.get,
  http.ClientRequest,
];
// The first file in the worker records node:http as Node made it.
holder[ORIGINAL] ??= functions();
const original = holder[ORIGINAL];

const WHY =
  "this file changes process-wide state, which would reach the next file in its worker: " +
  "it belongs in its lane's -isolated project (ISOLATION_MARKERS in test/support/lanes.ts)";

let env: Record<string, string | undefined> = {};
beforeAll(() => {
  env = { ...process.env };
});
afterAll(() => {
  expect(vi.isFakeTimers(), WHY).toBe(false);
  expect(
    functions().every((f, i) => f === original[i]),
    WHY,
  ).toBe(true);
  expect({ ...process.env }, WHY).toEqual(env);
});
