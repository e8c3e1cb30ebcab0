/**
 * `accessTokenFile`: a Google or Microsoft calendar host's OAuth access token, read from a file
 * an outside token broker keeps current, on every call (never logged). A relative path is read
 * from the data dir. A file that cannot be read, or holds no token, is a credential the gateway
 * cannot use: the provider fails with `code: "unauthorized"`, so the host's health turns
 * needs_reconnection (src/booking/hosts/health.ts) until the file is there, and with an
 * `operatorMessage` naming the file's absolute path and the setting, which the connector keeps
 * in its error (src/connectors/http/failures.ts) for the console, the operator API and the log.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";

export class TokenFileError extends Error {
  readonly code = "unauthorized";
  constructor(readonly operatorMessage: string) {
    super(operatorMessage);
    this.name = "TokenFileError";
  }
}

/**
 * The provider for `accessTokenFile` = `setting` (as written), at `field` of the config
 * ("/hosts/0/connector/settings/accessTokenFile"), relative paths against `dataDir`.
 */
export function tokenFileProvider(setting: string, field: string, dataDir: string): () => Promise<string> {
  const path = isAbsolute(setting) ? setting : resolve(dataDir, setting);
  const where =
    `the file ${field} names` +
    (isAbsolute(setting)
      ? ""
      : ` (accessTokenFile is read relative to the data dir, GATEWAY_DATA_DIR: ${dataDir})`);
  return async () => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new TokenFileError(
        `cannot read ${path}${typeof code === "string" ? ` (${code})` : ""}, ${where}`,
      );
    }
    const token = text.trim();
    if (token === "") throw new TokenFileError(`${path} holds no access token, ${where}`);
    return token;
  };
}
