/** STATUS_ALLOW_PRIVATE (docs/settings.md, docs/schcp.md; SchCP §3.3 status URLs): read, checked, defaulted. */
import { expect, it } from "vitest";
import { readServeEnv, statusAllowPrivateOf } from "../../../src/gateway/cli/serve-env.js";

const read = (env: Record<string, string>) => {
  const r = readServeEnv(env, "/");
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

it("§3.3 status URLs on loopback: on for the embedded default, off with --config, unless STATUS_ALLOW_PRIVATE says", () => {
  expect(statusAllowPrivateOf(read({}), undefined)).toBe(true);
  expect(statusAllowPrivateOf(read({}), "hosts.json")).toBe(false);
  expect(statusAllowPrivateOf(read({ STATUS_ALLOW_PRIVATE: "1" }), "hosts.json")).toBe(true);
  expect(statusAllowPrivateOf(read({ STATUS_ALLOW_PRIVATE: "true" }), "hosts.json")).toBe(true);
  expect(statusAllowPrivateOf(read({ STATUS_ALLOW_PRIVATE: "0" }), undefined)).toBe(false);
  const bad = readServeEnv({ STATUS_ALLOW_PRIVATE: "yes" }, "/");
  expect(bad.ok ? undefined : bad.error).toBe('STATUS_ALLOW_PRIVATE must be 1 or 0, got "yes"');
});
