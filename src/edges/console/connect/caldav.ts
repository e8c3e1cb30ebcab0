/**
 * Connecting a CalDAV calendar: the server URL and credentials are checked
 * live, by the CalDAV connector's calendar discovery (RFC 6764 / RFC 4791 §6.2.1, see
 * src/connectors/caldav/discover.ts), BEFORE anything is saved; only then does the password go
 * into the (sealed) Basic credential vault. The answer lists the calendars the owner can pick.
 * The discovery is handed in by the composition root as a CaldavDiscovery
 * (src/gateway/runtime/connect-wiring.ts).
 *
 * The server is reached through the outbound address policy (src/protocol/net/policy.ts), as
 * webhooks are: a URL whose address (literal, resolved at connect time, or named by a redirect)
 * the policy refuses is answered with one uniform message and nothing is sent there, so the
 * form cannot be used to learn what listens on the gateway's own network.
 */
import { AddressRefusedError, type Resolver } from "../../../protocol/net/guarded-lookup.js";
import { PUBLIC_ONLY, UNIFORM_REFUSAL, type AddressPolicy } from "../../../protocol/net/policy.js";
import { createPolicyFetch } from "../../../protocol/net/policy-fetch.js";
import type { BasicCredentialVault } from "./basic-vault.js";
import type { Result } from "../../../protocol/result.js";

export interface CaldavCheckRequest {
  readonly serverUrl: string;
  readonly username: string;
  readonly password: string;
}

/** A calendar collection the account's server offers. */
interface CaldavCalendar {
  /** The collection's path: the calendarId (and calendarPath setting) that names it. */
  readonly calendarId: string;
  readonly displayName?: string;
  /** Component types it accepts (VEVENT is what the gateway needs). */
  readonly components: readonly string[];
  /** It offers RFC 6578 sync (incremental syncs). */
  readonly syncCollection: boolean;
}

/**
 * Why discovery listed nothing: the account's settings were refused before anything was sent
 * (`invalid`, with the message the owner reads), or the server's answer, or none (`upstream`:
 * the connector's error code, the gateway's bound it broke if any, and the HTTP status, 0 when
 * no answer came).
 */
type CaldavDiscoveryFailure =
  | { readonly kind: "invalid"; readonly message: string }
  | {
      readonly kind: "upstream";
      readonly code: string;
      readonly reason?: string;
      readonly status: number;
    };

/** The CalDAV connector's settings check and calendar discovery (RFC 6764, RFC 4791 §6.2.1). */
export interface CaldavDiscovery {
  discover(
    account: CaldavCheckRequest,
    transport: { readonly fetch: typeof fetch; readonly timeoutMs: number },
  ): Promise<Result<readonly CaldavCalendar[], CaldavDiscoveryFailure>>;
}

type CaldavCheckFailureKind = "invalid" | "refused" | "unreachable" | "unauthorized" | "not_caldav";

/** Why the check failed, and the message the owner reads. */
interface CaldavCheckFailure {
  readonly kind: CaldavCheckFailureKind;
  readonly message: string;
}

/** The account's calendars that take events, or why none could be listed. */
export type CaldavCheck = Result<readonly CaldavCalendar[], CaldavCheckFailure>;

export interface CaldavCheckDeps {
  readonly discovery: CaldavDiscovery;
  /** The transport; by default the address policy's own fetch with `policy` (and `resolver`). */
  readonly fetch?: typeof fetch;
  readonly policy?: AddressPolicy;
  readonly resolver?: Resolver;
  readonly timeoutMs?: number;
}

const failure = (kind: CaldavCheckFailureKind, message: string): CaldavCheck => ({
  ok: false,
  error: { kind, message },
});

const REFUSED: CaldavCheck = failure("refused", UNIFORM_REFUSAL);

export async function checkCaldav(req: CaldavCheckRequest, deps: CaldavCheckDeps): Promise<CaldavCheck> {
  const transport =
    deps.fetch ??
    createPolicyFetch({
      policy: deps.policy ?? PUBLIC_ONLY,
      ...(deps.resolver !== undefined && { resolver: deps.resolver }),
    });
  // A request the policy refused (nothing was sent) makes the whole check a refusal, whatever
  // else discovery tried: the answer must not tell one refused address from another.
  let refused = false;
  const watched: typeof fetch = async (input, init) => {
    try {
      return await transport(input, init);
    } catch (e) {
      if (e instanceof AddressRefusedError) refused = true;
      throw e;
    }
  };
  const found = await deps.discovery.discover(
    { serverUrl: req.serverUrl, username: req.username, password: req.password },
    { fetch: watched, timeoutMs: deps.timeoutMs ?? 15_000 },
  );
  if (refused) return REFUSED;
  if (found.ok) {
    if (found.value.length === 0)
      return failure(
        "not_caldav",
        "The server answered but offers no calendar that takes events for this account.",
      );
    return { ok: true, value: found.value };
  }
  // The settings, refused before anything was sent.
  if (found.error.kind === "invalid") return failure("invalid", found.error.message);
  const { code, reason, status } = found.error;
  if (code === "unauthorized")
    return failure("unauthorized", "The CalDAV server refused this username and password.");
  // An answer that broke the gateway's bounds (connectors/http/limits.ts): said as such, at once.
  if (reason !== undefined)
    return failure(
      "not_caldav",
      reason === "upstream_too_large"
        ? "The server answered with far more data than a CalDAV discovery answer holds: check the server URL (your provider's CalDAV address)."
        : "The server's answer could not be read as CalDAV within the gateway's limits: check the server URL (your provider's CalDAV address).",
    );
  // No answer at all (refused connection, DNS, timeout): nothing upstream to report a status.
  if ((code === "unavailable" || code === "timeout") && status === 0)
    return failure(
      "unreachable",
      "The CalDAV server could not be reached; check the server URL and that it is online.",
    );
  return failure(
    "not_caldav",
    "The server answered, but not as a CalDAV server: check the server URL (your provider's CalDAV address).",
  );
}

/** Checks first; saves the credentials only when discovery found calendars. */
export async function connectCaldav(
  hostId: string,
  req: CaldavCheckRequest,
  vault: BasicCredentialVault,
  deps: CaldavCheckDeps,
): Promise<CaldavCheck> {
  const checked = await checkCaldav(req, deps);
  if (!checked.ok) return checked;
  const serverUrl = new URL(req.serverUrl).href;
  await vault.put(hostId, { kind: "basic", serverUrl, username: req.username, password: req.password });
  return checked;
}
