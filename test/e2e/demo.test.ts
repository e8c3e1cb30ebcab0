/**
 * `npm run demo:schcp` against a running gateway (over HTTP on loopback), and against none.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FaultPlan } from "../../src/connectors/synthetic/index.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function runDemo(
  gatewayUrl: string,
  extra: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-schcp.ts"], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_URL: gatewayUrl, ...extra },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("exit", (code) => resolve({ code, out, err }));
  });
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe("npm run demo:schcp", () => {
  it("walks discover -> availability -> hold -> consent -> confirm -> receipt -> cancel", async () => {
    const { code, out, err } = await runDemo(gw.origin);
    expect(err).toBe("");
    expect(code).toBe(0);
    for (const step of [
      /1\. Discover: /,
      /2\. Host: Maple Street Auto \(maple-street-auto, America\/Toronto\)/,
      /authorized by §2\.2 rule 2/,
      /3\. Availability for oil-change/,
      /4\. Hold h_\S+ \(HTTP 201\)/,
      /5\. Consent text .*\n\s+"Oil change with Maple Street Auto \(127\.0\.0\.1\), .*CAD 89\.27, paid to Maple Street Auto directly\. Maple Street Auto keeps my booking details for 1 year after the booking\."/,
      /6\. Confirm: booking b_\S+ is confirmed \(HTTP 201\)/,
      /7\. Receipt .*\n.*\n\s+consent: approved by offer under mandate/,
      /8\. Cancel under a management mandate .*\n\s+status cancelled, sequence 1/,
      /Done\./,
    ]) {
      expect(out).toMatch(step);
    }
  }, 60_000);

  it("walks a host_approval host too (202 pending_host, then cancelled)", async () => {
    const { code, out } = await runDemo(gw.origin, { HOST_ID: "harbourview-dental" });
    expect(code).toBe(0);
    expect(out).toMatch(/Confirm: booking b_\S+ is pending_host \(HTTP 202\)/);
  }, 60_000);

  it("exits non-zero with a clear message when no gateway is running", async () => {
    const port = await unusedPort();
    const { code, out, err } = await runDemo(`http://127.0.0.1:${port}`);
    expect(code).toBe(2);
    expect(out).not.toMatch(/Done/);
    expect(err).toContain(`no gateway answers at http://127.0.0.1:${port}`);
    expect(err).toContain("npm start");
  }, 60_000);
});

describe("npm run demo:schcp at a degraded host", () => {
  let degraded: E2eGateway;
  beforeAll(async () => {
    // Harbourview Dental's catalog cannot be read: it starts degraded and publishes no service.
    const catalog = new FaultPlan();
    catalog.next("catalog", "unavailable", Infinity);
    degraded = await startGateway({
      runtime: { syntheticFaults: (hostId) => (hostId === "harbourview-dental" ? catalog : new FaultPlan()) },
    });
  });
  afterAll(async () => {
    await degraded?.close();
  });

  it("says the host is degraded and why, from the operator credential in the data directory", async () => {
    const { code, err } = await runDemo(degraded.origin, {
      HOST_ID: "harbourview-dental",
      GATEWAY_DATA_DIR: degraded.dataDir,
      OPERATOR_TOKEN: "",
    });
    expect(code).toBe(1);
    expect(err).toMatch(
      /harbourview-dental offers no service right now; the host is degraded since \S+: catalog\.read: the platform is unavailable/,
    );
  }, 60_000);

  it("without the credential, says where the host's health is", async () => {
    const { code, err } = await runDemo(degraded.origin, {
      HOST_ID: "harbourview-dental",
      GATEWAY_DATA_DIR: "/nonexistent",
      OPERATOR_TOKEN: "",
    });
    expect(code).toBe(1);
    expect(err).toContain(
      `harbourview-dental offers no service right now; its health is at ${degraded.origin}/operator/v0/harbourview-dental/health`,
    );
  }, 60_000);
});
