/**
 * The embedded default's try-it attester (SchCP §7.5): an Ed25519 key generated on first start
 * and kept in <dataDir>/try-it-attester.jwk (0600, in the 0700 data directory, as the token
 * vault key is: token-key-file.ts), so someone trying the gateway can sign an attestation
 * with the agent SDK's Attester and watch a vouched newcomer get past a full new-guest pool
 * (docs/schcp.md, Attestations). Every embedded host lists it in trust.attesters; a --config
 * start never does: a deployment chooses its own attesters (§7.5 "Each host chooses").
 *
 * The file holds the private JWK ({kty, crv, x, d}), the form agentKeyFromJwk reads.
 */
import { join } from "node:path";
import type { HostConfig, TrustedAttesterConfig } from "../../booking/api.js";
import type { Ed25519PublicJwk } from "../../protocol/jose/index.js";
import { newEd25519KeyFileText, readEd25519KeyFile } from "./ed25519-key-file.js";
import { readOrCreateSecret } from "./secret-files.js";

const ATTESTER_KEY_FILE = "try-it-attester.jwk";
/** The try-it attester's id: iss of the attestations it signs. */
export const TRY_IT_ATTESTER_ID = "try-it-attester";

export function attesterKeyPath(dataDir: string): string {
  return join(dataDir, ATTESTER_KEY_FILE);
}

/** The try-it attester's public key from the data directory's key file, generated when there is none. */
export async function loadOrCreateTryItAttester(
  dataDir: string,
): Promise<{ readonly attester: TrustedAttesterConfig; readonly path: string; readonly created: boolean }> {
  const path = attesterKeyPath(dataDir);
  const { text, created } = await readOrCreateSecret(path, newEd25519KeyFileText);
  const publicJwk = publicHalf(text, path);
  return {
    attester: { id: TRY_IT_ATTESTER_ID, name: "Try-it attester (embedded default)", keys: [publicJwk] },
    path,
    created,
  };
}

/** The public half, re-derived from d so a file pairing d with another x is refused. */
function publicHalf(text: string, path: string): Ed25519PublicJwk {
  return readEd25519KeyFile(text, path, "try-it attester key file").publicJwk;
}

/** Each host with the attester added to its trust.attesters (§2.1). */
export function trustingAttester(
  hosts: readonly HostConfig[],
  attester: TrustedAttesterConfig,
): HostConfig[] {
  return hosts.map((h) => ({
    ...h,
    trust: { attesters: [...(h.trust?.attesters ?? []).filter((a) => a.id !== attester.id), attester] },
  }));
}
