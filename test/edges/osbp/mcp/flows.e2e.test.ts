/**
 * The OSBP flows over real stdio (OSBP "Canonical Flow", "Demo Trace"): `booking-gateway mcp --host <conformance host>` as a
 * child process, driven only through the official MCP client, as an agent would drive it.
 *
 * One server serves almost everything (its synthetic platform lives in that process's memory);
 * a second process on the same idempotency file proves the replay survives a restart. Every
 * process writes to one audit log, and the last test reads all of it: OSBP "Audit" and
 * "Security and Privacy Considerations" hold after the whole file, not per call.
 *
 * "No appointment was created" is shown the way an agent can see it: the slot is still offered
 * by availability.find, a fresh platform read.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APPROVAL_TOKEN_PATTERN,
  MCP_TOOL_NAMES,
  TOOL_NAMES,
  extractApprovalToken,
  type BookingCreateInput,
  type BookingMandate,
  type Customer,
  type OsbpMoney,
  type Problem,
  type Receipt,
  type Slot,
  type ToolName,
  type ToolResult,
  type ToolValues,
} from "../../../../src/protocol/osbp/index.js";
import { CONFORMANCE_HOST_ID, conformanceHost } from "../../../../src/gateway/osbp-conformance/index.js";
import {
  codeInMessage,
  readSyntheticMessages,
  type SyntheticMessage,
} from "../../../../src/connectors/synthetic/index.js";
import { startMcpServer, type McpSession } from "../../../support/mcp.js";

const SPAWN_MS = 60_000;
const fx = conformanceHost;
const ORG = fx.organization.id;
const SCHEDULE = fx.schedule_id;
const DATE = fx.bookableDate(Date.now());
const [PROVIDER_A, PROVIDER_B] = fx.providers.map((p) => p.id) as [string, string];
const svc = fx.services;

/** Customers with names unlikely to occur anywhere else, so the audit check cannot pass by luck. */
const CUSTOMER: Customer = {
  id: "cust_flows_1",
  display_name: "Jessamine Quartermaine",
  given_name: "Jessamine",
  family_name: "Quartermaine",
  phone: "+15555550142",
  email: "jessamine.q@example.com",
};
/** A second contact for the platform's per-contact send limit. */
const RATE_LIMITED: Customer = { display_name: "Bartholomew Ellingsworth", phone: "+15555550177" };

// ---- collected during the run, checked against the whole audit log at the end ----
const issuedTokens = new Set<string>();
const auditIds = new Set<string>();
const customers: Customer[] = [CUSTOMER, RATE_LIMITED];

let dir: string;
let env: Record<string, string>;
let session: McpSession;

async function startServer(): Promise<McpSession> {
  return startMcpServer({ host: CONFORMANCE_HOST_ID, env });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "osbp-flows-"));
  env = {
    OSBP_AUDIT_LOG_PATH: join(dir, "audit", "events.jsonl"),
    OSBP_IDEMPOTENCY_PATH: join(dir, "idempotency.json"),
    SYNTHETIC_MESSAGE_LOG: join(dir, "messages.jsonl"),
  };
  session = await startServer();
}, SPAWN_MS);

afterAll(async () => {
  await session?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

/**
 * One tool call through the MCP client. Checks the transport half of OSBP "Result Envelope"
 * and "Transport" on every call: compact JSON text equal to the structured content, isError
 * exactly when ok is false, an audit_event_id always.
 */
async function call<N extends ToolName>(name: N, input: unknown): Promise<ToolResult<ToolValues[N]>> {
  const res = await session.call(MCP_TOOL_NAMES[name], input);
  const envelope = res.envelope as ToolResult<ToolValues[N]> | undefined;
  if (envelope === undefined || typeof envelope !== "object")
    throw new Error(`${name}: no envelope (server stderr: ${session.stderr()})`);
  expect(JSON.parse(res.text)).toEqual(envelope);
  expect(res.isError).toBe(!envelope.ok);
  expect(envelope.audit_event_id).toMatch(/^aud_/);
  auditIds.add(envelope.audit_event_id);
  if (!envelope.ok) {
    const token = extractApprovalToken(envelope.problem.message);
    if (token !== undefined) issuedTokens.add(token);
  }
  return envelope;
}

function valueOf<T>(envelope: ToolResult<T>): T {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.problem)}`);
  return envelope.value;
}

function problemOf<T>(envelope: ToolResult<T>, code: string, retryable?: boolean): Problem {
  if (envelope.ok) throw new Error(`expected problem ${code}, got ok ${JSON.stringify(envelope.value)}`);
  expect(envelope.problem.code, envelope.problem.message).toBe(code);
  if (retryable !== undefined) expect(envelope.problem.retryable).toBe(retryable);
  return envelope.problem;
}

async function slots(serviceId: string, providerId?: string): Promise<Slot[]> {
  const input = { service_id: serviceId, schedule_id: SCHEDULE, date: DATE };
  return valueOf(await call("availability.find", providerId ? { ...input, provider_id: providerId } : input));
}

/** A slot availability offers now; `skip` leaves the first few for other cases. */
async function freeSlot(serviceId: string, providerId = PROVIDER_A, skip = 0): Promise<Slot> {
  const offered = await slots(serviceId, providerId);
  const slot = offered[Math.min(skip, offered.length - 1)];
  if (slot === undefined) throw new Error(`no availability for ${serviceId} with ${providerId} on ${DATE}`);
  return slot;
}

const sameTime = (a: Slot) => (b: Slot) =>
  b.starts_at_local === a.starts_at_local && b.provider_id === a.provider_id && b.service_id === a.service_id;

async function expectStillOffered(slot: Slot): Promise<void> {
  const offered = await slots(slot.service_id, slot.provider_id);
  expect(offered.some(sameTime(slot)), `${slot.id} should still be offered`).toBe(true);
}

async function expectNoLongerOffered(slot: Slot): Promise<void> {
  const offered = await slots(slot.service_id, slot.provider_id);
  expect(offered.some(sameTime(slot)), `${slot.id} should be booked`).toBe(false);
}

const fixed = (m: OsbpMoney | undefined): number => {
  if (m?.amount_minor === undefined) throw new Error("fixture price has no amount_minor");
  return m.amount_minor;
};

/**
 * The fixtures' mandate narrowed to DATE with room under the cap for every fixed USD service;
 * `overrides` replace members, and a member set to undefined is removed.
 */
function mandate(overrides: Record<string, unknown> = {}): BookingMandate {
  const base: Record<string, unknown> = {
    ...fx.mandateFor({
      id: `mnd_flows_${randomBytes(4).toString("hex")}`,
      earliest_start: `${DATE}T09:00:00`,
      latest_end: `${DATE}T18:00:00`,
      max_price: { amount_minor: 50_000, currency: "USD" },
    }),
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base as unknown as BookingMandate;
}

const newKey = (): string => `idem_flows_${randomBytes(6).toString("hex")}`;

function createInput(
  slot: Slot,
  m: BookingMandate,
  extra: Partial<BookingCreateInput> = {},
): BookingCreateInput {
  const input: BookingCreateInput = {
    mandate: m,
    idempotency_key: newKey(),
    service_id: slot.service_id,
    schedule_id: slot.schedule_id,
    date: slot.starts_at_local.slice(0, 10),
    time: slot.starts_at_local.slice(11, 16),
    customer: CUSTOMER,
    ...extra,
  };
  if (slot.provider_id !== undefined && !("provider_id" in extra)) input.provider_id = slot.provider_id;
  return input;
}

/** The token of a final-confirmation challenge (OSBP "booking.create": approval.token="<token>"). */
function challengeToken(envelope: ToolResult<Receipt>): string {
  const p = problemOf(envelope, "requires_user_confirmation", true);
  const token = extractApprovalToken(p.message);
  expect(token, "the challenge carries approval.token").toBeDefined();
  expect(token).toMatch(APPROVAL_TOKEN_PATTERN);
  return token as string;
}

/**
 * Preflight, then the approved retry when the gate asks for it. A failure the adapter reports
 * before its gate (a slot already taken) comes back from the preflight unchanged.
 */
async function createApproved(
  input: BookingCreateInput,
): Promise<{ envelope: ToolResult<Receipt>; approved?: BookingCreateInput }> {
  const pre = await call("booking.create", input);
  if (pre.ok || pre.problem.code !== "requires_user_confirmation") return { envelope: pre };
  const approved = { ...input, approval: { confirmed: true, token: challengeToken(pre) } };
  return { envelope: await call("booking.create", approved), approved };
}

interface AuditLine {
  id: string;
  tool_name: string;
  created_at: string;
  input_hash: string;
  result_hash: string;
  mandate_id?: string;
  upstream?: { call: string; status: number };
  result?: { osbp_runtime?: { idempotency?: string } };
}

async function auditLines(): Promise<string[]> {
  const text = await readFile(env["OSBP_AUDIT_LOG_PATH"] as string, "utf8");
  return text.split("\n").filter((line) => line.trim() !== "");
}

async function auditEvent(id: string): Promise<AuditLine> {
  const found = (await auditLines()).map((l) => JSON.parse(l) as AuditLine).find((e) => e.id === id);
  if (found === undefined) throw new Error(`audit event ${id} not in the log`);
  return found;
}

/** The synthetic platform's "phone": what the customer would read. */
const messages = (): Promise<SyntheticMessage[]> =>
  readSyntheticMessages(env["SYNTHETIC_MESSAGE_LOG"] as string);

const codeIn = (m: SyntheticMessage): string => {
  const code = codeInMessage(m);
  if (code === undefined) throw new Error(`no six-digit code in ${JSON.stringify(m.text)}`);
  return code;
};

async function latestCodeFor(phone: string, sentBefore: number): Promise<string> {
  const mine = (await messages()).filter((m) => m.to === phone);
  expect(mine.length, `a new message to ${phone}`).toBeGreaterThan(sentBefore);
  return codeIn(mine[mine.length - 1] as SyntheticMessage);
}

const sentTo = async (phone: string): Promise<number> =>
  (await messages()).filter((m) => m.to === phone).length;

const purpose = `booking:${ORG}`;

// ---------------------------------------------------------------- the flows

describe.sequential(`OSBP flows over stdio on ${CONFORMANCE_HOST_ID}`, () => {
  // Shared across the ordered cases below.
  let happySlot: Slot;
  let happyApproved: BookingCreateInput;
  let happyReceipt: Receipt;

  describe.sequential('OSBP "Canonical Flow": the happy path', () => {
    it("service.describe returns the fixed USD service as the fixtures describe it", async () => {
      const service = valueOf(await call("service.describe", { service_id: svc.fixed_usd.service_id }));
      expect(service.id).toBe(svc.fixed_usd.service_id);
      expect(service.name).toBe(svc.fixed_usd.name);
      expect(service.price).toEqual(svc.fixed_usd.price);
      expect(service.requires_consultation ?? false).toBe(false);
    });

    it("availability.find offers create-ready slots in merchant-local time", async () => {
      happySlot = await freeSlot(svc.fixed_usd.service_id);
      expect(happySlot).toMatchObject({
        organization_id: ORG,
        schedule_id: SCHEDULE,
        provider_id: PROVIDER_A,
        service_id: svc.fixed_usd.service_id,
        schedule_timezone: fx.organization.timezone,
      });
      // OSBP "Time Discipline": wall-clock without offset, instants with one.
      expect(happySlot.starts_at_local).toMatch(new RegExp(`^${DATE}T\\d{2}:\\d{2}:\\d{2}$`));
      expect(happySlot.starts_at).toMatch(/(Z|[+-]\d{2}:\d{2})$/);
    });

    it("policy.explain reads back the policy (no payment, the organization block)", async () => {
      const policy = valueOf(await call("policy.explain", { service_id: svc.fixed_usd.service_id }));
      expect(policy.payment_requirement).toBe("none");
      expect(policy.organization).toMatchObject({ id: ORG, currency: "USD" });
    });

    it("booking.create without approval: requires_user_confirmation with a token, and no platform create", async () => {
      const input = createInput(
        happySlot,
        mandate({
          service_ids: [svc.fixed_usd.service_id],
          provider_ids: [PROVIDER_A],
          schedule_ids: [SCHEDULE],
        }),
      );
      const pre = await call("booking.create", input);
      const token = challengeToken(pre);
      const message = (pre as { problem: Problem }).problem.message;
      // The user-facing summary names the resolved booking (OSBP "booking.create").
      expect(message).toContain(svc.fixed_usd.name);
      expect(message).toContain(happySlot.starts_at_local.slice(11, 16));
      expect(message).toContain(`approval.token="${token}"`);
      await expectStillOffered(happySlot);

      // "A leaked token cannot authorize ... a second create under a new idempotency key."
      const otherKey = await call("booking.create", {
        ...input,
        idempotency_key: newKey(),
        approval: { confirmed: true, token },
      });
      expect(challengeToken(otherKey)).not.toBe(token);
      await expectStillOffered(happySlot);

      happyApproved = { ...input, approval: { confirmed: true, token } };
    });

    it("booking.create retried with approval books the slot and returns a receipt", async () => {
      const created = await call("booking.create", happyApproved);
      happyReceipt = valueOf(created);
      expect(happyReceipt.booking_id).toEqual(expect.any(String));
      expect(happyReceipt.id).toEqual(expect.any(String));
      expect(happyReceipt.text).toContain(svc.fixed_usd.name);
      expect(created.osbp_runtime).toBeUndefined();
      // The audit log keeps the mandate id (OSBP "Mandate Enforcement").
      expect((await auditEvent(created.audit_event_id)).mandate_id).toBe(happyApproved.mandate.id);
      await expectNoLongerOffered(happySlot);
    });

    it("booking.status reads the appointment from the platform: booked", async () => {
      const status = await call("booking.status", { booking_id: happyReceipt.booking_id });
      expect(valueOf(status)).toMatchObject({
        id: happyReceipt.booking_id,
        status: "booked",
        service_id: svc.fixed_usd.service_id,
        provider_id: PROVIDER_A,
        starts_at_local: happySlot.starts_at_local,
        schedule_timezone: fx.organization.timezone,
      });
      // A fresh platform read, not a local answer: the audit event carries the upstream call.
      expect((await auditEvent(status.audit_event_id)).upstream).toBeDefined();
    });
  });

  describe.sequential('OSBP "Mandate Enforcement": fail closed, nothing created', () => {
    const usd = svc.fixed_usd.service_id;

    /** Preflight only: validation runs before the approval gate, so no token is ever issued. */
    async function refused(
      slot: Slot,
      m: BookingMandate,
      code: string,
      extra: Partial<BookingCreateInput> = {},
    ): Promise<Problem> {
      const envelope = await call("booking.create", createInput(slot, m, extra));
      const p = problemOf(envelope, code, false);
      expect(extractApprovalToken(p.message)).toBeUndefined();
      await expectStillOffered(slot);
      return p;
    }

    let slot: Slot;
    beforeAll(async () => {
      slot = await freeSlot(usd, PROVIDER_A, 2);
    });

    it("invalid_mandate: missing id", async () => {
      const p = await refused(slot, mandate({ id: undefined }), "invalid_mandate");
      expect(p.message).toContain("/mandate/id");
    });

    it("invalid_mandate: expires_at without a zone (a naked wall-clock)", async () => {
      const p = await refused(slot, mandate({ expires_at: `${DATE}T23:59:59` }), "invalid_mandate");
      expect(p.message).toContain("/mandate/expires_at");
    });

    it("invalid_mandate: earliest_start carrying an offset", async () => {
      const p = await refused(slot, mandate({ earliest_start: `${DATE}T09:00:00-07:00` }), "invalid_mandate");
      expect(p.message).toContain("/mandate/earliest_start");
    });

    it("mandate_expired", async () => {
      await refused(
        slot,
        mandate({ expires_at: new Date(Date.now() - 60_000).toISOString() }),
        "mandate_expired",
      );
    });

    it("action_not_allowed", async () => {
      await refused(slot, mandate({ allowed_actions: ["booking.status"] }), "action_not_allowed");
    });

    it("organization_not_allowed", async () => {
      await refused(slot, mandate({ organization_id: "org_somewhere_else" }), "organization_not_allowed");
    });

    it("service_not_allowed", async () => {
      await refused(slot, mandate({ service_ids: [svc.fixed_eur.service_id] }), "service_not_allowed");
    });

    it("schedule_not_allowed", async () => {
      await refused(slot, mandate({ schedule_ids: ["schedule_somewhere_else"] }), "schedule_not_allowed");
    });

    it("provider_unknown: provider_ids set, but the create names no provider", async () => {
      const input = createInput(slot, mandate({ provider_ids: [PROVIDER_A] }));
      delete input.provider_id;
      const p = problemOf(await call("booking.create", input), "provider_unknown", false);
      expect(extractApprovalToken(p.message)).toBeUndefined();
      await expectStillOffered(slot);
    });

    it("provider_not_allowed", async () => {
      await refused(slot, mandate({ provider_ids: [PROVIDER_B] }), "provider_not_allowed");
    });

    it("slot_too_early", async () => {
      await refused(slot, mandate({ earliest_start: slot.ends_at_local }), "slot_too_early");
    });

    it("slot_too_late", async () => {
      await refused(
        slot,
        mandate({ earliest_start: `${DATE}T00:00:00`, latest_end: slot.starts_at_local }),
        "slot_too_late",
      );
    });

    it("price_exceeds_mandate", async () => {
      const cap = { amount_minor: fixed(svc.fixed_usd.price) - 1, currency: "USD" };
      await refused(slot, mandate({ max_price: cap }), "price_exceeds_mandate");
    });

    it("policy_fee_exceeds_mandate: a deposit above max_extra_fee", async () => {
      const deposit = await freeSlot(svc.deposit.service_id, PROVIDER_B, 2);
      const m = mandate({
        max_price: { amount_minor: fixed(svc.deposit.price), currency: "USD" },
        allow_policy_fee: true,
        max_extra_fee: { amount_minor: fixed(svc.deposit.deposit) - 1, currency: "USD" },
      });
      await refused(deposit, m, "policy_fee_exceeds_mandate");
    });

    it("currency_mismatch: a EUR service under a USD cap", async () => {
      const eur = await freeSlot(svc.fixed_eur.service_id, PROVIDER_B, 3);
      expect(svc.fixed_eur.price?.currency).toBe("EUR");
      await refused(
        eur,
        mandate({ max_price: { amount_minor: 1_000_000, currency: "USD" } }),
        "currency_mismatch",
      );
    });

    it("requires_payment_handoff: a deposit the mandate does not allow", async () => {
      const deposit = await freeSlot(svc.deposit.service_id, PROVIDER_B, 4);
      const m = mandate({ max_price: { amount_minor: fixed(svc.deposit.price), currency: "USD" } });
      expect(m.allow_policy_fee ?? false).toBe(false);
      await refused(deposit, m, "requires_payment_handoff");
    });

    it("requires_consultation_handoff", async () => {
      const consultation = await freeSlot(svc.consultation.service_id, PROVIDER_B, 5);
      await refused(consultation, mandate(), "requires_consultation_handoff");
    });

    it("requires_user_confirmation, terminal form: an unknown payment requirement", async () => {
      const unknown = await freeSlot(svc.unknown_payment.service_id, PROVIDER_B, 6);
      await refused(unknown, mandate(), "requires_user_confirmation");
    });

    it("requires_user_confirmation, terminal form: an insurance-dependent price", async () => {
      const insurance = await freeSlot(svc.insurance_dependent.service_id, PROVIDER_B, 7);
      expect(svc.insurance_dependent.price?.amount_minor).toBeUndefined();
      await refused(insurance, mandate(), "requires_user_confirmation");
    });
  });

  describe.sequential('OSBP "booking.create": idempotency', () => {
    it("the same key and payload after success replays the receipt without a platform call", async () => {
      const before = await slots(svc.fixed_usd.service_id);
      const again = await call("booking.create", happyApproved);
      expect(valueOf(again)).toEqual(happyReceipt);
      expect(again.osbp_runtime?.idempotency).toBe("local_cache_replay");
      // Answered locally: no upstream call in its audit event, and the platform unchanged.
      const event = await auditEvent(again.audit_event_id);
      expect(event.upstream).toBeUndefined();
      expect(event.result?.osbp_runtime?.idempotency).toBe("local_cache_replay");
      expect(await slots(svc.fixed_usd.service_id)).toEqual(before);
    });

    it("the transient approval is not part of the payload: a replay without it is still a replay", async () => {
      const { approval: _approval, ...withoutApproval } = happyApproved;
      const again = await call("booking.create", withoutApproval);
      expect(valueOf(again)).toEqual(happyReceipt);
      expect(again.osbp_runtime?.idempotency).toBe("local_cache_replay");
    });

    it("the same key with a different payload is idempotency_conflict", async () => {
      const other = await freeSlot(svc.fixed_usd.service_id, PROVIDER_A, 1);
      const conflicting = { ...happyApproved, time: other.starts_at_local.slice(11, 16) };
      problemOf(await call("booking.create", conflicting), "idempotency_conflict", false);
      await expectStillOffered(other);
    });
  });

  describe.sequential("slot_taken", () => {
    it("a second create (new key) for a booked slot is slot_taken, retryable", async () => {
      const second = createInput(happySlot, happyApproved.mandate);
      const { envelope } = await createApproved(second);
      problemOf(envelope, "slot_taken", true);
    });
  });

  describe.sequential('OSBP "verification.send": verification before booking', () => {
    let slot: Slot;
    let approved: BookingCreateInput;

    it("the approved create answers requires_verification (retryable); nothing booked", async () => {
      slot = await freeSlot(svc.verification.service_id, PROVIDER_B);
      const { envelope, approved: withApproval } = await createApproved(
        createInput(slot, mandate({ service_ids: [svc.verification.service_id] })),
      );
      problemOf(envelope, "requires_verification", true);
      expect(withApproval).toBeDefined();
      approved = withApproval as BookingCreateInput;
      await expectStillOffered(slot);
    });

    it("verification.send delivers a code; a wrong code is verification_failed", async () => {
      const before = await sentTo(CUSTOMER.phone as string);
      const sent = valueOf(await call("verification.send", { customer: CUSTOMER, purpose }));
      expect(sent).toMatchObject({ sent: true, method: fx.verification_method, purpose });
      const code = await latestCodeFor(CUSTOMER.phone as string, before);
      const wrong = code === "000000" ? "111111" : "000000";
      problemOf(
        await call("booking.create", { ...approved, verification_code: wrong }),
        "verification_failed",
      );
      await expectStillOffered(slot);
    });

    it("after a new send, the retry with the code from the message books it", async () => {
      // OSBP: verification_failed -> "retry the send step and then retry booking.create with the new raw code".
      const before = await sentTo(CUSTOMER.phone as string);
      valueOf(await call("verification.send", { customer: CUSTOMER, purpose }));
      const code = await latestCodeFor(CUSTOMER.phone as string, before);
      const receipt = valueOf(await call("booking.create", { ...approved, verification_code: code }));
      const status = valueOf(await call("booking.status", { booking_id: receipt.booking_id }));
      expect(status.status).toBe("booked");
      expect(status.starts_at_local).toBe(slot.starts_at_local);
      await expectNoLongerOffered(slot);
    });
  });

  describe.sequential("rate_limited", () => {
    it("exceeding the platform's send limit for one contact is rate_limited, retryable", async () => {
      let accepted = 0;
      let limited: Problem | undefined;
      // The synthetic platform allows a few sends per contact per window (3 by default).
      for (let i = 0; i < 10 && limited === undefined; i++) {
        const envelope = await call("verification.send", { customer: RATE_LIMITED, purpose });
        if (envelope.ok) accepted += 1;
        else limited = problemOf(envelope, "rate_limited", true);
      }
      expect(accepted).toBeGreaterThan(0);
      expect(limited?.code).toBe("rate_limited");
      expect(await sentTo(RATE_LIMITED.phone as string)).toBe(accepted);
    });
  });

  describe.sequential('OSBP "handoff.request"', () => {
    it("answers requires_human with no side effect", async () => {
      const messagesBefore = (await messages()).length;
      const slot = await freeSlot(svc.deposit.service_id, PROVIDER_A, 1);
      const input = {
        reason: "requires_payment_handoff",
        message: "This service requires a deposit. Please complete the booking with the merchant directly.",
        mandate_id: "mnd_flows_handoff",
      };
      const handoff = await call("handoff.request", input);
      expect(valueOf(handoff)).toEqual({ status: "requires_human", ...input });
      const event = await auditEvent(handoff.audit_event_id);
      expect(event.upstream).toBeUndefined();
      expect(event.mandate_id).toBe("mnd_flows_handoff");
      expect((await messages()).length).toBe(messagesBefore);
      await expectStillOffered(slot);
    });
  });

  describe.sequential("idempotency across a server restart (same idempotency file)", () => {
    it(
      "a new process replays the settled receipt and still refuses a different payload",
      async () => {
        await session.close();
        session = await startServer();
        const again = await call("booking.create", happyApproved);
        expect(valueOf(again)).toEqual(happyReceipt);
        expect(again.osbp_runtime?.idempotency).toBe("local_cache_replay");
        expect((await auditEvent(again.audit_event_id)).upstream).toBeUndefined();
        problemOf(
          await call("booking.create", { ...happyApproved, provider_id: PROVIDER_B }),
          "idempotency_conflict",
          false,
        );
      },
      SPAWN_MS,
    );
  });

  describe.sequential('OSBP "Audit", after the whole file', () => {
    it("every line is an audit event; no contact, name, code or token leaked", async () => {
      const lines = await auditLines();
      const events = lines.map((line) => JSON.parse(line) as AuditLine);
      for (const e of events) {
        expect(e.id).toMatch(/^aud_/);
        expect(TOOL_NAMES).toContain(e.tool_name);
        expect(Number.isNaN(Date.parse(e.created_at))).toBe(false);
        expect(e.created_at).toMatch(/(Z|[+-]\d{2}:\d{2})$/);
        expect(e.input_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(e.result_hash).toMatch(/^[0-9a-f]{64}$/);
      }
      // Every envelope this file received is in the log, once.
      const ids = events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of auditIds) expect(ids).toContain(id);
      // Every booking.create event keeps its mandate id.
      const creates = events.filter((e) => e.tool_name === "booking.create");
      expect(creates.filter((e) => e.mandate_id === undefined)).toHaveLength(1); // the missing-id case
      for (const e of creates) if (e.mandate_id !== undefined) expect(e.mandate_id).toMatch(/^mnd_flows_/);

      const text = lines.join("\n");
      const secrets: string[] = [];
      for (const c of customers) {
        for (const value of [c.phone, c.email, c.display_name, c.given_name, c.family_name])
          if (value !== undefined) secrets.push(value);
      }
      expect(issuedTokens.size).toBeGreaterThan(0);
      secrets.push(...issuedTokens);
      for (const secret of secrets) expect(text.includes(secret), `audit log contains ${secret}`).toBe(false);

      // Every code the platform sent: a six-digit run standing alone (hashes and ids are
      // alphanumeric runs, so a code is only "found" where a value equal to it was written).
      const codes = (await messages()).map(codeIn);
      expect(codes.length).toBeGreaterThanOrEqual(3);
      for (const code of codes) {
        expect(
          new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`).test(text),
          `audit log contains code ${code}`,
        ).toBe(false);
      }
    });
  });
});
