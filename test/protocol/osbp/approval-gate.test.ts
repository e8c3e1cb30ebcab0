import { describe, expect, it } from "vitest";
import type { ApprovalContext, ApprovalFacts } from "../../../src/protocol/osbp/index.js";
import {
  APPROVAL_TOKEN_PATTERN,
  approvalFactsFrom,
  createApprovalGate,
  extractApprovalToken,
} from "../../../src/protocol/osbp/index.js";
import { createInput, NOW, policy, service, slot } from "./samples.js";

const SECRET = new Uint8Array(32).fill(7);

function setup(secret: Uint8Array = SECRET) {
  let now = NOW;
  const gate = createApprovalGate({ secret, clock: { now: () => now } });
  return { gate, advance: (ms: number) => (now += ms) };
}

const facts = (overrides: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
  ...approvalFactsFrom({
    slot: slot(),
    service: service(),
    policy: policy(),
    customer: createInput().customer,
  }),
  ...overrides,
});
const ctx = (over: Partial<ApprovalContext> = {}): ApprovalContext => ({
  input: createInput(),
  facts: facts(),
  ...over,
});

function issue(gate: ReturnType<typeof setup>["gate"], c: ApprovalContext = ctx()): string {
  const token = extractApprovalToken(gate.challenge(c).message);
  if (token === undefined) throw new Error("challenge carried no token");
  return token;
}

describe("approval gate challenge (OSBP booking.create)", () => {
  it("is a retryable requires_user_confirmation with a prose summary and exactly one approval.token", () => {
    const { gate } = setup();
    const p = gate.challenge(ctx());
    expect(p).toMatchObject({ code: "requires_user_confirmation", retryable: true });
    expect(p.message.match(/approval\.token="/g)).toHaveLength(1);
    const [summary] = p.message.split("\n\n");
    expect(summary).toContain("Haircut");
    expect(summary).toContain("Tuesday, May 5, 2026, 13:00–14:00 (America/Los_Angeles time)");
    expect(summary).toContain("Jordan Lee");
    expect(summary).toContain("Main Studio");
    expect(summary).toContain("USD 95.00");
    expect(summary).toContain("No upfront payment or deposit is required to book.");
    expect(summary).toContain("Jane Customer");
    expect(summary).not.toContain("approval.token");
    expect(summary).not.toContain("payment_requirement");
    expect(extractApprovalToken(p.message)).toMatch(APPROVAL_TOKEN_PATTERN);
  });

  it("issues a different token per challenge", () => {
    const { gate } = setup();
    expect(issue(gate)).not.toBe(issue(gate));
  });
});

describe("approval gate check", () => {
  it("approves the same payload with the returned token", () => {
    const { gate } = setup();
    const token = issue(gate);
    const r = gate.check(ctx(), { confirmed: true, token });
    expect(r.outcome).toBe("approved");
  });

  it("ignores approval and verification_code in the bound payload", () => {
    const { gate } = setup();
    const token = issue(gate, ctx({ input: createInput({ approval: { confirmed: false, token: "x" } }) }));
    const retry = createInput({ approval: { confirmed: true, token }, verification_code: "123456" });
    expect(gate.check(ctx({ input: retry }), retry.approval).outcome).toBe("approved");
  });

  const REFUSALS: [string, () => ApprovalContext, string][] = [
    ["a different payload (time)", () => ctx({ input: createInput({ time: "14:00" }) }), "mismatch"],
    [
      "a different customer",
      () => ctx({ input: createInput({ customer: { display_name: "Other" } }) }),
      "mismatch",
    ],
    [
      "a different idempotency_key",
      () => ctx({ input: createInput({ idempotency_key: "idem_2" }) }),
      "mismatch",
    ],
    [
      "a changed price",
      () => ctx({ facts: facts({ price: { amount_minor: 9900, currency: "USD", type: "fixed" } }) }),
      "mismatch",
    ],
    [
      "changed policy text",
      () => ctx({ facts: facts({ cancellation_note: "Cancel at least 24 hours before the appointment." }) }),
      "mismatch",
    ],
  ];

  it.each(REFUSALS)("re-challenges on %s with a fresh summary", (_name, changed, reason) => {
    const { gate } = setup();
    const token = issue(gate);
    const c = changed();
    const r = gate.check(c, { confirmed: true, token });
    expect(r).toMatchObject({ outcome: "rechallenge", reason });
    if (r.outcome !== "rechallenge") return;
    expect(r.problem).toMatchObject({ code: "requires_user_confirmation", retryable: true });
    const fresh = extractApprovalToken(r.problem.message);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(token);
    expect(gate.check(c, { confirmed: true, token: fresh }).outcome).toBe("approved");
  });

  it("shows the changed fact in the fresh summary", () => {
    const { gate } = setup();
    const token = issue(gate);
    const r = gate.check(ctx({ facts: facts({ price: { amount_minor: 9900, currency: "USD" } }) }), {
      confirmed: true,
      token,
    });
    expect(r.outcome === "rechallenge" && r.problem.message).toContain("USD 99.00");
  });

  it("expires after 10 minutes (injected clock)", () => {
    const { gate, advance } = setup();
    const token = issue(gate);
    advance(10 * 60 * 1000 - 1);
    expect(gate.check(ctx(), { confirmed: true, token }).outcome).toBe("approved");
    advance(1);
    expect(gate.check(ctx(), { confirmed: true, token })).toMatchObject({
      outcome: "rechallenge",
      reason: "expired",
    });
  });

  it("never approves a token from a gate with another secret", () => {
    const other = setup(new Uint8Array(32).fill(8));
    const { gate } = setup();
    const token = issue(other.gate);
    expect(gate.check(ctx(), { confirmed: true, token })).toMatchObject({ reason: "mismatch" });
  });

  it("refuses a token whose expiry was edited", () => {
    const { gate, advance } = setup();
    const token = issue(gate);
    advance(11 * 60 * 1000);
    const [v, , nonce, mac] = token.split(".");
    const forged = `${v}.${(NOW + 60 * 60 * 1000).toString(36)}.${nonce}.${mac}`;
    expect(gate.check(ctx(), { confirmed: true, token: forged })).toMatchObject({ reason: "mismatch" });
  });

  it.each([
    ["no approval", undefined, "missing"],
    ["a non-object approval", "yes", "malformed"],
    ["a non-token string", { confirmed: true, token: "approve_opaque_adapter_token" }, "malformed"],
  ])("re-challenges on %s", (_name, approval, reason) => {
    const { gate } = setup();
    expect(gate.check(ctx(), approval)).toMatchObject({ outcome: "rechallenge", reason });
  });

  it("re-challenges when confirmed is not true", () => {
    const { gate } = setup();
    const token = issue(gate);
    expect(gate.check(ctx(), { confirmed: false, token })).toMatchObject({ reason: "not_confirmed" });
  });

  it("refuses a short secret and a bad TTL (programmer errors)", () => {
    expect(() => createApprovalGate({ secret: new Uint8Array(16), clock: { now: () => 0 } })).toThrow(
      TypeError,
    );
    expect(() => createApprovalGate({ clock: { now: () => 0 }, ttlMs: 0 })).toThrow(TypeError);
  });
});
