/**
 * The host of the A2A spec's "Autonomous Agent Flow" (Padre buscando hora de kinesiologia para
 * su hijo esta semana): Clinica Demo on the Servicialo platform fake (fake-servicialo.ts, the
 * spec's own upstream), with the scenario's two 60-minute CLP services, behind a real gateway
 * on loopback whose clock stands on Monday 2026-03-30 in America/Santiago, so "esta semana"
 * is the spec's week and Wednesday 10:00 local is 2026-04-01T13:00:00.000Z.
 *
 * A synthetic-connector host cannot carry custom services (its scenarios are a fixed registry,
 * src/connectors/synthetic/scenarios.ts), hence the platform fake with a servicialo host.
 */
import {
  FakeServicialoServer,
  SERVICIALO_API_KEY,
  SERVICIALO_ORG,
  SERVICIALO_PROVIDERS,
  SERVICIALO_SERVICE,
  SERVICIALO_TZ,
} from "./fake-servicialo.js";
import { defaultConfig, startGateway, type E2eGateway } from "./gateway.js";

/** The gateway's host id is the A2A orgSlug; it matches the platform's organization. */
export const CLINIC = SERVICIALO_ORG;
export const OTHER_HOST = "maple-street-auto";
/** The platform fake gives one-hour slots to this id; the scenario books this service. */
export const MSK_ID = SERVICIALO_SERVICE;
export const PELVIC_ID = "cmiofy9re007fus0wn9g1t3h3";
export const PROVIDER = SERVICIALO_PROVIDERS[0]!;
/** Monday 2026-03-30 08:00 in Santiago (UTC-3 until 2026-04-05): the spec's "this week". */
export const SCENARIO_NOW = Date.parse("2026-03-30T11:00:00.000Z");
export const WEDNESDAY_10_LOCAL = "2026-04-01T13:00:00.000Z";

const service = (id: string, name: string, price: string, description: string) => ({
  id,
  name,
  description,
  price,
  currency: "CLP",
  price_unit: "servicio",
  modality: "a_domicilio",
  duration_minutes: 60,
  category: "kinesiologia",
  requirements: [],
  expected_outcome: null,
  tags: ["kinesiologia"],
  suggested_frequency: "semanal",
  treatment_length: null,
});

/** The catalog of the spec's Turn 1 response. */
export const CLINIC_CATALOG = {
  servicialo_version: "1.0",
  organization: { name: "Clinica Demo", slug: SERVICIALO_ORG },
  services: [
    service(PELVIC_ID, "Kinesiologia de Piso Pelvico", "46000", "Rehabilitacion del piso pelvico"),
    service(MSK_ID, "Kinesiologia Musculoesqueletica", "40000", "Kinesiologia para dolor muscular"),
  ],
};

/** The platform fake answering the scenario's catalog instead of its recorded fixture. */
export class ClinicPlatform extends FakeServicialoServer {
  constructor() {
    super();
    // The base class reads its catalog from fixtures/servicialo into a private field, which
    // availability also consults; replacing it keeps one catalog for every operation.
    (this as unknown as { services: unknown }).services = CLINIC_CATALOG;
  }
}

function hostsConfig(platformOrigin: string): unknown {
  return {
    hosts: [
      {
        id: CLINIC,
        name: "Clinica Demo",
        kind: "business",
        timezone: SERVICIALO_TZ,
        connector: {
          type: "servicialo",
          settings: {
            baseUrl: platformOrigin,
            orgSlug: SERVICIALO_ORG,
            apiKey: SERVICIALO_API_KEY,
            timezone: SERVICIALO_TZ,
            providers: SERVICIALO_PROVIDERS,
            fallbackClientEmail: "reservas@clinica-demo.example",
            paymentRequirement: "none",
            timeoutMs: 5_000,
          },
        },
        policies: { confirmation: "instant", retention: "P365D" },
        services: [],
      },
      // A second host, so "another host's key" has a real key to be.
      defaultConfig().hosts.find((h) => h.id === OTHER_HOST),
    ],
  };
}

export interface ClinicGateway {
  readonly gw: E2eGateway;
  readonly platform: ClinicPlatform;
  /** The gateway's bookings of a host, through the operator API. */
  operatorBookings(hostId?: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function startClinicGateway(): Promise<ClinicGateway> {
  const platform = new ClinicPlatform();
  const origin = await platform.start();
  const gw = await startGateway({ config: hostsConfig(origin) });
  // The gateway's clock: wall time moved to the scenario's Monday (it keeps ticking).
  gw.clock.offsetMs = SCENARIO_NOW - Date.now();
  return {
    gw,
    platform,
    operatorBookings: async (hostId = CLINIC) => {
      const r = await fetch(`${gw.origin}/operator/v0/${hostId}/bookings`, { headers: gw.operatorAuth });
      if (r.status !== 200) throw new Error(`operator bookings: ${r.status} ${await r.text()}`);
      const body = (await r.json()) as { bookings: Array<{ booking: Record<string, unknown> }> };
      return body.bookings.map((b) => b.booking);
    },
    close: async () => {
      await gw.close();
      await platform.close();
    },
  };
}

/** A JSON-RPC message/send request, as the spec's Transport section writes it. */
export function messageSend(id: number | string, parts: unknown[]): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "message/send", params: { message: { role: "user", parts } } };
}
