export { parseStrictJson } from "./strict-json.js";
export { decodeBase64Url, encodeBase64Url, sha256Base64Url } from "./base64.js";
