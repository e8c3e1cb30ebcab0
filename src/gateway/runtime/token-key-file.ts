/**
 * The embedded default's token vault key, when TOKEN_KEYS is not set: one AES-256 key generated
 * once and kept in <dataDir>/token-keys (0600, in the 0700 data directory, created as the
 * operator credential is: secret-files.ts), so `npm start` alone lets an owner connect a CalDAV
 * calendar, whose password is sealed under it (docs/connectors.md "OAuth tokens in the gateway's vault").
 *
 * The file holds the key in TOKEN_KEYS's own form ("local:<base64>"), so the same key can be
 * handed to other commands with TOKEN_KEYS_FILE=<dataDir>/token-keys, or moved into TOKEN_KEYS.
 * A key beside the records it opens protects nothing in a copy of the data directory: a
 * deployment sets TOKEN_KEYS and keeps it apart from its backups, as the README says.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { parseKeyRing, TOKEN_KEYS_VARIABLE } from "../credentials/key-ring.js";
import { readOrCreateSecret } from "./secret-files.js";

const TOKEN_KEY_FILE = "token-keys";
/** The key id of a generated key. */
const KID = "local";

export function tokenKeyPath(dataDir: string): string {
  return join(dataDir, TOKEN_KEY_FILE);
}

/** TOKEN_KEYS's value from the data directory's key file, generated when there is none. */
export async function loadOrCreateTokenKeys(
  dataDir: string,
): Promise<{ readonly value: string; readonly path: string; readonly created: boolean }> {
  const path = tokenKeyPath(dataDir);
  const { text, created } = await readOrCreateSecret(
    path,
    () => `${KID}:${randomBytes(32).toString("base64")}\n`,
  );
  const value = text.trim();
  if (!parseKeyRing(value).ok)
    throw new Error(
      `token key file ${path} does not hold a usable ${TOKEN_KEYS_VARIABLE} value; set ${TOKEN_KEYS_VARIABLE}, or remove the file only if no credential was sealed under it`,
    );
  return { value, path, created };
}
