/** OWNER_MAX_DRAFTS and OWNER_MAX_HOSTS (docs/console.md): read, checked, defaulted. */
import { expect, it } from "vitest";
import { readServeEnv } from "../../../src/gateway/cli/serve-env.js";
import { DEFAULT_OWNER_CAPS } from "../../../src/edges/console/managed-hosts.js";

it("per-owner caps come from the environment, each defaulting alone; nonsense is refused by name", () => {
  const none = readServeEnv({}, "/");
  expect(none.ok && none.value.ownerCaps).toBeUndefined();
  expect(DEFAULT_OWNER_CAPS).toEqual({ drafts: 20, hosts: 50 });
  const one = readServeEnv({ OWNER_MAX_DRAFTS: "5" }, "/");
  expect(one.ok && one.value.ownerCaps).toEqual({ drafts: 5, hosts: 50 });
  const both = readServeEnv({ OWNER_MAX_DRAFTS: "2", OWNER_MAX_HOSTS: "9" }, "/");
  expect(both.ok && both.value.ownerCaps).toEqual({ drafts: 2, hosts: 9 });
  for (const bad of ["0", "-1", "2.5", "many", "10001"]) {
    const r = readServeEnv({ OWNER_MAX_HOSTS: bad }, "/");
    expect(r.ok ? undefined : r.error).toBe(
      `OWNER_MAX_HOSTS must be a whole number from 1 to 10000, got "${bad}"`,
    );
  }
});
