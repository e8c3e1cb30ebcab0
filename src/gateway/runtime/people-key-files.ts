/**
 * The embedded default's try-it people (SchCP §7.7, §5.12): for each person host of the
 * embedded meeting (src/booking/hosts/embedded-meeting.ts) an Ed25519 principal key generated on
 * first start and kept in <dataDir>/try-it-people/<host id>.jwk (0600, in a 0700 directory, as
 * the try-it attester's is: attester-key-file.ts). The host's owner is that key's principal, so
 * someone trying the gateway holds every person's key app: they sign Noor's meeting contract,
 * Priya's acceptance, Ellis's rule with the agent SDK (`npm run demo:meeting`, docs/meetings.md).
 * A --config start never uses them: a deployment names each person's own principal.
 *
 * seedTryItRule puts Ellis's rule (§7.9, ELLIS_RULE) in the rule store when it is absent, signed
 * with Ellis's try-it key and naming in cnf.jkt the thumbprint of ellis-moreau's signing key,
 * the key this gateway answers with for the calendar (src/booking/answers/decide.ts).
 *
 * Each file holds the private JWK ({kty, crv, x, d}), the form the agent SDK's agentKeyFromJwk reads.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { KeyObject } from "node:crypto";
import { ELLIS_RULE, EMBEDDED_PEOPLE, type EmbeddedPersonId } from "../../booking/hosts/index.js";
import { jwkThumbprint, principalUrn, signCompactJws } from "../../protocol/jose/index.js";
import type { Ed25519PublicJwk } from "../../protocol/jose/index.js";
import { RULE_TYP } from "../../protocol/schcp/rule/index.js";
import type { GatewayRuntime } from "./runtime.js";
import { newEd25519KeyFileText, readEd25519KeyFile } from "./ed25519-key-file.js";
import { readOrCreateSecret } from "./secret-files.js";

const PEOPLE_DIR = "try-it-people";
/** The rule's lifetime when it is put in the store: 90 days, put again when it has lapsed. */
const RULE_TTL_SEC = 90 * 86_400;

export function tryItPeopleDir(dataDir: string): string {
  return join(dataDir, PEOPLE_DIR);
}

export function personKeyPath(dataDir: string, hostId: string): string {
  return join(tryItPeopleDir(dataDir), `${hostId}.jwk`);
}

export interface TryItPerson {
  readonly hostId: EmbeddedPersonId;
  readonly name: string;
  readonly principal: string;
  readonly path: string;
}

/** Each embedded person's key file, generated when there is none; their principals. */
export async function loadOrCreateTryItPeople(dataDir: string): Promise<readonly TryItPerson[]> {
  const people: TryItPerson[] = [];
  for (const p of EMBEDDED_PEOPLE) {
    const path = personKeyPath(dataDir, p.id);
    const { text } = await readOrCreateSecret(path, newEd25519KeyFileText);
    const { publicJwk } = keyOf(text, path);
    people.push({ hostId: p.id, name: p.name, principal: principalUrn(jwkThumbprint(publicJwk)), path });
  }
  return people;
}

/** The owners map embeddedMeetingHosts takes. */
export function ownersOf(people: readonly TryItPerson[]): Record<EmbeddedPersonId, string> {
  return Object.fromEntries(people.map((p) => [p.hostId, p.principal])) as Record<EmbeddedPersonId, string>;
}

function keyOf(text: string, path: string): { privateKey: KeyObject; publicJwk: Ed25519PublicJwk } {
  return readEd25519KeyFile(text, path, "try-it person key file");
}

export type SeededRule = "added" | "kept" | "not_served";

/**
 * Ellis's rule in the rule store, unless one with its jti is kept already (an earlier start on
 * the same Redis). Signed now with Ellis's try-it key and checked by the core as any rule posted
 * to the operator API is (answers/rules.ts).
 */
export async function seedTryItRule(runtime: GatewayRuntime, dataDir: string): Promise<SeededRule> {
  const host = runtime.hosts.get(ELLIS_RULE.hostId);
  const hostKey = host?.keys[0];
  if (host === undefined || hostKey === undefined || runtime.service.addRule === undefined)
    return "not_served";
  const kept = await runtime.service.listRules?.(ELLIS_RULE.hostId);
  if (kept?.ok === true && kept.value.some((r) => r.claims.jti === ELLIS_RULE.jti && r.answerable))
    return "kept";
  const path = personKeyPath(dataDir, ELLIS_RULE.hostId);
  const { privateKey, publicJwk } = keyOf(await readFile(path, "utf8"), path);
  const iat = Math.floor(Date.now() / 1000);
  const jws = await signCompactJws(
    { alg: "EdDSA", typ: RULE_TYP },
    {
      iss: principalUrn(jwkThumbprint(publicJwk)),
      principal_jwk: publicJwk,
      iat,
      exp: iat + RULE_TTL_SEC,
      jti: ELLIS_RULE.jti,
      cnf: { jkt: jwkThumbprint(hostKey.publicJwk) },
      label: ELLIS_RULE.label,
      services: [...ELLIS_RULE.services],
      weekdays: [...ELLIS_RULE.weekdays],
      tz: ELLIS_RULE.tz,
    },
    privateKey,
  );
  const added = await runtime.service.addRule(ELLIS_RULE.hostId, jws);
  if (!added.ok) throw new Error(`the try-it rule for ${ELLIS_RULE.hostId}: ${added.error.message}`);
  return "added";
}
