/** The gateway's HTTP edge: one Hono app for discovery, the SchCP host endpoint and the operator API. */
export { createHttpApp, SCHCP_VERSION } from "./app.js";
export { DEFAULT_AVAILABILITY_RATE, MemoryRateLimiter, takeToken } from "../../edges/http/rate-limit.js";
export type { TokenBucketPolicy } from "../../edges/http/rate-limit.js";
export { SCHCP_ROUTES } from "../../edges/schcp/http/schcp-route-table.js";
export type { SchcpRoute } from "../../edges/schcp/http/schcp-route-table.js";
export { normalizeOrigin, publicTargetUri, requestPathAndQuery } from "../../edges/schcp/http/target-uri.js";
export { findPaymentData } from "../../edges/schcp/http/payment.js";
export { operatorCredentialMatches } from "../../edges/operator/operator-auth.js";
export { DEFAULT_MAX_BODY_BYTES } from "./types.js";
export type {
  DiscoveryDocuments,
  EdgeResponse,
  HttpAppDeps,
  IdempotencyGate,
  IdempotentRequest,
  IdempotentRoute,
} from "./types.js";
export type { RateLimiter } from "../../edges/http/types.js";
