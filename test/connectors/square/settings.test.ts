/** Host configuration for `"type": "square"`: clear errors that name the field. */
import { describe, expect, it } from "vitest";
import {
  createSquareConnector,
  SquareSettingsError,
  validateSquareSettings,
} from "../../../src/connectors/square/index.js";

const good = {
  type: "square",
  environment: "production",
  locationId: "L7M2SEJXJ3TQE",
  version: "2026-08-20",
  accessToken: "EAAA-secret",
};

describe("validateSquareSettings", () => {
  it("accepts sandbox and production, a token from configuration or a provider", () => {
    expect(validateSquareSettings(good, false)).toEqual({
      ok: true,
      value: {
        environment: "production",
        locationId: "L7M2SEJXJ3TQE",
        version: "2026-08-20",
        accessToken: "EAAA-secret",
      },
    });
    const { accessToken: _, ...noToken } = good;
    expect(validateSquareSettings({ ...noToken, environment: "sandbox" }, true).ok).toBe(true);
  });

  const bad: Array<[string, unknown, boolean, string]> = [
    ["environment", { ...good, environment: "staging" }, false, "/hosts/0/connector/environment"],
    ["locationId", { ...good, locationId: "" }, false, "/hosts/0/connector/locationId"],
    ["version", { ...good, version: "latest" }, false, "/hosts/0/connector/version"],
    ["version date", { ...good, version: "2026-13-40" }, false, "/hosts/0/connector/version"],
    ["no token", { ...good, accessToken: undefined }, false, "/hosts/0/connector/accessToken"],
    ["two tokens", good, true, "/hosts/0/connector/accessToken"],
    ["timeout", { ...good, timeoutMs: 5 }, false, "/hosts/0/connector/timeoutMs"],
    ["unknown member", { ...good, accesToken: "x" }, false, "/hosts/0/connector/accesToken"],
  ];
  for (const [what, value, provider, field] of bad) {
    it(`refuses ${what}, naming ${field}`, () => {
      const r = validateSquareSettings(value, provider, "/hosts/0/connector");
      expect(r.ok ? undefined : r.error.field).toBe(field);
    });
  }

  it("never quotes the token in an error", () => {
    const r = validateSquareSettings({ ...good, accessToken: "   " }, false);
    expect(JSON.stringify(r)).not.toContain("EAAA");
    expect(() => createSquareConnector({ ...good, environment: "x" }, { clock: { now: () => 0 } })).toThrow(
      SquareSettingsError,
    );
    try {
      createSquareConnector({ ...good, version: "v2" }, { clock: { now: () => 0 } });
    } catch (e) {
      expect(String(e)).toContain("/version");
      expect(String(e)).not.toContain("EAAA-secret");
    }
  });
});

describe("Square paymentRequirement (OSBP fails closed without it)", () => {
  it("is carried when stated, refused when not one of the three", async () => {
    const { validateSquareSettings } = await import("../../../src/connectors/square/settings.js");
    const base = { environment: "sandbox", locationId: "L1", version: "2026-08-20", accessToken: "t" };
    const ok = validateSquareSettings({ ...base, paymentRequirement: "deposit" }, false);
    expect(ok.ok && ok.value.paymentRequirement).toBe("deposit");
    const bad = validateSquareSettings({ ...base, paymentRequirement: "sometimes" }, false);
    expect(!bad.ok && bad.error.field).toBe("/paymentRequirement");
  });
});
