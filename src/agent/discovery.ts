/**
 * Discovery (SchCP §2) as an agent does it: the host's document fetched and checked
 * (documents.ts), and the endpoint it names trusted only when a rule of §2.2 authorizes it
 * (endpoint-authorization.ts). The rule that did is recorded, because rule 3 is operator
 * trust, which agents SHOULD tell the principal about.
 */
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import type { DiscoveryDocument, Jwk } from "../protocol/schcp/types.js";
import { fetchDocument } from "./documents.js";
import type { DiscoveryIo } from "./documents.js";
import { authorizeEndpoint } from "./endpoint-authorization.js";
import type { EndpointAuthorization } from "./endpoint-authorization.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import { checkUrl } from "./http.js";

export { discoverOperator, OPERATOR_DOCUMENT_PATH } from "./documents.js";
export type { DiscoveredOperator, DiscoveryIo } from "./documents.js";
export type { EndpointAuthorization } from "./endpoint-authorization.js";

export interface DiscoveredHost {
  /** Where the discovery document was fetched. */
  readonly url: string;
  readonly document: DiscoveryDocument;
  readonly hostId: string;
  /** The authorized endpoint base; operation paths are relative to it (§5). */
  readonly endpoint: string;
  /** The only keys an offer or receipt may be verified with (§2.1). */
  readonly keys: readonly Jwk[];
  readonly authorization: EndpointAuthorization;
  /**
   * The domain a key app shows beside the host's name (§5.2: the domain it discovered the host
   * at), or null under operator trust, so the consent text labels the identity unverified (§5.3).
   */
  readonly consentDomain: string | null;
}

export interface DiscoverHostOptions {
  /** Accept rule 3 (operator trust) when rules 1 and 2 do not hold. Off by default. */
  readonly trustOperator?: boolean;
}

/** GET a host's discovery document (§2.1) and authorize its endpoint (§2.2). */
export async function discoverHost(
  io: DiscoveryIo,
  discoveryUrl: string,
  opts: DiscoverHostOptions = {},
): Promise<Result<DiscoveredHost, AgentError>> {
  const checked = checkUrl(discoveryUrl, io.allowHttp);
  if (!checked.ok) return checked;
  const url = checked.value.href;
  const doc = await fetchDocument(io, url, "DiscoveryDocument");
  if (!doc.ok) return doc;
  const document = doc.value;

  const endpoint = checkUrl(document.endpoint, io.allowHttp);
  if (!endpoint.ok) {
    return err(agentError("invalid_discovery", endpoint.error.message, { field: "/endpoint" }));
  }
  const auth = await authorizeEndpoint(io, url, document, endpoint.value, opts);
  if (!auth.ok) return auth;
  return ok({
    url,
    document,
    hostId: document.host.id,
    endpoint: document.endpoint.replace(/\/+$/, ""),
    keys: document.keys,
    authorization: auth.value,
    consentDomain: auth.value.rule === 3 ? null : checked.value.hostname,
  });
}
