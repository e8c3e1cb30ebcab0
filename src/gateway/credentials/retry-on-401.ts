/**
 * "Refreshed once on a 401", without touching any connector: the fetch a vault
 * host's connector is given. When the upstream answers 401 to a request that carried the
 * provider's bearer token, the token is invalidated, a fresh one is obtained (one shared
 * refresh, refresher.ts) and the same request is sent once more with it. A second 401 is the
 * connector's to map (`unauthorized`, so host health shows needs_reconnection).
 *
 * Retrying is safe for any method: a 401 means the request was refused before it was acted on.
 * A request whose body cannot be sent twice (a stream) is not retried; the token is still
 * invalidated, so the connector's next call refreshes.
 */
import { isRevokedGrant, type TokenProvider } from "./refresher.js";

const BEARER = /^Bearer (.+)$/i;

type Body = RequestInit["body"];
const replayable = (body: Body): boolean =>
  body === undefined ||
  body === null ||
  typeof body === "string" ||
  body instanceof URLSearchParams ||
  body instanceof ArrayBuffer ||
  ArrayBuffer.isView(body) ||
  body instanceof Blob;

export function retryOnceOn401(inner: typeof fetch, provider: TokenProvider): typeof fetch {
  return async (input, init) => {
    const first = await inner(input, init);
    if (first.status !== 401) return first;
    const request = input instanceof Request ? input : undefined;
    const headers = new Headers(init?.headers ?? request?.headers);
    const sent = BEARER.exec(headers.get("authorization") ?? "")?.[1];
    if (sent === undefined) return first;
    provider.invalidate(sent);
    if (request !== undefined && init?.body === undefined && request.body !== null) return first;
    if (!replayable(init?.body)) return first;
    let token: string;
    try {
      token = await provider.accessToken();
    } catch (e) {
      // Refused for good: the 401 stands and the connector maps it to unauthorized. Failed for
      // now: not a revoked credential, so this call fails as a transport failure (unavailable)
      // rather than turning the host "needs reconnection" over a token endpoint's outage.
      if (isRevokedGrant(e)) return first;
      await first.body?.cancel().catch(() => undefined);
      throw new Error("the access token was refused and could not be refreshed now", {
        cause: { code: "TOKEN_REFRESH_PENDING" },
      });
    }
    if (token === sent) return first;
    await first.body?.cancel().catch(() => undefined);
    headers.set("authorization", `Bearer ${token}`);
    return inner(request !== undefined ? request.url : input, {
      ...(request !== undefined && { method: request.method }),
      ...init,
      headers,
    });
  };
}
