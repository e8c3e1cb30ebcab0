import { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import { mountA2aJsonRpc } from "../../../../src/edges/a2a/jsonrpc/routes.js";
import { MemoryRateLimiter } from "../../../../src/edges/http/rate-limit.js";
import { a2aIntentsDouble } from "../../../support/a2a-intents-double.js";
import type { A2aIntentsDouble } from "../../../support/a2a-intents-double.js";

const ORIGIN = "https://gw.example";
const NOW = Date.parse("2026-03-30T15:00:00Z");
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let intents: A2aIntentsDouble;
let app: Hono;
beforeEach(() => {
  intents = a2aIntentsDouble();
  app = new Hono();
  mountA2aJsonRpc(app, intents, { publicOrigin: ORIGIN, logger: silent, clock: { now: () => NOW } });
});

const post = (slug: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  app.request(`/api/servicialo/${slug}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

const send = (parts: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    method: "message/send",
    params: { message: { role: "user", messageId: "m1", parts, ...extra } },
  });

const data = (d: Record<string, unknown>) => ({ kind: "data", data: d });
const text = (t: string) => ({ kind: "text", text: t });

type Rpc = {
  jsonrpc: string;
  id: unknown;
  error?: { code: number; message: string };
  result?: Record<string, unknown>;
};
const rpc = async (r: Response) => (await r.json()) as Rpc;

describe("agent card", () => {
  it("lists the five skills and the API key scheme for a host serving all intents", async () => {
    const r = await app.request("/api/servicialo/clinica-demo/.well-known/agent.json");
    expect(r.status).toBe(200);
    const card = (await r.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: "Clinica Demo",
      description: "Centro de estimulacion y terapias infantiles",
      url: `${ORIGIN}/api/servicialo/clinica-demo/a2a`,
      protocolVersion: "0.3.0",
      capabilities: { streaming: false, pushNotifications: false },
      authentication: { schemes: [] },
      securitySchemes: { orgApiKey: { type: "apiKey", in: "header", name: "X-Org-Api-Key" } },
    });
    expect(card.defaultInputModes).toContain("text");
    expect(card.defaultOutputModes).toContain("text");
    const skills = card.skills as Array<{ id: string; tags: string[]; security?: unknown }>;
    expect(skills.map((s) => s.id)).toEqual([
      "list-services",
      "check-availability",
      "book-session",
      "cancel-session",
      "reschedule-session",
    ]);
    expect(skills.find((s) => s.id === "book-session")?.security).toBeUndefined();
    expect(skills.find((s) => s.id === "cancel-session")?.security).toEqual([{ orgApiKey: [] }]);
  });

  it("only lists what the host serves", async () => {
    const card = (await (await app.request("/api/servicialo/salon/.well-known/agent.json")).json()) as Record<
      string,
      unknown
    >;
    expect((card.skills as Array<{ id: string }>).map((s) => s.id)).toEqual([
      "list-services",
      "check-availability",
      "book-session",
    ]);
    expect(card.securitySchemes).toBeUndefined();
  });

  it("404s an unknown organization", async () => {
    const r = await app.request("/api/servicialo/nobody/.well-known/agent.json");
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: "Organization not found or not public" });
  });
});

describe("JSON-RPC conformance", () => {
  const cases: ReadonlyArray<readonly [string, string, string | Uint8Array, number, unknown]> = [
    ["malformed JSON", "clinica-demo", '{"jsonrpc":"2.0",', -32700, null],
    [
      "invalid UTF-8",
      "clinica-demo",
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      -32700,
      null,
    ],
    ["a batch", "clinica-demo", "[]", -32600, null],
    ["not an object", "clinica-demo", '"hello"', -32600, null],
    [
      "wrong jsonrpc",
      "clinica-demo",
      JSON.stringify({ jsonrpc: "1.0", id: 3, method: "message/send" }),
      -32600,
      3,
    ],
    ["no method", "clinica-demo", JSON.stringify({ jsonrpc: "2.0", id: "a" }), -32600, "a"],
    [
      "no id",
      "clinica-demo",
      JSON.stringify({ jsonrpc: "2.0", method: "message/send", params: {} }),
      -32600,
      null,
    ],
    [
      "another method",
      "clinica-demo",
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tasks/get" }),
      -32601,
      4,
    ],
    ["unknown organization", "nobody", send([text("hola")]), -32001, 7],
    [
      "no message",
      "clinica-demo",
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "message/send", params: {} }),
      -32602,
      7,
    ],
    ["no parts", "clinica-demo", send([]), -32602, 7],
    ["unsupported DataPart intent", "clinica-demo", send([data({ intent: "drop_tables" })]), -32602, 7],
    [
      "intent the host does not serve",
      "salon",
      send([data({ intent: "cancel_session", params: {} })]),
      -32602,
      7,
    ],
    [
      "non-object DataPart params",
      "clinica-demo",
      send([data({ intent: "list_services", params: [1] })]),
      -32602,
      7,
    ],
    ["oversized text", "clinica-demo", send([text("reservar ".repeat(500))]), -32602, 7],
    ["only a DataPart without intent", "clinica-demo", send([data({ hello: 1 })]), -32602, 7],
  ];

  it.each(cases)("%s → %s", async (_name, slug, body, code, id) => {
    const r = await post(slug, body);
    expect(r.status).toBe(200);
    const out = await rpc(r);
    expect(out).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
    expect(out.result).toBeUndefined();
    expect(intents.calls).toHaveLength(0);
  });

  it("refuses a body over the bound with 413 and a -32600 body, without running anything", async () => {
    const r = await post("clinica-demo", send([text("x".repeat(70 * 1024))]));
    expect(r.status).toBe(413);
    expect(await rpc(r)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(intents.calls).toHaveLength(0);
  });

  it("turns an intent's 429 into -32002 with HTTP 429 and Retry-After", async () => {
    intents.failNext({ httpStatus: 429, body: { error: "Too many requests" }, retryAfterSec: 30 });
    const r = await post("clinica-demo", send([data({ intent: "list_services" })]));
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("30");
    expect(await rpc(r)).toMatchObject({ id: 7, error: { code: -32002 } });
  });

  it("spends a task bucket per network origin and organization before reading the body", async () => {
    const limited = new Hono();
    mountA2aJsonRpc(limited, intents, {
      publicOrigin: ORIGIN,
      logger: silent,
      taskLimiter: new MemoryRateLimiter({ capacity: 2, refillPerSec: 0.1 }),
      wallClock: { now: () => NOW },
    });
    const at = (slug: string) =>
      limited.request(`/api/servicialo/${slug}/a2a`, {
        method: "POST",
        body: send([data({ intent: "list_services" })]),
      });
    expect((await at("clinica-demo")).status).toBe(200);
    expect((await at("clinica-demo")).status).toBe(200);
    const third = await at("clinica-demo");
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("10");
    expect(await rpc(third)).toMatchObject({ id: null, error: { code: -32002 } });
    expect(intents.calls).toHaveLength(2);
    expect((await at("salon")).status).toBe(200);
  });

  it("answers -32603 when running the intent throws", async () => {
    intents.failNext(new Error("boom"));
    const r = await post("clinica-demo", send([data({ intent: "list_services" })]));
    expect(r.status).toBe(200);
    expect(await rpc(r)).toMatchObject({ id: 7, error: { code: -32603, message: "Internal error" } });
  });
});

describe("message/send", () => {
  it("routes a DataPart and answers a Message with a text part and the outcome's data part", async () => {
    const client = { name: "Martin", lastName: "Lopez", phone: "+56912345678", email: "martin@mail.com" };
    const params = { serviceId: "svc-msk", scheduledAt: "2026-04-01T10:00:00-03:00" };
    const r = await post(
      "clinica-demo",
      send([data({ intent: "book_session", params, client })], { contextId: "ctx-1" }),
    );
    expect(r.status).toBe(200);
    const out = await rpc(r);
    expect(out.id).toBe(7);
    const msg = out.result as {
      kind: string;
      role: string;
      messageId: string;
      contextId: string;
      parts: unknown[];
    };
    expect(msg).toMatchObject({ kind: "message", role: "agent", contextId: "ctx-1" });
    expect(msg.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(msg.parts).toHaveLength(2);
    const [textPart, dataPart] = msg.parts as [
      { kind: string; text: string },
      { kind: string; data: Record<string, unknown> },
    ];
    expect(textPart.kind).toBe("text");
    expect(textPart.text).toMatch(/^Reserva confirmada/);
    const sessionId = [...intents.sessions.keys()][0];
    expect(dataPart.kind).toBe("data");
    expect(dataPart.data).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    expect(dataPart.data.result).toMatchObject({ success: true, session: { id: sessionId } });
    expect(intents.calls).toHaveLength(1);
    expect(intents.calls[0]).toMatchObject({
      hostId: "clinica-demo",
      intent: "book_session",
      params,
      client,
    });
    expect(intents.calls[0]?.origin).not.toBe("");
    expect(intents.calls[0]?.apiKey).toBeUndefined();
  });

  it("lets a DataPart win over text", async () => {
    const r = await post(
      "clinica-demo",
      send([text("Cancelar la sesión abc123456"), data({ intent: "list_services" })]),
    );
    const msg = (await rpc(r)).result as { parts: Array<{ kind: string; data?: { intent: string } }> };
    expect(msg.parts[1]?.data?.intent).toBe("list_services");
    expect(intents.calls.map((c) => c.intent)).toEqual(["list_services"]);
  });

  it("forwards X-Org-Api-Key; without it cancel completes as failed with the REST 401", async () => {
    intents.sessions.set("s1", {
      id: "s1",
      serviceId: "svc-msk",
      scheduledAt: "x",
      email: "a@b.co",
      status: "agendado",
    });
    const cancel = send([data({ intent: "cancel_session", params: { sessionId: "s1", reason: "enfermo" } })]);

    const anonymous = (await rpc(await post("clinica-demo", cancel))).result as {
      parts: Array<{ data?: unknown }>;
    };
    expect(anonymous.parts[1]?.data).toMatchObject({
      status: "failed",
      http_status: 401,
      result: { code: "UNAUTHORIZED" },
    });

    const keyed = (await rpc(await post("clinica-demo", cancel, { "X-Org-Api-Key": "key-clinica" })))
      .result as {
      parts: Array<{ data?: unknown }>;
    };
    expect(keyed.parts[1]?.data).toMatchObject({
      status: "completed",
      http_status: 200,
      result: { status: "cancelled" },
    });
    expect(intents.calls.map((c) => c.apiKey)).toEqual([undefined, "key-clinica"]);
    expect(intents.calls[1]?.params).toEqual({ sessionId: "s1", reason: "enfermo" });
  });

  it("asks in Spanish for exactly what free text is missing, without running anything", async () => {
    const r = await post("clinica-demo", send([text("Quiero una hora de kinesio esta semana para mi hijo")]));
    const msg = (await rpc(r)).result as { kind: string; parts: Array<{ kind: string; text?: string }> };
    expect(msg.kind).toBe("message");
    expect(msg.parts).toEqual([
      {
        kind: "text",
        text: "Para continuar necesito qué servicio (Kinesiología de Piso Pélvico, Kinesiología Musculoesquelética).",
      },
    ]);
    expect(intents.calls).toHaveLength(0);
  });

  it("asks in English for the session id and the API key", async () => {
    const r = await post("clinica-demo", send([text("Please cancel my booking")]));
    const msg = (await rpc(r)).result as { parts: Array<{ text?: string }> };
    expect(msg.parts).toHaveLength(1);
    expect(msg.parts[0]?.text).toBe(
      "To continue I need the session id (the one the booking returned) and the organization's API key in the X-Org-Api-Key header.",
    );
  });

  it("runs a fully specified free-text booking and answers in English", async () => {
    const r = await post(
      "clinica-demo",
      send([text("Book Kinesiologia Musculoesqueletica tomorrow at 3pm, email ann@example.com")]),
    );
    const msg = (await rpc(r)).result as { parts: Array<{ text?: string; data?: Record<string, unknown> }> };
    expect(msg.parts[0]?.text).toMatch(/^Booking confirmed at 2026-03-31T15:00:00-03:00/);
    expect(msg.parts[1]?.data).toMatchObject({
      intent: "book_session",
      status: "completed",
      http_status: 201,
    });
    expect(intents.calls[0]).toMatchObject({
      intent: "book_session",
      params: { serviceId: "svc-msk", scheduledAt: "2026-03-31T15:00:00-03:00" },
      client: { email: "ann@example.com" },
    });
  });

  it("maps reschedule's newScheduledAt to scheduledAt and refuses newProviderId without running", async () => {
    intents.sessions.set("s2", {
      id: "s2",
      serviceId: "svc-msk",
      scheduledAt: "x",
      email: "a@b.co",
      status: "agendado",
    });
    const key = { "X-Org-Api-Key": "key-clinica" };
    const at = "2026-04-05T14:00:00-04:00";
    const moved = (
      await rpc(
        await post(
          "clinica-demo",
          send([data({ intent: "reschedule_session", params: { sessionId: "s2", newScheduledAt: at } })]),
          key,
        ),
      )
    ).result as { parts: Array<{ data?: unknown }> };
    expect(moved.parts[1]?.data).toMatchObject({ status: "completed", result: { scheduledAt: at } });
    expect(intents.calls[0]?.params).toEqual({ sessionId: "s2", scheduledAt: at });

    const refused = (
      await rpc(
        await post(
          "clinica-demo",
          send([
            data({
              intent: "reschedule_session",
              params: { sessionId: "s2", scheduledAt: at, newProviderId: "p9" },
            }),
          ]),
          key,
        ),
      )
    ).result as { parts: Array<{ data?: unknown }> };
    expect(refused.parts[1]?.data).toMatchObject({ status: "failed", http_status: 400 });
    expect(intents.calls).toHaveLength(1);
  });
});

describe("A2A 1.0 alongside the Servicialo card and wire", () => {
  const cardAt = async (path: string, headers: Record<string, string> = {}) => {
    const r = await app.request(`/api/servicialo/clinica-demo/.well-known/${path}`, { headers });
    return { r, card: (await r.json()) as Record<string, unknown> };
  };

  it("agent.json answers the v0.3.0 card without A2A-Version (or with 0.3), and the 1.0 card to 1.x", async () => {
    const plain = await cardAt("agent.json");
    expect(plain.r.headers.get("vary")).toMatch(/A2A-Version/i);
    expect(plain.card).toMatchObject({
      url: `${ORIGIN}/api/servicialo/clinica-demo/a2a`,
      protocolVersion: "0.3.0",
    });
    expect(plain.card).not.toHaveProperty("supportedInterfaces");
    expect((await cardAt("agent.json", { "A2A-Version": "0.3" })).card).toEqual(plain.card);

    const v1 = await cardAt("agent.json", { "A2A-Version": "1.0" });
    expect(v1.r.headers.get("vary")).toMatch(/A2A-Version/i);
    expect((await cardAt("agent-card.json")).card).toEqual(v1.card);
    expect(v1.card).not.toHaveProperty("url");
    expect(v1.card).not.toHaveProperty("protocolVersion");
    expect(v1.card).toMatchObject({
      name: "Clinica Demo",
      version: "1.2.0",
      supportedInterfaces: [
        {
          url: `${ORIGIN}/api/servicialo/clinica-demo/a2a`,
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
        },
        {
          url: `${ORIGIN}/api/servicialo/clinica-demo/a2a`,
          protocolBinding: "JSONRPC",
          protocolVersion: "0.3.0",
        },
      ],
      securitySchemes: { orgApiKey: { apiKeySecurityScheme: { location: "header", name: "X-Org-Api-Key" } } },
    });
    const skills = v1.card.skills as Array<{ id: string; securityRequirements?: unknown }>;
    expect(skills.map((s) => s.id)).toEqual((plain.card.skills as Array<{ id: string }>).map((s) => s.id));
    expect(skills.find((s) => s.id === "cancel-session")?.securityRequirements).toEqual([
      { schemes: { orgApiKey: { list: [] } } },
    ]);
    expect(skills.find((s) => s.id === "book-session")?.securityRequirements).toBeUndefined();
    expect((await app.request("/api/servicialo/nobody/.well-known/agent-card.json")).status).toBe(404);
  });

  const sendV1 = (parts: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "SendMessage",
      params: { message: { role: "ROLE_USER", messageId: "m1", parts, ...extra } },
    });

  it("SendMessage reads 1.0 parts and answers a SendMessageResponse holding the agent's Message", async () => {
    const params = { serviceId: "svc-msk", scheduledAt: "2026-04-01T10:00:00-03:00" };
    const r = await post(
      "clinica-demo",
      sendV1([{ data: { intent: "book_session", params, client: { email: "ana@mail.com" } } }], {
        contextId: "c-1",
      }),
      { "A2A-Version": "1.0" },
    );
    expect(r.status).toBe(200);
    const out = await rpc(r);
    expect(out).toMatchObject({ jsonrpc: "2.0", id: 9 });
    const msg = (out.result as { message: Record<string, unknown> }).message;
    expect(msg).toMatchObject({ role: "ROLE_AGENT", contextId: "c-1" });
    expect(msg).not.toHaveProperty("kind");
    const [t, d] = msg.parts as [{ text: string }, { data: Record<string, unknown>; mediaType: string }];
    expect(t.text).toMatch(/^Reserva confirmada/);
    expect(d).toMatchObject({
      mediaType: "application/json",
      data: { intent: "book_session", http_status: 201 },
    });
    expect(intents.calls[0]).toMatchObject({
      intent: "book_session",
      params,
      client: { email: "ana@mail.com" },
    });
  });

  it("SendMessage: 1.0's codes for what the Servicialo table numbers otherwise, and for another version", async () => {
    const body = sendV1([{ data: { intent: "list_services" } }]);
    expect(await rpc(await post("nobody", body))).toMatchObject({
      id: 9,
      error: { code: -32000, data: { reason: "organization_not_found" } },
    });
    intents.failNext({ httpStatus: 429, body: { error: "Too many requests" }, retryAfterSec: 30 });
    const limited = await post("clinica-demo", body, { "A2A-Version": "1.0" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(await rpc(limited)).toMatchObject({
      error: { code: -32000, data: { reason: "rate_limited", retry_after: 30 } },
    });
    expect(await rpc(await post("clinica-demo", body, { "A2A-Version": "2.0" }))).toMatchObject({
      id: 9,
      error: { code: -32009 },
    });
    // A part with neither text nor an intent's data leaves nothing to route.
    expect(
      await rpc(await post("clinica-demo", sendV1([{ url: "https://example.com/a.pdf" }]))),
    ).toMatchObject({ error: { code: -32602 } });
    expect(intents.calls).toHaveLength(1);
  });
});
