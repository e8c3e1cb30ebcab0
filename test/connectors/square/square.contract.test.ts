/**
 * The connector contract on the Square connector, against the nock-scripted fake Square
 * (fake-square.ts): the same suite the synthetic platform passes.
 */
import nock from "nock";
import { afterAll, beforeAll } from "vitest";
import { createSquareConnector } from "../../../src/connectors/square/index.js";
import { connectorContract } from "../contract/connector-contract.js";
import type { ContractSubject } from "../contract/subject.js";
import { FakeSquare, HAIRCUT, LOCATION_ID } from "./fake-square.js";

/** Sunday noon before the Monday the subject books (America/Toronto, EDT). */
const NOW = Date.parse("2026-10-18T12:00:00-04:00");
const MONDAY = {
  start: Date.parse("2026-10-19T09:00:00-04:00"),
  end: Date.parse("2026-10-19T12:00:00-04:00"),
};
const TOKEN = "EAAAl-contract-token-not-real";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});

afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

connectorContract("square (nock-scripted fake Square)", () => {
  nock.cleanAll();
  const fake = new FakeSquare(TOKEN);
  fake.install();
  const connector = createSquareConnector(
    {
      environment: "sandbox",
      locationId: LOCATION_ID,
      version: "2026-08-20",
      accessToken: TOKEN,
      timeoutMs: 1500,
    },
    { clock: { now: () => NOW }, logger: { warn: () => undefined } },
  );
  const subject: ContractSubject = {
    connector,
    serviceId: HAIRCUT,
    range: MONDAY,
    inject(fault) {
      if (fault.kind === "revoked") fake.revoked = true;
      else if (fault.kind === "rate_limited")
        fake.inject(fault.operation, { kind: "rate_limited", retryAfterSeconds: fault.retryAfterSeconds });
      else fake.inject(fault.operation, { kind: fault.kind });
    },
    restore: () => fake.restore(),
    liveAppointments: () => Promise.resolve(fake.live()),
    close: () => {
      nock.cleanAll();
      return Promise.resolve();
    },
  };
  return Promise.resolve(subject);
});
