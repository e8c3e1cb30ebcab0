/**
 * A calendar host's `accessTokenFile` that cannot be read: the provider fails as an unusable
 * credential (`unauthorized`), naming the file's absolute path and the setting, and the
 * connector's error keeps those words (they carry no secret) where a provider's own message
 * is dropped.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialError } from "../../../src/connectors/http/failures.js";
import { TokenFileError, tokenFileProvider } from "../../../src/gateway/runtime/token-file.js";

const FIELD = "/hosts/0/connector/settings/accessTokenFile";
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "gw-token-file-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("tokenFileProvider", () => {
  it("reads the token, trimmed, from a path relative to the data dir", async () => {
    await writeFile(join(dataDir, "a.token"), "ya29.token\n");
    await expect(tokenFileProvider("a.token", FIELD, dataDir)()).resolves.toBe("ya29.token");
  });

  it("a missing file: unauthorized, naming the absolute path, the setting and the data dir", async () => {
    const failure = await tokenFileProvider("tokens/none.token", FIELD, dataDir)().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(TokenFileError);
    expect(failure).toMatchObject({ code: "unauthorized" });
    expect((failure as TokenFileError).operatorMessage).toBe(
      `cannot read ${join(dataDir, "tokens/none.token")} (ENOENT), the file ${FIELD} names ` +
        `(accessTokenFile is read relative to the data dir, GATEWAY_DATA_DIR: ${dataDir})`,
    );
  });

  it("an empty file holds no token; an absolute setting needs no word on the data dir", async () => {
    const path = join(dataDir, "empty.token");
    await writeFile(path, "\n");
    await expect(tokenFileProvider(path, FIELD, "/elsewhere")()).rejects.toMatchObject({
      code: "unauthorized",
      operatorMessage: `${path} holds no access token, the file ${FIELD} names`,
    });
  });
});

describe("credentialError", () => {
  it("keeps a token file's operator message, and the connector calls it unauthorized", () => {
    expect(credentialError(new TokenFileError("cannot read /d/t.token (ENOENT)"), "GET /events")).toEqual({
      code: "unauthorized",
      message: "the credential provider failed: cannot read /d/t.token (ENOENT): GET /events",
    });
  });

  it("drops any other provider's message, which may quote a secret", () => {
    const e = Object.assign(new Error("invalid_grant for refresh token 1//secret"), { code: "unauthorized" });
    expect(credentialError(e, "GET /events")).toEqual({
      code: "unauthorized",
      message: "the credential provider failed (revoked: reconnect): GET /events",
    });
    expect(credentialError(new Error("1//secret"), "GET /events").message).not.toContain("secret");
  });
});
