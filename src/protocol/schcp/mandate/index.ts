/** SchCP mandates (§3.3): verification, delegation chains, action checks, issuing. */
export type {
  MandateAction,
  MandateActionKind,
  MandateBookingCounter,
  MandateChain,
  MandateLink,
  MandateRefusal,
  MandateRefusalCode,
  MandateStatusPort,
  MandateStatusValue,
} from "./types.js";
export { verifyMandate } from "./verify.js";
export type { VerifyMandateContext } from "./verify.js";
export { MANDATE_TYP } from "./decode-link.js";
export { MANDATE_HEADER } from "./fields.js";
export { CachingMandateStatus } from "./status.js";
export type { CachingMandateStatusOptions } from "./status.js";
export { checkMandateAction, sharedLimitLinks, REQUIRED_SCOPE } from "./check-action.js";
export type { MandateScopeName, SharedLimitLink } from "./check-action.js";
export { checkClosedMandatePolicy } from "./closed-policy.js";
export type { ClosedMandatePolicy } from "./closed-policy.js";
export { receiptConsent } from "./consent.js";
export type { MandateReceiptConsent } from "./consent.js";
export { delegateMandate, issueMandate, signMandateClaims } from "./issue.js";
export type { ChildMandateClaims, RootMandateClaims, SigningKey } from "./issue.js";
