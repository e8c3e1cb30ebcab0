/**
 * The embedded default end to end through the core, on the synthetic connector: discovery
 * keys verify every offer, and the three hosts behave as the embedded default describes them (taxed instant host,
 * tax-exempt host_approval host, unpriced and selectable barber shop).
 */
import { describe, expect, it } from "vitest";
import { availability } from "../../../src/edges/schcp/availability.js";
import type { HostRuntime } from "../../../src/booking/api.js";
import { hostDiscoveryDocument } from "../../../src/edges/schcp/discovery/index.js";
import { getHold } from "../../../src/edges/schcp/holds.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { buildHostRuntime, embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import { createSyntheticConnector, SYNTHETIC_SCENARIOS } from "../../../src/connectors/synthetic/index.js";
import { verifyOffer } from "../../../src/protocol/schcp/offer/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { caller, deps, hostKey, mandate, NOW, agent, thumb, valueOf } from "./support.js";

async function embedded(): Promise<HostRuntime[]> {
  const out: HostRuntime[] = [];
  for (const config of embeddedDefaultHosts()) {
    const scenario = SYNTHETIC_SCENARIOS[config.id];
    if (scenario === undefined) throw new Error(config.id);
    const connector = createSyntheticConnector({ scenario, clock: { now: () => NOW } });
    const built = await buildHostRuntime(config, connector, [hostKey(`${config.id}-2026-10`)]);
    if (!built.ok) throw new Error(built.error.message);
    out.push(built.value);
  }
  return out;
}

async function offerOf(host: HostRuntime, compact: string) {
  const keys = hostDiscoveryDocument(host, { publicOrigin: "https://gw.example" }).keys;
  const verified = await verifyOffer(compact, keys, { expectedIss: host.config.id });
  if (!verified.ok) throw new Error(verified.error.message);
  return verified.value.claims;
}

describe("the embedded default through the core (synthetic connector)", () => {
  it("maple-street-auto: 89.27 all in, held and re-read with the same bytes", async () => {
    const hosts = await embedded();
    const d = deps(hosts);
    const maple = hosts[0] as HostRuntime;
    const slots = valueOf(
      await availability(
        d,
        "maple-street-auto",
        { agentKey: thumb(agent) },
        {
          service_id: "oil-change",
          window: { start: "2026-10-15T12:00:00-04:00", end: "2026-10-15T14:00:00-04:00" },
        },
      ),
    );
    expect(slots.slots[0]).toEqual({
      start: "2026-10-15T12:00:00-04:00",
      end: "2026-10-15T12:45:00-04:00",
      price: { amount: "79.00", currency: "CAD" },
      total: { amount: "89.27", currency: "CAD" },
    });
    const who = await caller();
    const held = valueOf(
      await placeHold(d, "maple-street-auto", who, {
        service_id: "oil-change",
        start: "2026-10-15T13:00:00-04:00",
        idempotency_key: "k",
      }),
    );
    expect(validateSchcp("Hold", held).ok).toBe(true);
    expect((await offerOf(maple, held.offer)).total).toEqual({ amount: "89.27", currency: "CAD" });
    expect(valueOf(await getHold(d, "maple-street-auto", who, held.hold_id)).offer).toBe(held.offer);
  });

  it("harbourview-dental: tax exempt, approval_by stated (host_approval)", async () => {
    const hosts = await embedded();
    const d = deps(hosts);
    const who = {
      agentKey: thumb(agent),
      mandate: await mandate({}, undefined, undefined, NOW, "harbourview-dental"),
    };
    const held = valueOf(
      await placeHold(d, "harbourview-dental", who, {
        service_id: "cleaning",
        start: "2026-10-15T08:00:00-07:00",
        idempotency_key: "k",
      }),
    );
    const claims = await offerOf(hosts[1] as HostRuntime, held.offer);
    expect(claims.lines).toEqual([
      { kind: "service", label: "Cleaning and check-up", amount: { amount: "180.00", currency: "CAD" } },
    ]);
    expect(claims.total).toEqual({ amount: "180.00", currency: "CAD" });
    expect(claims.approval_by).toBe("2026-10-13T23:10:00Z");
    expect(claims.host).toMatchObject({ name: "Harbourview Dental", tz: "America/Vancouver" });
  });

  it("fades-on-queen: an unpriced consultation carries no money; a barber can be chosen", async () => {
    const hosts = await embedded();
    const d = deps(hosts);
    const who = {
      agentKey: thumb(agent),
      mandate: await mandate({}, undefined, undefined, NOW, "fades-on-queen"),
    };
    const held = valueOf(
      await placeHold(d, "fades-on-queen", who, {
        service_id: "consultation",
        start: "2026-10-15T11:00:00-04:00",
        idempotency_key: "k",
        resource: "barber-marcus",
      }),
    );
    expect(held.price).toBeUndefined();
    expect(held).toMatchObject({ resource: "barber-marcus", resource_name: "Marcus" });
    const claims = await offerOf(hosts[2] as HostRuntime, held.offer);
    expect(claims.price).toBeUndefined();
    expect(claims.total).toBeUndefined();
    expect(claims.lines).toBeUndefined();
    expect(claims.resource_name).toBe("Marcus");
    // Marcus is now held 11:00–11:30; choosing him again at 11:00 is refused, Jordan is free.
    const again = await placeHold(
      d,
      "fades-on-queen",
      { ...who, mandate: await mandate({ jti: "m-2" }, undefined, undefined, NOW, "fades-on-queen") },
      {
        service_id: "haircut",
        start: "2026-10-15T11:00:00-04:00",
        idempotency_key: "k2",
        resource: "barber-marcus",
      },
    );
    expect(again.ok ? "held" : again.error.reason).toBe("slot_taken");
  });
});
