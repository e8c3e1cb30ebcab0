/**
 * SchCP §2.2 endpoint authorization (anti-spoofing): an agent MUST NOT trust an endpoint just
 * because a page links to it. How the rules are decided (fetchHost = the exact hostname the
 * discovery document was fetched from):
 * 1. The document was fetched from the host's own domain (it names no operator, or names one
 *    whose domain is not fetchHost) and the endpoint's hostname is fetchHost, exactly: a
 *    subdomain or a parent domain is a different host.
 * 2. The document names an operator, the operator's own document (fetched from that domain)
 *    lists this host id with this very discovery URL, and the endpoint is on the operator's
 *    domain (or the listing's host_domain). Both sides claim the relationship.
 * 3. The caller opted in (trustOperator) and the endpoint is on the hostname the document
 *    came from: the operator is taken as authoritative for its own listings.
 */
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import type { DiscoveryDocument } from "../protocol/schcp/types.js";
import { discoverOperator } from "./documents.js";
import type { DiscoveryIo } from "./documents.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";

export interface EndpointAuthorization {
  /** The rule of §2.2 that authorized the endpoint. */
  readonly rule: 1 | 2 | 3;
  /** Why, in words, for logs and for telling the principal. */
  readonly basis: string;
  /** The operator that vouched for the host (rules 2 and 3). */
  readonly operatorDomain?: string;
}

export async function authorizeEndpoint(
  io: DiscoveryIo,
  url: string,
  doc: DiscoveryDocument,
  endpoint: URL,
  opts: { readonly trustOperator?: boolean },
): Promise<Result<EndpointAuthorization, AgentError>> {
  const fetchHost = new URL(url).hostname;
  const operatorDomain = doc.operator?.domain;
  const fromHostsOwnDomain = operatorDomain === undefined || operatorDomain !== fetchHost;

  if (fromHostsOwnDomain && endpoint.hostname === fetchHost) {
    return ok({ rule: 1, basis: `the endpoint is on ${fetchHost}, where the host's document was fetched` });
  }
  let rule2Failure = "the host's document names no operator";
  if (operatorDomain !== undefined) {
    const claimed = await operatorListsHost(io, url, doc, operatorDomain, endpoint);
    if (claimed.ok) {
      return ok({
        rule: 2,
        basis: `${doc.host.id} names the operator ${operatorDomain}, whose document lists it back`,
        operatorDomain,
      });
    }
    rule2Failure = claimed.error;
  }
  if (opts.trustOperator === true && endpoint.hostname === fetchHost) {
    return ok({
      rule: 3,
      basis: `operator trust: ${fetchHost} is accepted as authoritative for its own listings`,
      operatorDomain: fetchHost,
    });
  }
  return err(
    agentError(
      "endpoint_not_authorized",
      `no rule of §2.2 authorizes ${endpoint.origin} for ${doc.host.id}: ${rule2Failure}`,
      { field: "/endpoint" },
    ),
  );
}

/** §2.2 rule 2: the operator's document, from the operator's domain, lists this host back. */
async function operatorListsHost(
  io: DiscoveryIo,
  url: string,
  doc: DiscoveryDocument,
  operatorDomain: string,
  endpoint: URL,
): Promise<Result<true, string>> {
  const fetched = new URL(url);
  // The domain names a host, not a port: keep the port only when it is the origin we used.
  const origin = fetched.hostname === operatorDomain ? fetched.origin : `https://${operatorDomain}`;
  const op = await discoverOperator(io, origin);
  if (!op.ok) return err(`the operator document of ${operatorDomain} is not usable: ${op.error.message}`);
  if (op.value.document.operator.domain !== operatorDomain) {
    return err(`the operator document at ${origin} is for ${op.value.document.operator.domain}`);
  }
  const listing = op.value.document.hosts.find((h) => h.id === doc.host.id && sameUrl(h.discovery, url));
  if (listing === undefined) return err(`${operatorDomain} does not list ${doc.host.id} at ${url}`);
  if (endpoint.hostname !== operatorDomain && endpoint.hostname !== listing.host_domain) {
    return err(`the endpoint ${endpoint.hostname} is neither the operator's nor the host's domain`);
  }
  return ok(true);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}
