/**
 * SchCP §5.8 at the request: a callback_url no delivery could ever reach (not https,
 * credentials in it, a literal private, loopback, link-local or otherwise non-public
 * address) is refused with 400 INVALID_REQUEST naming /callback_url, rather than accepted
 * and then refused at every delivery. The rule is the transport's own
 * (src/jobs/outbound/callback-url.ts); a host NAME stays accepted, since only the
 * connect-time check can judge what it resolves to.
 */
import type { HostConfig } from "../../../booking/api.js";
import { checkCallbackUrl } from "../../../jobs/outbound/callback-url.js";
import { edgeRefusal } from "./refusal-map.js";
import type { SchcpEdgeRefusal } from "./types.js";

export function refuseCallbackUrl(
  body: unknown,
  host: HostConfig,
  allowPrivateForTests: boolean,
): SchcpEdgeRefusal | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const raw = (body as { callback_url?: unknown }).callback_url;
  if (typeof raw !== "string") return undefined;
  const checked = checkCallbackUrl(raw, { allowPrivateForTests });
  if (checked.ok) return undefined;
  return edgeRefusal(
    {
      code: "INVALID_REQUEST",
      message: `callback_url can never be delivered to: ${checked.error.message} (§5.8)`,
      details: { field: "/callback_url" },
    },
    host,
  );
}
