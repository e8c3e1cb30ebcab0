#!/usr/bin/env node
// Runs the built CLI (npm run build) when present; in a source checkout, runs the
// TypeScript entry through tsx so `npx booking-gateway` works without a build step.
import { existsSync } from "node:fs";

const built = new URL("../dist/gateway/cli/main.js", import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/gateway/cli/main.ts", import.meta.url).href);
}
