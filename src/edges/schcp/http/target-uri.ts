/**
 * SchCP §3.2: "@target-uri is the public URL the agent addressed. An endpoint behind a proxy
 * or a platform router MUST reconstruct it from its configured public origin, never from the
 * Host header." Only the path and query are taken from the request; the scheme, host and port
 * always come from configuration, so a spoofed Host (or X-Forwarded-Host) changes nothing.
 */

/** The configured origin, normalized ("https://gw.example:8443"), or undefined if it is not an origin. */
export function normalizeOrigin(publicOrigin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(publicOrigin);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username !== "" || url.password !== "") return undefined;
  // An origin has no path, query or fragment: routes live at the root of it.
  if ((url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.hash !== "") return undefined;
  return url.origin;
}

/** Path and query of the request as addressed ("/schcp/v0/h/holds?x=1"), "?" kept when empty. */
export function requestPathAndQuery(requestUrl: string): string {
  const url = new URL(requestUrl);
  const withoutFragment = url.href.split("#", 1)[0] ?? url.href;
  return withoutFragment.slice(url.origin.length);
}

export function publicTargetUri(origin: string, requestUrl: string): string {
  return origin + requestPathAndQuery(requestUrl);
}
