/**
 * The OSBP host layer, transport-free: one tool call in, one Result Envelope out (OSBP
 * "Result Envelope"), with exactly one audit event per call (OSBP "Audit").
 *
 * Order per call: validate the input against the tool's schema, run the adapter method (or,
 * for handoff.request, answer locally), attach `upstream` only when the adapter made an
 * upstream call during this tool call, record the audit event, then return the envelope with
 * the event's id. Nothing is thrown to the caller: an adapter that throws becomes the
 * audited internal_adapter_error Problem the spec's code table describes.
 */
import { randomBytes } from "node:crypto";
import type { AuditLog } from "../audit/port.js";
import type { Logger } from "../../../protocol/logger.js";
import { inSpan } from "../../../protocol/tracing.js";
import {
  problem,
  toolInputProblem,
  validateToolInput,
  type AdapterResult,
  type AdapterRuntimeDiagnostics,
  type BookingAdapter,
  type HandoffRequestInput,
  type HandoffResult,
  type Problem,
  type ToolInputs,
  type ToolName,
  type ToolResult,
  type UpstreamMeta,
} from "../../../protocol/osbp/index.js";

export interface ToolDispatcherOptions {
  readonly adapter: BookingAdapter & {
    readonly upstreamMeta?: UpstreamMeta | undefined;
    /** The upstream call this very result came from, exact under concurrency (the core adapter). */
    upstreamOf?(result: unknown): UpstreamMeta | undefined;
  };
  readonly audit: AuditLog;
  readonly logger: Logger;
}

export interface ToolDispatcher {
  /** Never rejects: every outcome, including a throwing adapter, is an envelope. */
  call(name: ToolName, rawInput: unknown): Promise<ToolResult<unknown>>;
}

/** The envelope before the audit event exists: what the audit log records as `result`. */
type Unrecorded =
  | { ok: true; value: unknown; osbp_runtime?: AdapterRuntimeDiagnostics }
  | { ok: false; problem: Problem; osbp_runtime?: AdapterRuntimeDiagnostics };

/**
 * Tools whose outcome may already exist on the platform when the adapter answers (an
 * appointment, a sent code, a consumed code). If the audit write then fails, the answer is
 * still returned: hiding a booking that exists invites the agent to book again, and hiding a
 * sent code invites another message to the customer. Every other tool is side-effect free, so
 * failing it closed costs the agent one retry and keeps "no unaudited answers" true for them.
 */
const SIDE_EFFECT_TOOLS: ReadonlySet<ToolName> = new Set([
  "booking.create",
  "verification.send",
  "verification.verify",
]);

const GENERIC_ADAPTER_ERROR = "The adapter failed unexpectedly; the failure was recorded";
const AUDIT_UNAVAILABLE =
  "The OSBP audit log could not be written, so this read was not answered; retry shortly";

export function createToolDispatcher(opts: ToolDispatcherOptions): ToolDispatcher {
  const { adapter, audit, logger } = opts;

  /** The shaped result, and the upstream call the adapter says this very result came from. */
  async function runAdapter(
    name: ToolName,
    input: ToolInputs[ToolName],
  ): Promise<{ shaped: Unrecorded; upstream?: UpstreamMeta }> {
    let result: unknown;
    try {
      result = await invoke(adapter, name, input);
    } catch (e) {
      // The stack may name internals; it goes to the operator channel only, never to the agent.
      logger.error("osbp adapter threw", {
        tool: name,
        error: e instanceof Error ? e.message : String(e),
        ...(e instanceof Error && e.stack !== undefined && { stack: e.stack }),
      });
      return { shaped: { ok: false, problem: problem("internal_adapter_error", GENERIC_ADAPTER_ERROR) } };
    }
    const shaped = asAdapterResult(result);
    if (shaped === undefined) {
      logger.error("osbp adapter returned something that is not an AdapterResult", { tool: name });
      return { shaped: { ok: false, problem: problem("internal_adapter_error", GENERIC_ADAPTER_ERROR) } };
    }
    const upstream = adapter.upstreamOf?.(result);
    return { shaped, ...(upstream !== undefined && { upstream }) };
  }

  return {
    // One span per tool call, the OSBP edge's request (docs/ARCHITECTURE.md, Tracing): the
    // core's booking operation and its upstream calls are its children.
    call: (name, rawInput) =>
      inSpan(
        `osbp ${name}`,
        { kind: "server", attributes: { "gateway.edge": "osbp", "osbp.tool": name } },
        async (span) => {
          const envelope = await dispatch(name, rawInput);
          span.setAttribute("osbp.ok", envelope.ok);
          if (!envelope.ok) span.setAttribute("osbp.problem", envelope.problem.code);
          return envelope;
        },
      ),
  };

  async function dispatch(name: ToolName, rawInput: unknown): Promise<ToolResult<unknown>> {
    const validated = validateToolInput(name, rawInput);
    const before = adapter.upstreamMeta;
    let result: Unrecorded;
    let upstream: UpstreamMeta | undefined;
    if (!validated.ok) {
      // OSBP "Audit" only requires schema-valid calls to be audited. Auditing the invalid
      // ones too keeps "every envelope has an audit_event_id" true without a special case,
      // and is harmless: redaction works on whatever arrived, structured or not.
      result = { ok: false, problem: toolInputProblem(validated.error) };
    } else if (name === "handoff.request") {
      // OSBP "handoff.request": no side effect, nothing is sent to the merchant.
      result = { ok: true, value: handoffResult(validated.value as HandoffRequestInput) };
    } else {
      const ran = await runAdapter(name, validated.value);
      result = ran.shaped;
      if (adapter.upstreamOf !== undefined) {
        // The core adapter knows which upstream call each result came from (absent when it
        // answered locally: an idempotency replay, a refused mandate).
        upstream = ran.upstream;
      } else {
        // Any other adapter: a new meta object means an upstream call happened while this
        // call ran (concurrent calls may see each other's).
        const after = adapter.upstreamMeta;
        if (after !== undefined && after !== before) upstream = after;
      }
    }
    return record(name, rawInput, result, upstream);
  }

  async function record(
    name: ToolName,
    input: unknown,
    result: Unrecorded,
    upstream: UpstreamMeta | undefined,
  ): Promise<ToolResult<unknown>> {
    const mandateId = mandateIdOf(name, input);
    try {
      const event = await audit.record({
        tool_name: name,
        ...(mandateId !== undefined && { mandate_id: mandateId }),
        input,
        result,
        ...(adapter.platform !== undefined && { platform: adapter.platform }),
        ...(upstream !== undefined && { upstream }),
      });
      return withId(result, event.id);
    } catch (e) {
      logger.error("OSBP AUDIT WRITE FAILED: this tool call has no audit event", {
        tool: name,
        ...(mandateId !== undefined && { mandate_id: mandateId }),
        outcome: result.ok ? "ok" : result.problem.code,
        error: e instanceof Error ? e.message : String(e),
      });
      // The id says plainly that no event carries it, so nobody goes looking for one.
      const id = `aud_unrecorded_${randomBytes(9).toString("base64url")}`;
      if (SIDE_EFFECT_TOOLS.has(name)) return withId(result, id);
      return withId({ ok: false, problem: problem("internal_adapter_error", AUDIT_UNAVAILABLE) }, id);
    }
  }
}

function invoke(adapter: BookingAdapter, name: ToolName, input: unknown): Promise<unknown> {
  switch (name) {
    case "service.describe":
      return adapter.describeService(input as ToolInputs["service.describe"]);
    case "availability.find":
      return adapter.findAvailability(input as ToolInputs["availability.find"]);
    case "policy.explain":
      return adapter.explainPolicy(input as ToolInputs["policy.explain"]);
    case "verification.send":
      return adapter.sendVerification(input as ToolInputs["verification.send"]);
    case "verification.verify":
      return adapter.verifyCode(input as ToolInputs["verification.verify"]);
    case "booking.create":
      return adapter.createBooking(input as ToolInputs["booking.create"]);
    case "booking.status":
      return adapter.getBooking(input as ToolInputs["booking.status"]);
    case "handoff.request":
      // Answered by the edge itself; never reaches an adapter.
      return Promise.reject(new Error("handoff.request is not an adapter method"));
  }
}

function handoffResult(input: HandoffRequestInput): HandoffResult {
  return {
    status: "requires_human",
    reason: input.reason,
    message: input.message,
    ...(input.mandate_id !== undefined && { mandate_id: input.mandate_id }),
  };
}

/** Checks only what the envelope needs, so a misbehaving adapter cannot produce a bad envelope. */
function asAdapterResult(value: unknown): Unrecorded | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Partial<AdapterResult<unknown>> & Record<string, unknown>;
  const runtime =
    typeof r.osbp_runtime === "object" && r.osbp_runtime !== null ? { osbp_runtime: r.osbp_runtime } : {};
  if (r.ok === true && "value" in r) return { ok: true, value: r.value, ...runtime };
  const p = r.problem as Partial<Problem> | undefined;
  if (r.ok === false && typeof p?.code === "string" && typeof p.message === "string") {
    return { ok: false, problem: { ...p, retryable: p.retryable === true } as Problem, ...runtime };
  }
  return undefined;
}

/** OSBP "Mandate Enforcement": the audit log stores the mandate id of each decision. */
function mandateIdOf(name: ToolName, input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const record = input as Record<string, unknown>;
  let id: unknown;
  if (name === "booking.create") {
    const mandate = record["mandate"];
    id =
      typeof mandate === "object" && mandate !== null
        ? (mandate as Record<string, unknown>)["id"]
        : undefined;
  } else if (name === "handoff.request") {
    id = record["mandate_id"];
  }
  return typeof id === "string" && id !== "" ? id : undefined;
}

function withId(result: Unrecorded, id: string): ToolResult<unknown> {
  const runtime = result.osbp_runtime === undefined ? {} : { osbp_runtime: result.osbp_runtime };
  return result.ok
    ? { ok: true, value: result.value, audit_event_id: id, ...runtime }
    : { ok: false, problem: result.problem, audit_event_id: id, ...runtime };
}
