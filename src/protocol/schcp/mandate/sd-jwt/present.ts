/**
 * The agent's side of SchCP §3.4: present an SD-JWT VC mandate to one host, disclosing only
 * that host's aud element and host_constraints member, and ending in a fresh Key Binding JWT
 * signed with the agent's key (the one cnf.jwk names, which also signs the request, §3.2).
 */
import { err, fieldError, ok } from "../../../result.js";
import type { Result } from "../../../result.js";
import { ARRAY_DIGEST_KEY, parseDisclosure, SD_KEY } from "./disclosures.js";
import type { Disclosure } from "./disclosures.js";
import { decodeProfileJws } from "./jws.js";
import { signJws } from "./keys.js";
import type { SdJwtSigningKey } from "./keys.js";
import { KB_JWT_TYP, sdHash } from "./profile.js";

export interface PresentOptions {
  readonly hostId: string;
  /** The agent's Ed25519 key, cnf.jwk. */
  readonly agentKey: SdJwtSigningKey;
  /** KB-JWT iat, Unix seconds. */
  readonly nowSec: number;
  /** SchCP has no challenge step, so the agent chooses the nonce (§3.4): fresh per request. */
  readonly nonce: string;
}

/** The presentation for one host, or an error when the mandate does not name it. */
export function presentSdJwtMandate(sdJwt: string, opts: PresentOptions): Result<string> {
  const [issuerJwt = "", ...rest] = sdJwt.split("~");
  // An issued SD-JWT ends in ~ (no KB-JWT yet); a presentation's KB-JWT would be the last part.
  const encoded = rest.filter((d) => d !== "");
  const jws = decodeProfileJws(issuerJwt, "sdJwt");
  if (!jws.ok) return jws;
  const parsed: Disclosure[] = [];
  for (const e of encoded) {
    const d = parseDisclosure(e, "sdJwt");
    if (!d.ok) return d;
    parsed.push(d.value);
  }
  const payload = jws.value.payload;
  const audDigests = new Set(
    (Array.isArray(payload.aud) ? (payload.aud as unknown[]) : []).map((el) =>
      typeof el === "object" && el !== null ? (el as Record<string, unknown>)[ARRAY_DIGEST_KEY] : undefined,
    ),
  );
  const hc = payload.host_constraints as Record<string, unknown> | undefined;
  const memberDigests = new Set(Array.isArray(hc?.[SD_KEY]) ? (hc[SD_KEY] as unknown[]) : []);
  const aud = parsed.find((d) => d.name === undefined && d.value === opts.hostId && audDigests.has(d.digest));
  const member = parsed.find((d) => d.name === opts.hostId && memberDigests.has(d.digest));
  if (aud === undefined || member === undefined) {
    return err(fieldError("host_not_named", "sdJwt", `the mandate does not name ${opts.hostId}`));
  }
  const disclosed = [aud.encoded, member.encoded];
  const kb = signJws(
    { typ: KB_JWT_TYP },
    { aud: opts.hostId, nonce: opts.nonce, iat: opts.nowSec, sd_hash: sdHash(issuerJwt, disclosed) },
    opts.agentKey,
  );
  return ok(`${issuerJwt}~${disclosed.map((d) => `${d}~`).join("")}${kb}`);
}
