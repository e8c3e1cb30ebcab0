/**
 * A stand-in for Square's token endpoint whose refresh tokens are single use (rotating): each
 * is accepted once and answered with a new access token and a new refresh token; a spent one
 * is refused (400 invalid_grant), as Square's PKCE grants and Microsoft's rotation behave. It
 * answers after `delayMs`, so two refreshes started together overlap.
 */
import { randomBytes } from "node:crypto";
import { parseKeyRing, type KeyRing } from "../../src/gateway/credentials/key-ring.js";
import type { TokenRecord } from "../../src/gateway/credentials/record.js";

export const SQUARE_ENDPOINT = "https://connect.squareup.com/oauth2/token";

export interface RotatingEndpoint {
  readonly fetch: typeof fetch;
  /** Every refresh asked for, accepted or not. */
  readonly calls: string[];
  /** Refresh tokens refused because they were spent already. */
  readonly refused: string[];
  /** The grant a host starts with (access token due in a minute, inside the 5-minute margin). */
  initial(now: number): TokenRecord;
}

export function rotatingEndpoint(opts: { now: () => number; delayMs?: number }): RotatingEndpoint {
  let serial = 0;
  const live = new Set<string>();
  const calls: string[] = [];
  const refused: string[] = [];
  const fetchFn = async (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(typeof init?.body === "string" ? init.body : "{}") as { refresh_token?: string };
    const spent = body.refresh_token ?? "";
    calls.push(spent);
    await new Promise((resolve) => setTimeout(resolve, opts.delayMs ?? 50));
    if (!live.delete(spent)) {
      refused.push(spent);
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    }
    serial += 1;
    const refreshToken = `REFRESH-${serial}`;
    live.add(refreshToken);
    return Response.json({
      access_token: `ACCESS-${serial}`,
      refresh_token: refreshToken,
      expires_at: new Date(opts.now() + 30 * 24 * 3_600_000).toISOString(),
    });
  };
  return {
    fetch: fetchFn,
    calls,
    refused,
    initial: (now) => {
      live.add("REFRESH-0");
      return {
        provider: "square",
        accessToken: "ACCESS-0",
        refreshToken: "REFRESH-0",
        expiresAt: now + 60_000,
        tokenEndpoint: SQUARE_ENDPOINT,
      };
    },
  };
}

export function testRing(): KeyRing {
  const ring = parseKeyRing(`k1:${randomBytes(32).toString("base64")}`);
  if (!ring.ok) throw new Error(ring.error);
  return ring.value;
}

/** A logger keeping each line as JSON text. */
export function lineLogger() {
  const lines: string[] = [];
  const log = (level: string) => (message: string, fields?: Readonly<Record<string, unknown>>) =>
    lines.push(JSON.stringify({ level, message, ...fields }));
  return { lines, logger: { info: log("info"), warn: log("warn"), error: log("error") } };
}
