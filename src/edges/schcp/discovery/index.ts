/** Discovery (SchCP §2): each host's document and the operator's list of hosts. */
export { hostDiscoveryDocument } from "./host-document.js";
export { cachedOperatorDocument, operatorDocument } from "./operator-document.js";
