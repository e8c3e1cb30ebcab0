import { describe, expect, it } from "vitest";
import { googleEventId } from "../../../src/connectors/google/index.js";
import type { CalendarEventWrite } from "../../../src/connectors/port.js";
import { connector, expectNoToken, fixture, google, useNock } from "./support.js";

useNock();

const EVENTS = "/calendar/v3/calendars/primary/events";
const write: CalendarEventWrite = {
  calendarId: "primary",
  eventId: "booking:bk_01HZX:event",
  start: Date.parse("2026-12-09T15:00:00Z"),
  end: Date.parse("2026-12-09T15:45:00Z"),
  zone: "America/New_York",
  summary: "Haircut (awaiting approval)",
  status: "tentative",
  transparency: "opaque",
};
const id = googleEventId(write.eventId);
const stored = { ...fixture("event-inserted.json"), id, iCalUID: `${id}@google.com` };

describe("Google event writes", () => {
  it("creates with the derived id, tentative, in the host's zone", async () => {
    let body: Record<string, unknown> = {};
    google()
      .post(EVENTS, (b: Record<string, unknown>) => ((body = b), true))
      .query({ sendUpdates: "none" })
      .reply(200, stored);
    const result = await connector().events.create(write);
    expectNoToken(result);
    expect(result).toMatchObject({
      ok: true,
      value: {
        calendarId: "primary",
        eventId: write.eventId,
        upstreamEventId: id,
        etag: '"3512400000000000"',
      },
      upstream: { call: "POST /calendar/v3/calendars/primary/events", status: 200 },
    });
    expect(body).toEqual({
      id,
      summary: "Haircut (awaiting approval)",
      description: null,
      start: { dateTime: "2026-12-09T15:00:00.000Z", timeZone: "America/New_York" },
      end: { dateTime: "2026-12-09T15:45:00.000Z", timeZone: "America/New_York" },
      status: "tentative",
      transparency: "opaque",
    });
  });

  it("a retried create (409 duplicate) reads and answers the one stored event", async () => {
    const ids: unknown[] = [];
    google()
      .post(EVENTS, (b: { id?: unknown }) => (ids.push(b.id), true))
      .query(true)
      .reply(200, stored) // the first try landed, but its answer was lost on the way back
      .post(EVENTS, (b: { id?: unknown }) => (ids.push(b.id), true))
      .query(true)
      .reply(409, fixture("error-409-duplicate.json"))
      .get(`${EVENTS}/${id}`)
      .reply(200, stored);
    const c = connector();
    const first = await c.events.create(write);
    const retry = await c.events.create(write);
    expectNoToken(retry);
    expect(ids).toEqual([id, id]);
    expect(retry.ok && retry.value).toEqual(first.ok && first.value);
    expect(retry.upstream).toMatchObject({
      call: `GET /calendar/v3/calendars/primary/events/${id}`,
      status: 200,
    });
  });

  it("updates with If-Match; after a 412 it reads the event and patches only what the booking owns", async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const edited = {
      ...stored,
      location: "Chair 2",
      description: "Allergic to lavender",
      etag: '"3512400000000500"',
    };
    google()
      .patch(`${EVENTS}/${id}`, (b: Record<string, unknown>) => (bodies.push(b), true))
      .query({ sendUpdates: "none" })
      .matchHeader("if-match", '"3512400000000000"')
      .reply(412, fixture("error-412-condition-not-met.json"))
      .get(`${EVENTS}/${id}`)
      .reply(200, edited)
      .patch(`${EVENTS}/${id}`, (b: Record<string, unknown>) => (bodies.push(b), true))
      .query({ sendUpdates: "none" })
      .matchHeader("if-match", '"3512400000000500"')
      .reply(200, { ...edited, status: "confirmed", etag: '"3512400000001000"' });
    const result = await connector().events.update({ ...write, status: "confirmed" }, '"3512400000000000"');
    expectNoToken(result);
    expect(result.ok && result.value.etag).toBe('"3512400000001000"');
    expect(bodies[0]).toMatchObject({ summary: write.summary, description: null, status: "confirmed" });
    // Patch semantics: what the body leaves out (summary, description, location) stays as edited.
    expect(bodies[1]).toEqual({
      start: { dateTime: "2026-12-09T15:00:00.000Z", timeZone: "America/New_York" },
      end: { dateTime: "2026-12-09T15:45:00.000Z", timeZone: "America/New_York" },
      status: "confirmed",
      transparency: "opaque",
    });
  });

  it("an update of an event that is gone, or that keeps changing, is precondition_failed", async () => {
    google()
      .patch(`${EVENTS}/${id}`)
      .query(true)
      .reply(412, fixture("error-412-condition-not-met.json"))
      .get(`${EVENTS}/${id}`)
      .reply(404, { error: { code: 404, message: "Not Found", errors: [{ reason: "notFound" }] } });
    const gone = await connector().events.update(write, '"old"');
    expect(!gone.ok && gone.error.code).toBe("precondition_failed");
    expect(gone.upstream).toMatchObject({
      status: 404,
      call: `GET /calendar/v3/calendars/primary/events/${id}`,
    });

    const scope = google();
    scope.patch(`${EVENTS}/${id}`).query(true).reply(412, fixture("error-412-condition-not-met.json"));
    for (let i = 0; i < 3; i++)
      scope
        .get(`${EVENTS}/${id}`)
        .reply(200, { ...stored, etag: `"v${i}"` })
        .patch(`${EVENTS}/${id}`)
        .query(true)
        .matchHeader("if-match", `"v${i}"`)
        .reply(412, fixture("error-412-condition-not-met.json"));
    const busy = await connector().events.update(write, '"old"');
    expect(!busy.ok && busy.error.code).toBe("precondition_failed");
    expect(busy.upstream).toMatchObject({ status: 412 });
  });

  it("deletes; an event already gone (410 or 404) is deleted: false, not an error", async () => {
    google()
      .delete(`${EVENTS}/${id}`)
      .query(true)
      .matchHeader("if-match", '"3512400000000000"')
      .reply(204)
      .delete(`${EVENTS}/${id}`)
      .query(true)
      .reply(410, fixture("error-410-deleted.json"))
      .delete(`${EVENTS}/${id}`)
      .query(true)
      .reply(404, { error: { code: 404, message: "Not Found", errors: [{ reason: "notFound" }] } });
    const c = connector();
    expect((await c.events.delete("primary", write.eventId, '"3512400000000000"')).ok && true).toBe(true);
    const gone = await c.events.delete("primary", write.eventId);
    expect(gone).toMatchObject({ ok: true, value: { deleted: false }, upstream: { status: 410 } });
    const missing = await c.events.delete("primary", write.eventId);
    expect(missing).toMatchObject({ ok: true, value: { deleted: false }, upstream: { status: 404 } });
  });

  it("401 on a write is unauthorized; 503 is unavailable", async () => {
    google()
      .post(EVENTS)
      .query(true)
      .reply(401, fixture("error-401-invalid-credentials.json"))
      .post(EVENTS)
      .query(true)
      .reply(503, { error: { code: 503, message: "Backend Error", errors: [{ reason: "backendError" }] } });
    const c = connector();
    const denied = await c.events.create(write);
    expectNoToken(denied);
    expect(!denied.ok && denied.error.code).toBe("unauthorized");
    const down = await c.events.create(write);
    expect(!down.ok && down.error.code).toBe("unavailable");
  });
});
