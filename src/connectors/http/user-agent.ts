/** The gateway's User-Agent on every upstream request (docs/ARCHITECTURE.md, Upstream requests): who calls, pinned to
 * what. */
import { readFileSync } from "node:fs";

let packageVersion: string | undefined;

/** package.json is three levels up from both src/connectors/http and dist/connectors/http. */
function gatewayPackageVersion(): string {
  if (packageVersion === undefined) {
    try {
      const text = readFileSync(new URL("../../../package.json", import.meta.url), "utf8");
      const parsed = JSON.parse(text) as { version?: unknown };
      packageVersion = typeof parsed.version === "string" ? parsed.version : "0.0.0";
    } catch {
      packageVersion = "0.0.0";
    }
  }
  return packageVersion;
}

export function userAgentFor(
  vendor: string,
  apiVersion: string,
  gatewayVersion = gatewayPackageVersion(),
): string {
  const nodeMajor = process.versions.node.split(".")[0] ?? "0";
  return `booking-gateway/${gatewayVersion} ${vendor}/${apiVersion} node/${nodeMajor}`;
}
