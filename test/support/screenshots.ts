/**
 * Screenshots for a person to look at: written under test-artifacts/
 * (git-ignored), the folder made on demand, the name kept to a safe file name.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { repoRoot } from "./fixtures.js";

export const SCREENSHOTS_DIR = join(repoRoot, "test-artifacts", "screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const path = join(SCREENSHOTS_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, "-")}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
