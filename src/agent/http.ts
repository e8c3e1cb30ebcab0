/**
 * The SDK's one way of reading an answer: the bytes, bounded, parsed with the strict JSON
 * parser (SchCP §3.1: a duplicate member makes a signed or protocol JSON invalid, so two
 * parsers can never read different terms), the SchCP-Version header checked (§3.1), then the
 * body validated against the closed schema of what the operation returns, or the Refusal
 * shape (§9.2) for an error status.
 */
import { parseStrictJson } from "../protocol/json/index.js";
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import { validateSchcp } from "../protocol/schcp/validate.js";
import type { SchcpTypeOf, SchemaName } from "../protocol/schcp/validate.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export const SCHCP_VERSION = "0.4";
/** Larger answers are refused unread: no SchCP message comes near this. */
export const MAX_RESPONSE_BYTES = 1 << 20;

/** A successful answer: its status, its headers and its validated body. */
export interface Reply<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export async function send(
  fetchFn: FetchLike,
  url: string,
  init: RequestInit,
): Promise<Result<Response, AgentError>> {
  try {
    return ok(await fetchFn(url, init));
  } catch (e) {
    // undici puts the reason (ECONNREFUSED, a TLS error) in cause; "fetch failed" alone says little.
    const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why =
      typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : "";
    const message = `${init.method ?? "GET"} ${url} failed: ${(e as Error).message}${why === "" ? "" : ` (${why})`}`;
    return err(agentError("network", message));
  }
}

/** The strictly parsed JSON body of a response, however it is shaped. */
export async function readStrictJson(res: Response): Promise<Result<unknown, AgentError>> {
  const status = res.status;
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    return err(agentError("network", `reading the answer failed: ${(e as Error).message}`, { status }));
  }
  if (bytes.length > MAX_RESPONSE_BYTES) {
    return err(
      agentError("invalid_response", `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`, { status }),
    );
  }
  const parsed = parseStrictJson(bytes, "");
  if (!parsed.ok) {
    const { field, message } = parsed.error;
    return err(
      agentError("invalid_response", `the answer is not strict JSON: ${message}`, { status, field }),
    );
  }
  return ok(parsed.value);
}

/**
 * A host-endpoint answer: a 2xx body that matches `schema`, or the host's refusal. Anything
 * else is invalid_response, which an agent MUST NOT act on (§5.2, §5.3 "MUST refuse").
 */
export async function readSchcpAnswer<N extends SchemaName>(
  res: Response,
  schema: N,
): Promise<Result<Reply<SchcpTypeOf<N>>, AgentError>> {
  const status = res.status;
  const version = res.headers.get("schcp-version");
  const json = await readStrictJson(res);
  if (version !== SCHCP_VERSION) {
    return err(
      agentError(
        "invalid_response",
        `SchCP-Version is ${JSON.stringify(version)}, not "${SCHCP_VERSION}" (§3.1)`,
        {
          status,
          field: "SchCP-Version",
        },
      ),
    );
  }
  if (!json.ok) return json;
  if (status >= 200 && status < 300) {
    const valid = validateSchcp(schema, json.value);
    if (!valid.ok) {
      return err(
        agentError("invalid_response", `the host's ${schema} fails the schema: ${valid.error.message}`, {
          status,
          field: valid.error.field,
        }),
      );
    }
    return ok({ status, headers: res.headers, body: valid.value });
  }
  const refusal = validateSchcp("Refusal", json.value);
  if (!refusal.ok) {
    return err(
      agentError("invalid_response", `HTTP ${status} without a valid refusal: ${refusal.error.message}`, {
        status,
        field: refusal.error.field,
      }),
    );
  }
  const { error } = refusal.value;
  const retryAfterSec = retryAfterSeconds(res.headers.get("retry-after"));
  return err(
    agentError("refusal", error.message, {
      status,
      refusal: error,
      ...(retryAfterSec !== undefined && { retryAfterSec }),
    }),
  );
}

/** Retry-After as delay-seconds (RFC 9110 §10.2.3); an HTTP-date form is ignored. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null || !/^[0-9]{1,9}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

const LOOPBACK = /^(?:127(?:\.[0-9]{1,3}){3}|\[::1\]|localhost)$/i;

/** https always; plain http only to loopback unless the caller allows it (§3.1 "JSON over HTTPS"). */
export function checkUrl(value: string, allowHttp: HttpPolicy): Result<URL, AgentError> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return err(agentError("invalid_url", `not a URL: ${JSON.stringify(value)}`));
  }
  if (url.username !== "" || url.password !== "") {
    return err(agentError("invalid_url", `credentials in a URL are never sent: ${url.host}`));
  }
  if (url.protocol === "https:") return ok(url);
  if (
    url.protocol === "http:" &&
    (allowHttp === "always" || (allowHttp === "loopback" && LOOPBACK.test(url.hostname)))
  ) {
    return ok(url);
  }
  return err(
    agentError("invalid_url", `SchCP runs over HTTPS (§3.1); refusing ${url.protocol}//${url.host}`),
  );
}

/** Plain http: "loopback" (the default: local gateways and tests), "always" or "never". */
export type HttpPolicy = "loopback" | "always" | "never";
