/**
 * Independent test material lives in the workplace's shared/fixtures folder, beside the
 * repository (../shared from the repository root), not copied into it. This resolves a
 * path there and fails loudly when the folder is missing, so a test never passes on
 * material it could not read.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const sharedFixturesRoot = resolve(repoRoot, "..", "shared", "fixtures");

export function sharedFixturePath(relative: string): string {
  const path = resolve(sharedFixturesRoot, relative);
  if (!existsSync(path)) {
    throw new Error(
      `shared fixture ${relative} not found at ${path}: the tests expect the workplace's shared/ folder beside the repository`,
    );
  }
  return path;
}

export function readSharedFixture(relative: string): string {
  return readFileSync(sharedFixturePath(relative), "utf8");
}

export function readSharedJson<T = unknown>(relative: string): T {
  return JSON.parse(readSharedFixture(relative)) as T;
}
