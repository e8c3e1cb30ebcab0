/** Shared set-up of the Google connector tests: nock on googleapis.com, a token that must never leak. */
import nock from "nock";
import { afterAll, afterEach, beforeEach, expect } from "vitest";
import {
  createGoogleCalendarConnector,
  type GoogleCalendarConnector,
} from "../../../src/connectors/google/index.js";
import { readFixtureJson } from "../../support/fixtures.js";

export const TOKEN = "ya29.a0-SECRET-TEST-TOKEN-must-never-appear";
export const API = "https://www.googleapis.com";
export const NOW = Date.parse("2026-12-03T07:00:00Z");
export const WINDOW = { start: Date.parse("2026-12-07T00:00:00Z"), end: Date.parse("2027-01-07T00:00:00Z") };

export const fixture = <T = Record<string, unknown>>(name: string): T => readFixtureJson<T>(`google/${name}`);

export function connector(settings = {}): GoogleCalendarConnector {
  return createGoogleCalendarConnector(settings, {
    accessToken: () => Promise.resolve(TOKEN),
    clock: { now: () => NOW },
  });
}

/** Google with the Authorization header checked on every request. */
export const google = (): nock.Scope => nock(API, { reqheaders: { authorization: `Bearer ${TOKEN}` } });

/** Nothing the connector answers (value, error, metadata) may hold the token. */
export function expectNoToken(result: unknown): void {
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect(JSON.stringify(result)).not.toContain("SECRET-TEST-TOKEN");
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
