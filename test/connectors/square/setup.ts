/** A Square connector wired to a fresh fake Square, for the connector's own tests. */
import nock from "nock";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  createSquareConnector,
  type SquareConnector,
  type SquareDeps,
} from "../../../src/connectors/square/index.js";
import { FakeSquare, LOCATION_ID } from "./fake-square.js";

/** Sunday noon (America/Toronto) before the Monday the tests book. */
export const NOW = Date.parse("2026-10-18T12:00:00-04:00");
export const MONDAY_9 = Date.parse("2026-10-19T09:00:00-04:00");
export const TOKEN = "EAAAl-secret-token-value-0123456789";
export const PIN = "2026-08-20";
export const SDK_DEFAULT_VERSION = "2026-09-16";

export interface Rig {
  readonly fake: FakeSquare;
  readonly connector: SquareConnector;
  readonly logs: string[];
}

export function makeRig(
  options: {
    itemsFixture?: string;
    timeoutMs?: number;
    deps?: Partial<SquareDeps>;
    accessToken?: boolean;
  } = {},
): Rig {
  const fake = new FakeSquare(TOKEN, options.itemsFixture);
  fake.install();
  const logs: string[] = [];
  const connector = createSquareConnector(
    {
      environment: "sandbox",
      locationId: LOCATION_ID,
      version: PIN,
      ...(options.accessToken === false ? {} : { accessToken: TOKEN }),
      timeoutMs: options.timeoutMs ?? 1500,
    },
    {
      clock: { now: () => NOW },
      logger: { warn: (message, fields) => logs.push(JSON.stringify({ message, ...fields })) },
      ...options.deps,
    },
  );
  return { fake, connector, logs };
}

/** nock for this file: no network but loopback, interceptors dropped after each test. */
export function useNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}
