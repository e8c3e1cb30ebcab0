/** A business's zone → its country's currency and phone example (setup/zone-locale.ts). */
import { describe, expect, it } from "vitest";
import { zoneLocale } from "../../../../src/edges/console/setup/zone-locale.js";
import { isValidTimeZone } from "../../../../src/protocol/time/index.js";
import { readSetupForm } from "../../../../src/edges/console/setup/setup-form.js";

describe("zone locale", () => {
  it("a Toronto business gets CAD and a +1 number; Madrid EUR and +34; London GBP and +44", () => {
    expect(zoneLocale("America/Toronto")).toEqual({
      country: "CA",
      currency: "CAD",
      phoneExample: "+1 416 555 0142",
    });
    expect(zoneLocale("Europe/Madrid")).toMatchObject({ country: "ES", currency: "EUR" });
    expect(zoneLocale("Europe/Madrid")?.phoneExample).toMatch(/^\+34 /);
    expect(zoneLocale("Europe/London")).toMatchObject({ country: "GB", currency: "GBP" });
    expect(zoneLocale("America/New_York")).toMatchObject({ country: "US", currency: "USD" });
  });

  it("a zone it does not know, or none, suggests nothing rather than another country's", () => {
    expect(zoneLocale("Antarctica/Troll")).toBeUndefined();
    expect(zoneLocale("UTC")).toBeUndefined();
    expect(zoneLocale(undefined)).toBeUndefined();
  });

  it("every zone listed is a real IANA zone, and every example is a number the form accepts", () => {
    const zones = Intl.supportedValuesOf("timeZone");
    const listed = zones.filter((z) => zoneLocale(z) !== undefined);
    // Node's own list holds the common zones the table names (a few dozen of them at least).
    expect(listed.length).toBeGreaterThan(50);
    for (const z of listed) {
      expect(isValidTimeZone(z)).toBe(true);
      const { currency, phoneExample } = zoneLocale(z)!;
      expect(currency).toMatch(/^[A-Z]{3}$/);
      // As typed into the form, spaces and all, the number is read in the config's form.
      const read = readSetupForm(new URLSearchParams({ approver_phone: phoneExample }));
      expect(read.approverPhone).toMatch(/^\+[1-9][0-9]{6,14}$/);
    }
  });
});
