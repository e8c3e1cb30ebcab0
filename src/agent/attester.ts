/**
 * An attester (SchCP §7.5): it checks something scarce about a person (a phone number, a
 * payment card, an ID document) and signs a statement binding that check to one principal key.
 * A host honours the statement only if it lists the attester in its trust.attesters with this
 * key (§2.1), so trustEntry() is what the attester hands to the hosts that choose to trust it.
 *
 * The key app carries the attestation in the root mandate's attestations (§3.3; KeyApp's
 * attestations option). This is the signing half only: how the attester checks the person is
 * its own business.
 */
import type { Clock } from "../protocol/clock.js";
import type { Ed25519PublicJwk } from "../protocol/jose/index.js";
import { signAttestation } from "../protocol/schcp/attestation/index.js";
import type { SigningKey } from "../protocol/schcp/mandate/index.js";
import type { AttestationClaims } from "../protocol/schcp/types.js";
import { createAgentKey } from "./keys.js";

export interface AttesterOptions {
  /** The attester's id: iss of what it signs, and its id in a host's trust.attesters (§7.5). */
  readonly id: string;
  /** Its Ed25519 signing key; a fresh one when absent (keep it: hosts list its public half). */
  readonly key?: SigningKey;
  /** Put in each attestation's JWS header, to say which of the attester's keys signed it. */
  readonly kid?: string;
  /** Epoch milliseconds (iat, exp). */
  readonly clock?: Clock;
}

export interface AttestRequest {
  /** The principal the check is about: its id (urn:schcp:principal:jwk-thumbprint:…), the mandate's iss. */
  readonly principal: string;
  /** What was checked, e.g. "unique_phone". */
  readonly assurance: string;
  /** Lifetime in seconds from now (default 30 days). */
  readonly ttlSec?: number;
  /** Absolute exp (Unix seconds), instead of ttlSec. */
  readonly exp?: number;
}

/** A host's trust.attesters entry for this attester (§2.1). */
export interface TrustEntry {
  readonly id: string;
  readonly name?: string;
  readonly keys: Ed25519PublicJwk[];
}

const DEFAULT_TTL_SEC = 30 * 86_400;

export class Attester {
  readonly id: string;
  readonly key: SigningKey;
  private readonly kid: string | undefined;
  private readonly clock: Clock;

  constructor(opts: AttesterOptions) {
    this.id = opts.id;
    this.key = opts.key ?? createAgentKey();
    this.kid = opts.kid;
    this.clock = opts.clock ?? Date;
  }

  /** What a host writes in its config's trust.attesters to honour this attester. */
  trustEntry(name?: string): TrustEntry {
    return {
      id: this.id,
      ...(name !== undefined && { name }),
      keys: [{ ...this.key.publicJwk, ...(this.kid !== undefined && { kid: this.kid }) }],
    };
  }

  /** A compact JWS, typ schcp-attestation+jwt, over {iss, sub, iat, exp, assurance} (§7.5). */
  attest(req: AttestRequest): Promise<string> {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: AttestationClaims = {
      iss: this.id,
      sub: req.principal,
      iat,
      exp: req.exp ?? iat + (req.ttlSec ?? DEFAULT_TTL_SEC),
      assurance: req.assurance,
    };
    return signAttestation(claims, this.key.privateKey, { ...(this.kid !== undefined && { kid: this.kid }) });
  }
}
