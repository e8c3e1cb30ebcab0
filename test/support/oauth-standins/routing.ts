/**
 * Pointing the providers' real origins at the stand-ins, without changing the gateway: it keeps
 * its production endpoints (providers.ts), and the test moves the traffic at the edges.
 *
 * - The browser: Playwright routes every request to a real origin (https://accounts.google.com,
 *   …) to the stand-in's socket and answers with what the stand-in said, redirects included (not
 *   followed here: Chromium follows them, so the return to the gateway is a genuine cross-site
 *   navigation from the provider's origin, and the gateway's bounce page is exercised).
 * - The gateway process: a fetch that rewrites the same origins, installed as globalThis.fetch
 *   while the gateway runs (Connect's code exchange uses the global fetch) and usable as the
 *   runtime's `connectorFetch` for the platform APIs.
 *
 * Anything not in the map goes where it was going; the tests allow only loopback anyway.
 */
import type { BrowserContext } from "playwright-core";

/** Real origin (https://accounts.google.com) → stand-in origin (http://127.0.0.1:port). */
export type OriginMap = ReadonlyMap<string, string>;

export function originMap(
  ...standins: { realOrigins: readonly string[]; origin: string }[]
): Map<string, string> {
  const m = new Map<string, string>();
  for (const s of standins) for (const o of s.realOrigins) m.set(o, s.origin);
  return m;
}

export function rewrite(map: OriginMap, url: string): string {
  const u = new URL(url);
  const to = map.get(u.origin);
  return to === undefined ? url : `${to}${u.pathname}${u.search}`;
}

export function rewritingFetch(map: OriginMap, base: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => {
    if (input instanceof Request) {
      const moved = rewrite(map, input.url);
      return base(moved === input.url ? input : new Request(moved, input), init);
    }
    return base(rewrite(map, input instanceof URL ? input.href : input), init);
  };
}

/** Installs the rewriting fetch as the process's global fetch; call the result to put it back. */
export function installRewritingFetch(map: OriginMap): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = rewritingFetch(map, original);
  return () => {
    globalThis.fetch = original;
  };
}

export async function routeBrowserToStandins(context: BrowserContext, map: OriginMap): Promise<void> {
  for (const origin of map.keys()) {
    await context.route(`${origin}/**`, async (route) => {
      const response = await route.fetch({ url: rewrite(map, route.request().url()), maxRedirects: 0 });
      await route.fulfill({ response });
    });
  }
}
