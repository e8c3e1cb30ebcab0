import { describe, expect, it } from "vitest";
import {
  createMicrosoftCalendarConnector,
  validateMicrosoftCalendarSettings,
} from "../../../src/connectors/microsoft/index.js";

describe("Microsoft settings", () => {
  it("defaults, and errors that name the field", () => {
    expect(validateMicrosoftCalendarSettings({})).toEqual({
      ok: true,
      value: { user: "me", baseUrl: "https://graph.microsoft.com/v1.0", timeoutMs: 30000 },
    });
    expect(validateMicrosoftCalendarSettings({ baseUrl: "https://graph.microsoft.com/beta" })).toMatchObject({
      ok: false,
      error: { field: "/baseUrl" },
    });
    expect(validateMicrosoftCalendarSettings({ user: "a/b" })).toMatchObject({
      ok: false,
      error: { field: "/user" },
    });
    expect(validateMicrosoftCalendarSettings({ pageSize: 0 })).toMatchObject({
      ok: false,
      error: { field: "/pageSize" },
    });
    expect(validateMicrosoftCalendarSettings({ tenant: "x" })).toMatchObject({
      ok: false,
      error: { field: "/tenant" },
    });
    expect(() =>
      createMicrosoftCalendarConnector({ timeoutMs: 0 }, { accessToken: () => Promise.resolve("t") }),
    ).toThrow(/\/timeoutMs/);
  });

  it("is a calendar connector with sync, event writes and subscriptions", () => {
    const c = createMicrosoftCalendarConnector({}, { accessToken: () => Promise.resolve("t") });
    expect(c.kind).toBe("calendar");
    expect(c.platform).toEqual({ vendor: "microsoft-graph", api_version: "v1.0" });
    expect(typeof c.calendar.sync).toBe("function");
    expect(typeof c.events.update).toBe("function");
    expect(typeof c.subscriptions.create).toBe("function");
  });
});
