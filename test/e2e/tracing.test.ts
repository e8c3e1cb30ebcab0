/**
 * Spans through @opentelemetry/api (docs/ARCHITECTURE.md, Tracing), recorded by a test
 * TracerProvider and context manager (test/support/span-recorder.ts: the SDK is not installed)
 * on a real gateway over loopback whose host is on Square (the loopback fake of
 * test/support/square-platform.ts, which answers each request with its own x-request-id). For
 * a booking over each agent edge, one trace: the edge's request span (SchCP and A2A over HTTP,
 * OSBP's tool call through the MCP server), the core's booking operations under it, the
 * connector port call under those, and the HTTP request under that, the last two carrying
 * Square's request id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, discover, freeSlots, holdAndBook, newAgent } from "./support/agents.js";
import { startGateway, type E2eGateway } from "./support/gateway.js";
import { FakeSquareServer, SQUARE_HAIRCUT, SQUARE_LOCATION_ID } from "./support/fake-square.js";
import { osbpBook, osbpSession } from "./support/osbp-in-process.js";
import { recordSpans, type RecordedSpan, type SpanRecording } from "../support/span-recorder.js";
import { SpanKind } from "@opentelemetry/api";

const HOST = "maple-square";
const TOKEN = "EAAAl-tracing-secret-token-0123456789";
const TZ = "America/Toronto";

const square = new FakeSquareServer(TOKEN);
let gw: E2eGateway;
let recording: SpanRecording;

function config(origin: string): unknown {
  return {
    hosts: [
      {
        id: HOST,
        name: "Maple Street Studio",
        kind: "business",
        timezone: TZ,
        connector: {
          type: "square",
          settings: {
            environment: "sandbox",
            locationId: SQUARE_LOCATION_ID,
            version: "2026-08-20",
            accessToken: TOKEN,
            baseUrl: origin,
            timeoutMs: 5_000,
            paymentRequirement: "none",
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
    ],
  };
}

beforeAll(async () => {
  recording = recordSpans();
  await square.start();
  gw = await startGateway({ config: config(square.origin) });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await square.close();
  recording?.stop();
});

const named = (name: string | RegExp, among: readonly RecordedSpan[] = recording.spans) =>
  among.filter((s) => (typeof name === "string" ? s.name === name : name.test(s.name)));

function only(spans: readonly RecordedSpan[], what: string): RecordedSpan {
  expect(spans, what).toHaveLength(1);
  return spans[0]!;
}

/** Every span under `root`, depth first. */
function under(root: RecordedSpan): RecordedSpan[] {
  return recording.childrenOf(root).flatMap((child) => [child, ...under(child)]);
}

/**
 * The chain below an edge's request span: a booking.confirm somewhere under it, its port call
 * bookings.create, and that call's HTTP requests, every one with Square's request id.
 */
function expectBookingChain(request: RecordedSpan): void {
  const all = under(request);
  expect(all.every((s) => s.traceId === request.traceId)).toBe(true);
  const confirm = only(named("booking.confirm", all), "booking.confirm under the request");
  expect(confirm.attributes["booking.status"]).toBe("confirmed");
  const create = only(
    named("upstream bookings.create", recording.childrenOf(confirm)),
    "the port call under booking.confirm",
  );
  expect(create.kind).toBe(SpanKind.CLIENT);
  expect(create.attributes).toMatchObject({
    "upstream.vendor": "square",
    "upstream.operation": "bookings.create",
    "upstream.outcome": "ok",
  });
  const requestId = create.attributes["upstream.request_id"];
  expect(requestId).toMatch(/^fake-req-\d+$/);
  const http = recording.childrenOf(create);
  expect(http.length).toBeGreaterThan(0);
  for (const call of http) {
    expect(call.name).toMatch(/^square (GET|POST|PUT)$/);
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes["upstream.request_id"]).toMatch(/^fake-req-\d+$/);
    expect(call.attributes["http.response.status_code"]).toBe(200);
  }
  // The port call's id is its last request's: the create itself.
  const created = http.find((c) => c.attributes["upstream.call"] === "POST /v2/bookings");
  expect(created?.attributes["upstream.request_id"]).toBe(requestId);
}

describe("a trace per booking, edge to upstream request", { timeout: 60_000 }, () => {
  it("SchCP: POST …/confirm → booking.confirm → upstream bookings.create → square POST, with Square's request id", async () => {
    const agent = newAgent(gw);
    const host = await discover(agent, gw, HOST);
    const [slot] = await freeSlots(agent, gw, host, SQUARE_HAIRCUT, { fromDays: 2 });
    await holdAndBook(agent, host, SQUARE_HAIRCUT, slot!.start);

    const request = only(
      recording.spans.filter((s) => s.attributes["gateway.edge"] === "schcp" && /confirm/.test(s.name)),
      "the confirm's request span",
    );
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(request.parentSpanId).toBeUndefined();
    expect(request.attributes["http.request.method"]).toBe("POST");
    expect(request.attributes["http.response.status_code"]).toBe(201);
    // Named by the route as registered, never by the raw path (no hold id in the name).
    expect(request.name).toBe(`POST ${String(request.attributes["http.route"])}`);
    expect(request.name).not.toContain(HOST);
    expectBookingChain(request);

    // The hold's request holds the hold engine's span, which holds the availability read.
    const hold = only(
      recording.spans.filter((s) => s.attributes["gateway.edge"] === "schcp" && /holds$/.test(s.name)),
      "the hold's request span",
    );
    const engine = only(named("booking.hold", recording.childrenOf(hold)), "booking.hold");
    expect(named("upstream slots.find", under(engine)).length).toBeGreaterThan(0);
  });

  it("OSBP: the booking.create tool call → booking.book_now → booking.confirm → the port call → the request", async () => {
    const session = await osbpSession(gw, HOST);
    try {
      await osbpBook(session, gw, {
        serviceId: SQUARE_HAIRCUT,
        timezone: TZ,
        daysAhead: 4,
        key: "trace-osbp",
      });
    } finally {
      await session.close();
    }
    const calls = named("osbp booking.create");
    expect(calls).toHaveLength(2); // the approval challenge, then the approved create
    const approved = only(
      calls.filter((s) => s.attributes["osbp.ok"] === true),
      "the approved booking.create",
    );
    expect(approved.kind).toBe(SpanKind.SERVER);
    expect(approved.attributes["gateway.edge"]).toBe("osbp");
    const book = only(named("booking.book_now", recording.childrenOf(approved)), "booking.book_now");
    expect(book.attributes["booking.edge"]).toBe("osbp");
    expect(named("booking.hold", recording.childrenOf(book))).toHaveLength(1);
    expectBookingChain(approved);
  });

  it("A2A: POST …/book → booking.book_now → booking.confirm → the port call → the request", async () => {
    const date = new Date(gw.clock.now() + 5 * DAY_MS).toISOString().slice(0, 10);
    const api = `${gw.origin}/api/servicialo/${HOST}`;
    const listed = (await (
      await fetch(`${api}/availability?serviceId=${SQUARE_HAIRCUT}&date=${date}`)
    ).json()) as {
      available_slots: Array<{ start: string }>;
    };
    const start = listed.available_slots[0]?.start;
    expect(start).toBeDefined();
    const booked = await fetch(`${api}/book`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        clientEmail: "ana@mail.example",
        serviceId: SQUARE_HAIRCUT,
        scheduledAt: start,
      }),
    });
    expect(booked.status).toBe(201);

    const request = only(
      recording.spans.filter((s) => s.attributes["gateway.edge"] === "a2a" && /book$/.test(s.name)),
      "the A2A book request span",
    );
    expect(request.kind).toBe(SpanKind.SERVER);
    const book = only(named("booking.book_now", recording.childrenOf(request)), "booking.book_now");
    expect(book.attributes["booking.edge"]).toBe("a2a");
    expectBookingChain(request);
    // No span says who the person is.
    expect(JSON.stringify(recording.spans)).not.toContain("ana@mail.example");
  });
});
