/**
 * The Openings connector as a ContractSubject (test/connectors/contract/subject.ts) over the
 * nock fake (fake-openings.ts; the API shapes are ASSUMED, fixtures/openings/SOURCES.md). What
 * the connector declares (OPENINGS_BOOKING_ABILITIES): findByKey "lookup" through the
 * customer's history, which is gated behind verification, so the subject's business requires
 * verification and every create carries the customer and the code sent to them; no readback
 * by id, no move, no cancel; no credential at all (a key-less public API).
 */
import nock from "nock";
import { createOpeningsConnector } from "../../../src/connectors/openings/index.js";
import type { ContractOperation, ContractSubject } from "../contract/subject.js";
import { BASE, CODE, FakeOpenings, SLUG, type FakeOperation } from "./fake-openings.js";

/** Sunday noon before the Monday the subject books (America/New_York, EST). */
const NOW = Date.parse("2026-12-06T12:00:00-05:00");
const MONDAY = {
  start: Date.parse("2026-12-07T09:00:00-05:00"),
  end: Date.parse("2026-12-07T12:00:00-05:00"),
};
const CUSTOMER = { name: "Dana Reyes", phone: "+1 555 010 2030" };

/** Contract operations to the fake's endpoints; findByKey reads the customer's history. */
const OPERATION: Partial<Record<ContractOperation, FakeOperation>> = {
  catalog: "business",
  slots: "openings",
  create: "appointments",
  findByKey: "history",
};

export async function makeOpeningsSubject(): Promise<ContractSubject> {
  const fake = new FakeOpenings();
  fake.verificationRequired = true;
  const connect = () =>
    createOpeningsConnector(
      // The fake answers in process within milliseconds; its "timeout" and "lost answer" faults
      // never answer, and each such case waits this out.
      { baseUrl: BASE, businessSlug: SLUG, currency: "USD", timeoutMs: 500 },
      { fetch: fake.fetch, clock: { now: () => NOW }, logger: { warn: () => undefined } },
    );
  const connector = connect();
  // The customer asks for the code before booking (OSBP verification), as an agent would.
  const sent = await connector.verification.send(CUSTOMER, "booking");
  if (!sent.ok) throw new Error(`verification send: ${sent.error.message}`);
  return {
    connector,
    serviceId: "svc_cut",
    range: MONDAY,
    createExtras: { customer: CUSTOMER, verificationCode: CODE },
    credentialGuards: [],
    fresh: connect,
    createsSent: () =>
      fake.requests.filter((r) => r.method === "POST" && r.path.split("?")[0] === "/v1/appointments").length,
    inject(fault) {
      if (fault.kind === "revoked") throw new Error("Openings takes no credential: nothing to revoke");
      const op = OPERATION[fault.operation];
      if (op === undefined) throw new Error(`no Openings endpoint for ${fault.operation}`);
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
  };
}
