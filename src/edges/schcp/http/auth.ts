/**
 * Authentication of a host-endpoint request: the request signature (SchCP §3.2), then the
 * mandate (§3.3 checks 1–4 and 7 for the host in the path) and the attester it honours (§7.5).
 * Scope and constraints (checks 5–6)
 * depend on the action and are the core's business.
 */
import type { HostRuntime } from "../../../booking/api.js";
import type { SchcpCaller } from "../caller.js";
import type { NonceMemory } from "../../../protocol/http-signatures/index.js";
import { verifySchcpRequest } from "../../../protocol/http-signatures/index.js";
import type { VerifiedRequest } from "../../../protocol/http-signatures/index.js";
import { err, ok } from "../../../protocol/result.js";
import type { Result } from "../../../protocol/result.js";
import { honouredAttester } from "../../../protocol/schcp/attestation/index.js";
import { verifyMandate } from "../../../protocol/schcp/mandate/index.js";
import type { MandateStatusPort } from "../../../protocol/schcp/mandate/index.js";
import { edgeRefusal, fromMandateRefusal, fromSignatureRefusal } from "./refusal-map.js";
import type { SchcpEdgeRefusal } from "./types.js";

export interface SignedRequestInput {
  readonly method: string;
  /** Rebuilt from the configured public origin (target-uri.ts), never from Host. */
  readonly targetUri: string;
  readonly headers: Headers;
  readonly body: Uint8Array;
  readonly nowMs: number;
  readonly nonces: NonceMemory;
}

/**
 * Repeated field lines: fetch's Headers joins them with ", ", which would hide a second
 * signature inside one value; the verifier refuses a list that parses as two signatures,
 * and a mandate or agent key joined that way fails to decode.
 */
function lookup(headers: Headers): (name: string) => string | undefined {
  return (name) => headers.get(name) ?? undefined;
}

export async function verifySignature(
  input: SignedRequestInput,
  host: HostRuntime,
): Promise<Result<VerifiedRequest, SchcpEdgeRefusal>> {
  const verified = await verifySchcpRequest({
    method: input.method,
    targetUri: input.targetUri,
    headers: lookup(input.headers),
    body: input.body,
    nowSec: Math.floor(input.nowMs / 1000),
    nonces: input.nonces,
  });
  return verified.ok ? verified : err(fromSignatureRefusal(verified.error, host.config));
}

/**
 * The Caller for the use case. `required`: a request without SchCP-Mandate is 401
 * MANDATE_INVALID (§3.3, §5.2–§5.7 "Requires a mandate"); otherwise a mandate, when sent,
 * must still verify.
 */
export async function resolveCaller(
  verified: VerifiedRequest,
  host: HostRuntime,
  nowMs: number,
  required: boolean,
  status?: MandateStatusPort,
): Promise<Result<SchcpCaller, SchcpEdgeRefusal>> {
  if (verified.mandate === undefined) {
    if (!required) return ok({ agentKey: verified.keyid });
    return err(
      edgeRefusal(
        {
          code: "MANDATE_INVALID",
          message: "this operation requires a mandate in the SchCP-Mandate header (§3.3)",
          details: { field: "SchCP-Mandate" },
        },
        host.config,
      ),
    );
  }
  const chain = await verifyMandate(verified.mandate, {
    hostId: host.config.id,
    nowSec: Math.floor(nowMs / 1000),
    requestKeyThumbprint: verified.keyid,
    allowWildcardAudience: host.config.policies.allowWildcardAudience,
    // §3.4: only a host that lists "dc+sd-jwt" in auth.mandates (host-document.ts).
    acceptSdJwt: host.config.policies.sdJwtMandates === true,
    // §3.3 check 7, per link and root first (verifyMandate); "unknown" does not refuse.
    ...(status !== undefined && { status }),
  });
  if (!chain.ok) return err(fromMandateRefusal(chain.error, host.config));
  // §7.5: the first of the root's attestations the host honours; the others, and any that fail
  // a check, are ignored, never a refusal. Its pool and reputation then apply (§7.2, §7.3).
  const attester = await honouredAttester(chain.value.root.claims.attestations, {
    principal: chain.value.principal,
    trusted: host.config.trust?.attesters ?? [],
    nowSec: Math.floor(nowMs / 1000),
  });
  return ok({
    agentKey: verified.keyid,
    mandate: chain.value,
    ...(attester !== undefined && { attester }),
  });
}
