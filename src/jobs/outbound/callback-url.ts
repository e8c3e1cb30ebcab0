/**
 * What a callback URL's text alone can tell (SchCP §5.8): an absolute https URL without
 * credentials, whose host, when it is an IP literal, is a public address (src/protocol/net/address-class.ts).
 * The HTTP edge refuses such a URL when a hold names it, so an agent learns at once that no
 * webhook could ever reach it; the transport (public-fetch.ts) runs the same check before
 * every delivery and then checks every address a host NAME resolves to at connect time, since
 * a name's answer can change between any check and the connection.
 */
import { isIP } from "node:net";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { classifyAddress } from "../../protocol/net/address-class.js";
import type { FetchRefusal } from "./types.js";

export interface CallbackUrlOptions {
  /**
   * Tests only: allow http: and non-public literal addresses, so a loopback server can stand
   * in for an agent. Never set in a running gateway.
   */
  readonly allowPrivateForTests?: boolean;
}

/** The URL, or why no delivery could ever go to it. */
export function checkCallbackUrl(raw: string, options: CallbackUrlOptions = {}): Result<URL, FetchRefusal> {
  const allowPrivate = options.allowPrivateForTests === true;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return err({ code: "invalid_url", message: "the callback URL is not an absolute URL" });
  }
  const schemes = allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    return err({ code: "scheme_not_allowed", message: `callback URLs must be https, not ${url.protocol}` });
  }
  if (url.username !== "" || url.password !== "") {
    return err({ code: "credentials_in_url", message: "callback URLs must not carry credentials" });
  }
  const host = literalHost(url);
  if (host !== undefined && !allowPrivate) {
    const addressClass = classifyAddress(host);
    if (addressClass !== "public") {
      return err({
        code: "non_public_address",
        message: `${host} is not public (${addressClass})`,
        address: host,
        addressClass,
      });
    }
  }
  return ok(url);
}

/** The URL's host when it is an IP literal (brackets of an IPv6 literal removed). */
export function literalHost(url: URL): string | undefined {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}
