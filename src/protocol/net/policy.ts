/**
 * The one outbound address policy: which URLs and addresses the gateway may connect to, for
 * every URL a person supplies (a webhook's callback_url, a CalDAV server, an Openings or
 * Servicialo base URL, a platform base URL in the operator's configuration) and every redirect
 * they lead to: a URL a person supplies passes the same address policy as a webhook's.
 *
 * SchCP §5.8 is the rule: refuse "private, loopback, link-local, CGNAT, multicast and reserved
 * addresses (IPv4 and IPv6, including IPv4-mapped)", checked on the address actually connected,
 * not on the URL's text alone (a public name can resolve to a private address, and can change
 * its answer between a check and the connection). So a name is resolved inside the socket's own
 * lookup (guarded-lookup.ts) and the connected peer is checked again.
 *
 * An operator may widen the policy explicitly, and only the operator (UPSTREAM_ALLOW_PRIVATE,
 * or named addresses): a CalDAV server on the office network, or the loopback fakes tests run.
 * Even then link-local (cloud metadata at 169.254.169.254 and fe80::/10), multicast,
 * unspecified, documentation and reserved addresses stay refused.
 */
import { isIP } from "node:net";
import { classifyAddress, type AddressClass } from "./address-class.js";

export interface AddressPolicy {
  /**
   * Loopback, private (RFC 1918), unique-local (fc00::/7) and CGNAT addresses may be reached,
   * and plain http is allowed: the operator's explicit choice (UPSTREAM_ALLOW_PRIVATE=1).
   */
  readonly allowPrivate?: boolean;
  /** These exact addresses may be reached whatever their class (the operator's, or a test's). */
  readonly allowAddresses?: readonly string[];
  /** Plain http: (default only with allowPrivate): credentials would cross the network readable. */
  readonly allowHttp?: boolean;
}

/** The default: public addresses over https only. */
export const PUBLIC_ONLY: AddressPolicy = {};

const WIDENED: ReadonlySet<AddressClass> = new Set(["loopback", "private", "unique_local", "cgnat"]);

export interface AddressRefusal {
  readonly address: string;
  readonly addressClass: AddressClass;
}

/** Undefined when the policy lets the gateway connect to this literal address. */
export function refuseAddress(policy: AddressPolicy, address: string): AddressRefusal | undefined {
  const bare = address.startsWith("[") ? address.slice(1, -1) : address;
  const addressClass = classifyAddress(bare);
  if (addressClass === "public") return undefined;
  if (policy.allowAddresses?.some((a) => sameAddress(a, bare)) === true) return undefined;
  if (policy.allowPrivate === true && WIDENED.has(addressClass)) return undefined;
  return { address: bare, addressClass };
}

type UrlRefusalCode = "invalid_url" | "scheme_not_allowed" | "credentials_in_url" | "non_public_address";

export interface UrlRefusal {
  readonly code: UrlRefusalCode;
  /** For the operator's log; never shown to the person who typed the URL (see UNIFORM_REFUSAL). */
  readonly message: string;
  readonly address?: string;
  readonly addressClass?: AddressClass;
}

/**
 * What a URL's text alone can tell: absolute http(s) (http only when the policy allows it), no
 * credentials in it, and an IP-literal host the policy allows. A host NAME passes here; its
 * addresses are judged when the socket resolves it (guarded-lookup.ts).
 */
export function checkUrlText(
  raw: string | URL,
  policy: AddressPolicy,
): { url: URL } | { refusal: UrlRefusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: { code: "invalid_url", message: "not an absolute URL" } };
  }
  const http = policy.allowHttp ?? policy.allowPrivate === true;
  if (url.protocol !== "https:" && !(http && url.protocol === "http:"))
    return {
      refusal: { code: "scheme_not_allowed", message: `${url.protocol} is not allowed, only https:` },
    };
  if (url.username !== "" || url.password !== "")
    return { refusal: { code: "credentials_in_url", message: "a URL must not carry credentials" } };
  const host = literalHost(url);
  if (host !== undefined) {
    const refused = refuseAddress(policy, host);
    if (refused !== undefined)
      return {
        refusal: {
          code: "non_public_address",
          message: `${refused.address} is not public (${refused.addressClass})`,
          ...refused,
        },
      };
  }
  return { url };
}

/** The URL's host when it is an IP literal (brackets of an IPv6 literal removed). */
export function literalHost(url: URL): string | undefined {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}

/**
 * What a person is told when the policy refused their URL, whatever the reason: it says nothing
 * about what (if anything) is at that address, because nothing was sent there.
 */
export const UNIFORM_REFUSAL =
  "This address cannot be used: the gateway connects only to public internet servers over https.";

function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  const family = isIP(a);
  if (family === 0 || family !== isIP(b)) return false;
  // Compare canonical forms ("::1" and "0:0:0:0:0:0:0:1").
  return canonical(a) === canonical(b);
}

function canonical(address: string): string {
  return isIP(address) === 6 ? new URL(`http://[${address}]/`).hostname : address;
}
