/**
 * The Servicialo connector as a ContractSubject (test/connectors/contract/subject.ts) over the
 * nock fake (servicialo.contract.test.ts registers it). What Servicialo v1.2.0 can do, as the
 * connector declares it (SERVICIALO_BOOKING_ABILITIES): no session readback, list or search
 * (findByKey "none": a lost create is proven absent by its time still free, else refused);
 * cancel and reschedule are the only calls behind the organization key (credentialGuards);
 * the book endpoint is public.
 */
import nock from "nock";
import { createServicialoConnector } from "../../../src/connectors/servicialo/index.js";
import type { ContractOperation, ContractSubject } from "../contract/subject.js";
import {
  API_KEY,
  BASE,
  FakeServicialo,
  ORG,
  PREFIX,
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

/** Contract operations to the fake's endpoints; get has none (no readback); findByKey probes availability. */
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
  const connect = () =>
    createServicialoConnector(
      {
        baseUrl: BASE,
        orgSlug: ORG,
        apiKey: API_KEY,
        timezone: TZ,
        providers: PROVIDERS,
        fallbackClientEmail: "reservas@clinica-demo.example",
        // The fake answers in process within milliseconds; its "timeout" and "lost answer"
        // faults never answer, and each such case waits this out.
        timeoutMs: 500,
      },
      {
        fetch: fake.fetch,
        clock: { now: () => NOW },
        sleep: () => Promise.resolve(),
        logger: { warn: () => undefined },
      },
    );
  const connector = connect();
  return Promise.resolve({
    connector,
    serviceId: SERVICE,
    range: MONDAY,
    credentialGuards: ["move", "cancel"],
    fresh: connect,
    createsSent: () => fake.requests.filter((r) => r.method === "POST" && r.path === `${PREFIX}/book`).length,
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
