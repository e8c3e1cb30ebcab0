import { describe, expect, it } from "vitest";
import {
  DEFAULT_POLICIES,
  EMBEDDED_DEFAULT_CONFIG,
  embeddedDefaultHosts,
  parseHostsConfig,
} from "../../../src/booking/hosts/index.js";
import { principal, principalOf } from "../holds/support.js";

const host = (over: Record<string, unknown> = {}) => ({
  id: "maple-street-auto",
  name: "Maple Street Auto",
  timezone: "America/Toronto",
  connector: { type: "synthetic", settings: { scenario: "maple-street-auto" } },
  ...over,
});

/** Two hosts, the second edited, so errors must point at /hosts/1/... */
const config = (over: Record<string, unknown>) => ({ hosts: [host(), host({ id: "second", ...over })] });

function expectError(json: unknown, field: string, contains?: string) {
  const r = parseHostsConfig(json);
  expect(r.ok, "expected a config error").toBe(false);
  if (r.ok) return;
  expect(r.error.field).toBe(field);
  expect(r.error.message.startsWith(`${field || "the config"}: `), r.error.message).toBe(true);
  if (contains !== undefined) expect(r.error.message).toContain(contains);
}

describe("parseHostsConfig: a valid file", () => {
  it("fills every policy default", () => {
    const r = parseHostsConfig({ hosts: [host()] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [h] = r.value;
    expect(h?.kind).toBe("business");
    expect(h?.domain).toBeNull();
    expect(h?.services).toEqual([]);
    expect(h?.policies).toEqual(DEFAULT_POLICIES);
    expect(DEFAULT_POLICIES.holds).toEqual({
      maxTtlMs: 600_000,
      maxActivePerAgent: 3,
      requiresMandate: true,
      maxActiveUnproven: 8,
      maxActivePerAttester: 8,
    });
    expect(DEFAULT_POLICIES.retention).toBe("P365D");
    expect(DEFAULT_POLICIES.access).toBe("public");
    expect(DEFAULT_POLICIES.horizonMs).toBe(31 * 86_400_000);
  });

  it("reads the optional location: a one-line address and coordinates", () => {
    const location = { address: "120 Maple Street, Toronto", latitude: 43.6446, longitude: -79.3957 };
    const r = parseHostsConfig({ hosts: [host({ location })] });
    expect(r.ok && r.value[0]?.location).toEqual(location);
    const bare = parseHostsConfig({ hosts: [host()] });
    expect(bare.ok && bare.value[0]).not.toHaveProperty("location");
  });

  it("reads durations, money, percentages and rules into the core's shapes", () => {
    const contact = principalOf(principal);
    const r = parseHostsConfig({
      hosts: [
        host({
          domain: "maplestreetauto.example",
          contact: { phone: "+1-416-555-0177" },
          policies: {
            holds: { max_ttl: "PT5M", max_active_per_agent: 2, requires_mandate: false },
            confirmation: "host_approval",
            closed_mandate: "always",
            retention: "P52W",
            access: "contacts",
            contacts: [contact],
            service_area: { country: "CA", postal_prefixes: ["M5"] },
            walk_in_reserve: [{ resource_type: "bay", keep: 1, days: [6] }],
            approval_timeout: "PT1H",
            horizon: "P14D",
          },
          services: [
            {
              service_id: "oil-change",
              booking_window: { min_notice: "PT2H", max_advance: "P60D" },
              party_size: { min: 1, max: 2 },
              location: "guest",
              eligibility: { guest: "returning" },
              surcharges: [
                { when: "weekend", label: "Weekend", amount: { amount: "10", currency: "CAD" } },
                { when: "after_hours", label: "Evening", percent: 12.5, after: "18:00" },
                { when: "same_day", label: "Same day", percent: "5" },
              ],
              selectable: true,
            },
            { service_id: "brake-inspection", booking_window: { opens: { days_ahead: 30, at: "10:00" } } },
          ],
        }),
      ],
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    const [h] = r.value;
    expect(h?.domain).toBe("maplestreetauto.example");
    expect(h?.policies).toMatchObject({
      holds: { maxTtlMs: 300_000, maxActivePerAgent: 2, requiresMandate: false, maxActiveUnproven: 8 },
      confirmation: "host_approval",
      closedMandate: "always",
      retention: "P52W",
      access: "contacts",
      contacts: [contact],
      serviceArea: { country: "CA", postalPrefixes: ["M5"] },
      walkInReserve: [{ resourceType: "bay", keep: 1, days: [6] }],
      approvalTimeoutMs: 3_600_000,
      horizonMs: 14 * 86_400_000,
    });
    expect(h?.services[0]).toEqual({
      serviceId: "oil-change",
      minNoticeMs: 7_200_000,
      maxAdvanceMs: 60 * 86_400_000,
      partySize: { min: 1, max: 2 },
      location: "guest",
      eligibility: "returning",
      surcharges: [
        { when: "weekend", label: "Weekend", amount: { minor: 1000, currency: "CAD" } },
        { when: "after_hours", label: "Evening", percent: "12.5", after: "18:00" },
        { when: "same_day", label: "Same day", percent: "5" },
      ],
      selectable: true,
    });
    expect(h?.services[1]).toEqual({ serviceId: "brake-inspection", opens: { daysAhead: 30, at: "10:00" } });
  });
});

describe("parseHostsConfig: errors name the bad field (never throw)", () => {
  it.each([
    [
      "a duration that is not one",
      { policies: { holds: { max_ttl: "10m" } } },
      "/hosts/1/policies/holds/max_ttl",
      "not a duration",
    ],
    [
      "a zero TTL",
      { policies: { holds: { max_ttl: "PT0S" } } },
      "/hosts/1/policies/holds/max_ttl",
      "longer than zero",
    ],
    [
      "a negative cap",
      { policies: { holds: { max_active_per_agent: -1 } } },
      "/hosts/1/policies/holds/max_active_per_agent",
      undefined,
    ],
    [
      "a misspelt setting",
      { policies: { holds: { max_tll: "PT5M" } } },
      "/hosts/1/policies/holds/max_tll",
      "unknown setting; did you mean `max_ttl`?",
    ],
    [
      "a setting in the wrong case",
      { timeZone: "America/Toronto" },
      "/hosts/1/timeZone",
      "/hosts/1/timeZone: unknown setting; did you mean `timezone`?",
    ],
    [
      "an unknown confirmation",
      { policies: { confirmation: "maybe" } },
      "/hosts/1/policies/confirmation",
      "one of",
    ],
    [
      "a retention with hours",
      { policies: { retention: "PT1H" } },
      "/hosts/1/policies/retention",
      "weeks or days",
    ],
    [
      "a contact that is not a principal",
      { policies: { contacts: ["sam"] } },
      "/hosts/1/policies/contacts/0",
      "principal",
    ],
    ["a bad time zone", { timezone: "Mars/Olympus" }, "/hosts/1/timezone", "IANA"],
    ["an id unfit for a URL", { id: "Maple Street" }, "/hosts/1/id", "URLs"],
    ["a domain that is not a hostname", { domain: "https://x.example/" }, "/hosts/1/domain", undefined],
    ["no connector", { connector: undefined }, "/hosts/1/connector", "required"],
    [
      "money with too many decimals",
      {
        services: [
          {
            service_id: "s",
            surcharges: [{ when: "weekend", label: "W", amount: { amount: "1.001", currency: "CAD" } }],
          },
        ],
      },
      "/hosts/1/services/0/surcharges/0/amount/amount",
      undefined,
    ],
    [
      "a surcharge with both",
      {
        services: [
          {
            service_id: "s",
            surcharges: [
              { when: "weekend", label: "W", percent: 5, amount: { amount: "1", currency: "CAD" } },
            ],
          },
        ],
      },
      "/hosts/1/services/0/surcharges/0",
      "exactly one",
    ],
    [
      "a negative percent",
      { services: [{ service_id: "s", surcharges: [{ when: "weekend", label: "W", percent: -5 }] }] },
      "/hosts/1/services/0/surcharges/0/percent",
      undefined,
    ],
    [
      "after on a weekend surcharge",
      {
        services: [
          { service_id: "s", surcharges: [{ when: "weekend", label: "W", percent: 5, after: "18:00" }] },
        ],
      },
      "/hosts/1/services/0/surcharges/0/after",
      "after_hours",
    ],
    [
      "a bad HH:MM",
      { services: [{ service_id: "s", booking_window: { opens: { days_ahead: 1, at: "25:00" } } }] },
      "/hosts/1/services/0/booking_window/opens/at",
      "HH:MM",
    ],
    [
      "opens beside max_advance",
      {
        services: [
          { service_id: "s", booking_window: { max_advance: "P7D", opens: { days_ahead: 1, at: "10:00" } } },
        ],
      },
      "/hosts/1/services/0/booking_window/max_advance",
      "replaces",
    ],
    [
      "party min above max",
      { services: [{ service_id: "s", party_size: { min: 3, max: 2 } }] },
      "/hosts/1/services/0/party_size/min",
      undefined,
    ],
    [
      "rules for one service twice",
      { services: [{ service_id: "s" }, { service_id: "s" }] },
      "/hosts/1/services/1/service_id",
      "twice",
    ],
    [
      "a latitude without a longitude",
      { location: { latitude: 43.6 } },
      "/hosts/1/location/longitude",
      undefined,
    ],
    [
      "a latitude past the pole",
      { location: { latitude: 91, longitude: 0 } },
      "/hosts/1/location/latitude",
      undefined,
    ],
    ["an empty location", { location: {} }, "/hosts/1/location", undefined],
    [
      "a walk-in reserve on day 8",
      { policies: { walk_in_reserve: [{ resource_type: "bay", keep: 1, days: [8] }] } },
      "/hosts/1/policies/walk_in_reserve/0/days/0",
      undefined,
    ],
  ])("%s", (_, over, field, contains) => {
    expectError(config(over), field, contains);
  });

  it("duplicate host ids", () => expectError({ hosts: [host(), host()] }, "/hosts/1/id", "twice"));
  it("not an object, or no hosts", () => {
    expectError(42, "", undefined);
    expectError({}, "/hosts", "required");
    expectError({ hosts: [], extra: 1 }, "/extra", "unknown setting (the settings here: hosts)");
  });
});

describe("the embedded default", () => {
  const hosts = embeddedDefaultHosts();
  it("has the three hosts, each on its synthetic scenario", () => {
    expect(hosts.map((h) => [h.id, h.name, h.timezone, h.policies.confirmation])).toEqual([
      ["maple-street-auto", "Maple Street Auto", "America/Toronto", "instant"],
      ["harbourview-dental", "Harbourview Dental", "America/Vancouver", "host_approval"],
      ["fades-on-queen", "Fades on Queen", "America/Toronto", "instant"],
    ]);
    for (const h of hosts) {
      expect(h.connector).toEqual({ type: "synthetic", settings: { scenario: h.id } });
      expect(h.domain).toBeNull();
      expect(h.policies.retention).toBe("P365D");
      expect(h.policies.holds).toEqual(DEFAULT_POLICIES.holds);
      expect(h.policies.access).toBe("public");
      expect(h.policies.horizonMs).toBe(31 * 86_400_000);
    }
    expect(hosts[1]?.policies.closedMandate).toBe("never");
    expect(hosts[2]?.services.every((s) => s.selectable === true)).toBe(true);
  });
  it("is written in the config file format", () => {
    expect(parseHostsConfig(JSON.parse(JSON.stringify(EMBEDDED_DEFAULT_CONFIG)))).toEqual({
      ok: true,
      value: hosts,
    });
  });
});

describe("parseHostsConfig: a person's owner (SchCP §7.7)", () => {
  const owner = principalOf(principal);

  it("reads a person host's owner and exposes it on HostConfig", () => {
    const r = parseHostsConfig({ hosts: [host({ kind: "person", owner })] });
    expect(r.ok && r.value[0]?.owner).toBe(owner);
    const business = parseHostsConfig({ hosts: [host()] });
    expect(business.ok && business.value[0]).not.toHaveProperty("owner");
  });

  it("requires an owner for kind person", () =>
    expectError(config({ kind: "person" }), "/hosts/1/owner", "owner"));

  it("refuses an owner that is not a principal id", () =>
    expectError(config({ kind: "person", owner: "priya" }), "/hosts/1/owner", "urn:schcp:principal"));

  it("refuses an owner on a business", () => {
    expectError(config({ owner }), "/hosts/1/owner", "person");
    expectError(config({ kind: "business", owner }), "/hosts/1/owner", "person");
  });
});
