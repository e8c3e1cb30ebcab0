/**
 * How a host's health refuses its time (SchCP §9.2), decided once here for every use case:
 *
 * - needs_reconnection: 503 UPSTREAM_UNAVAILABLE, reason host_needs_reconnection (a gateway
 *   registration), with NO retry: trying again cannot help until the business reconnects its
 *   booking system; the edge adds the host's contact remedy, the one way forward for a guest.
 * - degraded without a catalog (its upstream has not answered since start): 503
 *   UPSTREAM_UNAVAILABLE, reason upstream_unavailable, retry after the next catalog read.
 * - degraded with a catalog, or ok: no refusal here; the host serves, and an upstream call
 *   that fails is refused as it fails.
 *
 * Discovery keeps listing such a host (its document names the services last read, none
 * before the first read): a host that cannot take bookings for a while is still the host.
 */
import type { BookingRefusal, HostRuntime } from "../api.js";
import { bookingRefusal } from "../rules/index.js";

export function hostNeedsReconnection(): BookingRefusal {
  return bookingRefusal("upstream_unavailable", {
    reason: "host_needs_reconnection",
    message:
      "the host's booking system no longer accepts this gateway's credentials; nothing can be booked " +
      "here until the business reconnects it, so trying again will not help",
    basis: { policy: "host_health", health: "needs_reconnection" },
  });
}

/** The refusal for asking a host for time now, or undefined when it may be asked. */
export function hostTimeRefusal(runtime: HostRuntime, now: number): BookingRefusal | undefined {
  const health = runtime.health;
  if (health === undefined) return undefined;
  if (health.health === "needs_reconnection") return hostNeedsReconnection();
  if (health.catalog !== undefined) return undefined;
  const retryAfterMs = Math.max(1_000, health.status().nextCheckAt - now);
  return bookingRefusal("upstream_unavailable", {
    message: "the host's booking system has not answered since the gateway started; try again shortly",
    basis: { policy: "host_health", health: "degraded" },
    retryAfterMs,
    remedies: [{ type: "retry", afterMs: retryAfterMs }],
  });
}
