/**
 * The OSBP conformance host: Bayview Reference Studio, a synthetic platform built so that a
 * conformance kit can reach every case of OSBP "Money", "policy.explain" and "Mandate
 * Enforcement" with one host (src/connectors/synthetic/bayview.ts). Configured in the same
 * hosts-config format as a deployment's file and the embedded default, and checked by the
 * same parser.
 */
import type { HostConfig } from "../../booking/api.js";
import { parseHostsConfig } from "../../booking/hosts/index.js";
import { bayviewReferenceStudio, type SyntheticScenario } from "../../connectors/synthetic/index.js";

export const CONFORMANCE_HOST_ID = "bayview-reference-studio";

/** The synthetic platform behind the conformance host (registered in SYNTHETIC_SCENARIOS). */
export const conformanceScenario: SyntheticScenario = bayviewReferenceStudio;

/** The host's entry as it would appear in a hosts config file. */
export const CONFORMANCE_HOST_CONFIG = {
  id: CONFORMANCE_HOST_ID,
  name: "Bayview Reference Studio",
  kind: "business",
  timezone: "America/Los_Angeles",
  domain: null,
  address: { locality: "San Francisco", region: "CA", country: "US" },
  // Where the studio is (OSBP Slot schedule_address, schedule_latitude, schedule_longitude):
  // the synthetic platform reports no location, so the host's configuration states it.
  location: {
    address: "1 Bayview Avenue, San Francisco, CA 94124, US",
    latitude: 37.7308,
    longitude: -122.3869,
  },
  // default_service_id: what service.describe and availability.find substitute when the agent
  // names no service (OSBP "service.describe": "its configured default service").
  connector: {
    type: "synthetic",
    settings: { scenario: CONFORMANCE_HOST_ID, default_service_id: "haircut" },
  },
  // OSBP books immediately once the mandate, the approval and the platform agree.
  // The kit books a fixed far date (2030-05-02, see docs/mcp.md "OSBP conformance kit"): the
  // conformance host offers time that far ahead; no real host needs to.
  policies: {
    confirmation: "instant",
    retention: "P365D",
    horizon: "P2000D",
    // The public OSBP conformance kit books its fixture slot many times from one local client,
    // each under a fresh mandate: the public booking pool's default caps would stop it at 4.
    public_booking: { max_per_host: 1000, max_per_origin: 1000 },
  },
  services: [],
} as const;

export function conformanceHostConfig(): HostConfig {
  const parsed = parseHostsConfig({ hosts: [CONFORMANCE_HOST_CONFIG] });
  // The constant above is ours: failing to parse it is a programmer error.
  if (!parsed.ok) throw new Error(`conformance host config: ${parsed.error.message}`);
  const [host] = parsed.value;
  if (host === undefined) throw new Error("conformance host config: no host parsed");
  return host;
}
