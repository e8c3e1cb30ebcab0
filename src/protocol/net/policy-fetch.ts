/**
 * A `fetch` for upstreams that obeys the outbound address policy (policy.ts): the connectors'
 * transport whenever the gateway builds them (src/gateway/runtime), so every URL a person or an
 * operator supplied (CalDAV servers, Openings and Servicialo base URLs, platform base URLs, the
 * links and redirects they answer with) is reached only at an allowed address.
 *
 * - The URL's text is checked first (scheme, credentials, an IP literal's class): a refused
 *   literal address is never connected to.
 * - A host name is resolved inside the socket's own lookup and every answer judged
 *   (guarded-lookup.ts); the connected peer's address is judged once more.
 * - A fresh connection every time (nothing pooled, so nothing reused past a check).
 * - Redirects: "follow" is done here, hop by hop, each hop checked like the first, at most
 *   MAX_REDIRECTS, a cross-origin hop without the request's credentials; "manual" answers the
 *   3xx as it is unless its Location names a refused target (then the request is refused, so a
 *   caller that would follow it by hand never gets the chance); "error" throws.
 *
 * Refusals throw AddressRefusedError (a TypeError, as fetch's network errors are). Hand-written
 * over node:http(s) because the one library offering a connect-time lookup hook with fetch
 * ergonomics (undici's Agent) is not a dependency of this project.
 */
import http from "node:http";
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import {
  AddressRefusedError,
  createGuardedLookup,
  refuseName,
  systemResolver,
  type Resolver,
} from "./guarded-lookup.js";
import { checkUrlText, literalHost, refuseAddress, type AddressPolicy } from "./policy.js";

export interface PolicyFetchOptions {
  readonly policy: AddressPolicy;
  readonly resolver?: Resolver;
  /** From socket creation to TCP connect (default 10 s). */
  readonly connectTimeoutMs?: number;
}

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** What a request keeps when a redirect leads to another origin (no credentials, no cookies). */
const CROSS_ORIGIN_KEEP = new Set(["accept", "accept-language", "content-type", "user-agent"]);

export function createPolicyFetch(options: PolicyFetchOptions): typeof fetch {
  const { policy } = options;
  const resolver = options.resolver ?? systemResolver;
  const lookup = createGuardedLookup(policy, resolver);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;

  const refuseTarget = (url: URL): void => {
    const text = checkUrlText(url, policy);
    if ("refusal" in text) throw new AddressRefusedError(text.refusal);
  };

  const once = (url: URL, method: string, headers: Headers, body: Buffer | undefined, signal: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      if (signal.aborted) return reject(abortError(signal));
      // Looked up at call time, so an HTTP interceptor installed later (tests' nock) sees it.
      const send = url.protocol === "https:" ? https.request : http.request;
      const flat: OutgoingHttpHeaders = {};
      headers.forEach((value, name) => {
        flat[name] = value;
      });
      if (body !== undefined) flat["content-length"] = String(body.length);
      const request = send({
        host: literalHost(url) ?? url.hostname,
        port: url.port === "" ? undefined : Number(url.port),
        path: url.pathname + url.search,
        method,
        headers: flat,
        lookup,
        agent: false, // a fresh, checked connection every time; nothing pooled
      });
      const onAbort = (): void => {
        request.destroy(abortError(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      request.on("socket", (socket: Socket) => {
        const timer = setTimeout(() => {
          request.destroy(new TypeError(`no connection within ${connectTimeoutMs} ms`));
        }, connectTimeoutMs);
        const connected = (): void => {
          clearTimeout(timer);
          // Defence in depth: the peer actually connected, whatever path led to it (the text
          // and the lookup were checked already). A socket with no peer address (closed at
          // once, or not a network socket: an interceptor's in tests) has nothing to judge.
          const peer = socket.remoteAddress;
          const refused = peer === undefined || peer === "" ? undefined : refuseAddress(policy, peer);
          if (refused !== undefined)
            request.destroy(
              new AddressRefusedError({
                code: "non_public_address",
                message: `connected to ${refused.address} (${refused.addressClass})`,
                ...refused,
              }),
            );
        };
        if (socket.remoteAddress !== undefined && !socket.connecting) connected();
        else socket.once("connect", connected);
        socket.once("close", () => clearTimeout(timer));
      });
      request.on("error", (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof AddressRefusedError || isAbortLike(error) ? error : networkError(error));
      });
      request.on("response", (res) => {
        // Aborting later ends the body's stream with the abort reason.
        signal.removeEventListener("abort", onAbort);
        signal.addEventListener("abort", () => res.destroy(abortError(signal)), { once: true });
        resolve(res);
      });
      request.end(body);
    });

  return async (input, init) => {
    // The text first: a URL with credentials in it is the policy's refusal, not Request's.
    refuseTarget(new URL(input instanceof Request ? input.url : input instanceof URL ? input.href : input));
    const request = new Request(input, init);
    const signal = request.signal;
    let url = new URL(request.url);
    let method = request.method;
    let headers = new Headers(request.headers);
    let body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    for (let hop = 0; ; hop++) {
      refuseTarget(url);
      const res = await once(url, method, headers, body, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (!REDIRECTS.has(status) || location === undefined || request.redirect === "manual") {
        if (REDIRECTS.has(status) && location !== undefined) {
          // Manual: answered as it is, unless it points where the gateway may not go.
          const next = resolveLocation(location, url);
          const refused = next === undefined ? undefined : await refuseLocation(next);
          if (refused !== undefined) {
            res.destroy();
            throw refused;
          }
        }
        return toResponse(res, url);
      }
      res.resume(); // the redirect's own body is not read
      res.destroy();
      if (request.redirect === "error")
        throw new TypeError(`redirected (${status}); redirect mode is "error"`);
      if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
      const next = resolveLocation(location, url);
      if (next === undefined) throw new TypeError("a redirect without a usable Location");
      // Fetch §4.4 HTTP-redirect fetch: 303 (and 301/302 after POST) become a GET without a body.
      if (status === 303 ? method !== "HEAD" : (status === 301 || status === 302) && method === "POST") {
        method = "GET";
        body = undefined;
        headers.delete("content-type");
      }
      if (next.origin !== url.origin) {
        const kept = new Headers();
        headers.forEach((value, name) => {
          if (CROSS_ORIGIN_KEEP.has(name)) kept.set(name, value);
        });
        headers = kept;
      }
      url = next;
    }
  };

  async function refuseLocation(next: URL): Promise<AddressRefusedError | undefined> {
    const text = checkUrlText(next, policy);
    if ("refusal" in text) return new AddressRefusedError(text.refusal);
    if (literalHost(next) !== undefined) return undefined;
    const refused = await refuseName(next.hostname, policy, resolver);
    return refused === undefined ? undefined : new AddressRefusedError(refused);
  }
}

function resolveLocation(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function toResponse(res: IncomingMessage, url: URL): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
    headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  const nullBody = NULL_BODY.has(status) || status < 200;
  if (nullBody) res.resume();
  const body = nullBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
  const response = new Response(body, {
    status: status < 200 ? 200 : status,
    statusText: res.statusMessage ?? "",
    headers,
  });
  Object.defineProperty(response, "url", { value: url.href });
  return response;
}

/** The DOMException fetch rejects with when its signal aborts (connectors test the name). */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** Like fetch: a network failure is a TypeError whose cause carries the system error code. */
function networkError(error: unknown): TypeError {
  return new TypeError("fetch failed", { cause: error });
}
