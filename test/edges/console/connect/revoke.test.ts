/**
 * Revocation request shapes (connect/revoke.ts) against loopback fakes of Google's revocation
 * endpoint and Square's RevokeToken: the exact method, headers and body each documents, the
 * answers that mean "revoked", "already revoked" and "failed", and that no token or secret is
 * put into an outcome.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { revokeGrant } from "../../../../src/edges/console/connect/revoke.js";
import type { TokenRecord } from "../../../../src/gateway/credentials/record.js";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

let server: Server;
let base: string;
let closedUrl: string;
const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };

const listen = (s: Server): Promise<string> =>
  new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
  });
  base = await listen(server);
  const closed = createServer();
  closedUrl = `${await listen(closed)}/revoke`;
  await new Promise((r) => closed.close(r));
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
});
beforeEach(() => {
  seen.length = 0;
  answer = { status: 200, body: {} };
});

const google: TokenRecord = {
  provider: "google",
  accessToken: "ya29.ACCESS-g",
  refreshToken: "1//REFRESH-g",
  tokenEndpoint: "https://oauth2.googleapis.com/token",
};
const square: TokenRecord = {
  provider: "square",
  accessToken: "EAAA-ACCESS-sq",
  refreshToken: "EQAA-REFRESH-sq",
  tokenEndpoint: "https://connect.squareupsandbox.com/oauth2/token",
};
const client = { clientId: "sq0idp-app", clientSecret: "sq0csp-SECRET-never-shown" };

describe("Google: POST /revoke, form token=<refresh token>", () => {
  it("sends the refresh token as a form body and takes 200 as revoked", async () => {
    const r = await revokeGrant(google, undefined, { googleEndpoint: `${base}/revoke` });
    expect(r).toEqual({ kind: "revoked" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/revoke", body: "token=1%2F%2FREFRESH-g" });
    expect(seen[0]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it("a grant without a refresh token revokes its access token", async () => {
    const { refreshToken: _r, ...accessOnly } = google;
    await revokeGrant(accessOnly, undefined, { googleEndpoint: `${base}/revoke` });
    expect(seen[0]?.body).toBe("token=ya29.ACCESS-g");
  });

  it("400 invalid_token (already revoked or expired) is done all the same", async () => {
    answer = { status: 400, body: { error: "invalid_token", error_description: "Token expired or revoked" } };
    expect(await revokeGrant(google, undefined, { googleEndpoint: `${base}/revoke` })).toEqual({
      kind: "already_revoked",
    });
  });

  it("an answer past the byte cap is a failure, whatever its status says", async () => {
    answer = { status: 200, body: { pad: "x".repeat(100_000) } };
    const r = await revokeGrant(google, undefined, { googleEndpoint: `${base}/revoke` });
    expect(r).toMatchObject({ kind: "failed" });
  });

  it("another answer, or none, is a failure that quotes no token", async () => {
    answer = { status: 503, body: { error: "backend_error" } };
    const r = await revokeGrant(google, undefined, { googleEndpoint: `${base}/revoke` });
    expect(r).toMatchObject({ kind: "failed", status: 503, error: "backend_error" });
    const none = await revokeGrant(google, undefined, { googleEndpoint: closedUrl });
    expect(none).toMatchObject({ kind: "failed" });
    expect(JSON.stringify([r, none])).not.toMatch(/REFRESH|ACCESS/);
  });
});

describe("Square: POST /oauth2/revoke, Authorization: Client <secret>, JSON {client_id, access_token}", () => {
  it("sends the documented header and body and takes {success: true} as revoked", async () => {
    answer = { status: 200, body: { success: true } };
    const r = await revokeGrant(square, client, {
      squareEndpoint: `${base}/oauth2/revoke`,
      squareVersion: "2025-10-16",
    });
    expect(r).toEqual({ kind: "revoked" });
    expect(seen[0]).toMatchObject({ method: "POST", path: "/oauth2/revoke" });
    expect(seen[0]?.headers.authorization).toBe("Client sq0csp-SECRET-never-shown");
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(seen[0]?.headers["square-version"]).toBe("2025-10-16");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      client_id: "sq0idp-app",
      access_token: "EAAA-ACCESS-sq",
    });
  });

  it("a token Square says is revoked already is done", async () => {
    answer = {
      status: 401,
      body: { errors: [{ category: "AUTHENTICATION_ERROR", code: "ACCESS_TOKEN_REVOKED", detail: "x" }] },
    };
    expect(await revokeGrant(square, client, { squareEndpoint: `${base}/oauth2/revoke` })).toEqual({
      kind: "already_revoked",
    });
  });

  it("a refusal is a failure naming Square's code, never the secret or token", async () => {
    answer = {
      status: 401,
      body: { message: "bad authorization header", type: "bad_request.invalid_parameter" },
    };
    const r = await revokeGrant(square, client, { squareEndpoint: `${base}/oauth2/revoke` });
    expect(r).toMatchObject({ kind: "failed", status: 401, error: "bad_request.invalid_parameter" });
    expect(JSON.stringify(r)).not.toMatch(/SECRET|ACCESS/);
  });

  it("without the app's client credentials nothing is sent and it fails", async () => {
    const r = await revokeGrant(square, undefined, { squareEndpoint: `${base}/oauth2/revoke` });
    expect(r).toMatchObject({ kind: "failed" });
    expect(seen).toHaveLength(0);
  });
});

describe("Microsoft", () => {
  it("has no single-grant revocation: not_supported, nothing sent", async () => {
    const r = await revokeGrant(
      {
        provider: "microsoft",
        accessToken: "eyJ-A",
        refreshToken: "M.R-1",
        tokenEndpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
      },
      client,
      { googleEndpoint: `${base}/revoke`, squareEndpoint: `${base}/oauth2/revoke` },
    );
    expect(r).toEqual({ kind: "not_supported" });
    expect(seen).toHaveLength(0);
  });
});
