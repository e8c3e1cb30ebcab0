import { describe, expect, it } from "vitest";
import {
  answerValidation,
  checkNotifications,
  MAX_EVENT_SUBSCRIPTION_MS,
  needsRenewal,
} from "../../../src/connectors/microsoft/index.js";
import { connector, expectNoToken, fixture, graph, NOW, useNock } from "./support.js";

useNock();

const SUB = "7f105c7d-2dc5-4530-97cd-4e7ae6534c07";
const SECRET = "secretClientValue-8c2d";

describe("Graph subscriptions", () => {
  it("creates one on the calendar's events, expiring within Graph's limit for events", async () => {
    let body: Record<string, unknown> = {};
    graph()
      .post("/v1.0/subscriptions", (b: Record<string, unknown>) => ((body = b), true))
      .reply(201, fixture("subscription-created.json"));
    const result = await connector().subscriptions.create({
      calendarId: "primary",
      notificationUrl: "https://gateway.example/hooks/graph",
      clientState: SECRET,
      expiresAt: NOW + 30 * 86_400_000, // asks for too long: clamped
    });
    expectNoToken(result);
    expect(body).toMatchObject({
      changeType: "created,updated,deleted",
      notificationUrl: "https://gateway.example/hooks/graph",
      resource: "me/events",
      clientState: SECRET,
    });
    const expiry = Date.parse(body.expirationDateTime as string);
    expect(expiry).toBeLessThan(NOW + MAX_EVENT_SUBSCRIPTION_MS);
    expect(expiry).toBeGreaterThan(NOW + MAX_EVENT_SUBSCRIPTION_MS - 3_600_000);
    expect(result).toMatchObject({
      ok: true,
      value: { subscriptionId: SUB, resource: "me/events", expiresAt: Date.parse("2026-12-10T06:55:00Z") },
      upstream: { call: "POST /v1.0/subscriptions", status: 201 },
    });
    // Graph echoes the clientState in its answer; the result does not carry it on.
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("refuses an http notification URL without a call", async () => {
    const result = await connector().subscriptions.create({
      calendarId: "primary",
      notificationUrl: "http://gateway.example/hooks/graph",
      clientState: SECRET,
    });
    expect(!result.ok && result.error.code).toBe("invalid_request");
  });

  it("renews with PATCH expirationDateTime, and deletes", async () => {
    let body: Record<string, unknown> = {};
    graph()
      .patch(`/v1.0/subscriptions/${SUB}`, (b: Record<string, unknown>) => ((body = b), true))
      .reply(200, fixture("subscription-renewed.json"))
      .delete(`/v1.0/subscriptions/${SUB}`)
      .reply(204)
      .delete(`/v1.0/subscriptions/${SUB}`)
      .reply(404, { error: { code: "ResourceNotFound", message: "Object was not found." } });
    const c = connector();
    const renewed = await c.subscriptions.renew(SUB, Date.parse("2026-12-09T00:00:00Z"));
    expect(body).toEqual({ expirationDateTime: "2026-12-09T00:00:00.000Z" });
    expect(renewed).toMatchObject({ ok: true, value: { expiresAt: Date.parse("2026-12-09T00:00:00Z") } });
    expect(await c.subscriptions.delete(SUB)).toMatchObject({ ok: true, value: { deleted: true } });
    expect(await c.subscriptions.delete(SUB)).toMatchObject({ ok: true, value: { deleted: false } });
  });

  it("needsRenewal: within the margin or past expiry", () => {
    const sub = { expiresAt: Date.parse("2026-12-10T06:55:00Z") };
    expect(needsRenewal(sub, Date.parse("2026-12-09T00:00:00Z"), 12 * 3_600_000)).toBe(false);
    expect(needsRenewal(sub, Date.parse("2026-12-09T20:00:00Z"), 12 * 3_600_000)).toBe(true);
    expect(needsRenewal(sub, Date.parse("2026-12-11T00:00:00Z"), 0)).toBe(true);
  });
});

describe("Graph notification endpoint (pure)", () => {
  it("echoes the validationToken, decoded, as text/plain", () => {
    const token =
      "Validation: Testing client application reachability for subscription Request-Id: 7f105c7d <script>";
    const query = `?validationToken=${encodeURIComponent(token)}`;
    expect(answerValidation(query)).toEqual({ status: 200, contentType: "text/plain", body: token });
    expect(answerValidation(new URLSearchParams({ validationToken: "abc" }))).toEqual({
      status: 200,
      contentType: "text/plain",
      body: "abc",
    });
    expect(answerValidation("")).toBeUndefined();
  });

  it("accepts a notification whose clientState matches its subscription", () => {
    const states = (id: string) => (id === SUB ? SECRET : undefined);
    expect(checkNotifications(fixture("notification-updated.json"), states)).toEqual({
      ok: true,
      value: [
        {
          subscriptionId: SUB,
          changeType: "updated",
          resource: "Users/8ee44408-0679-472c-bc2a-692812af3437/Events/AAMkAGI2TGuLAAA=single01",
          eventId: "AAMkAGI2TGuLAAA=single01",
        },
      ],
    });
  });

  it("refuses a batch with a wrong or missing clientState, an unknown subscription, or no value", () => {
    const good = fixture<{ value: Record<string, unknown>[] }>("notification-updated.json");
    const states = (id: string) => (id === SUB ? SECRET : undefined);
    const entry = good.value[0]!;
    const batch = (...value: unknown[]) => ({ value });
    expect(checkNotifications(batch(entry, { ...entry, clientState: "guess" }), states)).toEqual({
      ok: false,
      error: "bad_client_state",
    });
    expect(checkNotifications(batch({ ...entry, clientState: `${SECRET}x` }), states)).toEqual({
      ok: false,
      error: "bad_client_state",
    });
    const { clientState: _omit, ...noState } = entry;
    expect(checkNotifications(batch(noState), states)).toEqual({ ok: false, error: "bad_client_state" });
    expect(checkNotifications(batch({ ...entry, subscriptionId: "other" }), states)).toEqual({
      ok: false,
      error: "unknown_subscription",
    });
    expect(checkNotifications({}, states)).toEqual({ ok: false, error: "malformed" });
  });
});
