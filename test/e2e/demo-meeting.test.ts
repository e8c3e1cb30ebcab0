/**
 * `npm run demo:meeting` (SchCP §5.12) against the embedded default started the way `npm start`
 * starts it (booking-gateway serve in process, only GATEWAY_DATA_DIR and PORT=0): the three
 * people's calendars and the café, each person owned by a try-it key in the data dir, Ellis's
 * rule in the rule store. The demo runs as its own process, over HTTP on loopback.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type RunningServer } from "../../src/gateway/cli/cli.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function runDemo(
  gatewayUrl: string,
  dataDir: string,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-meeting.ts"], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_URL: gatewayUrl, GATEWAY_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => resolve({ code, out, err }));
  });
}

let root: string;
let dataDir: string;
let server: RunningServer;
let banner = "";

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "demo-meeting-"));
  dataDir = join(root, "data");
  const out: string[] = [];
  const started = await runCli(["serve"], {
    env: { GATEWAY_DATA_DIR: dataDir, PORT: "0" },
    out: (l) => out.push(l),
    err: () => undefined,
    cwd: root,
  });
  banner = out.join("\n");
  if (typeof started !== "object" || !("publicOrigin" in started))
    throw new Error(`serve did not start:\n${banner}`);
  server = started;
  // The calendars are read once before the demo asks for availability.
  for (const id of ["noor-haddad", "ellis-moreau", "priya-shah", "bellwoods-cafe"])
    expect(await server.runtime.syncCalendarNow(id)).toBe(true);
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("npm run demo:meeting (§5.12) against the embedded default", () => {
  it("names the try-it people and Ellis's rule at start, each key owner-only", () => {
    expect(banner).toContain(`try-it people (SchCP §5.12, §7.7): noor-haddad, ellis-moreau and priya-shah`);
    expect(banner).toContain(join(dataDir, "try-it-people"));
    expect(banner).toContain(
      `try-it rule: ellis-moreau answers by "Weekend playdates with my contacts" (SchCP §7.9, put in the rule store now)`,
    );
    for (const id of ["noor-haddad", "ellis-moreau", "priya-shah"])
      expect(statSync(join(dataDir, "try-it-people", `${id}.jwk`)).mode & 0o777).toBe(0o600);
  });

  it("holds at four calendars, confirms with one contract, nothing confirmed before the commit, then all confirmed", async () => {
    const { code, out, err } = await runDemo(server.publicOrigin, dataDir);
    expect(err).toBe("");
    expect(code).toBe(0);
    for (const step of [
      /finds four calendars that take part in meetings/,
      /noor-haddad: Noor Haddad, kind person/,
      /Availability on Saturday: \d+ start\(s\) every calendar offers/,
      /first in common: Saturday, .* \(\d{4}-\d\d-\d\dT\d\d:\d\d:00-0[45]:00, America\/Toronto\)/,
      /statement: I approve: Playdate with Ellis Moreau \(ellis-moreau\), Priya Shah \(priya-shah\) and Bellwoods Café \(bellwoods-cafe\), Saturday .* Eastern time, at Bellwoods Café, 790 Queen St W, Toronto, with Mira \(child\) coming along; Ellis Moreau and Priya Shah may each answer by a rule they signed\./,
      /bellwoods-cafe: booking b_\S+ tentative, answered by host \(HTTP 202\)/,
      /noor-haddad: booking b_\S+ tentative, answered by person \(HTTP 202\)/,
      /priya-shah: booking b_\S+ pending_host, not answered yet \(HTTP 202\)/,
      /statement: I accept: Playdate arranged by Noor Haddad \(noor-haddad\)/,
      /priya-shah: booking b_\S+ tentative, answered by person, acceptance on file/,
      /Done\./,
    ])
      expect(out).toMatch(step);

    // Ellis: tentative by rule at confirm, or pending until Ellis accepts.
    expect(out).toMatch(
      /ellis-moreau: booking b_\S+ (tentative, answered by rule \("Weekend playdates with my contacts"\), acceptance on file|pending_host, not answered yet) \(HTTP 202\)/,
    );

    // Nothing is confirmed before the commit step.
    const beforeCommit = out.slice(0, out.indexOf("commits at every calendar"));
    expect(beforeCommit).not.toMatch(/booking b_\S+ confirmed/);
    expect(beforeCommit).toMatch(/booking b_\S+ tentative/);

    // The commit: the café first, Noor's own last, each confirmed at sequence 1, by whom it was answered.
    const commit = out.slice(out.indexOf("commits at every calendar"));
    const order = ["bellwoods-cafe", "ellis-moreau", "priya-shah", "noor-haddad"].map((id) =>
      commit.indexOf(`${id}: booking`),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(commit).toMatch(/bellwoods-cafe: booking b_\S+ confirmed, answered by host \(sequence 1\)/);
    expect(commit).toMatch(
      /ellis-moreau: booking b_\S+ confirmed, answered by (rule \("Weekend playdates with my contacts"\)|person), acceptance on file \(sequence 1\)/,
    );
    expect(commit).toMatch(
      /priya-shah: booking b_\S+ confirmed, answered by person, acceptance on file \(sequence 1\)/,
    );
    expect(commit).toMatch(/noor-haddad: booking b_\S+ confirmed, answered by person \(sequence 1\)/);
    for (const id of ["bellwoods-cafe", "noor-haddad", "ellis-moreau", "priya-shah"])
      expect(out).toContain(`   ${id}: confirmed\n`);
  }, 120_000);
});
