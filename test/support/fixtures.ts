/**
 * Independent test material lives in the project's fixtures/ folder (copied from shared
 * test material, sources noted in fixtures/README.md), so a clone of the project
 * alone passes its tests. This resolves a path there and fails loudly when a file is missing,
 * so a test never passes on material it could not read.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const fixturesRoot = resolve(repoRoot, "fixtures");

export function fixturePath(relative: string): string {
  const path = resolve(fixturesRoot, relative);
  if (!existsSync(path)) {
    throw new Error(`fixture ${relative} not found at ${path}: see fixtures/README.md`);
  }
  return path;
}

export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), "utf8");
}

export function readFixtureJson<T = unknown>(relative: string): T {
  return JSON.parse(readFixture(relative)) as T;
}
