/** Shared set-up of the Microsoft connector tests: nock on graph.microsoft.com, a token that must never leak. */
import nock from "nock";
import { afterAll, afterEach, beforeEach, expect } from "vitest";
import {
  createMicrosoftCalendarConnector,
  type MicrosoftCalendarConnector,
  type MicrosoftCalendarSettings,
} from "../../../src/connectors/microsoft/index.js";
import { readFixtureJson } from "../../support/fixtures.js";

export const TOKEN = "eyJ0eXAiOiJKV1Qi.SECRET-GRAPH-TEST-TOKEN.must-never-appear";
export const GRAPH = "https://graph.microsoft.com";
export const NOW = Date.parse("2026-12-03T07:00:00Z");
export const WINDOW = { start: Date.parse("2026-12-07T00:00:00Z"), end: Date.parse("2027-01-07T00:00:00Z") };

export const fixture = <T = Record<string, unknown>>(name: string): T =>
  readFixtureJson<T>(`microsoft/${name}`);

export function connector(settings: MicrosoftCalendarSettings = {}): MicrosoftCalendarConnector {
  return createMicrosoftCalendarConnector(settings, {
    accessToken: () => Promise.resolve(TOKEN),
    clock: { now: () => NOW },
  });
}

/** Graph with the Authorization header checked on every request. */
export const graph = (): nock.Scope => nock(GRAPH, { reqheaders: { authorization: `Bearer ${TOKEN}` } });

export function expectNoToken(result: unknown): void {
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect(JSON.stringify(result)).not.toContain("SECRET-GRAPH-TEST-TOKEN");
}

export function useNock(): void {
  beforeEach(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending, "every expected request was made").toEqual([]);
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
}
