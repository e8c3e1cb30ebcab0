/**
 * RFC 9421 §2.5 signature base for requests: derived components (§2.2) and HTTP fields
 * (§2.1) without component parameters, which neither SchCP §3.2 nor the RFC's
 * Appendix B.2.6/B.4 vectors use. An identifier with parameters is refused, not ignored.
 */
import { err, fieldError, ok } from "../result.js";
import type { Result } from "../result.js";

/** The parts of a request a signature can cover. `targetUri` is absolute. */
export interface HttpMessageView {
  readonly method: string;
  readonly targetUri: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

const DERIVED = new Set([
  "@method",
  "@target-uri",
  "@authority",
  "@scheme",
  "@request-target",
  "@path",
  "@query",
]);
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * Builds the signature base: one `"<id>": <value>` line per component, then the
 * "@signature-params" line, joined by "\n" with none at the end (RFC 9421 §2.5).
 */
export function buildSignatureBase(
  components: readonly string[],
  signatureParams: string,
  message: HttpMessageView,
): Result<string> {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const id of components) {
    // §2.5: a component may appear only once, and @signature-params only as the last line.
    if (seen.has(id)) return err(fieldError("duplicate_component", id, `component "${id}" is covered twice`));
    seen.add(id);
    const value = componentValue(id, message);
    if (!value.ok) return value;
    if (/[\r\n]/.test(value.value)) {
      return err(fieldError("invalid_component", id, `component "${id}" contains a line break`));
    }
    lines.push(`"${id}": ${value.value}`);
  }
  lines.push(`"@signature-params": ${signatureParams}`);
  return ok(lines.join("\n"));
}

/** The canonical value of one component identifier (RFC 9421 §2.1, §2.2). */
export function componentValue(id: string, message: HttpMessageView): Result<string> {
  if (id.startsWith("@")) {
    if (!DERIVED.has(id))
      return err(fieldError("unsupported_component", id, `unknown derived component ${id}`));
    if (id === "@method") return ok(message.method);
    if (id === "@target-uri") return ok(message.targetUri);
    let url: URL;
    try {
      url = new URL(message.targetUri);
    } catch {
      return err(fieldError("invalid_target_uri", id, "the target URI is not an absolute URI"));
    }
    switch (id) {
      case "@authority": // §2.2.3: lower-case host, default port omitted (WHATWG URL does both)
        return ok(url.host);
      case "@scheme":
        return ok(url.protocol.slice(0, -1));
      case "@request-target":
        return ok(url.pathname + url.search);
      case "@path":
        return ok(url.pathname === "" ? "/" : url.pathname);
      default: // "@query": §2.2.7, "?" when there is no query
        return ok(url.search === "" ? "?" : url.search);
    }
  }
  if (!FIELD_NAME.test(id)) {
    return err(fieldError("unsupported_component", id, `component "${id}" is not a lower-case field name`));
  }
  // §2.1: every field line with that name, in order, trimmed and joined with ", ".
  const values = message.headers.filter(([name]) => name.toLowerCase() === id).map(([, v]) => trimOws(v));
  if (values.length === 0) return err(fieldError("missing_component", id, `covered field "${id}" is absent`));
  return ok(values.join(", "));
}

/** Strips leading and trailing OWS (SP / HTAB, RFC 9110 §5.6.3), nothing else. */
export function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}
