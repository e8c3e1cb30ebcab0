/**
 * SD-JWT VC mandates in the agent SDK (SchCP §3.4, the AP2 credential profile): a P-256
 * principal key for key apps that keep theirs in a secure enclave or as a passkey, and the
 * agent's presenter, which discloses one host's aud element and host_constraints member and
 * ends every presentation in a fresh Key Binding JWT (agent-chosen nonce, iat now), so each
 * request carries its own. Pass the presenter as CallOptions.mandate.
 */
import { generateKeyPairSync } from "node:crypto";
import type { Clock } from "../protocol/clock.js";
import { jwkThumbprint } from "../protocol/jose/index.js";
import { randomToken } from "../protocol/random.js";
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import { presentSdJwtMandate } from "../protocol/schcp/mandate/sd-jwt/present.js";
import type { P256PublicJwk, SdJwtSigningKey } from "../protocol/schcp/mandate/sd-jwt/keys.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import type { AgentKey } from "./keys.js";

/** A principal key for §3.4 only: P-256 (ES256). Compact mandates stay Ed25519 (createAgentKey). */
export interface P256PrincipalKey extends SdJwtSigningKey {
  readonly publicJwk: P256PublicJwk;
  /** RFC 7638 thumbprint over {crv,kty,x,y}. */
  readonly thumbprint: string;
}

export function createP256PrincipalKey(): P256PrincipalKey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  if (typeof jwk.x !== "string" || typeof jwk.y !== "string") {
    throw new Error("node:crypto exported a P-256 JWK without x or y");
  }
  const publicJwk: P256PublicJwk = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  return { privateKey, publicJwk, thumbprint: jwkThumbprint(publicJwk) };
}

/**
 * Something that gives the SchCP-Mandate header value for one request. The client asks for a
 * value per request, so an SD-JWT VC mandate gets a fresh KB-JWT every time (§3.4).
 */
export interface MandatePresenter {
  present(): Result<string, AgentError>;
}

export interface SdJwtPresenterOptions {
  /** The host presented to: its id is the KB-JWT aud and picks the disclosures. */
  readonly host: string | { readonly hostId: string };
  /** The agent's key: cnf.jwk of the mandate, and the key that signs the requests (§3.2). */
  readonly agentKey: Pick<AgentKey, "privateKey" | "publicJwk">;
  /** Epoch milliseconds for the KB-JWT's iat. */
  readonly clock?: Clock;
}

/** The presenter of an issued SD-JWT (IssuedSdJwtMandate.sdJwt) at one host. */
export function sdJwtPresenter(sdJwt: string, opts: SdJwtPresenterOptions): MandatePresenter {
  const hostId = typeof opts.host === "string" ? opts.host : opts.host.hostId;
  const clock = opts.clock ?? Date;
  return {
    present() {
      const presented = presentSdJwtMandate(sdJwt, {
        hostId,
        agentKey: opts.agentKey,
        nowSec: Math.floor(clock.now() / 1000),
        // §3.4: no challenge step, so the agent chooses the nonce, fresh for each request.
        nonce: randomToken(16),
      });
      if (presented.ok) return ok(presented.value);
      return err(agentError("mandate_unusable", presented.error.message, { field: presented.error.field }));
    },
  };
}
