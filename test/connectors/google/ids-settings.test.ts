import { describe, expect, it } from "vitest";
import { base32hex, isGoogleEventId } from "../../../src/connectors/google/ids.js";
import {
  googleEventId,
  validateGoogleCalendarSettings,
  createGoogleCalendarConnector,
} from "../../../src/connectors/google/index.js";

describe("Google event ids", () => {
  it("base32hex matches RFC 4648 §10 (lowercase, unpadded)", () => {
    const enc = (s: string) => base32hex(new TextEncoder().encode(s));
    expect(enc("")).toBe("");
    expect(enc("f")).toBe("co");
    expect(enc("fo")).toBe("cpng");
    expect(enc("foo")).toBe("cpnmu");
    expect(enc("foob")).toBe("cpnmuog");
    expect(enc("fooba")).toBe("cpnmuoj1");
    expect(enc("foobar")).toBe("cpnmuoj1e8");
  });

  it("derives a stable id in Google's alphabet, different per eventId", () => {
    for (const eventId of ["a", "booking:1", "ÜNÏCÖDE ✓", "x".repeat(5000)]) {
      const id = googleEventId(eventId);
      expect(isGoogleEventId(id)).toBe(true);
      expect(id).toHaveLength(52);
      expect(googleEventId(eventId)).toBe(id);
    }
    expect(googleEventId("booking:1")).not.toBe(googleEventId("booking:2"));
  });
});

describe("Google settings", () => {
  it("defaults, and errors that name the field", () => {
    expect(validateGoogleCalendarSettings({})).toEqual({
      ok: true,
      value: { pageSize: 250, timeoutMs: 30000 },
    });
    expect(validateGoogleCalendarSettings({ pageSize: 2501 })).toMatchObject({
      ok: false,
      error: { field: "/pageSize" },
    });
    expect(validateGoogleCalendarSettings({ timeoutMs: -1 })).toMatchObject({
      ok: false,
      error: { field: "/timeoutMs" },
    });
    expect(validateGoogleCalendarSettings({ calendar: "x" })).toMatchObject({
      ok: false,
      error: { field: "/calendar" },
    });
    expect(validateGoogleCalendarSettings(null)).toMatchObject({ ok: false, error: { field: "" } });
    expect(() =>
      createGoogleCalendarConnector({ pageSize: 0 }, { accessToken: () => Promise.resolve("t") }),
    ).toThrow(/\/pageSize/);
  });

  it("is a calendar connector with sync, event writes and channels", () => {
    const c = createGoogleCalendarConnector({}, { accessToken: () => Promise.resolve("t") });
    expect(c.kind).toBe("calendar");
    expect(c.platform).toEqual({ vendor: "google-calendar", api_version: "v3" });
    expect(typeof c.calendar.sync).toBe("function");
    expect(typeof c.events.create).toBe("function");
    expect(typeof c.channels.watch).toBe("function");
  });
});
