/**
 * Turning an edge's decided answer into HTTP. JSON is serialized once, here, so a stored
 * idempotent answer replays byte for byte (SchCP §9.1). The refusal's body is the edge's own
 * (SchCP's refusal shape for the host endpoint and the operator API, SchCP §9.2): the kit only
 * writes it out, with Retry-After beside it.
 */

/** A response the edge has decided on: the exact body bytes as a string (so replays are identical). */
export interface EdgeResponse {
  readonly status: number;
  readonly body: string;
  /** Seconds for Retry-After (SchCP §7.2, §9.2 retry.after). */
  readonly retryAfterSec?: number;
}

/** A refusal decided at the edge, before it is serialized; `Body` is the edge's refusal shape. */
export interface EdgeRefusal<Body = unknown> {
  readonly status: number;
  readonly body: Body;
  readonly retryAfterSec?: number;
}

const JSON_TYPE = "application/json";

export function toHttp(response: EdgeResponse): Response {
  const headers = new Headers({ "content-type": JSON_TYPE });
  if (response.retryAfterSec !== undefined) headers.set("retry-after", String(response.retryAfterSec));
  return new Response(response.body, { status: response.status, headers });
}

export function jsonResponse(status: number, body: unknown): EdgeResponse {
  return { status, body: JSON.stringify(body) };
}

export function refusalResponse(r: EdgeRefusal): EdgeResponse {
  const out = { status: r.status, body: JSON.stringify(r.body) };
  return r.retryAfterSec === undefined ? out : { ...out, retryAfterSec: r.retryAfterSec };
}
