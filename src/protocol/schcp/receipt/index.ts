export { checkReceiptClaims } from "./claims.js";
export { RECEIPT_TYP, signReceipt } from "./sign.js";
export {
  verifyReceipt,
  type ReceiptCheckError,
  type ReceiptExpectations,
  type VerifiedReceipt,
} from "./verify.js";
