/**
 * The operator API credential. Generated once (32 random bytes, base64url) and kept in
 * <dataDir>/operator-token (0600), so restarts and every process sharing the data directory
 * accept the same one; an explicit value (OPERATOR_TOKEN) overrides the file.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { readOrCreateSecret } from "./secret-files.js";

const TOKEN = /^[A-Za-z0-9\-._~+/]{16,}=*$/;

export function operatorTokenPath(dataDir: string): string {
  return join(dataDir, "operator-token");
}

/** Whether a value can be an operator credential (a bearer token68 of at least 16 characters). */
export function isUsableOperatorToken(value: string): boolean {
  return TOKEN.test(value);
}

export async function loadOrCreateOperatorToken(
  dataDir: string,
): Promise<{ readonly token: string; readonly created: boolean }> {
  const path = operatorTokenPath(dataDir);
  const { text, created } = await readOrCreateSecret(
    path,
    () => `${randomBytes(32).toString("base64url")}\n`,
  );
  const token = text.trim();
  if (!isUsableOperatorToken(token)) {
    throw new Error(
      `operator credential file ${path} does not hold a usable token; remove it to generate one`,
    );
  }
  return { token, created };
}
