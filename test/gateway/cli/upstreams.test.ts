/**
 * A platform's Deprecation/Sunset notice reaches the operator — recorded per host
 * when the gateway reads a Square host's catalog, listed by `booking-gateway upstreams` and by
 * GET /operator/v0/{host}/upstream-notices — and never changes what agents see.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../../src/gateway/cli/cli.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { parseHostsConfig } from "../../../src/booking/hosts/parse-config.js";
import { FakeSquare, LOCATION_ID } from "../../connectors/square/fake-square.js";
import { PIN, TOKEN, useNock } from "../../connectors/square/setup.js";

useNock();

const SUNSET = "Sat, 01 May 2027 00:00:00 GMT";
const config = {
  hosts: [
    {
      id: "maple-square",
      name: "Maple on Square",
      timezone: "America/Toronto",
      connector: {
        type: "square",
        settings: { environment: "sandbox", locationId: LOCATION_ID, version: PIN, accessToken: TOKEN },
      },
    },
  ],
};

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-upstreams-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      env: { GATEWAY_DATA_DIR: dir },
      out: (l: string) => out.push(l),
      err: (l: string) => err.push(l),
      cwd: dir,
    },
  };
}

describe("upstream retirement notices for operators", () => {
  it("`booking-gateway upstreams` lists each host's pinned version and the notices its platform sent", async () => {
    const fake = new FakeSquare(TOKEN);
    fake.extraHeaders = { deprecation: "@1798761600", sunset: SUNSET };
    fake.install();
    await writeFile(join(dir, "hosts.json"), JSON.stringify(config));
    const t = capture();
    expect(await runCli(["upstreams", "--config", "hosts.json"], t.io)).toBe(0);
    const text = t.out.join("\n");
    expect(text).toContain(`maple-square: square (pinned API version ${PIN}), health ok`);
    expect(text).toMatch(
      /RETIRING square GET \/v2\/locations\/\S+ — Deprecation: @1798761600; Sunset: Sat, 01 May 2027/,
    );
    // Logged loudly too (the request helper's warning), and no credential anywhere.
    expect([...t.out, ...t.err].join("\n")).not.toContain(TOKEN);
  });

  it("the operator API lists them per host; a host without notices lists none", async () => {
    const fake = new FakeSquare(TOKEN);
    fake.extraHeaders = { sunset: SUNSET };
    fake.install();
    const parsed = parseHostsConfig(config);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const runtime = await createGatewayRuntime({
      hosts: parsed.value,
      publicOrigin: "https://gateway.test",
      dataDir: dir,
      workers: false,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    try {
      const app = createHttpApp(runtime);
      const get = (path: string) =>
        app.request(path, { headers: { authorization: `Bearer ${runtime.operatorToken}` } });
      const res = await get("/operator/v0/maple-square/upstream-notices");
      expect(res.status).toBe(200);
      const body = (await res.json()) as { notices: Array<Record<string, string>> };
      expect(body.notices.length).toBeGreaterThan(0);
      expect(body.notices[0]).toMatchObject({ vendor: "square", sunset: SUNSET });
      expect(body.notices[0]?.["first_seen"]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect((await app.request("/operator/v0/maple-square/upstream-notices")).status).toBe(401);
      // Not a calendar host: its calendar view says so.
      expect((await get("/operator/v0/maple-square/calendar")).status).toBe(404);
    } finally {
      await runtime.close();
    }
  });
});
