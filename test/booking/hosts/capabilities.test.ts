/** A host is checked at start for the connector capabilities its kind needs (src/connectors/port.ts). */
import { describe, expect, it } from "vitest";
import { checkCapabilities, missingCapabilities } from "../../../src/booking/hosts/capabilities.js";
import { buildHostRuntime } from "../../../src/booking/hosts/index.js";
import type { Connector } from "../../../src/connectors/port.js";
import { FakeConnector, hostConfig, hostKey, mapleCatalog } from "../holds/support.js";

const identity = { vendor: "acme", api_version: "v1" };
const unused = (): never => {
  throw new Error("no upstream call expected");
};
/** Capabilities as stand-ins: the check only looks at which are present. */
const stub = <T>(): T => ({}) as T;

describe("missingCapabilities", () => {
  it("a platform host needs catalog, slots and bookings; verification is optional", () => {
    const full: Connector = {
      platform: identity,
      kind: "platform",
      catalog: stub(),
      slots: stub(),
      bookings: stub(),
    };
    expect(missingCapabilities(full, false)).toEqual([]);
    expect(missingCapabilities({ platform: identity, kind: "platform", catalog: stub() }, true)).toEqual([
      "slots",
      "bookings",
    ]);
  });

  it("a calendar host needs calendar sync and event writes, and a catalog unless it configures services", () => {
    const calendar: Connector = { platform: identity, kind: "calendar", calendar: stub(), events: stub() };
    expect(missingCapabilities(calendar, true)).toEqual([]);
    expect(missingCapabilities(calendar, false)).toEqual(["catalog"]);
    expect(missingCapabilities({ platform: identity, kind: "calendar" }, true)).toEqual([
      "calendar",
      "events",
    ]);
  });
});

describe("checkCapabilities: a clear refusal at /connector", () => {
  it("names what is missing, what the connector has and what the host needs", () => {
    const r = checkCapabilities("maple", { platform: identity, kind: "platform", catalog: stub() }, false);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("missing_capability");
    expect(r.error.field).toBe("/connector");
    expect(r.error.message).toBe(
      "host maple: /connector: the acme platform connector lacks slots, bookings (it has catalog); " +
        "a platform host needs catalog, slots and bookings",
    );
  });

  it("a complete calendar connector is refused until the booking core drives calendar hosts", () => {
    const r = checkCapabilities(
      "maple",
      { platform: identity, kind: "calendar", calendar: stub(), events: stub(), catalog: stub() },
      false,
    );
    expect(r.ok ? undefined : r.error.code).toBe("unsupported_connector_kind");
  });
});

describe("buildHostRuntime checks capabilities before any upstream call", () => {
  it("a platform connector without bookings: missing_capability, the catalog never read", async () => {
    const fake = new FakeConnector(mapleCatalog());
    const lacking: Connector = {
      platform: fake.platform,
      kind: "platform",
      catalog: { read: unused },
      slots: fake.slots,
    };
    const r = await buildHostRuntime(hostConfig(), lacking, [hostKey()]);
    expect(r.ok ? undefined : { code: r.error.code, field: r.error.field }).toEqual({
      code: "missing_capability",
      field: "/connector",
    });
  });

  it("a connector with the platform capabilities builds", async () => {
    expect((await buildHostRuntime(hostConfig(), new FakeConnector(mapleCatalog()), [hostKey()])).ok).toBe(
      true,
    );
  });
});
