/**
 * The Servicialo connector as a ContractSubject (test/connectors/contract/subject.ts) over the
 * nock fake. Not registered with connectorContract yet: Servicialo v1.2.0 has no session
 * readback, so the contract's lost-answer test cannot pass, and answers given from the
 * connector's memory (get, findByIdempotencyKey of a key this process never sent) carry no
 * upstream metadata, which the contract requires. See the report of issue #12 for the exact
 * list; once the contract allows a platform without readback, register it with
 *   connectorContract("servicialo", makeServicialoSubject)
 */
import nock from "nock";
import { createServicialoConnector } from "../../../src/connectors/servicialo/index.js";
import type { ContractOperation, ContractSubject } from "../contract/subject.js";
import {
  API_KEY,
  BASE,
  FakeServicialo,
  ORG,
  PROVIDERS,
  SERVICE,
  TZ,
  type FakeOperation,
} from "./fake-servicialo.js";

const NOW = Date.parse("2026-12-06T12:00:00-03:00");
const MONDAY = {
  start: Date.parse("2026-12-07T09:00:00-03:00"),
  end: Date.parse("2026-12-07T13:00:00-03:00"),
};

/** Contract operations to the fake's endpoints; get has none (no readback). */
const OPERATION: Partial<Record<ContractOperation, FakeOperation>> = {
  catalog: "services",
  slots: "availability",
  create: "book",
  move: "reschedule",
  cancel: "cancel",
  findByKey: "availability",
};

export function makeServicialoSubject(): Promise<ContractSubject> {
  const fake = new FakeServicialo();
  const connector = createServicialoConnector(
    {
      baseUrl: BASE,
      orgSlug: ORG,
      apiKey: API_KEY,
      timezone: TZ,
      providers: PROVIDERS,
      fallbackClientEmail: "reservas@clinica-demo.example",
      timeoutMs: 1000,
    },
    {
      fetch: fake.fetch,
      clock: { now: () => NOW },
      sleep: () => Promise.resolve(),
      logger: { warn: () => undefined },
    },
  );
  return Promise.resolve({
    connector,
    serviceId: SERVICE,
    range: MONDAY,
    inject(fault) {
      if (fault.kind === "revoked") {
        fake.revoked = true;
        return;
      }
      const op = OPERATION[fault.operation];
      if (op === undefined) return;
      if (fault.kind === "rate_limited") {
        fake.inject(op, {
          kind: "status",
          status: 429,
          headers: { "retry-after": String(fault.retryAfterSeconds) },
        });
      } else fake.inject(op, { kind: fault.kind });
    },
    restore: () => fake.restore(),
    liveAppointments: () => Promise.resolve(fake.live().length),
    // Each fake registers its own persistent interceptors: drop them with the subject.
    close: () => {
      nock.cleanAll();
      return Promise.resolve();
    },
  });
}
