/**
 * GET /metrics, the Prometheus scrape (docs/ARCHITECTURE.md, Metrics), mounted by the HTTP app
 * beside /healthz. Its counts are business data (bookings, approvals, which upstreams fail), so
 * it answers only the operator's bearer credential, as the operator API does, unless the
 * operator opened it (METRICS=on: a scrape from a private network that reaches this port alone).
 */
import { operatorCredentialMatches } from "../../edges/operator/operator-auth.js";

/** Who may read /metrics: "token" (default), anyone ("on"), or no route at all ("off"). */
export type MetricsAccess = "token" | "on" | "off";

export interface MetricsEndpoint {
  /** Anyone may read it (METRICS=on); else only with the operator's bearer credential. */
  readonly open: boolean;
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

const UNAUTHORIZED = JSON.stringify({
  error: { code: "UNAUTHORIZED", message: "/metrics needs Authorization: Bearer <operator credential>" },
});

/** The scrape's answer: 401 without the credential (when it is needed), else the exposition. */
export async function answerScrape(
  endpoint: MetricsEndpoint,
  authorization: string | undefined,
  operatorToken: string,
): Promise<Response> {
  if (!endpoint.open && !operatorCredentialMatches(authorization ?? null, operatorToken)) {
    return new Response(UNAUTHORIZED, {
      status: 401,
      headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="metrics"' },
    });
  }
  const { contentType, body } = await endpoint.scrape();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
