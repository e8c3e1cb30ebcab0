/**
 * How a host answers a new booking, as every edge's discovery states it (SchCP §2.1
 * policies.confirmation, A2A, OSBP): "host_approval" when the host's own policy asks for its
 * approval OR when its upstream holds each booking for the business (Catalog.organization
 * .confirmation, e.g. a Servicialo organization that answers `pendiente_confirmacion`). The
 * gateway's policy cannot make an upstream's pending booking confirmed, so discovery never says
 * "instant" for a host whose upstream waits for the business.
 */
import type { HostRuntime } from "../api.js";

export function confirmationOf(host: Pick<HostRuntime, "config" | "catalog">): "instant" | "host_approval" {
  return host.config.policies.confirmation === "host_approval" ||
    host.catalog.organization.confirmation === "host_approval"
    ? "host_approval"
    : "instant";
}
