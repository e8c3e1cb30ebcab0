/** SchCP mandates (§3.3): verification, delegation chains, action checks, issuing. */
export type {
  MandateAction,
  MandateActionKind,
  MandateBookingCounter,
  MandateChain,
  MandateRefusal,
  MandateRefusalCode,
  MandateStatusPort,
  MandateStatusValue,
} from "./types.js";
export { verifyMandate } from "./verify.js";
export type { VerifyMandateContext } from "./verify.js";
export { CachingMandateStatus } from "./status.js";
export { checkMandateAction, sharedLimitLinks, REQUIRED_SCOPE } from "./check-action.js";
export { checkClosedMandatePolicy } from "./closed-policy.js";
export { receiptConsent } from "./consent.js";
export { delegateMandate, issueMandate, signMandateClaims } from "./issue.js";
export type { ChildMandateClaims, RootMandateClaims, SigningKey } from "./issue.js";
