/**
 * The connector contract on the Openings connector, against the nock-scripted fake Openings
 * (fake-openings.ts; shapes ASSUMED, fixtures/openings/SOURCES.md).
 */
import nock from "nock";
import { afterAll, beforeAll } from "vitest";
import { connectorContract } from "../contract/connector-contract.js";
import { makeOpeningsSubject } from "./contract-subject.js";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});

afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

connectorContract("openings (nock-scripted fake Openings, assumed shapes)", makeOpeningsSubject);
