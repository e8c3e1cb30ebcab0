export { signReceipt } from "./sign.js";
export { verifyReceipt, type ReceiptExpectations } from "./verify.js";
