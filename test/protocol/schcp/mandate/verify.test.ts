import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyMandate } from "../../../../src/protocol/schcp/mandate/index.js";
import type {
  MandateStatusPort,
  VerifyMandateContext,
} from "../../../../src/protocol/schcp/mandate/index.js";
import {
  HOST,
  NOW,
  agent,
  b64u,
  context,
  expectRefusal,
  forge,
  forgeRaw,
  fullRootClaims,
  issOf,
  issueRoot,
  otherPrincipal,
  principal,
  rootClaims,
  stranger,
  thumb,
} from "./helpers.js";

interface Row {
  name: string;
  mandate: () => string | Promise<string>;
  ctx?: Partial<VerifyMandateContext>;
  /** Accepted rows say so; refused rows default to mandate_invalid. */
  accept?: true;
  reason?: "mandate_invalid" | "mandate_expired";
  field?: string;
}

const HEADER = JSON.stringify({ alg: "EdDSA", typ: "schcp-mandate+jwt" });
const payloadBytes = (claims: object): Uint8Array => new TextEncoder().encode(JSON.stringify(claims));

async function check(row: Row): Promise<void> {
  const result = await verifyMandate(await row.mandate(), context(row.ctx));
  if (row.accept === true) {
    expect(result.ok, result.ok ? "" : JSON.stringify(result.error)).toBe(true);
    return;
  }
  const refusal = expectRefusal(result, "MANDATE_INVALID", row.reason ?? "mandate_invalid");
  if (row.field !== undefined) expect(refusal.field).toBe(row.field);
}

describe("verifyMandate: §3.3 checks 1–4 on a root mandate", () => {
  const rows: Row[] = [
    { name: "a valid root mandate is accepted", accept: true, mandate: () => issueRoot() },
    {
      name: "check 1: a signature that does not verify is refused",
      mandate: async () => {
        const compact = await issueRoot();
        const sig = compact.slice(compact.lastIndexOf(".") + 1);
        const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
        return compact.slice(0, compact.lastIndexOf(".") + 1) + flipped;
      },
      field: "SchCP-Mandate",
    },
    {
      name: "check 1: signed by another key than principal_jwk is refused",
      mandate: () => forge(fullRootClaims(), stranger),
      field: "SchCP-Mandate",
    },
    {
      name: "check 1: a principal_jwk with kid and use is accepted (the thumbprint ignores them)",
      accept: true,
      mandate: () =>
        forge(fullRootClaims({ principal_jwk: { ...principal.publicJwk, kid: "k1", use: "sig" } })),
    },
    {
      name: "check 1: iss that is not principal_jwk's thumbprint is refused",
      mandate: () => forge(fullRootClaims({ iss: `urn:schcp:principal:jwk-thumbprint:${"A".repeat(43)}` })),
      field: "SchCP-Mandate/payload/iss",
    },
    {
      name: "check 1: iss naming another principal's key is refused",
      mandate: () => forge(fullRootClaims({ iss: issOf(otherPrincipal) })),
      field: "SchCP-Mandate/payload/iss",
    },
    {
      name: "check 1: principal_jwk of another key (signature by ours) is refused",
      mandate: () =>
        forge(fullRootClaims({ principal_jwk: otherPrincipal.publicJwk, iss: issOf(otherPrincipal) })),
    },
    {
      name: "check 2: aud naming another host is refused",
      mandate: () => issueRoot({ aud: "other-garage" }),
      field: "SchCP-Mandate/payload/aud",
    },
    {
      name: "check 2: aud list not containing the host is refused",
      mandate: () => issueRoot({ aud: ["other-garage", "third-garage"] }),
    },
    {
      name: "check 2: aud list containing the host is accepted",
      accept: true,
      mandate: () => issueRoot({ aud: ["other-garage", HOST] }),
    },
    {
      name: "check 2: wildcard aud refused by default",
      mandate: () => issueRoot({ aud: "*" }),
      field: "SchCP-Mandate/payload/aud",
    },
    {
      name: "check 2: wildcard in a list naming the host is still refused by default",
      mandate: () => issueRoot({ aud: [HOST, "*"] }),
    },
    {
      name: "check 2: wildcard aud accepted when configured",
      accept: true,
      mandate: () => issueRoot({ aud: "*" }),
      ctx: { allowWildcardAudience: true },
    },
    {
      name: "check 2: wildcard in a list accepted when configured",
      accept: true,
      mandate: () => issueRoot({ aud: ["other-garage", "*"] }),
      ctx: { allowWildcardAudience: true },
    },
    {
      name: "check 2: allowWildcardAudience does not let another named host through",
      mandate: () => issueRoot({ aud: "other-garage" }),
      ctx: { allowWildcardAudience: true },
    },
    {
      name: "check 3: iat = now + 60 s is accepted (the skew)",
      accept: true,
      mandate: () => issueRoot({ iat: NOW + 60 }),
    },
    {
      name: "check 3: iat = now + 61 s is refused",
      mandate: () => issueRoot({ iat: NOW + 61 }),
      field: "SchCP-Mandate/payload/iat",
    },
    {
      name: "check 3: exp = now is refused as mandate_expired (no skew)",
      mandate: () => issueRoot({ exp: NOW }),
      reason: "mandate_expired",
      field: "SchCP-Mandate/payload/exp",
    },
    {
      name: "check 3: exp = now - 1 is mandate_expired",
      mandate: () => issueRoot({ exp: NOW - 1 }),
      reason: "mandate_expired",
    },
    { name: "check 3: exp = now + 1 is accepted", accept: true, mandate: () => issueRoot({ exp: NOW + 1 }) },
    {
      name: "check 4: cnf.jkt that is not the request's key is refused",
      mandate: () => issueRoot(),
      ctx: { requestKeyThumbprint: thumb(stranger) },
      field: "SchCP-Mandate/payload/cnf/jkt",
    },
  ];
  it.each(rows)("$name", check);
});

describe("verifyMandate: envelope and schema (§3.1, §3.3 'Claims are validated', §3.4 Keys)", () => {
  const rows: Row[] = [
    {
      name: "kid in the header is accepted",
      accept: true,
      mandate: () =>
        forge(fullRootClaims(), principal, { alg: "EdDSA", typ: "schcp-mandate+jwt", kid: "k1" }),
    },
    {
      name: "typ other than schcp-mandate+jwt is refused",
      mandate: () => forge(fullRootClaims(), principal, { alg: "EdDSA", typ: "JWT" }),
      field: "SchCP-Mandate/header/typ",
    },
    { name: "typ missing is refused", mandate: () => forge(fullRootClaims(), principal, { alg: "EdDSA" }) },
    {
      name: "crit in the header is refused",
      mandate: () =>
        forge(fullRootClaims(), principal, { alg: "EdDSA", typ: "schcp-mandate+jwt", crit: ["exp"], exp: 1 }),
    },
    {
      name: "a jwk header member is refused (the key comes from the claims)",
      mandate: () =>
        forge(fullRootClaims(), principal, {
          alg: "EdDSA",
          typ: "schcp-mandate+jwt",
          jwk: principal.publicJwk,
        }),
      field: "SchCP-Mandate/header/jwk",
    },
    {
      name: "alg none is refused",
      mandate: () =>
        `${b64u('{"alg":"none","typ":"schcp-mandate+jwt"}')}.${b64u(JSON.stringify(fullRootClaims()))}.`,
    },
    {
      name: "alg none with a real signature is refused",
      mandate: () => forgeRaw('{"alg":"none","typ":"schcp-mandate+jwt"}', payloadBytes(fullRootClaims())),
    },
    {
      name: "a compact mandate signed with a P-256 key (ES256) is refused",
      mandate: () => {
        const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
        const jwk = publicKey.export({ format: "jwk" });
        const claims = {
          ...fullRootClaims(),
          principal_jwk: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y },
        };
        const input = `${b64u('{"alg":"ES256","typ":"schcp-mandate+jwt"}')}.${b64u(JSON.stringify(claims))}`;
        const sig = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
        return `${input}.${sig.toString("base64url")}`;
      },
    },
    {
      name: "a P-256 principal_jwk under alg EdDSA is refused",
      mandate: () =>
        forge({ ...fullRootClaims(), principal_jwk: { kty: "EC", crv: "P-256", x: "AA", y: "AA" } }),
    },
    {
      name: "a duplicate member in the payload is refused",
      mandate: () => {
        const json = JSON.stringify(fullRootClaims());
        return forgeRaw(HEADER, new TextEncoder().encode(`{"jti":"m-other",${json.slice(1)}`));
      },
    },
    {
      name: "a duplicate member in the header is refused",
      mandate: () =>
        forgeRaw('{"alg":"EdDSA","typ":"JWT","typ":"schcp-mandate+jwt"}', payloadBytes(fullRootClaims())),
    },
    {
      name: "an invalid UTF-8 payload is refused",
      mandate: () => {
        const bytes = Buffer.from(JSON.stringify(fullRootClaims({ sub: "pseudo-@@" })));
        const at = bytes.indexOf("@@");
        bytes[at] = 0xc3; // a lead byte followed by "@": not UTF-8
        return forgeRaw(HEADER, bytes);
      },
    },
    {
      name: "an SD-JWT presentation (contains ~) is refused as unsupported",
      mandate: async () => `${await issueRoot()}~WyJzYWx0IiwibmFtZSIsInZhbHVlIl0~`,
      field: "SchCP-Mandate",
    },
    {
      name: "an unknown claim is refused",
      mandate: () => forge({ ...fullRootClaims(), payment: { card: "4242" } }),
    },
    {
      name: "an unknown constraint name is refused",
      mandate: () => issueRoot({ constraints: { max_bookings: 1, max_nights: 2 } as never }),
    },
    {
      name: "an unknown member nested in window is refused",
      mandate: () =>
        issueRoot({
          constraints: {
            window: { not_before: "2026-10-15T12:00:00-04:00", tz: "America/Toronto" } as never,
          },
        }),
    },
    {
      name: "an unknown member nested in cnf is refused",
      mandate: () => issueRoot({ cnf: { jkt: thumb(agent), jwk: {} } as never }),
    },
    {
      name: "an unknown member nested in max_price is refused",
      mandate: () =>
        issueRoot({ constraints: { max_price: { amount: "10.00", currency: "CAD", tax: "0" } as never } }),
    },
    {
      name: "an unparseable window date is refused",
      mandate: () => issueRoot({ constraints: { window: { not_before: "Thursday afternoon" } } }),
    },
    {
      name: "a window date with no offset is refused",
      mandate: () => issueRoot({ constraints: { window: { not_after: "2026-10-15T17:00:00" } } }),
    },
    {
      name: "a window date that does not exist (Feb 30) is refused",
      mandate: () => issueRoot({ constraints: { window: { not_after: "2026-02-30T17:00:00Z" } } }),
    },
    {
      name: 'max_bookings "1" (a string) is refused',
      mandate: () => issueRoot({ constraints: { max_bookings: "1" as never } }),
    },
    { name: "max_bookings 0 is refused", mandate: () => issueRoot({ constraints: { max_bookings: 0 } }) },
    { name: "max_bookings 1.5 is refused", mandate: () => issueRoot({ constraints: { max_bookings: 1.5 } }) },
    {
      name: "max_price with more decimals than the currency has is refused",
      mandate: () => issueRoot({ constraints: { max_price: { amount: "100.001", currency: "CAD" } } }),
      field: "SchCP-Mandate/payload/constraints/max_price/amount",
    },
    {
      name: "max_price with decimals in a zero-exponent currency is refused",
      mandate: () => issueRoot({ constraints: { max_price: { amount: "100.5", currency: "JPY" } } }),
    },
    {
      name: "max_price in an unknown currency is refused",
      mandate: () => issueRoot({ constraints: { max_price: { amount: "100.00", currency: "XYZ" } } }),
    },
    {
      name: "max_price as a number is refused",
      mandate: () => issueRoot({ constraints: { max_price: 100 as never } }),
    },
    { name: "an unknown scope is refused", mandate: () => issueRoot({ scope: ["hold", "pay"] as never }) },
    { name: "iat as a string is refused", mandate: () => issueRoot({ iat: String(NOW) as never }) },
    { name: "a missing jti is refused", mandate: () => issueRoot({ jti: undefined as never }) },
    {
      name: "five attestations are refused (at most four)",
      mandate: async () => {
        const att = await forge({ iss: "phonecheck.example" }, stranger, {
          alg: "EdDSA",
          typ: "schcp-attestation+jwt",
        });
        return issueRoot({ attestations: [att, att, att, att, att] });
      },
    },
    {
      name: "four attestations are accepted (honouring them is not verification's job)",
      accept: true,
      mandate: async () => {
        const att = await forge({ iss: "phonecheck.example" }, stranger, {
          alg: "EdDSA",
          typ: "schcp-attestation+jwt",
        });
        return issueRoot({ attestations: [att, att, att, att] });
      },
    },
    {
      name: "a non-https status URL is refused",
      mandate: () => issueRoot({ status: "http://keyapp.example/s/1" }),
    },
    { name: "an empty value is refused", mandate: () => "" },
    { name: "a value that is not a JWS is refused", mandate: () => "not-a-jws" },
  ];
  it.each(rows)("$name", check);

  it("§3.4: at a host that does not list dc+sd-jwt, the SD-JWT refusal says the format is not accepted", async () => {
    const result = await verifyMandate(`${await issueRoot()}~`, context());
    expect(expectRefusal(result, "MANDATE_INVALID", "mandate_invalid").message).toMatch(
      /SD-JWT.*not accepted by this host/,
    );
  });

  it("the wildcard refusal says wildcards are refused", async () => {
    const result = await verifyMandate(await issueRoot({ aud: "*" }), context());
    expect(expectRefusal(result, "MANDATE_INVALID", "mandate_invalid").message).toMatch(/wildcard.*refused/);
  });
});

describe("verifyMandate: the chain it returns", () => {
  it("a root alone is root, leaf, principal and subject", async () => {
    const compact = await issueRoot();
    const result = await verifyMandate(compact, context());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const chain = result.value;
    expect(chain.links).toHaveLength(1);
    expect(chain.root).toBe(chain.leaf);
    expect(chain.root).toMatchObject({ compact, depth: 0, signerJwk: principal.publicJwk });
    expect(chain.rootIss).toBe(issOf(principal));
    expect(chain.principal).toBe(issOf(principal));
    expect(chain.subject).toBe(rootClaims().sub);
  });
});

describe("verifyMandate: check 7, revocation status", () => {
  const port = (answers: Record<string, "active" | "revoked" | "unknown" | Error>) => {
    const calls: { iss: string; jti: string; statusUrl?: string }[] = [];
    const status: MandateStatusPort = {
      status(link) {
        calls.push(link);
        const a = answers[link.jti] ?? "active";
        return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
      },
    };
    return { status, calls };
  };

  it("a revoked mandate is refused as mandate_invalid", async () => {
    const { status } = port({ "m-root": "revoked" });
    const result = await verifyMandate(await issueRoot(), context({ status }));
    expect(expectRefusal(result, "MANDATE_INVALID", "mandate_invalid").message).toMatch(/revoked/);
  });

  it("status unknown is accepted (revocation is best effort)", async () => {
    const { status } = port({ "m-root": "unknown" });
    expect((await verifyMandate(await issueRoot(), context({ status }))).ok).toBe(true);
  });

  it("a status port that fails counts as unknown", async () => {
    const { status } = port({ "m-root": new Error("key app down") });
    expect((await verifyMandate(await issueRoot(), context({ status }))).ok).toBe(true);
  });

  it("the port is asked with the link's own iss, jti and status URL", async () => {
    const { status, calls } = port({});
    const url = "https://keyapp.example/status/m-root";
    expect((await verifyMandate(await issueRoot({ status: url }), context({ status }))).ok).toBe(true);
    expect(calls).toEqual([{ iss: issOf(principal), jti: "m-root", statusUrl: url }]);
  });

  it("status is not consulted for a mandate that fails verification", async () => {
    const { status, calls } = port({});
    expect((await verifyMandate(await issueRoot({ aud: "elsewhere" }), context({ status }))).ok).toBe(false);
    expect(calls).toEqual([]);
  });
});
