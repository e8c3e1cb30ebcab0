/**
 * The agent SDK: what someone building a SchCP agent needs, over HTTP and src/protocol only
 * (no gateway internals). Discover and authorize a host (§2), sign every request (§3.2),
 * issue mandates as a key app would (§3.3, §5.3) with attestations an attester signed (§7.5),
 * verify a location's brand siblings (§2.4), and refuse any hold, offer, booking or receipt
 * that fails the agent-side MUSTs of §5.2–§5.3.
 */
export { Attester } from "./attester.js";
export type { AttesterOptions, AttestRequest, TrustEntry } from "./attester.js";
export { verifyBrand } from "./brand.js";
export type { BrandRefusalReason, BrandSibling, VerifiedBrand, VerifyBrandOptions } from "./brand.js";
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
  IssuedSdJwt,
  SdJwtMandateRequest,
  KeyAppOptions,
  MandateRequest,
  OfferConsent,
  OfferSource,
  SharedLimitMandateRequest,
} from "./key-app.js";
export { commonStarts, RULE_TTL_SEC, signRuleAcceptance } from "./meeting.js";
export type {
  CommonStart,
  MeetingContractRequest,
  RuleRequest,
  SignedAcceptance,
  SignedMeetingContract,
  SignedRule,
} from "./meeting.js";
export { KeyAppStatusService } from "./key-app-status.js";
export type {
  KeyAppListenOptions,
  KeyAppStatusServiceOptions,
  MandateStatusRecord,
  RunningKeyAppStatus,
} from "./key-app-status.js";
export { agentKeyFromJwk, createAgentKey, exportAgentKeyJwk } from "./keys.js";
export { createP256PrincipalKey, sdJwtPresenter } from "./sd-jwt.js";
export type { MandatePresenter, P256PrincipalKey, SdJwtPresenterOptions } from "./sd-jwt.js";
export type { AgentKey } from "./keys.js";
export {
  verifyBookingReceipt,
  verifyChangeOffer,
  verifyHoldOffer,
  verifyHostProposal,
  verifyParticipantBooking,
} from "./verify.js";
export type {
  BookingExpectations,
  HostKeys,
  VerifiedBooking,
  VerifiedChangeOffer,
  VerifiedHold,
  VerifiedHostProposal,
  VerifiedParticipantBooking,
} from "./verify.js";
