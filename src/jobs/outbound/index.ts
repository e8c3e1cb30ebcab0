export { classifyAddress, isPublicAddress, type AddressClass } from "../../protocol/net/address-class.js";
export { checkCallbackUrl, literalHost, type CallbackUrlOptions } from "./callback-url.js";
export {
  createPublicFetch,
  systemResolver,
  type FetchRefusal,
  type FetchRefusalCode,
  type OutboundRequest,
  type OutboundResponse,
  type PublicFetch,
  type PublicFetchOptions,
  type ResolvedAddress,
  type Resolver,
} from "./public-fetch.js";
