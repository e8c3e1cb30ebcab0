/** `npm run demo:waitlist` against a running gateway over HTTP on loopback (SchCP §5.9). */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type E2eGateway } from "./support/gateway.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe("npm run demo:waitlist", () => {
  it("books, joins the waitlist, cancels, and the second agent confirms the offered time", async () => {
    const { code, out, err } = await new Promise<{ code: number | null; out: string; err: string }>(
      (resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-waitlist.ts"], {
          cwd: ROOT,
          env: { ...process.env, GATEWAY_URL: gw.origin },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let o = "";
        let e = "";
        child.stdout.on("data", (c: Buffer) => (o += c.toString()));
        child.stderr.on("data", (c: Buffer) => (e += c.toString()));
        child.once("exit", (c) => resolve({ code: c, out: o, err: e }));
      },
    );
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toMatch(/3\. The second agent joins the waitlist: w_\S+ waiting, position 1 \(HTTP 201\)/);
    expect(out).toMatch(/5\. waitlist\.offered: hold h_\S+/);
    expect(out).toMatch(/6\. The second agent confirms: booking b_\S+ confirmed; the entry is booked/);
  }, 60_000);
});
