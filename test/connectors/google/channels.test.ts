import { describe, expect, it } from "vitest";
import { checkNotification, needsRenewal } from "../../../src/connectors/google/index.js";
import { connector, expectNoToken, fixture, google, useNock } from "./support.js";

useNock();

const CHANNEL = "01234567-89ab-cdef-0123-456789abcdef";
const SECRET = "channel-secret-7f3a";

describe("Google watch channels", () => {
  it("watches a calendar's events with our channel id and token", async () => {
    let body: Record<string, unknown> = {};
    google()
      .post(
        "/calendar/v3/calendars/alice%40example.com/events/watch",
        (b: Record<string, unknown>) => ((body = b), true),
      )
      .reply(200, fixture("watch-channel.json"));
    const result = await connector().channels.watch({
      calendarId: "alice@example.com",
      channelId: CHANNEL,
      address: "https://gateway.example/hooks/google",
      token: SECRET,
      ttlSeconds: 604800,
    });
    expectNoToken(result);
    expect(body).toEqual({
      id: CHANNEL,
      type: "web_hook",
      address: "https://gateway.example/hooks/google",
      token: SECRET,
      params: { ttl: "604800" },
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        calendarId: "alice@example.com",
        channelId: CHANNEL,
        resourceId: "o3hgv1538sdjfh",
        expiration: 1765440000000,
      },
      upstream: { call: "POST /calendar/v3/calendars/[redacted:email]/events/watch" },
    });
    // The channel token is a secret too: not echoed in the result.
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("refuses a channel id Google would refuse, without a call", async () => {
    const result = await connector().channels.watch({
      calendarId: "primary",
      channelId: "x".repeat(65),
      address: "https://gateway.example/hooks/google",
      token: SECRET,
    });
    expect(!result.ok && result.error.code).toBe("invalid_request");
  });

  it("stops a channel; one already gone is stopped: false", async () => {
    let body: unknown;
    google()
      .post("/calendar/v3/channels/stop", (b) => ((body = b), true))
      .reply(204)
      .post("/calendar/v3/channels/stop")
      .reply(404, { error: { code: 404, message: "Channel not found", errors: [{ reason: "notFound" }] } });
    const c = connector();
    expect(await c.channels.stop({ channelId: CHANNEL, resourceId: "o3hgv1538sdjfh" })).toMatchObject({
      ok: true,
      value: { stopped: true },
    });
    expect(body).toEqual({ id: CHANNEL, resourceId: "o3hgv1538sdjfh" });
    expect(await c.channels.stop({ channelId: CHANNEL, resourceId: "o3hgv1538sdjfh" })).toMatchObject({
      ok: true,
      value: { stopped: false },
    });
  });
});

describe("Google notification check", () => {
  const headers = (over: Record<string, string | undefined> = {}) => ({
    "x-goog-channel-id": CHANNEL,
    "x-goog-channel-token": SECRET,
    "x-goog-channel-expiration": "Tue, 09 Dec 2026 09:00:00 GMT",
    "x-goog-resource-id": "o3hgv1538sdjfh",
    "x-goog-resource-state": "exists",
    "x-goog-message-number": "7",
    ...over,
  });
  const expected = { channelId: CHANNEL, token: SECRET, resourceId: "o3hgv1538sdjfh" };

  it("a change on our channel with our token: exists", () => {
    expect(checkNotification(headers(), expected)).toEqual({
      ok: true,
      value: { state: "exists", resourceId: "o3hgv1538sdjfh", messageNumber: 7 },
    });
  });

  it("the first message of a channel: sync (nothing changed)", () => {
    const r = checkNotification(
      new Headers(headers({ "x-goog-resource-state": "sync", "x-goog-message-number": "1" })),
      expected,
    );
    expect(r).toEqual({ ok: true, value: { state: "sync", resourceId: "o3hgv1538sdjfh", messageNumber: 1 } });
  });

  it("a wrong token, another channel, or a missing header is refused", () => {
    expect(checkNotification(headers({ "x-goog-channel-token": "guess" }), expected)).toEqual({
      ok: false,
      error: "bad_token",
    });
    expect(checkNotification(headers({ "x-goog-channel-token": `${SECRET}x` }), expected)).toEqual({
      ok: false,
      error: "bad_token",
    });
    expect(checkNotification(headers({ "x-goog-channel-id": "other" }), expected)).toEqual({
      ok: false,
      error: "unknown_channel",
    });
    expect(checkNotification(headers({ "x-goog-resource-id": "other" }), expected)).toEqual({
      ok: false,
      error: "unknown_channel",
    });
    expect(checkNotification(headers({ "x-goog-channel-token": undefined }), expected)).toEqual({
      ok: false,
      error: "missing_header",
    });
    expect(checkNotification(headers({ "x-goog-resource-state": "weird" }), expected)).toEqual({
      ok: false,
      error: "unknown_state",
    });
  });

  it("needsRenewal: within the margin or past expiry", () => {
    const channel = { expiration: Date.parse("2026-12-10T00:00:00Z") };
    const hour = 3_600_000;
    expect(needsRenewal(channel, Date.parse("2026-12-09T12:00:00Z"), 6 * hour)).toBe(false);
    expect(needsRenewal(channel, Date.parse("2026-12-09T18:00:00Z"), 6 * hour)).toBe(true);
    expect(needsRenewal(channel, Date.parse("2026-12-11T00:00:00Z"), 0)).toBe(true);
  });
});
