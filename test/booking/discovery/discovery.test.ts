import { describe, expect, it } from "vitest";
import { hostDiscoveryDocument, operatorDocument } from "../../../src/edges/schcp/discovery/index.js";
import { buildHostRuntime, embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import type { HostRuntime } from "../../../src/booking/api.js";
import { createSyntheticConnector, SYNTHETIC_SCENARIOS } from "../../../src/connectors/synthetic/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { hostConfig, hostKey, mapleCatalog, NOW, principal, principalOf, runtime } from "../holds/support.js";

const ORIGIN = "https://gateway.example";

async function embedded(): Promise<HostRuntime[]> {
  const out: HostRuntime[] = [];
  for (const config of embeddedDefaultHosts()) {
    const scenario = SYNTHETIC_SCENARIOS[config.id];
    if (scenario === undefined) throw new Error(config.id);
    const r = await buildHostRuntime(
      config,
      createSyntheticConnector({ scenario, clock: { now: () => NOW } }),
      [hostKey(`${config.id}-2026-10`)],
    );
    if (!r.ok) throw new Error(r.error.message);
    out.push(r.value);
  }
  return out;
}

function expectValid(name: "DiscoveryDocument" | "OperatorDocument", doc: unknown) {
  const r = validateSchcp(name, doc);
  expect(r.ok, r.ok ? "" : JSON.stringify(r.error)).toBe(true);
}

describe("hostDiscoveryDocument (SchCP §2.1)", () => {
  it("each embedded host's document validates against the DiscoveryDocument schema", async () => {
    for (const host of await embedded()) {
      const doc = hostDiscoveryDocument(host, {
        publicOrigin: `${ORIGIN}/`,
        operatorName: "Booking Gateway",
      });
      expectValid("DiscoveryDocument", doc);
      expect(doc.schcp).toBe("0.4");
      expect(doc.endpoint).toBe(`${ORIGIN}/schcp/v0/${host.config.id}`);
      // §2.2 rule 2: the gateway names itself; the operator document lists the host back.
      expect(doc.operator).toEqual({ domain: "gateway.example", name: "Booking Gateway" });
      expect(doc.keys).toEqual([
        { ...host.keys[0]?.publicJwk, kid: `${host.config.id}-2026-10`, use: "sig" },
      ]);
      // §3.4: only a host configured with sd_jwt_mandates lists dc+sd-jwt (maple-street-auto).
      expect(doc.auth).toEqual({
        request_signing: "rfc9421-ed25519",
        mandates:
          host.config.id === "maple-street-auto" ? ["schcp-mandate+jwt", "dc+sd-jwt"] : ["schcp-mandate+jwt"],
      });
      expect(doc.policies.retention).toBe("P365D");
      expect(doc.policies.holds).toEqual({
        max_ttl: "PT10M",
        max_active_per_agent: 3,
        requires_mandate: true,
        max_active_unproven: 8,
        max_active_per_attester: 8,
      });
      expect(doc.capabilities).toEqual(
        expect.arrayContaining([
          "availability",
          "holds",
          "bookings",
          "cancel",
          "change_offers",
          "all_in_totals",
        ]),
      );
    }
  });

  it("publishes the embedded services as the catalog and rules state them", async () => {
    const [maple, dental, fades] = await embedded();
    const m = hostDiscoveryDocument(maple as HostRuntime, { publicOrigin: ORIGIN });
    expect(m.services.find((s) => s.id === "oil-change")).toEqual({
      id: "oil-change",
      name: "Oil change",
      duration: "PT45M",
      buffer_after: "PT15M",
      price: { amount: "79.00", currency: "CAD" },
      requires: [{ resource_type: "bay" }, { resource_type: "technician" }],
    });
    expect(m.host).toMatchObject({
      id: "maple-street-auto",
      kind: "business",
      timezone: "America/Toronto",
      phone: "+1-416-555-0177",
    });
    expect(m.taxes).toEqual([{ label: "HST", percent: 13 }]);
    const d = hostDiscoveryDocument(dental as HostRuntime, { publicOrigin: ORIGIN });
    expect(d.policies.confirmation).toBe("host_approval");
    expect(d.services[0]).toMatchObject({
      name: "Cleaning and check-up",
      duration: "PT1H",
      tax_exempt: true,
    });
    const f = hostDiscoveryDocument(fades as HostRuntime, { publicOrigin: ORIGIN });
    const consultation = f.services.find((s) => s.id === "consultation");
    expect(consultation?.price).toBeUndefined();
    expect(consultation?.selectable).toBe(true);
    expect(consultation?.requires).toEqual([
      {
        resource_type: "barber",
        selectable: true,
        resources: [
          { id: "barber-marcus", name: "Marcus" },
          { id: "barber-jordan", name: "Jordan" },
        ],
      },
    ]);
  });

  it("publishes every rule that can refuse, and never the contact list (§2.1, §7.8)", () => {
    const contact = principalOf(principal);
    const host = runtime(
      hostConfig(
        { domain: "maplestreetauto.example", url: "https://maplestreetauto.example" },
        {
          access: "contacts",
          contacts: [contact],
          service_area: { country: "CA", postal_prefixes: ["M5"] },
          walk_in_reserve: [{ resource_type: "bay", keep: 1, days: [6, 7] }],
          closed_mandate: "always",
        },
        [
          {
            service_id: "oil-change",
            booking_window: { min_notice: "PT2H", max_advance: "P60D" },
            party_size: { min: 1, max: 2 },
            eligibility: { guest: "returning" },
            surcharges: [{ when: "after_hours", label: "Evening", percent: 12.5, after: "18:00" }],
          },
          { service_id: "brake-inspection", booking_window: { opens: { days_ahead: 30, at: "10:00" } } },
          { service_id: "mobile-tire-swap", location: "guest" },
        ],
      ),
      mapleCatalog(),
    );
    const doc = hostDiscoveryDocument(host, { publicOrigin: ORIGIN });
    expectValid("DiscoveryDocument", doc);
    expect(JSON.stringify(doc)).not.toContain(contact);
    expect(doc.policies).toMatchObject({
      access: "contacts",
      closed_mandate: "always",
      service_area: { country: "CA", postal_prefixes: ["M5"] },
      walk_in_reserve: [{ resource_type: "bay", keep: 1, days: ["sat", "sun"] }],
    });
    const oil = doc.services.find((s) => s.id === "oil-change");
    expect(oil).toMatchObject({
      booking_window: { min_notice: "PT2H", max_advance: "P60D" },
      party_size: { min: 1, max: 2 },
      eligibility: { guest: "returning" },
      surcharges: [{ when: "after_hours", label: "Evening", percent: 12.5, after: "18:00" }],
    });
    expect(doc.services.find((s) => s.id === "brake-inspection")?.booking_window).toEqual({
      opens: { days_ahead: 30, at: "10:00" },
    });
    expect(doc.services.find((s) => s.id === "mobile-tire-swap")?.location).toBe("guest");
    // §4.2: an open-ended service, and the open_end capability.
    expect(doc.services.find((s) => s.id === "diagnosis")).toMatchObject({
      duration: "open",
      set_aside: "until_close",
    });
    expect(doc.capabilities).toContain("open_end");
    expect(doc.host.url).toBe("https://maplestreetauto.example");
  });
});

describe("operatorDocument (SchCP §2.3)", () => {
  it("lists every host with its discovery URL and host_domain, and validates", async () => {
    const hosts = await embedded();
    const doc = operatorDocument(hosts, { publicOrigin: ORIGIN, operatorName: "Booking Gateway" });
    expectValid("OperatorDocument", doc);
    expect(doc).toEqual({
      schcp: "0.4",
      operator: { name: "Booking Gateway", domain: "gateway.example" },
      hosts: hosts.map((h) => ({
        id: h.config.id,
        discovery: `${ORIGIN}/hosts/${h.config.id}/scheduling.json`,
        host_domain: null,
      })),
    });
  });

  it("a host with its own domain says so", () => {
    const doc = operatorDocument([hostConfig({ domain: "maplestreetauto.example" })], {
      publicOrigin: ORIGIN,
      operatorName: "Booking Gateway",
    });
    expect(doc.hosts[0]?.host_domain).toBe("maplestreetauto.example");
    expectValid("OperatorDocument", doc);
  });
});
