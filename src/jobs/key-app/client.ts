/**
 * The principal's key app as a host reaches it (SchCP §3.3): GET {status} for check 7 (the
 * revocation status, and "remaining" beside it), POST {status}/claims to claim one booking of
 * a shared booking limit, DELETE {status}/claims/{claim_id} to give one back.
 *
 * §3.3 "Status URLs": a host fetches status URLs on a caller's behalf, so every request goes
 * through the same outbound transport as webhook callbacks (§5.8, ../outbound/public-fetch.ts):
 * the address actually connected is checked, redirects are not followed, the exchange is timed
 * out and the answer read up to a byte bound.
 *
 * Every failure is an answer here, never a throw: a status the key app does not give is
 * "unknown" (revocation is best effort), a claim it does not answer is "no_answer".
 */
import type { PublicFetch } from "../outbound/public-fetch.js";

export type KeyAppStatusValue = "active" | "revoked" | "unknown";

export interface KeyAppStatus {
  readonly status: KeyAppStatusValue;
  /** Bookings left under a shared booking limit, when the key app says (§3.3). */
  readonly remaining?: number;
}

/** POST {status}/claims: 201 claimed, 200 already held, 409 none left (§3.3). */
export type ClaimAnswer = "claimed" | "already_held" | "none_left" | "refused" | "no_answer";

export interface KeyAppClient {
  status(statusUrl: string): Promise<KeyAppStatus>;
  claim(statusUrl: string, claimId: string): Promise<ClaimAnswer>;
  /** DELETE {status}/claims/{claim_id}: true when the key app took it back (2xx, or 404: not held). */
  giveBack(statusUrl: string, claimId: string): Promise<boolean>;
}

export interface KeyAppClientOptions {
  /** The outbound transport, built with its own timeouts and byte bound (public-fetch.ts). */
  readonly fetch: PublicFetch;
  readonly userAgent?: string;
}

/** {status}/claims, the status URL taken as given (one trailing slash dropped). */
function claimsUrl(statusUrl: string): string {
  return `${statusUrl.replace(/\/$/, "")}/claims`;
}

/** {status}/claims/{claim_id}, the id expanded as an RFC 6570 simple string ("/" is %2F). */
export function claimUrl(statusUrl: string, claimId: string): string {
  return `${claimsUrl(statusUrl)}/${encodeURIComponent(claimId)}`;
}

/** The GET {status} answer: a JSON object with status "active" or "revoked", remaining beside it. */
export function readStatusAnswer(status: number, body: Uint8Array, truncated: boolean): KeyAppStatus {
  if (status < 200 || status >= 300 || truncated) return { status: "unknown" };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return { status: "unknown" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { status: "unknown" };
  const o = value as Record<string, unknown>;
  const said = o["status"];
  if (said !== "active" && said !== "revoked") return { status: "unknown" };
  const remaining = o["remaining"];
  return {
    status: said,
    ...(typeof remaining === "number" && Number.isInteger(remaining) && remaining >= 0 && { remaining }),
  };
}

export function createKeyAppClient(options: KeyAppClientOptions): KeyAppClient {
  const headers = { accept: "application/json", "user-agent": options.userAgent ?? "booking-gateway" };
  const send = options.fetch;
  return {
    async status(statusUrl) {
      const res = await send({ method: "GET", url: statusUrl, headers });
      if (!res.ok) return { status: "unknown" };
      return readStatusAnswer(res.value.status, res.value.body, res.value.truncated);
    },

    async claim(statusUrl, claimId) {
      const body = new TextEncoder().encode(JSON.stringify({ claim_id: claimId }));
      const res = await send({
        method: "POST",
        url: claimsUrl(statusUrl),
        headers: { ...headers, "content-type": "application/json" },
        body,
      });
      if (!res.ok) return "no_answer";
      switch (res.value.status) {
        case 201:
          return "claimed";
        case 200:
          return "already_held";
        case 409:
          return "none_left";
        default:
          return res.value.status >= 500 ? "no_answer" : "refused";
      }
    },

    async giveBack(statusUrl, claimId) {
      const res = await send({ method: "DELETE", url: claimUrl(statusUrl, claimId), headers });
      if (!res.ok) return false;
      const s = res.value.status;
      return (s >= 200 && s < 300) || s === 404;
    },
  };
}
