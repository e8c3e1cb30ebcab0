/**
 * The embedded default operator (team brief): three synthetic hosts, written in the same
 * config format a deployment's file uses, so the default doubles as an example and is checked
 * by the same parser. I1's synthetic scenarios (src/connectors/synthetic/scenarios.ts) carry
 * the matching catalogs: services, resources and hours, prices and taxes.
 *
 * 1. maple-street-auto: instant confirmation, bays and technicians, HST on every line.
 * 2. harbourview-dental: host_approval, hygienists, a tax-exempt cleaning.
 * 3. fades-on-queen: instant, selectable barbers, an unpriced consultation.
 */
import type { HostConfig } from "../api.js";
import { parseHostsConfig } from "./parse-config.js";

const synthetic = (scenario: string) => ({ type: "synthetic", settings: { scenario } });

export const EMBEDDED_DEFAULT_CONFIG = {
  hosts: [
    {
      id: "maple-street-auto",
      name: "Maple Street Auto",
      kind: "business",
      timezone: "America/Toronto",
      domain: null,
      address: { locality: "Toronto", region: "ON", country: "CA" },
      // §9.2: published so every refusal carries a non-agent way in.
      contact: { phone: "+1-416-555-0177" },
      connector: synthetic("maple-street-auto"),
      policies: { confirmation: "instant", retention: "P365D" },
      services: [],
    },
    {
      id: "harbourview-dental",
      name: "Harbourview Dental",
      kind: "business",
      timezone: "America/Vancouver",
      domain: null,
      address: { locality: "Vancouver", region: "BC", country: "CA" },
      connector: synthetic("harbourview-dental"),
      policies: { confirmation: "host_approval", closed_mandate: "never", retention: "P365D" },
      services: [],
    },
    {
      id: "fades-on-queen",
      name: "Fades on Queen",
      kind: "business",
      timezone: "America/Toronto",
      domain: null,
      address: { locality: "Toronto", region: "ON", country: "CA" },
      connector: synthetic("fades-on-queen"),
      policies: { confirmation: "instant", retention: "P365D" },
      // §5.2 selectable: the guest may pick a barber.
      services: [
        { service_id: "haircut", selectable: true },
        { service_id: "consultation", selectable: true },
      ],
    },
  ],
} as const;

export function embeddedDefaultHosts(): HostConfig[] {
  const parsed = parseHostsConfig(EMBEDDED_DEFAULT_CONFIG);
  // The constant above is ours: failing to parse it is a programmer error.
  if (!parsed.ok) throw new Error(`embedded default hosts config: ${parsed.error.message}`);
  return parsed.value;
}
