/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- JSON bodies read loosely in assertions */
/**
 * The A2A client library from npm (@a2a-js/sdk) against the REAL gateway on loopback (the
 * intents over the booking core, a Servicialo-platform host): it resolves the agent card and
 * books, reschedules and cancels through message/send, the organization key sent by the
 * SDK's own `fetchImpl` option; the operator API shows each step. Then the bad inputs an
 * A2A edge must refuse, against the same gateway, one table, and nothing booked or cancelled by them.
 *
 * The SDK (1.x, A2A v1.0) reads the spec's v0.3.0 card only with `legacyCompat` on; its default
 * client, with no option at all, is answered the gateway's A2A 1.0 card and books through
 * SendMessage. See test/edges/a2a/jsonrpc/sdk-client.test.ts for where the SDK and the spec meet.
 */
import { Role } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { Message } from "@a2a-js/sdk";
import { a2aClientFactory, dataPart, userMessage } from "../support/a2a-sdk.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLINIC,
  MSK_ID,
  OTHER_HOST,
  WEDNESDAY_10_LOCAL,
  messageSend,
  startClinicGateway,
  type ClinicGateway,
} from "./support/a2a-clinic.js";
import {
  checkA2aMessage,
  checkBookResponse,
  checkCancelResponse,
  checkErrorBody,
  checkJsonRpcError,
  checkRescheduleResponse,
} from "./support/a2a-shapes.js";

let clinic: ClinicGateway;
let key: string;

beforeAll(async () => {
  clinic = await startClinicGateway();
  key = await clinic.gw.runtime.a2aKeys.issue(CLINIC);
}, 30_000);
afterAll(async () => clinic?.close());

/** The `{intent, status, http_status, result}` of an agent Message result. */
function outcomeOf(result: unknown): any {
  const msg = result as Message;
  expect(msg.role).toBe(Role.ROLE_AGENT);
  expect(msg.parts.map((p) => p.content?.$case)).toEqual(["text", "data"]);
  const text = msg.parts[0]?.content;
  expect(text?.$case === "text" && text.value.length > 0).toBe(true);
  const data = msg.parts[1]?.content;
  return data?.$case === "data" ? data.value : {};
}

async function bookingById(id: string): Promise<Record<string, unknown> | undefined> {
  return (await clinic.operatorBookings()).find((b) => b.booking_id === id);
}

describe("@a2a-js/sdk against the real gateway", () => {
  it("discovers the card, then books, reschedules and cancels through message/send", async () => {
    // The organization key rides on the SDK's own fetch: set for the calls that need it.
    const auth: { orgKey?: string } = {};
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (auth.orgKey !== undefined) headers.set("X-Org-Api-Key", auth.orgKey);
      return fetch(input, { ...init, headers });
    };
    const factory = a2aClientFactory(fetchImpl);
    const client = await factory.createFromUrl(
      clinic.gw.origin,
      `/api/servicialo/${CLINIC}/.well-known/agent.json`,
    );
    const card = await client.getAgentCard();
    expect(card.name).toBe("Clinica Demo");
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${clinic.gw.origin}/api/servicialo/${CLINIC}/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "0.3.0",
    });
    expect(card.skills.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        "list-services",
        "check-availability",
        "book-session",
        "cancel-session",
        "reschedule-session",
      ]),
    );
    const send = async (value: Record<string, unknown>) =>
      outcomeOf(
        await client.sendMessage({
          tenant: "",
          message: userMessage([dataPart(value)]),
          configuration: undefined,
          metadata: undefined,
        }),
      );

    const booked = await send({
      intent: "book_session",
      params: { serviceId: MSK_ID, scheduledAt: WEDNESDAY_10_LOCAL },
      client: { name: "Joaquin", lastName: "Lopez", email: "joaquin.lopez@mail.com" },
    });
    expect(booked).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    expect(checkBookResponse(booked.result)).toEqual([]);
    const sessionId = booked.result.session.id as string;
    expect(await bookingById(sessionId)).toMatchObject({ status: "confirmed" });
    expect(Date.parse((await bookingById(sessionId))!.start as string)).toBe(Date.parse(WEDNESDAY_10_LOCAL));

    // Without the key the intent completes as "failed" with the REST 401 (Authentication over A2A).
    const THURSDAY_11 = "2026-04-02T11:00:00-03:00";
    const refused = await send({
      intent: "reschedule_session",
      params: { sessionId, newScheduledAt: THURSDAY_11 },
    });
    expect(refused).toMatchObject({ status: "failed", http_status: 401, result: { code: "UNAUTHORIZED" } });
    expect(Date.parse((await bookingById(sessionId))!.start as string)).toBe(Date.parse(WEDNESDAY_10_LOCAL));

    auth.orgKey = key;
    const moved = await send({
      intent: "reschedule_session",
      params: { sessionId, newScheduledAt: THURSDAY_11 },
    });
    expect(moved).toMatchObject({ intent: "reschedule_session", status: "completed", http_status: 200 });
    expect(checkRescheduleResponse(moved.result)).toEqual([]);
    expect(moved.result).toMatchObject({ sessionId, scheduledAt: "2026-04-02T14:00:00.000Z", duration: 60 });
    const afterMove = await bookingById(sessionId);
    expect(afterMove).toMatchObject({ status: "confirmed" });
    expect(Date.parse(afterMove!.start as string)).toBe(Date.parse("2026-04-02T14:00:00.000Z"));
    expect(clinic.platform.live().map((s) => s.start)).toEqual([Date.parse("2026-04-02T14:00:00.000Z")]);

    const cancelled = await send({
      intent: "cancel_session",
      params: { sessionId, reason: "Paciente enfermo", cancelledBy: "client" },
    });
    expect(cancelled).toMatchObject({ intent: "cancel_session", status: "completed", http_status: 200 });
    expect(checkCancelResponse(cancelled.result)).toEqual([]);
    expect(cancelled.result.sessionId).toBe(sessionId);
    expect((await bookingById(sessionId))?.status).toMatch(/cancel/);
    expect(clinic.platform.live()).toHaveLength(0);
  });
});

describe("bad input against the real gateway", () => {
  let sessionId: string;
  let otherKey: string;
  const a2a = (org = CLINIC) => `${clinic.gw.origin}/api/servicialo/${org}/a2a`;

  beforeAll(async () => {
    otherKey = await clinic.gw.runtime.a2aKeys.issue(OTHER_HOST);
    // A live booking the bad cancels and reschedules aim at.
    const r = await fetch(`${clinic.gw.origin}/api/servicialo/${CLINIC}/book`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        clientEmail: "ana@mail.com",
        serviceId: MSK_ID,
        scheduledAt: "2026-04-03T09:00:00-03:00",
      }),
    });
    expect(r.status).toBe(201);
    sessionId = ((await r.json()) as any).session.id;
  });

  const data = (intent: string, params: Record<string, unknown>, client?: Record<string, unknown>) =>
    JSON.stringify(messageSend(7, [{ kind: "data", data: { intent, params, ...(client && { client }) } }]));
  const cancel = () => data("cancel_session", { sessionId });
  const reschedule = () =>
    data("reschedule_session", { sessionId, scheduledAt: "2026-04-03T12:00:00-03:00" });

  /** An expected JSON-RPC error, or a Message whose data part failed with this REST status/code. */
  type Expect = { rpc: number; http?: number } | { failed: number; code?: string };
  const cases: Array<{
    name: string;
    body: () => string;
    headers?: () => Record<string, string>;
    org?: string;
    expect: Expect;
  }> = [
    { name: "unknown intent", body: () => data("teleport", {}), expect: { rpc: -32602 } },
    { name: "no parts", body: () => JSON.stringify(messageSend(7, [])), expect: { rpc: -32602 } },
    {
      name: "book without scheduledAt or clientEmail",
      body: () => data("book_session", { serviceId: MSK_ID }),
      expect: { failed: 400, code: "VALIDATION_ERROR" },
    },
    {
      name: "availability without serviceId",
      body: () => data("check_availability", { from: "2026-03-30", days: 7 }),
      expect: { failed: 400 },
    },
    {
      name: "cancel without sessionId",
      body: () => data("cancel_session", {}),
      headers: () => ({ "x-org-api-key": key }),
      expect: { failed: 404 },
    },
    { name: "malformed JSON", body: () => '{"jsonrpc":"2.0","id":7,"method":', expect: { rpc: -32700 } },
    {
      name: "not JSON-RPC 2.0",
      body: () => JSON.stringify({ jsonrpc: "1.0", id: 7, method: "message/send" }),
      expect: { rpc: -32600 },
    },
    { name: "a batch", body: () => JSON.stringify([JSON.parse(cancel())]), expect: { rpc: -32600 } },
    {
      name: "another method",
      body: () => JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/get", params: {} }),
      expect: { rpc: -32601 },
    },
    { name: "unknown organization", body: () => cancel(), org: "no-such-clinic", expect: { rpc: -32001 } },
    { name: "cancel without a key", body: () => cancel(), expect: { failed: 401, code: "UNAUTHORIZED" } },
    {
      name: "cancel with a wrong key",
      body: () => cancel(),
      headers: () => ({ "x-org-api-key": "not-a-key" }),
      expect: { failed: 401, code: "UNAUTHORIZED" },
    },
    {
      name: "cancel with another host's key",
      body: () => cancel(),
      headers: () => ({ "x-org-api-key": otherKey }),
      expect: { failed: 401, code: "UNAUTHORIZED" },
    },
    {
      name: "reschedule with another host's key",
      body: () => reschedule(),
      headers: () => ({ "x-org-api-key": otherKey }),
      expect: { failed: 401, code: "UNAUTHORIZED" },
    },
    {
      name: "oversized text",
      body: () =>
        JSON.stringify(
          messageSend(7, [{ kind: "text", text: `cancelar reserva ${sessionId} ${"x".repeat(5000)}` }]),
        ),
      headers: () => ({ "x-org-api-key": key }),
      expect: { rpc: -32602 },
    },
    {
      name: "oversized body",
      body: () => JSON.stringify(messageSend(7, [{ kind: "text", text: "a".repeat(70 * 1024) }])),
      expect: { rpc: -32600, http: 413 },
    },
  ];

  it.each(cases)("$name", async ({ body, headers, org, expect: want }) => {
    const r = await fetch(a2a(org), {
      method: "POST",
      headers: { "content-type": "application/json", ...headers?.() },
      body: body(),
    });
    const json = (await r.json()) as any;
    if ("rpc" in want) {
      expect(r.status).toBe(want.http ?? 200);
      expect(checkJsonRpcError(json, want.rpc)).toEqual([]);
    } else {
      expect(r.status).toBe(200);
      expect(checkA2aMessage(json, 7)).toEqual([]);
      const outcome = json.result.parts[1].data;
      expect(outcome).toMatchObject({ status: "failed", http_status: want.failed });
      expect(checkErrorBody(outcome.result)).toEqual([]);
      if (want.code !== undefined) expect(outcome.result.code).toBe(want.code);
    }
  });

  it("left nothing booked, moved or cancelled", async () => {
    const bookings = await clinic.operatorBookings();
    const live = bookings.filter((b) => b.status === "confirmed");
    expect(live.map((b) => b.booking_id)).toEqual([sessionId]);
    expect(Date.parse(live[0]!.start as string)).toBe(Date.parse("2026-04-03T12:00:00.000Z"));
    expect(clinic.platform.live().map((s) => s.start)).toEqual([Date.parse("2026-04-03T12:00:00.000Z")]);
    expect(await clinic.operatorBookings(OTHER_HOST)).toEqual([]);
  });
});

describe("the SDK's default client against the real gateway", () => {
  it("discovers the A2A 1.0 card from the organization's base URL and books an appointment", async () => {
    const client = await new ClientFactory().createFromUrl(`${clinic.gw.origin}/api/servicialo/${CLINIC}/`);
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${clinic.gw.origin}/api/servicialo/${CLINIC}/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    const THURSDAY_10 = "2026-04-02T10:00:00-03:00";
    const booked = outcomeOf(
      await client.sendMessage({
        tenant: "",
        message: userMessage([
          dataPart({
            intent: "book_session",
            params: { serviceId: MSK_ID, scheduledAt: THURSDAY_10 },
            client: { name: "Ana", lastName: "Ruiz", email: "ana.ruiz@mail.com", phone: "+56911112222" },
          }),
        ]),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(booked, JSON.stringify(booked)).toMatchObject({
      intent: "book_session",
      status: "completed",
      http_status: 201,
    });
    expect(checkBookResponse(booked.result)).toEqual([]);
    const sessionId = booked.result.session.id as string;
    const recorded = await bookingById(sessionId);
    expect(recorded).toMatchObject({ status: "confirmed" });
    expect(Date.parse(recorded!.start as string)).toBe(Date.parse(THURSDAY_10));
    expect(clinic.platform.live().map((s) => s.start)).toContain(Date.parse(THURSDAY_10));
    // The grant it was booked under, named once (an edge-scoped principal, not "a2a:a2a:…").
    const mandate = (recorded!.consent as { mandate: string }).mandate;
    expect(mandate).toMatch(/^a2a:[A-Za-z0-9_-]+$/);
    expect(mandate).toBe(recorded!.principal);
  });
});
