/**
 * The connector contract on the Servicialo connector, against the nock-scripted fake
 * Servicialo (fake-servicialo.ts, shaped from fixtures/servicialo and the v1.2.0 spec).
 */
import nock from "nock";
import { afterAll, beforeAll } from "vitest";
import { connectorContract } from "../contract/connector-contract.js";
import { makeServicialoSubject } from "./contract-subject.js";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});

afterAll(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

connectorContract("servicialo (nock-scripted fake Servicialo v1.2.0)", makeServicialoSubject);
