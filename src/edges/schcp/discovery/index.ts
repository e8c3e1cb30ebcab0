/** Discovery (SchCP §2): each host's document and the operator's list of hosts. */
export {
  BASE_CAPABILITIES,
  hostDiscoveryDocument,
  hostDiscoveryUrl,
  hostEndpoint,
  originOf,
  type DiscoveryOptions,
} from "./host-document.js";
export {
  cachedOperatorDocument,
  operatorDocument,
  type OperatorEntity,
  type OperatorOptions,
} from "./operator-document.js";
export { discoveryService } from "./services.js";
