export { MAX_JSON_DEPTH, parseStrictJson } from "./strict-json.js";
export type { StrictJsonError, StrictJsonErrorCode } from "./strict-json.js";
export {
  decodeBase64Strict,
  decodeBase64Url,
  encodeBase64,
  encodeBase64Url,
  sha256,
  sha256Base64Url,
} from "./base64.js";
