import { describe, expect, it } from "vitest";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { connector, expectNoToken, fixture, graph, useNock } from "./support.js";

useNock();

const write: CalendarEventWrite = {
  calendarId: "primary",
  eventId: "booking:bk_01HZX:event",
  start: Date.parse("2026-12-09T09:00:00Z"),
  end: Date.parse("2026-12-09T09:45:00Z"),
  zone: "Europe/Madrid",
  summary: "Haircut (awaiting approval)",
  status: "tentative",
  transparency: "opaque",
};
const created = fixture<{ id: string; "@odata.etag": string }>("event-created.json");

describe("Graph event writes", () => {
  it("creates with transactionId and showAs tentative, in the host's Windows zone; answers Graph's id", async () => {
    let body: Record<string, unknown> = {};
    graph()
      .post("/v1.0/me/events", (b: Record<string, unknown>) => ((body = b), true))
      .reply(201, created, { "request-id": "r-create" });
    const result = await connector().events.create(write);
    expectNoToken(result);
    expect(body).toEqual({
      subject: "Haircut (awaiting approval)",
      body: { contentType: "text", content: "" },
      start: { dateTime: "2026-12-09T10:00:00", timeZone: "Romance Standard Time" },
      end: { dateTime: "2026-12-09T10:45:00", timeZone: "Romance Standard Time" },
      showAs: "tentative",
      transactionId: "booking:bk_01HZX:event",
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        calendarId: "primary",
        eventId: write.eventId,
        upstreamEventId: created.id,
        etag: created["@odata.etag"],
      },
      upstream: { call: "POST /v1.0/me/events", status: 201, request_id: "r-create" },
    });
  });

  it("a retried create sends the same transactionId and answers the one event Graph kept", async () => {
    const transactionIds: unknown[] = [];
    graph()
      .post(
        "/v1.0/me/calendars/AAMkCAL%3D%3D/events",
        (b: { transactionId?: unknown }) => (transactionIds.push(b.transactionId), true),
      )
      .twice()
      .reply(201, created);
    const c = connector();
    const first = await c.events.create({ ...write, calendarId: "AAMkCAL==" });
    const retry = await c.events.create({ ...write, calendarId: "AAMkCAL==" });
    expect(transactionIds).toEqual([write.eventId, write.eventId]);
    expect(retry.ok && retry.value).toEqual(first.ok && first.value);
  });

  it("updates by Graph's id with If-Match; after a 412 it reads the event and patches only what the booking owns", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const url = `/v1.0/me/events/${encodeURIComponent(created.id)}`;
    graph()
      .patch(url, (b: Record<string, unknown>) => (bodies.push(b), true))
      .matchHeader("if-match", 'W/"stale-change-key"')
      .reply(412, fixture("error-412-irresolvable-conflict.json"))
      .get(url)
      .query({ $select: "id" })
      .reply(200, { id: created.id, "@odata.etag": 'W/"edited-change-key"' })
      .patch(url, (b: Record<string, unknown>) => (bodies.push(b), true))
      .matchHeader("if-match", 'W/"edited-change-key"')
      .reply(200, {
        ...created,
        showAs: "busy",
        "@odata.etag": 'W/"new-change-key"',
        changeKey: "new-change-key",
      });
    const confirmed = { ...write, status: "confirmed" as const, upstreamEventId: created.id };
    const result = await connector().events.update(confirmed, "stale-change-key");
    expectNoToken(result);
    expect(result.ok && result.value).toMatchObject({
      etag: 'W/"new-change-key"',
      upstreamEventId: created.id,
    });
    expect(bodies[0]).toMatchObject({ subject: write.summary, showAs: "busy" });
    // "Update event": what the body leaves out (subject, body, location) keeps its value.
    expect(bodies[1]).toEqual({
      start: { dateTime: "2026-12-09T10:00:00", timeZone: "Romance Standard Time" },
      end: { dateTime: "2026-12-09T10:45:00", timeZone: "Romance Standard Time" },
      showAs: "busy",
    });
  });

  it("an update of an event that is gone is precondition_failed", async () => {
    const url = `/v1.0/me/events/${encodeURIComponent(created.id)}`;
    graph()
      .patch(url)
      .reply(412, fixture("error-412-irresolvable-conflict.json"))
      .get(url)
      .query(true)
      .reply(404, {
        error: { code: "ErrorItemNotFound", message: "The specified object was not found in the store." },
      });
    const gone = await connector().events.update({ ...write, upstreamEventId: created.id }, "old");
    expect(!gone.ok && gone.error.code).toBe("precondition_failed");
  });

  it("update and delete without Graph's id are refused without a call", async () => {
    const c = connector();
    const u = await c.events.update(write, "x");
    expect(!u.ok && u.error.code).toBe("invalid_request");
    const d = await c.events.delete("primary", write.eventId);
    expect(!d.ok && d.error.code).toBe("invalid_request");
  });

  it("deletes; an event already gone is deleted: false", async () => {
    graph()
      .delete(`/v1.0/me/events/${encodeURIComponent(created.id)}`)
      .matchHeader("if-match", created["@odata.etag"])
      .reply(204)
      .delete(`/v1.0/me/events/${encodeURIComponent(created.id)}`)
      .reply(404, {
        error: { code: "ErrorItemNotFound", message: "The specified object was not found in the store." },
      });
    const c = connector();
    const done = await c.events.delete("primary", write.eventId, created["@odata.etag"], {
      upstreamEventId: created.id,
    });
    expect(done).toMatchObject({ ok: true, value: { deleted: true } });
    const gone = await c.events.delete("primary", write.eventId, undefined, { upstreamEventId: created.id });
    expect(gone).toMatchObject({ ok: true, value: { deleted: false }, upstream: { status: 404 } });
  });

  it("throttled writes are rate_limited with Retry-After; 401 is unauthorized", async () => {
    graph()
      .post("/v1.0/me/events")
      .reply(429, fixture("error-429-too-many-requests.json"), { "Retry-After": "7" })
      .post("/v1.0/me/events")
      .reply(401, fixture("error-401-invalid-authentication-token.json"));
    const c = connector();
    const throttled = await c.events.create(write);
    expect(!throttled.ok && throttled.error).toMatchObject({ code: "rate_limited", retryAfterMs: 7000 });
    const denied = await c.events.create(write);
    expectNoToken(denied);
    expect(!denied.ok && denied.error.code).toBe("unauthorized");
  });
});
