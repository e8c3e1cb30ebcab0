/**
 * The synthetic platform's limit on verification sends (send-limit.ts): 3 per contact per
 * 10 minutes by default, HTTP 429 with Retry-After past it, configurable on the scenario and
 * on the connector. The Redis twin is covered by the backend contract and redis-backend.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  admitInWindow,
  bayviewReferenceStudio,
  createSyntheticConnector,
  DEFAULT_VERIFICATION_SEND_LIMIT,
  type SyntheticConnector,
  type SyntheticMessage,
} from "../../../src/connectors/synthetic/index.js";
import { connectorFor, failure, MIN, testClock, value } from "./support.js";

const PHONE = "+15555550100";
const send = (c: SyntheticConnector, phone = PHONE) =>
  c.verification.send({ phone }, "booking:bayview-reference-studio");

describe("admitInWindow", () => {
  it("counts sends strictly inside the window and drops older ones from the log", () => {
    const log: number[] = [];
    const limit = { maxSends: 2, windowMs: 1000 };
    expect(admitInWindow(log, 0, limit)).toEqual({ admitted: true });
    expect(admitInWindow(log, 400, limit)).toEqual({ admitted: true });
    expect(admitInWindow(log, 999, limit)).toEqual({ admitted: false, retryAfterMs: 1 });
    expect(log).toEqual([0, 400]);
    expect(admitInWindow(log, 1000, limit)).toEqual({ admitted: true });
    expect(log).toEqual([400, 1000]);
  });
});

describe("the verification send limit", () => {
  it("defaults to 3 sends per contact per 10 minutes", () => {
    expect(DEFAULT_VERIFICATION_SEND_LIMIT).toEqual({ maxSends: 3, windowMs: 10 * MIN });
  });

  it("the 4th send to one contact is HTTP 429 rate_limited with Retry-After; no code is stored or sent", async () => {
    const inbox: SyntheticMessage[] = [];
    const { connector, clock } = connectorFor(bayviewReferenceStudio, {
      messages: (m) => void inbox.push(m),
    });
    for (let i = 0; i < 3; i++) {
      value(await send(connector));
      clock.advance(MIN);
    }
    const third = await connector.lastCodeFor(PHONE);
    const e = failure(await send(connector));
    // The first send (3 minutes ago) leaves the window in 7 minutes.
    expect(e).toMatchObject({ code: "rate_limited", retryAfterMs: 7 * MIN });
    expect(e.upstream).toMatchObject({
      call: "POST /v2/verifications",
      status: 429,
      ratelimit: { "retry-after": "420" },
    });
    expect(await connector.lastCodeFor(PHONE)).toBe(third);
    expect(inbox).toHaveLength(3);

    // Another contact is not limited by this one's sends.
    value(await send(connector, "+15555550101"));
    // Waiting as told gets through.
    clock.advance(7 * MIN - 1);
    expect(failure(await send(connector)).retryAfterMs).toBe(1);
    clock.advance(1);
    value(await send(connector));
    expect(inbox).toHaveLength(5);
  });

  it("an email platform limits per email address", async () => {
    const { connector } = connectorFor({ ...bayviewReferenceStudio, verificationMethod: "email" });
    for (let i = 0; i < 3; i++) value(await connector.verification.send({ email: "a@example.com" }, "p"));
    expect(failure(await connector.verification.send({ email: "a@example.com" }, "p")).code).toBe(
      "rate_limited",
    );
    value(await connector.verification.send({ email: "b@example.com" }, "p"));
  });

  it("is configurable on the scenario, and the connector option wins", async () => {
    const strict = { ...bayviewReferenceStudio, verificationSendLimit: { maxSends: 1, windowMs: MIN } };
    const a = connectorFor(strict);
    value(await send(a.connector));
    expect(failure(await send(a.connector))).toMatchObject({ code: "rate_limited", retryAfterMs: MIN });
    const b = connectorFor(strict, { verificationSendLimit: { maxSends: 5, windowMs: MIN } });
    for (let i = 0; i < 5; i++) value(await send(b.connector));
    expect(failure(await send(b.connector)).code).toBe("rate_limited");
  });

  it("refuses a bad connector option as a programmer error", () => {
    expect(() =>
      createSyntheticConnector({
        scenario: bayviewReferenceStudio,
        clock: testClock(0),
        verificationSendLimit: { maxSends: 0, windowMs: MIN },
      }),
    ).toThrow(TypeError);
  });
});
