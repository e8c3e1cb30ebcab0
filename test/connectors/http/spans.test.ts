/**
 * The upstream client's span per request (src/connectors/http.ts; docs/ARCHITECTURE.md,
 * Tracing), recorded by the test TracerProvider of test/support/span-recorder.ts: a client span
 * named by vendor and method, with the redacted call line, the status and the upstream's request
 * id (Graph's `request-id` through `request`, the SDK path's through the capturing fetch), the
 * child of whatever span is active; a failure marks it.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGoogleUpstream } from "../../../src/connectors/google/http.js";
import { createGraphUpstream } from "../../../src/connectors/microsoft/http.js";
import { inSpan } from "../../../src/protocol/tracing.js";
import { recordSpans, type SpanRecording } from "../../support/span-recorder.js";

let recording: SpanRecording;
beforeAll(() => {
  recording = recordSpans();
});
afterAll(() => recording.stop());

const answering =
  (status: number, headers: Record<string, string>): typeof fetch =>
  () =>
    Promise.resolve(
      new Response(JSON.stringify({ value: [] }), {
        status,
        headers: { "content-type": "application/json", ...headers },
      }),
    );

const graph = (transport: typeof fetch) =>
  createGraphUpstream({
    accessToken: () => Promise.resolve("token"),
    baseUrl: "https://graph.microsoft.com/v1.0",
    timeoutMs: 5_000,
    fetch: transport,
  });

describe("a span per upstream request", () => {
  it("Graph: the request's span carries its request-id, status and call line, under the active span", async () => {
    const upstream = graph(answering(200, { "request-id": "graph-req-1", "client-request-id": "c-1" }));
    await inSpan("upstream calendar.sync", {}, () =>
      upstream.request({ method: "GET", path: "/users/ada@example.com/calendar/events" }),
    );
    const parent = recording.spans.find((s) => s.name === "upstream calendar.sync")!;
    const [span] = recording.childrenOf(parent);
    expect(span?.name).toBe("microsoft-graph GET");
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      "upstream.vendor": "microsoft-graph",
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "upstream.request_id": "graph-req-1",
    });
    // The call line as the meta has it: the address in the path redacted.
    expect(span?.attributes["upstream.call"]).not.toContain("ada@example.com");
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a transport failure and an error status mark the span failed, with the outcome", async () => {
    const down = graph(() => Promise.reject(new TypeError("fetch failed")));
    const refused = await down.request({ method: "GET", path: "/me/events" });
    expect(refused.ok).toBe(false);
    const throttled = graph(answering(503, { "request-id": "graph-req-2", "retry-after": "1" }));
    await throttled.request({ method: "GET", path: "/me/events" });

    const [network, busy] = recording.spans.filter((s) => s.name === "microsoft-graph GET").slice(-2);
    expect(network?.status.code).toBe(SpanStatusCode.ERROR);
    expect(network?.attributes["upstream.outcome"]).toBe("unavailable");
    expect(busy?.status.code).toBe(SpanStatusCode.ERROR);
    expect(busy?.attributes).toMatchObject({
      "upstream.request_id": "graph-req-2",
      "http.response.status_code": 503,
    });
  });

  it("the SDK path (the capturing fetch): one span per request the SDK sends", async () => {
    const upstream = createGoogleUpstream({
      accessToken: () => Promise.resolve("token"),
      timeoutMs: 5_000,
      fetch: answering(200, { "x-request-id": "g-1" }),
    });
    const before = recording.spans.length;
    const captured = await upstream.withCapture(async () => {
      await upstream.fetch("https://www.googleapis.com/calendar/v3/calendars/primary/events");
      await upstream.fetch("https://www.googleapis.com/calendar/v3/calendars/primary/events", {
        method: "POST",
      });
    });
    expect(captured.ok).toBe(true);
    const spans = recording.spans.slice(before);
    expect(spans.map((s) => s.name)).toEqual(["google-calendar GET", "google-calendar POST"]);
    for (const s of spans) expect(s.attributes["upstream.request_id"]).toBe("g-1");
  });
});
