/**
 * Policy defaults where a host's config says nothing (SchCP §2.1, §7.1–§7.3,
 * §5.7, §10). Durations in ms.
 */
import type { HostPolicies } from "../api.js";
import { DEFAULT_POOL_CAPS } from "../public-pool/port.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

export const DEFAULT_POLICIES: HostPolicies = {
  holds: {
    maxTtlMs: 10 * MINUTE,
    maxActivePerAgent: 3,
    requiresMandate: true,
    maxActiveUnproven: 8,
    maxActivePerAttester: 8,
  },
  confirmation: "instant",
  // §5.3: "never" is the default.
  closedMandate: "never",
  retention: "P365D",
  access: "public",
  // §5.7: the host's approval_timeout, "default two hours".
  approvalTimeoutMs: 120 * MINUTE,
  // §3.3 check 2: "the reference endpoint refuses them unless configured otherwise".
  allowWildcardAudience: false,
  // §3.4 is optional: a host lists "dc+sd-jwt" only when its config says so.
  sdJwtMandates: false,
  // §10: "31 days in the reference adapter".
  horizonMs: 31 * DAY,
  // The public booking pool (public-pool/port.ts).
  publicBooking: DEFAULT_POOL_CAPS,
};
