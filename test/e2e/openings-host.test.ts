/**
 * An Openings host end to end through OSBP, including verification:
 * `booking-gateway mcp --config FILE --host ID` as a child process driven by the official MCP
 * client over stdio, against the Openings platform of test/support/openings-platform.ts served
 * on loopback (support/fake-openings.ts). Its API shapes are ASSUMED
 * (fixtures/openings/SOURCES.md: no public source was found), and this business requires
 * verification before booking.
 *
 * The agent walks OSBP's canonical flow ("Canonical Flow", "Verification is agent-mediated"):
 * service.describe → availability.find → booking.create (approval challenge) → the approved
 * retry answers requires_verification → verification.send → booking.create with the raw code →
 * booked → booking.status. The platform must see exactly the requests that flow implies: one
 * appointment create that books, however often booking.create is retried with its key. After a
 * restart the process no longer knows the appointment, and Openings' only readback (customer
 * history) is gated behind verification: booking.status fails closed with
 * booking_status_requires_verification ("booking.status"). A wrong code is verification_failed
 * and books nothing; a create whose answer is lost is found in that gated history with the
 * code, never made twice. Prices: Openings sends bare major units, so the agent sees them in the
 * operator's configured currency, scaled by its ISO 4217 exponent (OSBP "Money"). OSBP v0.1.0
 * has no cancellation tool ("Non-Goals"), so there is no cancel to drive.
 *
 * The mcp processes share one Redis (own key prefix) so a restarted process finds the booking
 * and the idempotency record the first one wrote, as `serve` and `mcp` share them in production.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  extractApprovalToken,
  type BookingMandate,
  type Policy,
  type Problem,
  type Receipt,
  type Service,
  type Slot,
  type ToolResult,
  type VerificationChallenge,
} from "../../src/protocol/osbp/index.js";
import { instantToWallClock } from "../../src/protocol/time/index.js";
import { readFixtureJson } from "../support/fixtures.js";
import { startMcpServer, type McpSession } from "../support/mcp.js";
import { dropPrefix, startTestRedis, uniquePrefix, type TestRedis } from "../support/redis.js";
import { DAY_MS } from "./support/agents.js";
import { BUSINESS, CODE, FakeOpeningsServer, SLUG, TZ } from "./support/fake-openings.js";

const HOST = "salon-lumen";
const HOST_JPY = "salon-lumen-jpy";
const HAIRCUT = "svc_cut";
const PURPOSE = `booking:${BUSINESS}`;
const CUSTOMER = { display_name: "Dana Reyes", phone: "+15555550100", email: "dana@example.org" };

const fake = new FakeOpeningsServer();
fake.verificationRequired = true;
let redis: TestRedis;
let prefix: string;
let dir: string;
let configFile: string;
const sessions: McpSession[] = [];

function hostConfig(id: string, currency: string, baseUrl: string): unknown {
  return {
    id,
    name: "Salon Lumen",
    kind: "business",
    timezone: TZ,
    // Openings' price is a bare major-unit number: the currency is the operator's statement.
    connector: { type: "openings", settings: { baseUrl, businessSlug: SLUG, currency, timeoutMs: 5_000 } },
    policies: { confirmation: "instant", retention: "P365D" },
    services: [],
  };
}

beforeAll(async () => {
  const origin = await fake.start();
  redis = await startTestRedis();
  prefix = uniquePrefix("openings-e2e");
  dir = mkdtempSync(join(tmpdir(), "e2e-openings-"));
  configFile = join(dir, "hosts.json");
  writeFileSync(
    configFile,
    JSON.stringify({ hosts: [hostConfig(HOST, "USD", origin), hostConfig(HOST_JPY, "JPY", origin)] }),
  );
}, 60_000);

afterAll(async () => {
  for (const s of sessions) await s.close();
  await fake.close();
  if (redis !== undefined) {
    const { Redis } = await import("ioredis");
    const admin = new Redis(redis.url);
    await dropPrefix(admin, prefix);
    await dropPrefix(admin, `{${prefix}`);
    admin.disconnect();
    await redis.stop();
  }
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function mcp(hostId: string): Promise<McpSession> {
  const session = await startMcpServer({
    host: hostId,
    args: ["--config", configFile],
    env: {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      GATEWAY_DATA_DIR: join(dir, "data"),
      PUBLIC_ORIGIN: "http://127.0.0.1:8787",
    },
  });
  sessions.push(session);
  return session;
}

/** An osbp_* tool's Result Envelope (its structured content). */
const call = async <T>(session: McpSession, tool: string, args: unknown): Promise<ToolResult<T>> =>
  (await session.call(tool, args)).envelope as ToolResult<T>;
/** The value of an envelope that must be ok; the whole envelope is the failure message. */
function valueOf<T>(r: ToolResult<T>): T {
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return (r as { value: T }).value;
}
/** The Problem of an envelope that must have failed. */
function problemOf(r: ToolResult<unknown>): Problem {
  expect(r.ok, JSON.stringify(r)).toBe(false);
  return (r as { problem: Problem }).problem;
}

/** The merchant-local date `days` from now. */
function dateIn(days: number): string {
  const w = instantToWallClock(Date.now() + days * DAY_MS, TZ);
  return [w.year, w.month, w.day].map((n, i) => String(n).padStart(i === 0 ? 4 : 2, "0")).join("-");
}

/** The first slot of a service from 4 days ahead, as availability.find offers it. */
async function firstSlot(session: McpSession, serviceId = HAIRCUT): Promise<Slot> {
  for (let d = 4; d < 14; d++) {
    const found = valueOf(
      await call<Slot[]>(session, "osbp_availability_find", {
        service_id: serviceId,
        date: dateIn(d),
      }),
    );
    if (found[0] !== undefined) return found[0];
  }
  throw new Error(`no Openings slot in 10 days:\n${session.stderr()}`);
}

/** The user's approval of this one slot: its day, service, provider and schedule, at most USD 50. */
function mandateFor(slot: Slot, date: string): BookingMandate {
  return {
    id: `mnd_${slot.id.replace(/\W/g, "_")}_${Date.now()}`,
    expires_at: new Date(Date.now() + DAY_MS).toISOString(),
    allowed_actions: ["booking.create"],
    organization_id: slot.organization_id,
    service_ids: [slot.service_id],
    schedule_ids: [slot.schedule_id],
    ...(slot.provider_id !== undefined && { provider_ids: [slot.provider_id] }),
    earliest_start: `${date}T00:00:00`,
    latest_end: `${date}T23:59:59`,
    max_price: { amount_minor: 5_000, currency: "USD" },
  };
}

function createInput(slot: Slot, key: string) {
  const [date, time] = slot.starts_at_local.split("T") as [string, string];
  return {
    idempotency_key: key,
    service_id: slot.service_id,
    schedule_id: slot.schedule_id,
    ...(slot.provider_id !== undefined && { provider_id: slot.provider_id }),
    date,
    time: time.slice(0, 5),
    customer: CUSTOMER,
    mandate: mandateFor(slot, date),
  };
}

/** What changed (or tried to change) the platform since `from`: method, path and body. */
const writesSince = (from: number) =>
  fake
    .writes()
    .slice(from)
    .map((r) => ({ call: `${r.method} ${r.path}`, body: r.body as Record<string, unknown> }));

describe("an Openings host through OSBP over stdio", { timeout: 180_000 }, () => {
  it("shows Openings' bare major-unit prices in the operator's currency, scaled by its ISO 4217 exponent", async () => {
    // The platform's own numbers: 45 and 62.5, no currency.
    const location = readFixtureJson<{
      body: { data: { services: { price?: number; options: { price?: number }[] }[] } };
    }>("openings/location.json").body.data;
    expect([location.services[0]?.price, location.services[0]?.options[0]?.price]).toEqual([45, 62.5]);

    const from = fake.writes().length;
    const usd = await mcp(HOST);
    // Read before the first call: the server instructions name each service with its price.
    const instructions = usd.client.getInstructions() ?? "";
    expect(instructions).toContain('service_id "svc_cut": "Haircut", PT30M, USD 45.00');
    expect(instructions).toContain('service_id "svc_cut:opt_long": "Haircut (Long hair)", PT1H, USD 62.50');
    const cut = valueOf(await call<Service>(usd, "osbp_service_describe", { service_id: HAIRCUT }));
    expect(cut).toEqual({
      id: HAIRCUT,
      name: "Haircut",
      duration: "PT30M",
      price: { amount_minor: 4500, currency: "USD", type: "fixed" },
      requires_consultation: false,
    });
    const color = valueOf(await call<Service>(usd, "osbp_service_describe", { service_id: "svc_color" }));
    expect(color).toMatchObject({
      requires_consultation: true,
      price: { currency: "USD", type: "quote_required" },
    });
    expect(color.price?.amount_minor).toBeUndefined();
    const policy = valueOf(await call<Policy>(usd, "osbp_policy_explain", { service_id: HAIRCUT }));
    expect(policy).toMatchObject({
      payment_requirement: "none",
      verification_method: "sms",
      organization: { id: BUSINESS, name: "Salon Lumen", timezone: TZ, currency: "USD" },
    });

    // The same platform numbers under a zero-exponent currency: 45 yen, not 4500; 62.5 yen
    // cannot be written in yen, so that price is unknown rather than rounded, and booking it
    // fails closed (OSBP "Money": no fixed amount_minor → requires_user_confirmation, no token).
    const jpy = await mcp(HOST_JPY);
    expect(jpy.client.getInstructions()).toContain('service_id "svc_cut": "Haircut", PT30M, JPY 45\n');
    expect(jpy.client.getInstructions()).toContain('"Haircut (Long hair)", PT1H, price unknown (JPY)');
    const yen = valueOf(await call<Service>(jpy, "osbp_service_describe", { service_id: HAIRCUT }));
    expect(yen.price).toEqual({ amount_minor: 45, currency: "JPY", type: "fixed" });
    const long = valueOf(
      await call<Service>(jpy, "osbp_service_describe", { service_id: "svc_cut:opt_long" }),
    );
    expect(long.price).toEqual({ currency: "JPY", type: "unknown" });
    const longSlot = await firstSlot(jpy, "svc_cut:opt_long");
    expect(longSlot.price).toEqual({ currency: "JPY", type: "unknown" });
    const input = createInput(longSlot, "openings-e2e-jpy-long");
    const unbounded = problemOf(
      await call(jpy, "osbp_booking_create", {
        ...input,
        mandate: { ...input.mandate, max_price: { amount_minor: 10_000, currency: "JPY" } },
      }),
    );
    expect(unbounded).toMatchObject({ code: "requires_user_confirmation", retryable: false });
    expect(extractApprovalToken(unbounded.message)).toBeUndefined();
    // Reads only: nothing was written to the platform.
    expect(writesSince(from)).toEqual([]);
  });

  it("describe → find → create (approval) → requires_verification → send → create with the code → booked, once", async () => {
    const session = await mcp(HOST);
    const tools = (await session.client.listTools()).tools.map((t) => t.name).sort();
    // OSBP v0.1.0's eight tools: no cancellation ("Non-Goals"), so none is driven here.
    expect(tools).toEqual([
      "osbp_availability_find",
      "osbp_booking_create",
      "osbp_booking_status",
      "osbp_handoff_request",
      "osbp_policy_explain",
      "osbp_service_describe",
      "osbp_verification_send",
      "osbp_verification_verify",
    ]);
    valueOf(await call<Service>(session, "osbp_service_describe", { service_id: HAIRCUT }));
    const slot = await firstSlot(session);
    expect(slot).toMatchObject({
      organization_id: BUSINESS,
      schedule_id: BUSINESS,
      schedule_timezone: TZ,
      service_id: HAIRCUT,
      price: { amount_minor: 4500, currency: "USD", type: "fixed" },
    });
    expect(["mem_ana", "mem_ben"]).toContain(slot.provider_id);
    expect(slot.starts_at_local).toMatch(/T(09|10|11):(00|30):00$/);
    const from = fake.writes().length;
    const appointmentsBefore = fake.appointments.size;

    // 1. No approval: the challenge, and nothing reaches the platform.
    const input = createInput(slot, "openings-e2e-book-1");
    const challenge = problemOf(await call(session, "osbp_booking_create", input));
    expect(challenge.code, JSON.stringify(challenge)).toBe("requires_user_confirmation");
    expect(challenge.retryable).toBe(true);
    // The price the user approves is the scaled one, in the operator's currency.
    expect(challenge.message).toContain("45.00");
    expect(challenge.message).toContain("USD");
    expect(writesSince(from)).toEqual([]);
    const approved = {
      ...input,
      approval: { confirmed: true, token: extractApprovalToken(challenge.message) },
    };

    // 2. Approved: Openings answers 428, which is OSBP's requires_verification (retryable).
    const needs = problemOf(await call(session, "osbp_booking_create", approved));
    expect(needs.code, JSON.stringify(needs)).toBe("requires_verification");
    expect(needs.retryable).toBe(true);
    expect(needs.message).toContain("SMS");
    expect(writesSince(from).map((w) => w.call)).toEqual(["POST /v1/customers", "POST /v1/appointments"]);
    expect(writesSince(from)[1]?.body["verificationCode"]).toBeUndefined();
    expect(fake.appointments.size).toBe(appointmentsBefore);

    // 3. verification.send with purpose booking:{organization_id}: Openings sends an SMS code.
    const sent = valueOf(
      await call<VerificationChallenge>(session, "osbp_verification_send", {
        customer: { phone: CUSTOMER.phone, email: CUSTOMER.email },
        purpose: PURPOSE,
      }),
    );
    expect(sent).toEqual({ sent: true, method: "sms", purpose: PURPOSE });
    expect(writesSince(from)[2]).toEqual({
      call: "POST /v1/verifications",
      body: { businessId: BUSINESS, purpose: PURPOSE, channel: "sms", phone: CUSTOMER.phone },
    });

    // 4. The raw code through booking.create (same key, same approval): booked.
    const withCode = { ...approved, verification_code: CODE };
    const receipt = valueOf(await call<Receipt>(session, "osbp_booking_create", withCode));
    expect(receipt.id).toBe("receipt_openings-e2e-book-1");
    expect(receipt.text).toContain(`Booked Haircut on ${input.date} at ${input.time} (${TZ})`);
    const writes = writesSince(from);
    expect(writes.map((w) => w.call)).toEqual([
      "POST /v1/customers",
      "POST /v1/appointments",
      "POST /v1/verifications",
      "POST /v1/customers",
      "POST /v1/appointments",
    ]);
    expect(writes[4]?.body).toMatchObject({
      businessId: BUSINESS,
      memberId: slot.provider_id,
      serviceId: HAIRCUT,
      date: input.date,
      time: input.time,
      // The raw code passes through to the platform (OSBP "Verification is sacred").
      verificationCode: CODE,
    });
    expect(fake.appointments.size).toBe(appointmentsBefore + 1);
    const made = [...fake.appointments.values()].at(-1)!;
    expect(made).toMatchObject({ memberId: slot.provider_id, date: input.date, time: input.time });
    expect(Date.parse(slot.starts_at!)).toBe(made.start);

    // 5. The same attempt again (the agent lost the answer): the same receipt, replayed locally.
    const again = await call<Receipt>(session, "osbp_booking_create", withCode);
    expect(valueOf(again).booking_id).toBe(receipt.booking_id);
    expect(again.ok && again.osbp_runtime?.idempotency).toBe("local_cache_replay");
    expect(writesSince(from)).toHaveLength(5);

    // 6. booking.status: booked, at the slot's time, with its provider.
    const status = valueOf(
      await call<Record<string, unknown>>(session, "osbp_booking_status", { booking_id: receipt.booking_id }),
    );
    expect(status).toMatchObject({
      id: receipt.booking_id,
      status: "booked",
      service_id: HAIRCUT,
      schedule_id: BUSINESS,
      provider_id: slot.provider_id,
      starts_at_local: slot.starts_at_local,
      schedule_timezone: TZ,
    });
    // The audit log records the verification, never the code.
    const audit = readFileSync(session.paths.audit, "utf8");
    expect(audit).toContain('"tool_name":"verification.send"');
    expect(audit).not.toContain(CODE);
    await session.close();

    // 7. A restarted process: the receipt still replays, and nothing more is created; but the
    //    appointment's only readback is the customer's history, gated behind verification.
    const restarted = await mcp(HOST);
    const replay = await call<Receipt>(restarted, "osbp_booking_create", withCode);
    expect(valueOf(replay).booking_id).toBe(receipt.booking_id);
    const gated = problemOf(await call(restarted, "osbp_booking_status", { booking_id: receipt.booking_id }));
    expect(gated.code, JSON.stringify(gated)).toBe("booking_status_requires_verification");
    expect(gated.retryable).toBe(false);
    expect(writesSince(from)).toHaveLength(5);
    expect(fake.appointments.size).toBe(appointmentsBefore + 1);
    // One appointment create carried the code, and it is the one appointment made.
    expect(writesSince(from).filter((w) => w.body["verificationCode"] === CODE)).toHaveLength(1);
  });

  it("a wrong code is refused as verification_failed and books nothing; a new code then books once", async () => {
    const session = await mcp(HOST);
    const slot = await firstSlot(session);
    const from = fake.writes().length;
    const appointmentsBefore = fake.appointments.size;
    const input = createInput(slot, "openings-e2e-wrong-code");
    const challenge = problemOf(await call(session, "osbp_booking_create", input));
    expect(challenge.code).toBe("requires_user_confirmation");
    const approved = {
      ...input,
      approval: { confirmed: true, token: extractApprovalToken(challenge.message) },
    };
    expect(problemOf(await call(session, "osbp_booking_create", approved)).code).toBe(
      "requires_verification",
    );
    valueOf(
      await call(session, "osbp_verification_send", {
        customer: { phone: CUSTOMER.phone },
        purpose: PURPOSE,
      }),
    );

    // verification.verify (an independent check on Openings, README) and booking.create both
    // refuse the wrong code with the typed Problem; the platform books nothing.
    const checked = problemOf(
      await call(session, "osbp_verification_verify", {
        customer: { phone: CUSTOMER.phone },
        purpose: PURPOSE,
        code: "000000",
      }),
    );
    expect(checked.code).toBe("verification_failed");
    const refused = problemOf(
      await call(session, "osbp_booking_create", { ...approved, verification_code: "000000" }),
    );
    expect(refused).toEqual({
      code: "verification_failed",
      message: expect.stringMatching(/rejected/) as unknown,
      retryable: false,
    });
    expect(writesSince(from).map((w) => w.call)).toEqual([
      "POST /v1/customers",
      "POST /v1/appointments",
      "POST /v1/verifications",
      "POST /v1/verifications/verify",
      "POST /v1/customers",
      "POST /v1/appointments",
    ]);
    expect(writesSince(from)[5]?.body["verificationCode"]).toBe("000000");
    expect(fake.appointments.size).toBe(appointmentsBefore);

    // The spec's remedy: send again, retry the same attempt with the new code.
    valueOf(
      await call(session, "osbp_verification_send", {
        customer: { phone: CUSTOMER.phone },
        purpose: PURPOSE,
      }),
    );
    const receipt = valueOf(
      await call<Receipt>(session, "osbp_booking_create", { ...approved, verification_code: CODE }),
    );
    expect(fake.appointments.size).toBe(appointmentsBefore + 1);
    expect(writesSince(from).filter((w) => w.call === "POST /v1/appointments")).toHaveLength(3);
    const status = valueOf(
      await call<{ status: string }>(session, "osbp_booking_status", { booking_id: receipt.booking_id }),
    );
    expect(status.status).toBe("booked");
  });

  it("a create whose answer is lost is found in the customer's history (gated behind the code): one appointment", async () => {
    const session = await mcp(HOST);
    const slot = await firstSlot(session);
    const from = fake.writes().length;
    const appointmentsBefore = fake.appointments.size;
    const input = createInput(slot, "openings-e2e-lost-answer");
    const challenge = problemOf(await call(session, "osbp_booking_create", input));
    const approved = {
      ...input,
      approval: { confirmed: true, token: extractApprovalToken(challenge.message) },
    };
    expect(problemOf(await call(session, "osbp_booking_create", approved)).code).toBe(
      "requires_verification",
    );
    valueOf(
      await call(session, "osbp_verification_send", {
        customer: { phone: CUSTOMER.phone },
        purpose: PURPOSE,
      }),
    );
    fake.inject("appointments", { kind: "lost_response" });
    const historyBefore = fake.requests.filter((r) =>
      /^\/v1\/customers\/[^/]+\/appointments/.test(r.path),
    ).length;
    const first = await call<Receipt>(session, "osbp_booking_create", {
      ...approved,
      verification_code: CODE,
    });
    const second = await call<Receipt>(session, "osbp_booking_create", {
      ...approved,
      verification_code: CODE,
    });
    // The platform booked and the connection dropped; the appointment was found in the
    // customer's history with the code (the only readback Openings has), not made again.
    const receipt = valueOf(first);
    expect(receipt.text).toContain(`Booked Haircut on ${input.date} at ${input.time}`);
    expect(fake.nextFault("appointments")).toBeUndefined();
    const history = fake.requests.filter((r) => /^\/v1\/customers\/[^/]+\/appointments/.test(r.path));
    expect(history.slice(historyBefore).map((r) => r.headers["x-verification-code"])).toEqual([CODE]);
    expect(valueOf(second).booking_id).toBe(receipt.booking_id);
    expect(second.ok && second.osbp_runtime?.idempotency).toBe("local_cache_replay");
    expect(writesSince(from).map((w) => w.call)).toEqual([
      "POST /v1/customers",
      "POST /v1/appointments",
      "POST /v1/verifications",
      "POST /v1/customers",
      "POST /v1/appointments",
    ]);
    expect(fake.appointments.size).toBe(appointmentsBefore + 1);
    const status = valueOf(
      await call<{ status: string; starts_at_local: string }>(session, "osbp_booking_status", {
        booking_id: receipt.booking_id,
      }),
    );
    expect(status).toMatchObject({ status: "booked", starts_at_local: slot.starts_at_local });
  });
});
