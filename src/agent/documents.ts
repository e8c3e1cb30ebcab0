/**
 * Fetching SchCP documents as an agent does (§2.1, §2.3, §3.1): a plain unsigned GET (§3.2),
 * status 200, the SchCP-Version header and "schcp": "0.4" checked, strict JSON, and the
 * document's schema (open: members an agent does not know are ignored, §2.1).
 */
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import type { OperatorDocument } from "../protocol/schcp/types.js";
import { validateSchcp } from "../protocol/schcp/validate.js";
import type { SchcpTypeOf } from "../protocol/schcp/validate.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import { checkUrl, readStrictJson, SCHCP_VERSION, send } from "./http.js";
import type { FetchLike, HttpPolicy } from "./http.js";

export interface DiscoveredOperator {
  readonly url: string;
  readonly document: OperatorDocument;
}

export interface DiscoveryIo {
  readonly fetch: FetchLike;
  readonly allowHttp: HttpPolicy;
}

export const OPERATOR_DOCUMENT_PATH = "/.well-known/scheduling.json";

/** GET {origin}/.well-known/scheduling.json (§2.3). */
export async function discoverOperator(
  io: DiscoveryIo,
  origin: string,
): Promise<Result<DiscoveredOperator, AgentError>> {
  const base = checkUrl(origin, io.allowHttp);
  if (!base.ok) return base;
  const url = new URL(OPERATOR_DOCUMENT_PATH, base.value.origin).href;
  const doc = await fetchDocument(io, url, "OperatorDocument");
  if (!doc.ok) return doc;
  return ok({ url, document: doc.value });
}

export async function fetchDocument<N extends "OperatorDocument" | "DiscoveryDocument">(
  io: DiscoveryIo,
  url: string,
  schema: N,
): Promise<Result<SchcpTypeOf<N>, AgentError>> {
  // §3.2: discovery and operator documents are fetched with a plain, unsigned GET.
  const res = await send(io.fetch, url, { method: "GET", headers: { accept: "application/json" } });
  if (!res.ok) return res;
  const status = res.value.status;
  if (status !== 200) {
    await res.value.body?.cancel();
    return err(agentError("invalid_discovery", `GET ${url} answered ${status}`, { status }));
  }
  const version = res.value.headers.get("schcp-version");
  const json = await readStrictJson(res.value);
  if (!json.ok) return err({ ...json.error, code: "invalid_discovery" });
  if (version !== SCHCP_VERSION) {
    return err(
      agentError(
        "invalid_discovery",
        `SchCP-Version is ${JSON.stringify(version)}, not "${SCHCP_VERSION}" (§3.1)`,
        {
          status,
          field: "SchCP-Version",
        },
      ),
    );
  }
  const body = json.value as { schcp?: unknown } | null;
  if (typeof body !== "object" || body === null || body.schcp !== SCHCP_VERSION) {
    return err(
      agentError("invalid_discovery", `the document is not for SchCP ${SCHCP_VERSION} (§3.1)`, {
        status,
        field: "/schcp",
      }),
    );
  }
  const valid = validateSchcp(schema, asHttpsForSchema(json.value, io.allowHttp));
  if (!valid.ok) {
    return err(agentError("invalid_discovery", valid.error.message, { status, field: valid.error.field }));
  }
  // The document as served; only its validation saw the allowed http URLs as https.
  return ok(json.value as SchcpTypeOf<N>);
}

/**
 * The schemas require https for endpoint and discovery URLs (§3.1). A gateway run locally
 * (npm start, tests) publishes http://127.0.0.1:… instead; when the caller's HttpPolicy allows
 * such a URL anyway (loopback by default, never under "never"), it is checked as if it were
 * https, so every other rule of the schema still applies to the document.
 */
function asHttpsForSchema(doc: unknown, allowHttp: HttpPolicy): unknown {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return doc;
  const upgrade = (u: unknown): unknown =>
    typeof u === "string" && u.startsWith("http://") && checkUrl(u, allowHttp).ok
      ? `https://${u.slice(7)}`
      : u;
  const copy = { ...(doc as Record<string, unknown>) };
  if ("endpoint" in copy) copy["endpoint"] = upgrade(copy["endpoint"]);
  if (Array.isArray(copy["hosts"])) {
    copy["hosts"] = copy["hosts"].map((h: unknown) =>
      typeof h === "object" && h !== null && !Array.isArray(h)
        ? {
            ...(h as Record<string, unknown>),
            discovery: upgrade((h as Record<string, unknown>)["discovery"]),
          }
        : h,
    );
  }
  return copy;
}
