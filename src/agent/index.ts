/**
 * The agent SDK: what someone building a SchCP agent needs, over HTTP and src/protocol only
 * (no gateway internals). Discover and authorize a host (§2), sign every request (§3.2),
 * issue mandates as a key app would (§3.3, §5.3), and refuse any hold, offer, booking or
 * receipt that fails the agent-side MUSTs of §5.2–§5.3.
 */
export { SchcpClient, newIdempotencyKey } from "./client.js";
export type { Call, CallOptions, HostTarget, Keyed, SchcpClientOptions, SignedRequest } from "./client.js";
export { OPERATOR_DOCUMENT_PATH } from "./discovery.js";
export type {
  DiscoveredHost,
  DiscoveredOperator,
  DiscoverHostOptions,
  EndpointAuthorization,
} from "./discovery.js";
export { agentError, describeAgentError } from "./errors.js";
export type { AgentError, AgentErrorCode } from "./errors.js";
export { MAX_RESPONSE_BYTES, SCHCP_VERSION } from "./http.js";
export type { FetchLike, HttpPolicy, Reply } from "./http.js";
export { KeyApp } from "./key-app.js";
export type {
  AgentRef,
  ClosedMandate,
  IssuedMandate,
  KeyAppOptions,
  MandateRequest,
  OfferConsent,
  OfferSource,
} from "./key-app.js";
export { agentKeyFromJwk, createAgentKey, exportAgentKeyJwk } from "./keys.js";
export type { AgentKey } from "./keys.js";
export {
  verifyBookingReceipt,
  verifyChangeOffer,
  verifyHoldOffer,
  verifyParticipantBooking,
} from "./verify.js";
export type {
  BookingExpectations,
  HostKeys,
  VerifiedBooking,
  VerifiedChangeOffer,
  VerifiedHold,
  VerifiedParticipantBooking,
} from "./verify.js";
