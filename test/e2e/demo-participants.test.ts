/**
 * `npm run demo:participants` (SchCP §5.10) against a running gateway over HTTP on loopback:
 * a parent books with a required invitee and a named-only child; the invitee's own agent
 * reads the booking, verifies the offer and accepts; the booking is confirmed.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function runDemo(gatewayUrl: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-participants.ts"], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_URL: gatewayUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    // A demo that stalls is stopped before the test's own timeout, so its output says where.
    const stall = setTimeout(() => child.kill("SIGKILL"), 50_000);
    child.once("exit", (code) => {
      clearTimeout(stall);
      resolve({ code, out, err });
    });
  });
}

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe("npm run demo:participants (§5.10)", () => {
  it("books tentatively for a required invitee and a named-only child; the invitee accepts; confirmed", async () => {
    const { code, out, err } = await runDemo(gw.origin);
    expect(err, out).toBe("");
    expect(code, `the demo's output:\n${out}`).toBe(0);
    for (const step of [
      /Host: Fades on Queen \(fades-on-queen\) takes participants/,
      /Confirm: booking b_\S+ is tentative \(HTTP 202\)/,
      /invitee urn:schcp:principal:\S+ \(brother\): pending, answer by /,
      /attendee Mira \(child\): not_required/,
      /verifies the host's offer/,
      /The brother accepts: booking b_\S+ is confirmed \(sequence 1\)/,
      /The parent cancels: cancelled/,
      /Done\./,
    ]) {
      expect(out).toMatch(step);
    }
  }, 60_000);
});
