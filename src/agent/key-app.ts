/**
 * What a principal's key app does (SchCP §3.3, §5.3): it holds the principal key and signs
 * mandates for an agent key, and it alone turns an offer into words and a closed mandate.
 *
 * The consent trust boundary (§5.3): the text shown and the hash signed come from the same
 * offer bytes, which the key app verifies itself against the discovery keys. There is no
 * "sign this hash" here: closedMandate takes the offer's compact JWS, never a hash, so an
 * agent that edits the offer gets a signature over different bytes, which the host refuses.
 */
import type { Clock } from "../protocol/clock.js";
import { randomBytes } from "node:crypto";
import { jwkThumbprint, principalUrn } from "../protocol/jose/index.js";
import type { Ed25519PublicJwk } from "../protocol/jose/index.js";
import { encodeBase64Url } from "../protocol/json/index.js";
import { ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import { renderConsentText } from "../protocol/schcp/consent/index.js";
import { issueMandate } from "../protocol/schcp/mandate/issue.js";
import type { SigningKey } from "../protocol/schcp/mandate/issue.js";
import { issueSdJwtMandate } from "../protocol/schcp/mandate/sd-jwt/issue.js";
import type { IssuedSdJwtMandate } from "../protocol/schcp/mandate/sd-jwt/issue.js";
import type { SdJwtSigningKey } from "../protocol/schcp/mandate/sd-jwt/keys.js";
import type { VerifiedOffer } from "../protocol/schcp/offer/index.js";
import { verifyOffer } from "../protocol/schcp/offer/index.js";
import type {
  ConsentMode,
  Contact,
  MandateClaims,
  MandateConstraints,
  MandateScope,
  OfferClaims,
} from "../protocol/schcp/types.js";
import { parseInstant } from "../protocol/time/index.js";
import { agentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import type { AgentKey } from "./keys.js";
import type { HostKeys, VerifiedBooking } from "./verify.js";
import { signMeetingContract, signPersonAcceptance, signRule } from "./meeting.js";
import type {
  MeetingContractRequest,
  RuleRequest,
  SignedAcceptance,
  SignedMeetingContract,
  SignedRule,
} from "./meeting.js";

/** The agent a mandate is for: its key, public JWK or thumbprint (cnf.jkt, §3.3 check 4). */
export type AgentRef = string | Ed25519PublicJwk | Pick<AgentKey, "thumbprint">;

export interface KeyAppOptions {
  /**
   * Ed25519 (createAgentKey) signs every kind of mandate. A P-256 key (createP256PrincipalKey)
   * is allowed by SD-JWT VC mandates only (§3.4 "Keys"): the compact ones throw with it.
   */
  readonly principalKey: SigningKey | SdJwtSigningKey;
  /** Epoch milliseconds (iat, exp). */
  readonly clock?: Clock;
  /** The principal's pseudonym at hosts (sub, §3.3); derived from the key when absent. */
  readonly sub?: string;
  readonly contact?: Contact;
  /**
   * Attestations about the principal key (§7.5, an Attester's attest()), carried in every
   * root mandate this key app issues unless a request names its own; at most four (§3.3).
   */
  readonly attestations?: readonly string[];
}

export interface IssuedMandate {
  readonly compact: string;
  readonly jti: string;
  readonly claims: Omit<MandateClaims, "iss" | "principal_jwk">;
}

export interface MandateRequest {
  readonly agent: AgentRef;
  /** A host id or a list of them (§3.3 "One consent, several hosts"); never "*" by default. */
  readonly audience: string | readonly string[];
  readonly scope: readonly MandateScope[];
  readonly constraints?: MandateConstraints;
  /** Lifetime in seconds from now (default one hour: short exp is the primary control, §3.3). */
  readonly ttlSec?: number;
  /** Absolute exp (Unix seconds), instead of ttlSec. */
  readonly exp?: number;
  readonly consent?: { readonly mode: ConsentMode; readonly statement?: string };
  readonly contact?: Contact;
  readonly status?: string;
  readonly jti?: string;
  /** Attestations for this mandate (§7.5), instead of the key app's own; [] for none. */
  readonly attestations?: readonly string[];
}

/** An SD-JWT VC mandate (§3.4) for one or more hosts, each with its own host_constraints. */
export interface SdJwtMandateRequest {
  /** The agent's Ed25519 key, bound as cnf.jwk (the full public key, not its thumbprint). */
  readonly agent: Ed25519PublicJwk | Pick<AgentKey, "publicJwk">;
  /**
   * One member per host, possibly {}: what only that host applies (a price ceiling there, its
   * own services). The host ids are the aud list; each host sees only its own (§3.4).
   */
  readonly hosts: Readonly<Record<string, MandateConstraints>>;
  readonly scope: readonly MandateScope[];
  /** Constraints every host applies; a name may not also be in a host's member. */
  readonly constraints?: MandateConstraints;
  readonly ttlSec?: number;
  readonly exp?: number;
  readonly consent?: { readonly mode: ConsentMode; readonly statement?: string };
  readonly contact?: Contact;
  /** Revocation URL, schcp_status in the credential (§3.4; status in §3.3). */
  readonly status?: string;
  readonly jti?: string;
  /** Pad aud and host_constraints to this many digests with decoys (default 8, §3.4 SHOULD). */
  readonly padTo?: number;
}

export interface IssuedSdJwt extends IssuedSdJwtMandate {
  readonly jti: string;
}

/** A mandate whose max_bookings is one limit across every host it names (§3.3). */
export interface SharedLimitMandateRequest extends MandateRequest {
  readonly audience: readonly string[];
  /** constraints.max_bookings, shared across the hosts. */
  readonly maxBookings: number;
  /** The status URL hosts claim bookings at (required: a link without one is refused, §3.3). */
  readonly status: string;
}

/** The words the person reads, and the verified offer they are about. */
export interface OfferConsent {
  readonly text: string;
  readonly offer: VerifiedOffer;
}

export interface ClosedMandate extends IssuedMandate {
  readonly consentText: string;
  readonly offer: VerifiedOffer;
}

/** Discovery as the key app needs it: the keys, the host id, and the domain it verified (§5.2). */
export type OfferSource = HostKeys & { readonly consentDomain: string | null };

const DEFAULT_TTL_SEC = 3600;
const CLOSED_TTL_SEC = 900;
/** §3.3 Renewal: "the reference key app uses the booking's end plus one hour". */
const MANAGEMENT_GRACE_SEC = 3600;

export class KeyApp {
  /** The self-certifying principal id: iss of every mandate (§3.3 check 1). */
  readonly principal: string;
  private readonly key: SigningKey | SdJwtSigningKey;
  private readonly clock: Clock;
  private readonly sub: string;
  private readonly contact: Contact | undefined;
  private readonly attestations: readonly string[];

  constructor(opts: KeyAppOptions) {
    this.attestations = checkedAttestations(opts.attestations ?? []);
    this.key = opts.principalKey;
    const thumbprint = jwkThumbprint(opts.principalKey.publicJwk);
    this.principal = principalUrn(thumbprint);
    this.clock = opts.clock ?? Date;
    this.sub = opts.sub ?? `principal-${thumbprint.slice(0, 12)}`;
    this.contact = opts.contact;
  }

  /** An open mandate: what the agent may agree to, within its scope and constraints (§3.3). */
  async issueMandate(req: MandateRequest): Promise<IssuedMandate> {
    const iat = Math.floor(this.clock.now() / 1000);
    const jti = req.jti ?? `m-${encodeBase64Url(randomBytes(12))}`;
    const contact = req.contact ?? this.contact;
    const attestations =
      req.attestations === undefined ? this.attestations : checkedAttestations(req.attestations);
    const claims: Omit<MandateClaims, "iss" | "principal_jwk"> = {
      sub: this.sub,
      aud: typeof req.audience === "string" ? req.audience : [...req.audience],
      iat,
      exp: req.exp ?? iat + (req.ttlSec ?? DEFAULT_TTL_SEC),
      jti,
      cnf: { jkt: agentThumbprint(req.agent) },
      scope: [...req.scope],
      ...(req.constraints !== undefined && { constraints: req.constraints }),
      ...(req.consent !== undefined && { consent: { ...req.consent } }),
      ...(contact !== undefined && { contact }),
      ...(req.status !== undefined && { status: req.status }),
      // §3.3: on the root only, which is every mandate a key app signs.
      ...(attestations.length > 0 && { attestations: [...attestations] }),
    };
    return { compact: await issueMandate(claims, this.ed25519Key()), jti, claims };
  }

  /**
   * An SD-JWT VC mandate (§3.4) naming every host in req.hosts, each with its own
   * host_constraints member, aud and host_constraints padded with decoys. The agent presents it
   * to one host at a time with sdJwtPresenter. Throws for what §3.4 forbids the issuer: a
   * wildcard, a constraint both shared and in a member, a closed mandate for several hosts.
   */
  issueSdJwtMandate(req: SdJwtMandateRequest): IssuedSdJwt {
    const iat = Math.floor(this.clock.now() / 1000);
    const jti = req.jti ?? `m-${encodeBase64Url(randomBytes(12))}`;
    const contact = req.contact ?? this.contact;
    const issued = issueSdJwtMandate(
      {
        sub: this.sub,
        iat,
        exp: req.exp ?? iat + (req.ttlSec ?? DEFAULT_TTL_SEC),
        jti,
        cnfJwk: "publicJwk" in req.agent ? req.agent.publicJwk : req.agent,
        scope: [...req.scope],
        ...(req.constraints !== undefined && { constraints: req.constraints }),
        hosts: req.hosts,
        ...(req.consent !== undefined && { consent: { ...req.consent } }),
        ...(contact !== undefined && { contact }),
        ...(req.status !== undefined && { schcp_status: req.status }),
      },
      this.key,
      req.padTo === undefined ? {} : { padTo: req.padTo },
    );
    return { ...issued, jti };
  }

  /** Compact mandates (§3.3) are Ed25519 only (§3.4 "Keys"). */
  private ed25519Key(): SigningKey {
    const key = this.key;
    if (key.publicJwk.kty !== "OKP") {
      throw new TypeError(
        "a P-256 principal key signs SD-JWT VC mandates only (§3.4); use issueSdJwtMandate",
      );
    }
    return { privateKey: key.privateKey, publicJwk: key.publicJwk };
  }

  /**
   * One consent for several hosts with one booking limit across them (§3.3 "One consent, several
   * hosts"): aud lists the hosts, constraints.max_bookings is shared (shared_limit: true), and
   * status names the key app's status URL, where hosts claim each booking before confirming
   * and give it back when it will not happen (KeyAppStatusService serves it).
   */
  async issueSharedLimitMandate(req: SharedLimitMandateRequest): Promise<IssuedMandate> {
    return this.issueMandate({
      ...req,
      constraints: { ...req.constraints, max_bookings: req.maxBookings, shared_limit: true },
    });
  }

  /**
   * Verifies the offer bytes against the discovery keys and renders them as the person reads
   * them (§5.2, §5.3), with the domain discovery verified (never the offer's own claim).
   */
  async consentFor(offerCompact: string, source: OfferSource): Promise<Result<OfferConsent, AgentError>> {
    const offer = await verifyOffer(offerCompact, source.keys, { expectedIss: source.hostId });
    if (!offer.ok) {
      return {
        ok: false,
        error: agentError("offer_invalid", offer.error.message, { field: offer.error.field }),
      };
    }
    return ok({ text: this.renderConsentText(offer.value.claims, source.consentDomain), offer: offer.value });
  }

  /** The consent text of verified offer claims (§5.2 "Key apps SHOULD render…"). */
  renderConsentText(claims: OfferClaims, discoveredDomain: string | null): string {
    return renderConsentText(claims, { discoveredDomain });
  }

  /**
   * A closed mandate for exactly this offer (§5.3): constraints.offer_sha256 its hash, the
   * window its slot (its start for both ends when open-ended, §3.3 check 6), max_price its
   * total when it states one, scope book (reschedule for a change offer), aud its host. The
   * consent text goes in consent.statement, so the mandate records what the person read.
   */
  async closedMandate(
    offerCompact: string,
    source: OfferSource,
    opts: { readonly agent: AgentRef; readonly mode?: ConsentMode; readonly ttlSec?: number },
  ): Promise<Result<ClosedMandate, AgentError>> {
    const consent = await this.consentFor(offerCompact, source);
    if (!consent.ok) return consent;
    const { offer, text } = consent.value;
    const c = offer.claims;
    const constraints: MandateConstraints = {
      services: [c.service.id],
      window: { not_before: c.slot.start, not_after: c.slot.end ?? c.slot.start },
      ...(c.total !== undefined && { max_price: c.total }),
      offer_sha256: offer.sha256,
    };
    const issued = await this.issueMandate({
      agent: opts.agent,
      audience: c.iss,
      scope: [c.kind === "change" ? "reschedule" : "book"],
      constraints,
      ttlSec: opts.ttlSec ?? CLOSED_TTL_SEC,
      consent: { mode: opts.mode ?? "human_present", statement: text },
    });
    return ok({ ...issued, consentText: text, offer });
  }

  /**
   * A management mandate for a booking whose receipt was verified (§3.3): scope cancel and
   * reschedule, constraints.bookings the one booking, valid until its end plus one hour (its
   * start plus one hour when open-ended). It can never place a hold or book.
   */
  async managementMandate(
    verified: Pick<VerifiedBooking, "booking" | "hostId">,
    opts: { readonly agent: AgentRef; readonly scope?: readonly ("cancel" | "reschedule")[] },
  ): Promise<IssuedMandate> {
    const { booking } = verified;
    const until = parseInstant(booking.end ?? booking.start, "/booking/end");
    // A verified receipt's booking has valid date-times; a hand-made one that does not gets an hour.
    const untilSec = until.ok ? Math.floor(until.value.epochMs / 1000) : Math.floor(this.clock.now() / 1000);
    return this.issueMandate({
      agent: opts.agent,
      audience: verified.hostId,
      scope: opts.scope ?? ["cancel", "reschedule"],
      constraints: { bookings: [booking.booking_id] },
      exp: untilSec + MANAGEMENT_GRACE_SEC,
    });
  }

  /**
   * The organizer's meeting contract (§5.12 step 4): the key app fills in iss, principal_jwk,
   * iat (now) and the statement, generated from the claims (§5.3), never the agent's words.
   * Show the person result.statement; the signature is their approval. Refused
   * (meeting_invalid) if any calendar would refuse it (verifyMeetingContract).
   */
  signMeetingContract(req: MeetingContractRequest): Promise<Result<SignedMeetingContract, AgentError>> {
    return signMeetingContract(req, this.ed25519Key(), this.clock.now());
  }

  /**
   * A rule the person signs for their calendar's agent (§7.9): cnf.jkt names that agent's key,
   * label is the person's own words, and services, weekdays (with tz), organizers narrow it.
   */
  signRule(req: RuleRequest): Promise<Result<SignedRule, AgentError>> {
    return signRule(req, this.ed25519Key(), this.clock.now());
  }

  /**
   * This person's own yes to a meeting contract (§5.12, by: "person"): verifies the contract,
   * renders "I accept: …" from its claims and signs it. Sign only the contract the person was
   * shown; a revision that arrived meanwhile is shown and asked again. A calendar agent
   * answering by rule uses signRuleAcceptance with its own key instead.
   */
  signAcceptance(contractJws: string): Promise<Result<SignedAcceptance, AgentError>> {
    return signPersonAcceptance(contractJws, this.ed25519Key(), this.clock.now());
  }
}

/** §3.3 "attestations (root mandates only, at most four)": more is a programming error. */
const MAX_ATTESTATIONS = 4;
function checkedAttestations(list: readonly string[]): readonly string[] {
  if (list.length > MAX_ATTESTATIONS) {
    throw new RangeError(
      `a mandate carries at most ${MAX_ATTESTATIONS} attestations (§3.3), not ${list.length}`,
    );
  }
  return list;
}

function agentThumbprint(agent: AgentRef): string {
  if (typeof agent === "string") return agent;
  if ("thumbprint" in agent) return agent.thumbprint;
  return jwkThumbprint(agent);
}
