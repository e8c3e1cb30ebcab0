import { describe, expect, it } from "vitest";
import { parseCalendarSection } from "../../../src/booking/calendar/config.js";

const base = {
  capacity: { resource_type: "chair", units: 2 },
  hours: [{ day: 1, open: "09:00", close: "17:00" }],
  services: [
    {
      id: "cut",
      name: "Haircut",
      duration: "PT45M",
      buffer_after: "PT15M",
      price: { amount: "25.00", currency: "EUR" },
    },
  ],
  approver: { email: "ana@example.com" },
};
const at = "/hosts/3/calendar";

describe("a calendar host's calendar section", () => {
  it("reads capacity, hours, services, defaults", () => {
    const r = parseCalendarSection(base, at);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.units.ids).toEqual(["chair-1", "chair-2"]);
    expect(r.value.services[0]).toMatchObject({
      id: "cut",
      duration: 45 * 60_000,
      bufferAfterMs: 15 * 60_000,
      price: { minor: 2500, currency: "EUR" },
      requires: [{ resourceType: "chair" }],
    });
    expect(r.value.granularityMs).toBe(15 * 60_000);
    expect(r.value.syncEveryMs).toBe(5 * 60_000);
  });

  it('"me" is one person', () => {
    const r = parseCalendarSection({ ...base, capacity: "me" }, at);
    expect(r.ok && r.value.units).toEqual({ resourceType: "person", ids: ["person-1"] });
  });

  it.each([
    [{ ...base, capacity: { resource_type: "chair", units: 0 } }, "/hosts/3/calendar/capacity/units"],
    [{ ...base, hours: [] }, "/hosts/3/calendar/hours"],
    [{ ...base, services: [] }, "/hosts/3/calendar/services"],
    [
      { ...base, services: [{ ...base.services[0], duration: "45 minutes" }] },
      "/hosts/3/calendar/services/0/duration",
    ],
    [{ ...base, approver: {} }, "/hosts/3/calendar/approver"],
    [{ ...base, approver: { phone: "600 000 000" } }, "/hosts/3/calendar/approver/phone"],
    [{ ...base, calendars: [{ id: "a", resource: "bay-9" }] }, "/hosts/3/calendar/calendars/0/resource"],
    [{ ...base, calendars: [{ id: "a" }], write_calendar: "b" }, "/hosts/3/calendar/write_calendar"],
    [{ ...base, colour: "red" }, "/hosts/3/calendar/colour"],
  ])("refuses a bad value naming its field (%#)", (value, field) => {
    const r = parseCalendarSection(value, at);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe(field);
      expect(r.error.message.startsWith(field)).toBe(true);
    }
  });
});

describe("push_url (calendar push)", () => {
  it("is optional; given, it is an https base URL kept without its trailing slash", () => {
    const none = parseCalendarSection(base, at);
    expect(none.ok && none.value.pushUrl).toBe(undefined);
    const r = parseCalendarSection({ ...base, push_url: "https://gw.example/base/" }, at);
    expect(r.ok && r.value.pushUrl).toBe("https://gw.example/base");
  });

  it.each([
    "http://gw.example",
    "https://gw.example/?a=1",
    "https://gw.example/#x",
    "https://u:p@gw.example",
    3,
    "",
  ])("refuses %s, naming the field", (push_url) => {
    const r = parseCalendarSection({ ...base, push_url }, at);
    expect(!r.ok && r.error.field).toBe(`${at}/push_url`);
  });
});
