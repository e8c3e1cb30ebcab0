/**
 * `npm run demo` (scripts/demo-osbp.ts) as a person runs it: a child process that spawns the
 * OSBP stdio server itself. Checks the OSBP "Demo Trace" steps in the spec's order, the
 * guardrail, and that no approval token or verification code reached the output.
 */
import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeInMessage, readSyntheticMessages } from "../../src/connectors/synthetic/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** OSBP "Demo Trace", verbatim. */
const STEPS = [
  "user request",
  "generated BookingMandate",
  "service.describe",
  "availability.find",
  "policy.explain",
  "booking.create validation preflight without approval",
  "explicit user approval text using the returned summary",
  "booking.create retry with approval",
  "verification.send (if required), followed by retry of booking.create with the same approval plus verification_code",
  "booking.status",
  "final receipt returned to the user",
  "local audit event ids",
];

function runDemo(): Promise<{ code: number | null; out: string; err: string }> {
  const env = { ...process.env };
  delete env["REDIS_URL"];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-osbp.ts"], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => resolve({ code, out, err }));
  });
}

const printedPath = (out: string, label: string): string => {
  const path = new RegExp(`^${label}:\\s+(\\S+)`, "m").exec(out)?.[1];
  if (path === undefined) throw new Error(`the demo did not print its ${label}`);
  return path;
};

let run: { code: number | null; out: string; err: string };
let tempDir: string | undefined;

beforeAll(async () => {
  run = await runDemo();
  const audit = /^audit log:\s+(\S+)/m.exec(run.out)?.[1];
  // The demo keeps its files for a person to inspect; the test cleans up after itself.
  if (audit !== undefined) tempDir = dirname(dirname(audit));
}, 120_000);

afterAll(async () => {
  if (tempDir !== undefined && tempDir.includes("osbp-demo-"))
    await rm(tempDir, { recursive: true, force: true });
});

describe("npm run demo (OSBP)", () => {
  it("exits 0 with nothing on stderr", () => {
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/\nDone\.\n$/);
  });

  it('prints the twelve "Demo Trace" steps, numbered and titled as the spec lists them, in order', () => {
    let from = 0;
    STEPS.forEach((title, i) => {
      const heading = `\n${i + 1}. ${title}\n`;
      const at = run.out.indexOf(heading, from);
      expect(at, `step ${i + 1} "${title}" after step ${i}`).toBeGreaterThanOrEqual(from);
      from = at + heading.length;
    });
  });

  it("really goes through the approval challenge, verification and a booked status", () => {
    expect(run.out).toMatch(/problem: requires_user_confirmation \(retryable: true\)/);
    expect(run.out).toMatch(/Please confirm this booking/);
    expect(run.out).toMatch(/problem: requires_verification \(retryable: true\)/);
    expect(run.out).toMatch(/\n10\. booking\.status\n\s+\S+: booked,/);
  });

  it("shows the guardrail refusing an over-cap booking with no appointment", () => {
    const guardrail = run.out.slice(run.out.indexOf("Guardrail: an over-cap booking"));
    expect(guardrail).toMatch(/^Guardrail: an over-cap booking\n/);
    expect(guardrail).toMatch(/price_exceeds_mandate \(retryable: false\)/);
    expect(guardrail).toMatch(/no appointment was created/);
  });

  it("prints no approval token and no verification code", async () => {
    // The token shape of approval-gate.ts, and every retry instruction redacted.
    expect(run.out).not.toMatch(/apv1\.[0-9a-z]+\.[A-Za-z0-9_-]{22}\./);
    const instructions = [...run.out.matchAll(/approval\.token="([^"]*)"/g)].map((m) => m[1]);
    expect(instructions.length).toBeGreaterThan(0);
    for (const value of instructions) expect(value).toBe("[redacted]");

    const messages = await readSyntheticMessages(printedPath(run.out, "message log"));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      const code = codeInMessage(m);
      expect(code).toBeDefined();
      // Standing alone: ids and hashes are alphanumeric runs that may hold six digits by chance.
      expect(run.out).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`));
    }
  });

  it("lists audit event ids that are in the audit log it names", async () => {
    const ids = [...run.out.slice(run.out.indexOf("\n12. ")).matchAll(/^\s+(aud_\S+)\s+\S+$/gm)].map(
      (m) => m[1],
    );
    expect(ids.length).toBeGreaterThanOrEqual(10);
    const log = await readFile(printedPath(run.out, "audit log"), "utf8");
    const logged = log
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id);
    for (const id of ids) expect(logged).toContain(id);
  });
});
