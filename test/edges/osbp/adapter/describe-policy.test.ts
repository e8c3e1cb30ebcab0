/** OSBP "service.describe" and "policy.explain" through the generic adapter over the synthetic platform. */
import { describe, expect, it } from "vitest";
import { harbourviewDental, mapleStreetAuto } from "../../../../src/connectors/synthetic/index.js";
import { STUDIO, YEN } from "./scenarios.js";
import { MAPLE, problemOf, rig, valueOf, withPayment } from "./support.js";

describe('OSBP "service.describe"', () => {
  it("describes a service: ISO 8601 duration, minor-unit price, requires_consultation", async () => {
    const { adapter } = rig();
    expect(valueOf(await adapter.describeService({ service_id: "oil-change" }))).toEqual({
      id: "oil-change",
      name: "Oil change",
      duration: "PT45M",
      // The all-in amount the business records: 79.00 and 13% HST (booking/pricing/all-in.ts).
      price: { amount_minor: 8927, currency: "CAD", type: "fixed" },
      requires_consultation: false,
    });
  });

  it("passes minor units through unscaled (JPY has no minor unit: 4500 stays 4500)", async () => {
    const { adapter } = rig({ scenario: YEN });
    expect(valueOf(await adapter.describeService({})).price).toEqual({
      amount_minor: 4500,
      currency: "JPY",
      type: "fixed",
    });
  });

  it("a non-fixed price carries no amount_minor; a consultation service says so", async () => {
    const { adapter } = rig({ scenario: STUDIO });
    expect(valueOf(await adapter.describeService({ service_id: "quote" }))).toEqual({
      id: "quote",
      name: "Bridal consultation",
      duration: "PT1H",
      price: { currency: "CAD", type: "quote_required" },
      requires_consultation: true,
    });
    expect(valueOf(await adapter.describeService({ service_id: "insured" })).price).toEqual({
      currency: "CAD",
      type: "insurance_dependent",
    });
  });

  it("service_id omitted: the configured default, else the catalog's only service", async () => {
    const withDefault = rig({ defaults: { serviceId: "brake-inspection" } });
    expect(valueOf(await withDefault.adapter.describeService({})).id).toBe("brake-inspection");
    const single = rig({ scenario: withPayment(harbourviewDental) });
    expect(valueOf(await single.adapter.describeService({})).id).toBe("cleaning");
  });

  it("service_id omitted with several services and no default: service_required says how to choose", async () => {
    const { adapter } = rig();
    const catalog = await adapter.listServices();
    const ids = catalog.ok ? catalog.value.map((s) => s.id) : [];
    expect(ids.length).toBeGreaterThan(1);
    for (const p of [
      problemOf(await adapter.describeService({}), "service_required"),
      problemOf(await adapter.findAvailability({ date: "2026-10-19" }), "service_required"),
    ]) {
      expect(p.retryable).toBe(false);
      // Every id, quoted, and the tool to call with one (OSBP v0.1.0 has no list tool).
      for (const id of ids) expect(p.message).toContain(JSON.stringify(id));
      expect(p.message).toContain("osbp_service_describe");
    }
  });

  it("listServices: every catalog service as service.describe reports it", async () => {
    const { adapter } = rig();
    const listed = valueOf(await adapter.listServices());
    for (const s of listed) expect(valueOf(await adapter.describeService({ service_id: s.id }))).toEqual(s);
  });

  it("an unknown service: service_not_found, not retryable", async () => {
    const { adapter } = rig();
    expect(
      problemOf(await adapter.describeService({ service_id: "tyre-swap" }), "service_not_found").retryable,
    ).toBe(false);
  });
});

describe('OSBP "policy.explain"', () => {
  it("the organization block, payment none, and no fees the platform did not report", async () => {
    const { adapter } = rig();
    const policy = valueOf(await adapter.explainPolicy({ service_id: "oil-change" }));
    expect(policy).toEqual({
      service_id: "oil-change",
      payment_requirement: "none",
      verification_method: "sms",
      organization: {
        id: "maple-street-auto",
        name: "Maple Street Auto",
        timezone: "America/Toronto",
        currency: "CAD",
        country: "CA",
      },
    });
    expect(policy).not.toHaveProperty("cancellation_fee");
    expect(policy).not.toHaveProperty("no_show_fee");
    expect(policy).not.toHaveProperty("deposit");
  });

  it("a platform that does not state a payment requirement reads as unknown (fail closed)", async () => {
    const silent = {
      ...mapleStreetAuto,
      services: mapleStreetAuto.services.map(({ payment: _payment, ...service }) => service),
    };
    const { adapter } = rig({ scenario: silent });
    expect(valueOf(await adapter.explainPolicy({ service_id: "oil-change" })).payment_requirement).toBe(
      "unknown",
    );
  });

  it("surfaces fees, cancellation terms and late grace exactly when the platform reports them", async () => {
    const { adapter } = rig({ scenario: STUDIO });
    expect(valueOf(await adapter.explainPolicy({ service_id: "fee-cut" }))).toEqual({
      service_id: "fee-cut",
      payment_requirement: "none",
      cancellation_enabled: true,
      cancellation_window: "PT6H",
      cancellation_note: "Cancel at least 6 hours before.",
      late_grace: "PT15M",
      cancellation_fee: { amount_minor: 2500, currency: "CAD", type: "fixed" },
      no_show_fee: { amount_minor: 5000, currency: "CAD", type: "fixed" },
      // The studio's catalog names no verification method.
      verification_method: "unknown",
      organization: {
        id: "policy-studio",
        name: "Policy Studio",
        timezone: "America/Toronto",
        currency: "CAD",
      },
    });
  });

  it("a deposit requirement carries its amount; cancellation disabled is reported as such", async () => {
    const { adapter } = rig({ scenario: STUDIO });
    const policy = valueOf(await adapter.explainPolicy({ service_id: "deposit-colour" }));
    expect(policy).toMatchObject({
      payment_requirement: "deposit",
      deposit: { amount_minor: 3000, currency: "CAD", type: "fixed" },
      cancellation_enabled: false,
    });
    expect(policy).not.toHaveProperty("cancellation_window");
  });

  it("a service the catalog does not know: service_not_found", async () => {
    const { adapter } = rig({ scenario: STUDIO });
    problemOf(await adapter.explainPolicy({ service_id: "nope" }), "service_not_found");
  });

  it("answers from the host's catalog (read as the host starts and refreshed by the gateway), never per call", async () => {
    const r = rig({ scenario: MAPLE });
    await r.adapter.describeService({ service_id: "oil-change" });
    await r.adapter.explainPolicy({ service_id: "oil-change" });
    r.clock.advance(61_000);
    await r.adapter.explainPolicy({ service_id: "oil-change" });
    expect(r.count("catalog")).toBe(0);
  });
});
