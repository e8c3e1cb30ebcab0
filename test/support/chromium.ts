/**
 * A real headless Chromium for the page tests (Debian's chromium, driven by playwright-core;
 * `.ci/run` installs it). CHROMIUM_PATH overrides where it is looked for.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium (CI installs it)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
