// CalDAV settings: every refusal names its field; ids map to resources and back.
import { describe, expect, it } from "vitest";
import { createCaldavConnector, validateCaldavSettings } from "../../../src/connectors/caldav/index.js";
import { buildEvent } from "../../../src/connectors/caldav/build-event.js";
import { calendarUrl, eventIdOf, eventUrl } from "../../../src/connectors/caldav/resources.js";
import { readResource } from "../../../src/connectors/caldav/vevent.js";

const fieldOf = (input: unknown) => {
  const result = validateCaldavSettings(input);
  return result.ok ? "ok" : result.error.field;
};

describe("validateCaldavSettings", () => {
  it("accepts https, loopback http, a calendar path and Basic credentials", () => {
    expect(
      validateCaldavSettings({
        serverUrl: "https://dav.example.com/remote.php/dav/",
        calendarPath: "/remote.php/dav/calendars/jane/personal/",
        username: "jane",
        password: "x",
      }),
    ).toMatchObject({ ok: true, value: { serverUrl: "https://dav.example.com/remote.php/dav/" } });
    expect(fieldOf({ serverUrl: "http://127.0.0.1:5232/" })).toBe("ok");
  });

  it("names the field of each problem", () => {
    expect(fieldOf(null)).toBe("");
    expect(fieldOf({})).toBe("/serverUrl");
    expect(fieldOf({ serverUrl: "not a url" })).toBe("/serverUrl");
    // Plain http is the outbound address policy's to refuse (src/protocol/net/policy.ts), where
    // the operator's allowance is known; the settings refuse what no policy could allow.
    expect(fieldOf({ serverUrl: "http://dav.example.com/" })).toBe("ok");
    expect(fieldOf({ serverUrl: "ftp://dav.example.com/" })).toBe("/serverUrl");
    expect(fieldOf({ serverUrl: "https://jane:pw@dav.example.com/" })).toBe("/serverUrl");
    expect(fieldOf({ serverUrl: "https://dav.example.com/?a=1" })).toBe("/serverUrl");
    expect(fieldOf({ serverUrl: "https://dav.example.com/", calendarPath: 3 })).toBe("/calendarPath");
    expect(fieldOf({ serverUrl: "https://dav.example.com/", calendarPath: "https://other.example/c/" })).toBe(
      "/calendarPath",
    );
    expect(fieldOf({ serverUrl: "https://dav.example.com/", username: "jane" })).toBe("/password");
    expect(fieldOf({ serverUrl: "https://dav.example.com/", password: "pw" })).toBe("/username");
    expect(fieldOf({ serverUrl: "https://dav.example.com/", username: "a:b", password: "pw" })).toBe(
      "/username",
    );
    expect(fieldOf({ serverUrl: "https://dav.example.com/", calendarUrl: "/c/" })).toBe("/calendarUrl");
  });

  it("the factory refuses invalid settings and never echoes the password", () => {
    expect(() =>
      createCaldavConnector({ serverUrl: "ftp://dav.example.com/", username: "j", password: "pw-9" }),
    ).toThrow(/serverUrl/);
    let message = "";
    try {
      createCaldavConnector({ serverUrl: "https://j:pw-9@dav.example.com/" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/serverUrl/);
    expect(message).not.toContain("pw-9");
    const connector = createCaldavConnector({
      serverUrl: "https://dav.example.com/",
      calendarPath: "/cal/work",
    });
    expect(connector).toMatchObject({
      kind: "calendar",
      calendarId: "/cal/work/",
      platform: { vendor: "caldav" },
    });
  });
});

describe("eventId ↔ resource", () => {
  const server = new URL("https://dav.example.com/");
  const cal = calendarUrl(server, "/cal/work/");
  if (!cal.ok) throw new Error(cal.error);

  it("names the gateway's events <calendar>/<eventId>.ics and reads the id back from any href form", () => {
    const url = eventUrl(cal.value, "host1:hold 7");
    expect(url.ok && url.value.pathname).toBe("/cal/work/host1%3Ahold%207.ics");
    expect(eventIdOf(cal.value, "/cal/work/host1%3Ahold%207.ics")).toBe("host1:hold 7");
    expect(eventIdOf(cal.value, "https://dav.example.com/cal/work/host1:hold%207.ics")).toBe("host1:hold 7");
    expect(eventIdOf(cal.value, "host1%3Ahold%207.ics")).toBe("host1:hold 7");
    expect(eventIdOf(cal.value, "/cal/work/foreign-no-extension")).toBe("foreign-no-extension");
  });

  it("refuses empty or overlong ids and calendars elsewhere", () => {
    expect(eventUrl(cal.value, "").ok).toBe(false);
    expect(eventUrl(cal.value, "x".repeat(201)).ok).toBe(false);
    expect(calendarUrl(server, "https://evil.example/cal/").ok).toBe(false);
    expect(calendarUrl(server, "").ok).toBe(false);
  });
});

describe("buildEvent", () => {
  it("writes a VEVENT the reader reads back as written", () => {
    const text = buildEvent(
      {
        calendarId: "/cal/work/",
        eventId: "hold-9",
        start: Date.parse("2026-12-03T14:00:00Z"),
        end: Date.parse("2026-12-03T14:45:00Z"),
        zone: "America/Toronto",
        summary: "Trim; wash, dry",
        description: "line one\nline two",
        status: "confirmed",
        transparency: "opaque",
      },
      Date.parse("2026-12-01T08:00:00Z"),
    );
    expect(text).toContain("DTSTAMP:20261201T080000Z");
    expect(text).toContain("SUMMARY:Trim\\; wash\\, dry");
    expect(readResource(text, "hold-9", undefined)).toEqual({
      ok: true,
      value: {
        events: [
          {
            uid: "hold-9",
            eventId: "hold-9",
            start: { dateTime: "2026-12-03T14:00:00Z" },
            end: { dateTime: "2026-12-03T14:45:00Z" },
            status: "confirmed",
            transparency: "opaque",
          },
        ],
      },
    });
  });
});
