/**
 * npm run demo — the OSBP "Demo Trace", live: an agent books a synthetic appointment inside a
 * BookingMandate over the local stdio MCP server, then the guardrail refuses an over-cap
 * booking. No accounts or secrets: the server runs the conformance host (a synthetic platform
 * in its own process), and the customer's "phone" is a message log file.
 *
 * The agent here is this script, using only the official MCP SDK client, and it follows the
 * spec's agent rules: it shows the user the approval summary and never the approval token
 * (OSBP "booking.create"), and it gets the verification code from the customer out of band
 * (here: the message log). Tokens and codes are masked in everything it prints, as published
 * traces must be (OSBP "Security and Privacy Considerations").
 *
 * Prints the twelve Demo Trace steps, numbered and titled as the spec lists them, then the
 * guardrail. Exit 0 when every answer was the expected one; 1 with the reason otherwise.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { codeInMessage, readSyntheticMessages } from "../src/connectors/synthetic/index.js";
import { CONFORMANCE_HOST_ID, conformanceHost } from "../src/gateway/osbp-conformance/index.js";
import {
  APPROVAL_INSTRUCTION_PATTERN,
  MCP_TOOL_NAMES,
  moneyInWords,
  type BookingCreateInput,
  type BookingMandate,
  type OsbpMoney,
  type Problem,
  type Slot,
  type ToolName,
  type ToolResult,
  type ToolValues,
} from "../src/protocol/osbp/index.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const fx = conformanceHost;

/** An answer the trace did not expect: the demo stops and says which step. */
class DemoFailure extends Error {}

// ---------------------------------------------------------------- output

/** Strings that must never be printed (approval tokens, verification codes). */
const secrets = new Set<string>();

function mask(text: string): string {
  let out = text.replace(new RegExp(APPROVAL_INSTRUCTION_PATTERN.source, "g"), 'approval.token="[redacted]"');
  for (const s of secrets) out = out.split(s).join("[redacted]");
  return out;
}

function say(line = ""): void {
  process.stdout.write(`${mask(line)}\n`);
}

function step(n: number, title: string, lines: readonly string[] = []): void {
  say();
  say(`${n}. ${title}`);
  for (const line of lines) for (const part of line.split("\n")) say(`   ${part}`);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const json = (value: unknown): string => JSON.stringify(value, null, 2);

// ---------------------------------------------------------------- the MCP session

interface Session {
  call<N extends ToolName>(name: N, input: unknown): Promise<ToolResult<ToolValues[N]>>;
  /** tool name -> audit_event_id, in call order (Demo Trace step 12). */
  readonly audited: Array<{ tool: ToolName; id: string }>;
  stderr(): string;
  close(): Promise<void>;
}

async function connect(paths: Record<string, string>): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(ROOT, "src/gateway/cli/main.ts"), "mcp", "--host", CONFORMANCE_HOST_ID],
    cwd: ROOT,
    // Only the SDK's safe defaults plus our files: no REDIS_URL, no platform credentials.
    env: { ...getDefaultEnvironment(), ...paths },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "osbp-demo-agent", version: "0.1.0" });
  await client.connect(transport);
  const audited: Array<{ tool: ToolName; id: string }> = [];
  return {
    audited,
    stderr: () => stderr,
    close: () => client.close(),
    async call(name, input) {
      const res = await client.callTool({
        name: MCP_TOOL_NAMES[name],
        arguments: input as Record<string, unknown>,
      });
      const envelope = res.structuredContent as ToolResult<ToolValues[typeof name]> | undefined;
      if (envelope === undefined || typeof envelope.ok !== "boolean")
        throw new DemoFailure(`${name} answered without an OSBP envelope`);
      audited.push({ tool: name, id: envelope.audit_event_id });
      return envelope;
    },
  };
}

function valueOf<T>(what: string, envelope: ToolResult<T>): T {
  if (!envelope.ok)
    throw new DemoFailure(
      `${what}: expected success, got ${envelope.problem.code}: ${envelope.problem.message}`,
    );
  return envelope.value;
}

function problemOf<T>(what: string, envelope: ToolResult<T>, code: string): Problem {
  if (envelope.ok) throw new DemoFailure(`${what}: expected ${code}, but it succeeded`);
  if (envelope.problem.code !== code)
    throw new DemoFailure(
      `${what}: expected ${code}, got ${envelope.problem.code}: ${envelope.problem.message}`,
    );
  return envelope.problem;
}

/** The challenge message split as OSBP "booking.create" defines it: summary, then the instruction. */
function splitChallenge(message: string): { summary: string; instruction: string; token: string } {
  const token = APPROVAL_INSTRUCTION_PATTERN.exec(message)?.[1];
  if (token === undefined) throw new DemoFailure('the challenge carries no approval.token="…"');
  secrets.add(token);
  const paragraphs = message.split(/\n\s*\n/);
  const summary = paragraphs.filter((p) => !APPROVAL_INSTRUCTION_PATTERN.test(p)).join("\n\n");
  const instruction = paragraphs.filter((p) => APPROVAL_INSTRUCTION_PATTERN.test(p)).join("\n\n");
  if (summary.trim() === "") throw new DemoFailure("the challenge carries no user-facing summary");
  return { summary, instruction, token };
}

const money = (m: OsbpMoney | undefined): string => (m === undefined ? "not stated" : moneyInWords(m));
const hhmm = (slot: Slot): string => slot.starts_at_local.slice(11, 16);

function createInput(slot: Slot, mandate: BookingMandate): BookingCreateInput {
  return {
    mandate,
    // A fresh key per logical booking attempt, reused only for its retries.
    idempotency_key: `idem_demo_${randomBytes(6).toString("hex")}`,
    service_id: slot.service_id,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id === undefined ? {} : { provider_id: slot.provider_id }),
    date: slot.starts_at_local.slice(0, 10),
    time: hhmm(slot),
    customer: fx.customer,
  };
}

// ---------------------------------------------------------------- the trace

/** Demo Trace steps 1 to 12; returns the date it booked on. */
async function trace(s: Session, paths: Record<string, string>): Promise<string> {
  const service = fx.services.verification;
  const price = service.price?.amount_minor;
  if (price === undefined || service.price?.currency !== fx.organization.currency)
    throw new DemoFailure(`the fixture ${service.service_id} has no fixed ${fx.organization.currency} price`);
  const date = fx.bookableDate(Date.now());
  // The user's cap: a round amount above the price (USD 40.00 -> USD 50.00).
  const cap: OsbpMoney = {
    amount_minor: (Math.floor(price / 1000) + 1) * 1000,
    currency: fx.organization.currency,
  };

  step(1, "user request", [
    `"Book me in for the ${service.name} at ${fx.organization.name} on ${date}, any time between ` +
      `09:00 and 18:00, for no more than ${money(cap)}. They can text me a code if they need to check it's me."`,
  ]);

  const mandate = fx.mandateFor({
    id: `mnd_demo_${randomBytes(4).toString("hex")}`,
    service_ids: [service.service_id],
    earliest_start: `${date}T09:00:00`,
    latest_end: `${date}T18:00:00`,
    max_price: cap,
  });
  step(2, "generated BookingMandate", [
    json(mandate),
    "(unsigned JSON in v0.1.0; the server validates every field before any mutation)",
  ]);

  const described = valueOf(
    "service.describe",
    await s.call("service.describe", { service_id: service.service_id }),
  );
  step(3, "service.describe", [
    `${described.name} (${described.id}): ${described.duration ?? "duration not stated"}, ${money(described.price)}`,
    described.requires_consultation === true
      ? "requires a consultation"
      : "bookable directly, no consultation",
  ]);

  const slots = valueOf(
    "availability.find",
    await s.call("availability.find", { service_id: service.service_id, schedule_id: fx.schedule_id, date }),
  );
  const slot = slots[0];
  if (slot === undefined) throw new DemoFailure(`availability.find offered no slot on ${date}`);
  step(4, "availability.find", [
    `${slots.length} open slots on ${date} (${slot.schedule_timezone ?? "zone unknown"}); the first few:`,
    ...slots
      .slice(0, 4)
      .map(
        (x) =>
          `  ${x.starts_at_local} to ${x.ends_at_local.slice(11, 16)} with ${x.provider_name ?? x.provider_id}`,
      ),
    `selected: ${slot.id} (starts_at ${slot.starts_at ?? "unknown"}, ${money(slot.price)})`,
  ]);

  const policy = valueOf(
    "policy.explain",
    await s.call("policy.explain", { service_id: service.service_id }),
  );
  step(5, "policy.explain", [
    `payment_requirement: ${policy.payment_requirement}; verification_method: ${policy.verification_method ?? "unknown"}`,
    ...(policy.cancellation_note ? [`cancellation: ${policy.cancellation_note}`] : []),
    ...(policy.cancellation_fee ? [`cancellation fee: ${money(policy.cancellation_fee)}`] : []),
    ...(policy.no_show_fee ? [`no-show fee: ${money(policy.no_show_fee)}`] : []),
    `organization: ${policy.organization?.name ?? "?"} (${policy.organization?.id ?? "?"}, ${policy.organization?.timezone ?? "?"})`,
  ]);

  const input = createInput(slot, mandate);
  const preflight = problemOf(
    "booking.create without approval",
    await s.call("booking.create", input),
    "requires_user_confirmation",
  );
  if (!preflight.retryable) throw new DemoFailure("the final-confirmation challenge is not retryable");
  const { summary, instruction, token } = splitChallenge(preflight.message);
  const stillFree = valueOf(
    "availability.find",
    await s.call("availability.find", { service_id: service.service_id, schedule_id: fx.schedule_id, date }),
  ).some((x) => x.id === slot.id);
  if (!stillFree) throw new DemoFailure("the preflight took the slot: a create happened without approval");
  step(6, "booking.create validation preflight without approval", [
    `problem: ${preflight.code} (retryable: ${preflight.retryable}); no appointment created, the slot is still open`,
    "summary for the user:",
    `  ${summary}`,
    "retry instruction for the agent (never shown to the user):",
    `  ${instruction}`,
  ]);

  step(7, "explicit user approval text using the returned summary", [
    `agent to user: ${summary}`,
    `user to agent: "Yes, that's right. Please book it."`,
  ]);

  const approved: BookingCreateInput = { ...input, approval: { confirmed: true, token } };
  const retried = await s.call("booking.create", approved);
  const needsCode = problemOf("booking.create with approval", retried, "requires_verification");
  step(8, "booking.create retry with approval", [
    `same payload and idempotency_key (${input.idempotency_key}), approval {confirmed: true, token: [redacted]}`,
    `problem: ${needsCode.code} (retryable: ${needsCode.retryable}): ${needsCode.message}`,
  ]);

  const phone = fx.customer.phone;
  if (phone === undefined) throw new DemoFailure("the fixture customer has no phone");
  const inboxBefore = (await readSyntheticMessages(paths["SYNTHETIC_MESSAGE_LOG"] as string)).length;
  const sent = valueOf(
    "verification.send",
    await s.call("verification.send", { customer: { phone }, purpose: `booking:${fx.organization.id}` }),
  );
  const inbox = await readSyntheticMessages(paths["SYNTHETIC_MESSAGE_LOG"] as string);
  const message = inbox.slice(inboxBefore).find((m) => m.to === phone);
  const code = message === undefined ? undefined : codeInMessage(message);
  if (message === undefined || code === undefined)
    throw new DemoFailure(
      `verification.send answered sent, but no code reached ${paths["SYNTHETIC_MESSAGE_LOG"]}`,
    );
  secrets.add(code);
  const receipt = valueOf(
    "booking.create with verification_code",
    await s.call("booking.create", { ...approved, verification_code: code }),
  );
  step(
    9,
    "verification.send (if required), followed by retry of booking.create with the same approval plus verification_code",
    [
      `verification.send: sent ${String(sent.sent)} by ${sent.method} for ${sent.purpose}`,
      `the customer's phone shows: "${message.text}" and they tell the agent the code`,
      "booking.create with the same idempotency_key, the same approval and verification_code: [redacted]",
      `receipt ${receipt.id} for appointment ${receipt.booking_id}`,
    ],
  );

  const booking = valueOf(
    "booking.status",
    await s.call("booking.status", { booking_id: receipt.booking_id }),
  );
  if (booking.status !== "booked") throw new DemoFailure(`booking.status says ${booking.status}, not booked`);
  step(10, "booking.status", [
    `${booking.id}: ${booking.status}, ${booking.starts_at_local ?? "?"} ${booking.schedule_timezone ?? ""} ` +
      `(${booking.starts_at ?? "?"}), provider ${booking.provider_id ?? "?"}`,
    "read from the platform, the system of record",
  ]);

  step(11, "final receipt returned to the user", [
    `"You're booked. ${receipt.text}"`,
    `receipt id ${receipt.id}`,
  ]);

  step(12, "local audit event ids", await auditedLines(s, paths, 0));
  return date;
}

/** The events since `from`, each checked to be in the audit log (OSBP "Audit"). */
async function auditedLines(s: Session, paths: Record<string, string>, from: number): Promise<string[]> {
  const path = paths["OSBP_AUDIT_LOG_PATH"] as string;
  const text = await readFile(path, "utf8");
  // The claim printed below, checked: OSBP "Audit" redaction of contacts, names, codes, tokens.
  const c = fx.customer;
  for (const value of [c.phone, c.email, c.display_name, ...secrets]) {
    if (value !== undefined && new RegExp(`(?<![0-9A-Za-z])${escape(value)}(?![0-9A-Za-z])`).test(text))
      throw new DemoFailure(`${path} contains a value it must redact`);
  }
  const lines = text.split("\n").filter(Boolean);
  const logged = new Set(lines.map((l) => (JSON.parse(l) as { id: string }).id));
  const mine = s.audited.slice(from);
  const missing = mine.filter((a) => !logged.has(a.id));
  if (missing.length > 0)
    throw new DemoFailure(`audit events missing from ${path}: ${missing.map((m) => m.id).join(", ")}`);
  return [
    ...mine.map((a) => `${a.id}  ${a.tool}`),
    `all ${mine.length} are in ${path}, redacted: no contact details, names, codes or tokens`,
  ];
}

/**
 * The guardrail (OSBP "Getting Started": "then shows the guardrail rejecting an over-cap
 * booking"): a mandate for any service up to USD 50.00, and the agent picks a pricier one.
 * validateMandate refuses it before the approval gate, so no token is issued and nothing is
 * created.
 */
async function guardrail(s: Session, paths: Record<string, string>, date: string): Promise<void> {
  const service = fx.services.fixed_usd;
  const price = service.price.amount_minor;
  if (price === undefined) throw new DemoFailure(`the fixture ${service.service_id} has no fixed price`);
  const from = s.audited.length;
  const find = async (): Promise<Slot[]> =>
    valueOf(
      "availability.find",
      await s.call("availability.find", {
        service_id: service.service_id,
        schedule_id: fx.schedule_id,
        date,
      }),
    );
  const slot = (await find())[0];
  if (slot === undefined) throw new DemoFailure(`no ${service.service_id} slot on ${date}`);
  const capMinor = 5000;
  const cap: OsbpMoney = { amount_minor: capMinor, currency: fx.organization.currency };
  if (price <= capMinor) throw new DemoFailure(`${service.service_id} is not above ${money(cap)}`);
  const mandate = fx.mandateFor({
    id: `mnd_demo_${randomBytes(4).toString("hex")}`,
    earliest_start: `${date}T09:00:00`,
    latest_end: `${date}T18:00:00`,
    max_price: cap,
  });
  const refused = problemOf(
    "the over-cap booking",
    await s.call("booking.create", createInput(slot, mandate)),
    "price_exceeds_mandate",
  );
  if (APPROVAL_INSTRUCTION_PATTERN.test(refused.message))
    throw new DemoFailure("the refusal carries a token");
  if (!(await find()).some((x) => x.id === slot.id))
    throw new DemoFailure("the refused booking took the slot");

  say();
  say("Guardrail: an over-cap booking");
  for (const line of [
    `mandate ${mandate.id}: any service, at most ${money(cap)}`,
    `the agent picks ${service.name} (${money(service.price)}) at ${slot.starts_at_local} and calls booking.create`,
    `problem: ${refused.code} (retryable: ${refused.retryable}): ${refused.message}`,
    "no appointment was created: availability.find still offers the slot, and no approval token was issued",
    ...(await auditedLines(s, paths, from)),
  ])
    say(`   ${line}`);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "osbp-demo-"));
  const paths = {
    OSBP_AUDIT_LOG_PATH: join(dir, "audit", "events.jsonl"),
    OSBP_IDEMPOTENCY_PATH: join(dir, "idempotency.json"),
    SYNTHETIC_MESSAGE_LOG: join(dir, "messages.jsonl"),
  };
  say(
    `OSBP v0.1.0 demo: ${fx.organization.name} (${CONFORMANCE_HOST_ID}), a synthetic platform; no accounts or secrets`,
  );
  say(`server: booking-gateway mcp --host ${CONFORMANCE_HOST_ID} (local stdio MCP)`);
  say(`audit log:        ${paths.OSBP_AUDIT_LOG_PATH}`);
  say(`idempotency file: ${paths.OSBP_IDEMPOTENCY_PATH}`);
  say(`message log:      ${paths.SYNTHETIC_MESSAGE_LOG} (the customer's phone)`);

  let session: Session | undefined;
  try {
    session = await connect(paths);
    const date = await trace(session, paths);
    await guardrail(session, paths, date);
    say();
    say("Done.");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(`\ndemo: ${mask(why)}\n`);
    const stderr = session?.stderr().trim();
    if (stderr) process.stderr.write(`server stderr:\n${mask(stderr)}\n`);
    process.exitCode = 1;
  } finally {
    await session?.close();
  }
}

await main();
