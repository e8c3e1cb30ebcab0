/**
 * SchCP §3.4 "AP2 profile: SD-JWT VC mandates": every rule of the section, one test each,
 * through verifyMandate as the HTTP edge calls it (acceptSdJwt for a host that lists
 * "dc+sd-jwt"). Presentations are built by the SDK's issuer and holder (issueSdJwtMandate,
 * presentSdJwtMandate) or, for what must be refused, forged part by part below.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jwkThumbprint, principalUrn } from "../../../../src/protocol/jose/jwk.js";
import { encodeBase64Url, sha256Base64Url } from "../../../../src/protocol/json/base64.js";
import { checkMandateAction, verifyMandate } from "../../../../src/protocol/schcp/mandate/index.js";
import type { VerifyMandateContext } from "../../../../src/protocol/schcp/mandate/index.js";
import {
  issueSdJwtMandate,
  presentSdJwtMandate,
  sdHash,
  signJws,
} from "../../../../src/protocol/schcp/mandate/sd-jwt/index.js";
import type {
  P256PublicJwk,
  SdJwtMandateClaims,
  SdJwtSigningKey,
} from "../../../../src/protocol/schcp/mandate/sd-jwt/index.js";
import {
  HOST,
  NOW,
  agent,
  b64u,
  context,
  expectRefusal,
  fullRootClaims,
  stranger,
  thumb,
} from "./helpers.js";

const OTHER = "queen-west-tires";
const THIRD = "dundas-garage";

function p256Key(): SdJwtSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const publicJwk: P256PublicJwk = { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y! };
  return { privateKey, publicJwk };
}
function ed25519Key(): SdJwtSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  return { privateKey, publicJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x! } };
}

const edPrincipal = ed25519Key();
const p256Principal = p256Key();
const agentKey: SdJwtSigningKey = agent;

const ctx = (over: Partial<VerifyMandateContext> = {}): VerifyMandateContext =>
  context({ acceptSdJwt: true, ...over });

function mandateClaims(over: Partial<SdJwtMandateClaims> = {}): SdJwtMandateClaims {
  return {
    sub: "principal-pseudonym-7f3a",
    iat: NOW - 10,
    exp: NOW + 3600,
    jti: "m-sd-1",
    cnfJwk: agent.publicJwk,
    scope: ["hold", "book", "cancel"],
    constraints: { services: ["oil-change"], max_bookings: 1 },
    hosts: {
      [HOST]: { max_price: { amount: "100.00", currency: "CAD" } },
      [OTHER]: { max_price: { amount: "80.00", currency: "CAD" } },
      [THIRD]: {},
    },
    consent: { mode: "human_present", statement: "One oil change at any of these three, under $100." },
    ...over,
  };
}

function present(
  sdJwt: string,
  over: { hostId?: string; nowSec?: number; nonce?: string; key?: SdJwtSigningKey } = {},
) {
  const r = presentSdJwtMandate(sdJwt, {
    hostId: over.hostId ?? HOST,
    agentKey: over.key ?? agentKey,
    nowSec: over.nowSec ?? NOW,
    nonce: over.nonce ?? "n-0123456789abcdef",
  });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

const issued = (over: Partial<SdJwtMandateClaims> = {}, key: SdJwtSigningKey = edPrincipal) =>
  issueSdJwtMandate(mandateClaims(over), key).sdJwt;

async function accepted(value: string, c: VerifyMandateContext = ctx()) {
  const r = await verifyMandate(value, c);
  expect(r.ok, r.ok ? "" : JSON.stringify(r.error)).toBe(true);
  if (!r.ok) throw new Error("unreachable");
  return r.value;
}
async function refused(
  value: string,
  reason: "mandate_invalid" | "mandate_expired" = "mandate_invalid",
  c = ctx(),
) {
  return expectRefusal(await verifyMandate(value, c), "MANDATE_INVALID", reason);
}
/** Refused as mandate_invalid, for the reason `why` names (so a test cannot pass for another). */
async function refusedFor(why: RegExp, value: string, c = ctx()) {
  const r = await refused(value, "mandate_invalid", c);
  expect(r.message).toMatch(why);
  return r;
}

// ------------------------------------------------------------------ forging, part by part

interface Disc {
  readonly encoded: string;
  readonly digest: string;
}
const disc = (...content: unknown[]): Disc => {
  const encoded = b64u(JSON.stringify(["salt-" + Math.random().toString(36).slice(2), ...content]));
  return { encoded, digest: sha256Base64Url(encoded) };
};
const ref = (d: Disc) => ({ "...": d.digest });

interface Forged {
  payload?: Record<string, unknown>;
  header?: Record<string, unknown>;
  key?: SdJwtSigningKey;
  disclosures?: readonly Disc[];
  kb?:
    | false
    | {
        header?: Record<string, unknown>;
        payload?: Record<string, unknown>;
        key?: SdJwtSigningKey;
        sdHash?: string;
      };
}

/** A valid presentation for HOST by default: aud and host_constraints as disclosures. */
function forge(f: Forged = {}, withDefaults = true): string {
  const key = f.key ?? edPrincipal;
  const audD = disc(HOST);
  const memberD = disc(HOST, { max_price: { amount: "100.00", currency: "CAD" } });
  const payload = {
    iss: principalUrn(jwkThumbprint(key.publicJwk)),
    sub: "principal-pseudonym-7f3a",
    aud: [ref(audD)],
    iat: NOW - 10,
    exp: NOW + 3600,
    jti: "m-forged",
    cnf: { jwk: agent.publicJwk },
    scope: ["hold", "book"],
    constraints: { services: ["oil-change"] },
    host_constraints: { _sd: [memberD.digest] },
    _sd_alg: "sha-256",
    ...f.payload,
  };
  const disclosures = f.disclosures ?? (withDefaults ? [audD, memberD] : []);
  const issuerJwt = signJws({ typ: "dc+sd-jwt", jwk: key.publicJwk, ...f.header }, payload, key);
  const encoded = disclosures.map((d) => d.encoded);
  const body = `${issuerJwt}~${encoded.map((d) => `${d}~`).join("")}`;
  if (f.kb === false) return body;
  const kb = signJws(
    { typ: "kb+jwt", ...f.kb?.header },
    {
      aud: HOST,
      nonce: "n-forged",
      iat: NOW,
      sd_hash: f.kb?.sdHash ?? sdHash(issuerJwt, encoded),
      ...f.kb?.payload,
    },
    f.kb?.key ?? agentKey,
  );
  return body + kb;
}

/** forge() with the default aud and member disclosures plus these parts. */
function forgeWith(parts: {
  aud?: unknown[];
  hc?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  disclosures: Disc[];
}) {
  return forge({
    payload: {
      ...(parts.aud !== undefined && { aud: parts.aud }),
      ...(parts.hc !== undefined && { host_constraints: parts.hc }),
      ...parts.extra,
    },
    disclosures: parts.disclosures,
  });
}

// ------------------------------------------------------------------ tests

describe("§3.4 SD-JWT VC mandates: accepted presentations", () => {
  it("§3.4: an Ed25519 principal's mandate for three hosts, presented at one, evaluates as that host's mandate", async () => {
    const sdJwt = issued();
    const chain = await accepted(present(sdJwt));
    const claims = chain.root.claims;
    expect(claims.aud).toBe(HOST);
    expect(claims.constraints).toEqual({
      services: ["oil-change"],
      max_bookings: 1,
      max_price: { amount: "100.00", currency: "CAD" },
    });
    expect(claims.cnf).toEqual({ jkt: thumb(agent) });
    expect(claims.iss).toBe(principalUrn(jwkThumbprint(edPrincipal.publicJwk)));
    expect(chain.rootIss).toBe(claims.iss);
    expect(chain.links).toHaveLength(1);
    expect(chain.root.format).toBe("dc+sd-jwt");
    expect(chain.root.signerJwk).toEqual(edPrincipal.publicJwk);
    // The same credential at another of its hosts: that host's member, not ours.
    const other = await accepted(present(sdJwt, { hostId: OTHER }), ctx({ hostId: OTHER }));
    expect(other.root.claims.constraints?.max_price).toEqual({ amount: "80.00", currency: "CAD" });
    const third = await accepted(present(sdJwt, { hostId: THIRD }), ctx({ hostId: THIRD }));
    expect(third.root.claims.constraints).toEqual({ services: ["oil-change"], max_bookings: 1 });
  });

  it("§3.4 Keys: a P-256 principal (ES256, raw r||s) is accepted in this profile; iss covers crv,kty,x,y", async () => {
    const chain = await accepted(present(issued({}, p256Principal)));
    const jwk = p256Principal.publicJwk as P256PublicJwk;
    const expected = sha256Base64Url(JSON.stringify({ crv: "P-256", kty: "EC", x: jwk.x, y: jwk.y }));
    expect(chain.principal).toBe(principalUrn(expected));
    expect(chain.root.signerJwk).toEqual(jwk);
  });

  it("§3.4: schcp_status becomes the evaluated mandate's status (§3.3 check 7 applies unchanged)", async () => {
    const statusUrl = "https://keyapp.example/status/m-sd-1";
    const seen: unknown[] = [];
    const chain = await accepted(
      present(issued({ schcp_status: statusUrl })),
      ctx({ status: { status: (l) => (seen.push(l), Promise.resolve("active")) } }),
    );
    expect(chain.root.claims.status).toBe(statusUrl);
    expect(seen).toEqual([{ iss: chain.rootIss, jti: "m-sd-1", statusUrl }]);
    await refused(
      present(issued({ schcp_status: statusUrl })),
      "mandate_invalid",
      ctx({ status: { status: () => Promise.resolve("revoked") } }),
    );
  });

  it("§3.4 decoys: aud and host_constraints are padded so their length does not count the hosts", async () => {
    const one = issueSdJwtMandate(mandateClaims({ hosts: { [HOST]: {} } }), edPrincipal).sdJwt;
    const three = issued();
    const payloadOf = (s: string) =>
      JSON.parse(Buffer.from(s.split("~")[0]!.split(".")[1]!, "base64url").toString()) as {
        aud: unknown[];
        host_constraints: { _sd: unknown[] };
      };
    expect(payloadOf(one).aud).toHaveLength(8);
    expect(payloadOf(three).aud).toHaveLength(8);
    expect(payloadOf(one).host_constraints._sd).toHaveLength(8);
    expect(payloadOf(three).host_constraints._sd).toHaveLength(8);
    // Undisclosed elements and decoys are removed: the verifier sees only its own.
    await accepted(present(one));
    await accepted(present(three));
  });

  it("§3.4 selective disclosure: the presentation at one garage carries nothing about the other two", () => {
    const p = present(issued());
    const parts = p.split("~");
    expect(parts).toHaveLength(4); // issuer JWT, aud element, host_constraints member, KB-JWT
    const texts = parts.slice(1, 3).map((d) => Buffer.from(d, "base64url").toString());
    expect(texts.join()).not.toContain(OTHER);
    expect(texts.join()).not.toContain(THIRD);
  });

  it("§3.4 KB-JWT: the agent chooses the nonce, and each presentation is fresh", async () => {
    const sdJwt = issued();
    const a = present(sdJwt, { nonce: "nonce-a-0123456789" });
    const b = present(sdJwt, { nonce: "nonce-b-0123456789" });
    expect(a).not.toBe(b);
    await accepted(a);
    await accepted(b);
  });

  it("§3.4 allowlists: hiding a services entry only narrows, and is accepted", async () => {
    const s1 = disc("oil-change");
    const s2 = disc("tire-swap");
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    const chain = await accepted(
      forgeWith({
        aud: [ref(audD)],
        hc: { _sd: [memberD.digest] },
        extra: { constraints: { services: [ref(s1), ref(s2)] } },
        disclosures: [audD, memberD, s1],
      }),
    );
    expect(chain.root.claims.constraints?.services).toEqual(["oil-change"]);
  });
});

describe("§3.4: every check of §3.3 steps 5–6 applies unchanged to the evaluated mandate", () => {
  const counter = { active: () => Promise.resolve(0) };
  const start = Date.parse("2026-10-15T13:00:00-04:00");
  const action = (over: Record<string, unknown> = {}) => ({
    kind: "hold" as const,
    serviceId: "oil-change",
    start,
    end: start + 3_600_000,
    total: { minor: 8_927, currency: "CAD" },
    ...over,
  });

  it("§3.3 check 5: an action outside the scope is MANDATE_SCOPE", async () => {
    const chain = await accepted(present(issued({ scope: ["hold"] })));
    const r = await checkMandateAction(chain, action({ kind: "cancel", bookingId: "b_1" }), { counter });
    expect(!r.ok && r.error.code).toBe("MANDATE_SCOPE");
  });

  it("§3.3 check 6: this host's member max_price binds; another host's higher one does not help", async () => {
    const sdJwt = issued();
    const here = await accepted(present(sdJwt));
    const over = await checkMandateAction(here, action({ total: { minor: 10_001, currency: "CAD" } }), {
      counter,
    });
    expect(!over.ok && over.error.reason).toBe("over_max_price");
    expect((await checkMandateAction(here, action(), { counter })).ok).toBe(true);
  });

  it("§3.3 check 6: the shared services constraint binds at every host", async () => {
    const chain = await accepted(present(issued(), { hostId: THIRD }), ctx({ hostId: THIRD }));
    const r = await checkMandateAction(chain, action({ serviceId: "brake-inspection" }), { counter });
    expect(!r.ok && r.error.code).toBe("MANDATE_SCOPE");
  });

  it("§3.3 check 6: max_bookings is counted under (root iss, jti)", async () => {
    const chain = await accepted(present(issued()));
    const seen: string[][] = [];
    const full = { active: (iss: string, jti: string) => (seen.push([iss, jti]), Promise.resolve(1)) };
    const r = await checkMandateAction(chain, action(), { counter: full });
    expect(!r.ok && r.error.code).toBe("MANDATE_LIMIT");
    expect(seen).toEqual([[principalUrn(jwkThumbprint(edPrincipal.publicJwk)), "m-sd-1"]]);
  });
});

describe("§3.4: hosts that do not list dc+sd-jwt, and the compact profile", () => {
  it("§3.4: a host that does not list dc+sd-jwt in auth.mandates refuses a presentation (401 MANDATE_INVALID)", async () => {
    await refused(present(issued()), "mandate_invalid", context());
  });

  it("§3.4 Keys: a compact mandate signed with a P-256 key is 401 MANDATE_INVALID even where dc+sd-jwt is accepted", async () => {
    const key = p256Principal;
    const claims = { ...fullRootClaims(), principal_jwk: key.publicJwk };
    const compact = signJws({ typ: "schcp-mandate+jwt" }, claims, key);
    expect(compact).not.toContain("~");
    await refused(compact);
  });
});

describe("§3.4 Issuer-signed JWT", () => {
  it("§3.4: typ other than dc+sd-jwt is refused", async () => {
    await refusedFor(/typ must be "dc\+sd-jwt"/, forge({ header: { typ: "vc+sd-jwt" } }));
  });
  it("§3.4: alg not the key's (ES256 header on an Ed25519 key) is refused", async () => {
    await refusedFor(/alg must be EdDSA/, forge({ header: { alg: "ES256" } }));
  });
  it("§3.4: alg not the key's (EdDSA header on a P-256 key) is refused", async () => {
    await refusedFor(/alg must be ES256/, forge({ key: p256Principal, header: { alg: "EdDSA" } }));
  });
  it('§3.4: alg "none" is always refused', async () => {
    const v = forge();
    const [jwt, ...rest] = v.split("~");
    const [h, p] = jwt!.split(".");
    const header = JSON.parse(Buffer.from(h!, "base64url").toString()) as Record<string, unknown>;
    const none = `${b64u(JSON.stringify({ ...header, alg: "none" }))}.${p}.AA`;
    await refusedFor(/alg must be EdDSA/, [none, ...rest].join("~"));
  });
  it("§3.4 Keys: an ES256 signature must be raw r||s; a DER-encoded one is refused", async () => {
    const valid = forge({ key: p256Principal });
    const [jwt, ...rest] = valid.split("~");
    const [h, p] = jwt!.split(".");
    const der = sign("sha256", Buffer.from(`${h}.${p}`), {
      key: p256Principal.privateKey,
      dsaEncoding: "der",
    });
    await refusedFor(/signature does not verify/, [`${h}.${p}.${encodeBase64Url(der)}`, ...rest].join("~"));
  });
  it("§3.4: a jwk header is required", async () => {
    await refusedFor(/jwk/, forge({ header: { jwk: undefined } }));
  });
  it("§3.4: an issuer signature by another key than the jwk header is refused", async () => {
    await refusedFor(
      /signature does not verify against its jwk/,
      forge({ key: edPrincipal, header: { jwk: stranger.publicJwk } }),
    );
  });
  it("§3.4: iss that is not the thumbprint of the header jwk is refused", async () => {
    await refusedFor(
      /iss is not the thumbprint/,
      forge({ payload: { iss: principalUrn(jwkThumbprint(stranger.publicJwk)) } }),
    );
  });
  it("§3.4 / §3.1: a duplicate member in the issuer JWT payload is refused", async () => {
    const valid = forge();
    const [jwt, ...rest] = valid.split("~");
    const [h, p] = jwt!.split(".");
    const text = Buffer.from(p!, "base64url").toString();
    const dup = text.replace('"sub":', '"sub":"x","sub":');
    const input = `${h}.${b64u(dup)}`;
    const sig = encodeBase64Url(sign(null, Buffer.from(input), edPrincipal.privateKey));
    await refusedFor(/duplicate member/, [`${input}.${sig}`, ...rest].join("~"));
  });
  it("RFC 9901 §4.1.1: _sd_alg other than sha-256 is refused", async () => {
    await refusedFor(/_sd_alg/, forge({ payload: { _sd_alg: "sha-512" } }));
  });
  it("§3.4: a passed exp is mandate_expired", async () => {
    await refused(present(issued({ iat: NOW - 7200, exp: NOW })), "mandate_expired");
  });
  it("§3.3 check 3: iat more than 60 s in the future is mandate_invalid", async () => {
    await refusedFor(/iat is in the future/, present(issued({ iat: NOW + 61 })));
  });
});

describe("§3.4 RFC 9901 §7.1 / §7.3 disclosure processing", () => {
  it("RFC 9901 §7.1: a disclosure whose digest does not match (tampered) is unreferenced and refused", async () => {
    const v = forge();
    const parts = v.split("~");
    const tampered = b64u(
      JSON.stringify(["salt", HOST, { max_price: { amount: "999.00", currency: "CAD" } }]),
    );
    parts[2] = tampered;
    await refusedFor(/does not reference/, parts.join("~"));
  });
  it("RFC 9901 §7.1: a digest recomputed over a re-encoded (not the presented base64url) form does not match", async () => {
    const d = disc(HOST, {});
    // The same JSON array re-serialised with whitespace: another base64url string, another digest.
    const reencoded = b64u(
      JSON.stringify(JSON.parse(Buffer.from(d.encoded, "base64url").toString()), null, 1),
    );
    const aud = disc(HOST);
    await refusedFor(
      /does not reference/,
      forgeWith({
        aud: [ref(aud)],
        hc: { _sd: [d.digest] },
        disclosures: [aud, { encoded: reencoded, digest: d.digest }],
      }),
    );
  });
  it("RFC 9901 §7.1 step 3.5: a digest repeated in the payload is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    await refusedFor(
      /more than once/,
      forgeWith({ aud: [ref(audD), ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD] }),
    );
  });
  it("RFC 9901 §7.1 step 3.5: a digest repeated across aud and host_constraints is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    const hidden = sha256Base64Url("an undisclosed entry");
    await refusedFor(
      /more than once/,
      forgeWith({
        aud: [ref(audD), { "...": hidden }],
        hc: { _sd: [memberD.digest, hidden] },
        disclosures: [audD, memberD],
      }),
    );
  });
  it("RFC 9901 §7.1: the same disclosure presented twice is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    await refusedFor(
      /presented twice/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD, audD] }),
    );
  });
  it("RFC 9901 §7.1 step 3.3.2: an array-element disclosure referenced from _sd (wrong position) is refused", async () => {
    const audD = disc(HOST);
    const element = disc({ max_price: { amount: "1.00", currency: "CAD" } });
    const memberD = disc(HOST, {});
    await refusedFor(
      /array-element disclosure is referenced as an object property/,
      forgeWith({
        aud: [ref(audD)],
        hc: { _sd: [memberD.digest, element.digest] },
        disclosures: [audD, memberD, element],
      }),
    );
  });
  it("RFC 9901 §7.1 step 3.4.2: an object-property disclosure referenced as an array element (wrong position) is refused", async () => {
    const audAsProperty = disc("aud", HOST);
    const memberD = disc(HOST, {});
    await refusedFor(
      /object-property disclosure is referenced as an array element/,
      forgeWith({
        aud: [ref(audAsProperty)],
        hc: { _sd: [memberD.digest] },
        disclosures: [audAsProperty, memberD],
      }),
    );
  });
  it("RFC 9901 §7.1 step 3.3.2.3: a disclosed claim name that already exists is refused", async () => {
    const audD = disc(HOST);
    const plain = { [HOST]: { max_price: { amount: "50.00", currency: "CAD" } } };
    const again = disc(HOST, {});
    await refusedFor(
      /already exists/,
      forgeWith({ aud: [ref(audD)], hc: { ...plain, _sd: [again.digest] }, disclosures: [audD, again] }),
    );
  });
  it("RFC 9901 §7.1 step 3.3.2.3: two disclosures with the same claim name are refused", async () => {
    const audD = disc(HOST);
    const a = disc(HOST, { max_price: { amount: "50.00", currency: "CAD" } });
    const b = disc(HOST, {});
    await refusedFor(
      /already exists/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [a.digest, b.digest] }, disclosures: [audD, a, b] }),
    );
  });
  it("RFC 9901 §7.1 step 4: a disclosure the payload does not reference is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    const stray = disc(OTHER, {});
    await refusedFor(
      /does not reference/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD, stray] }),
    );
  });
  it("RFC 9901 §7.1: the claim name _sd or ... is never disclosed", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    const bad = disc("_sd", ["x"]);
    await refusedFor(
      /may not carry the claim name/,
      forgeWith({
        aud: [ref(audD)],
        hc: { _sd: [memberD.digest, bad.digest] },
        disclosures: [audD, memberD, bad],
      }),
    );
  });
  it("RFC 9901 §7.3: _sd, _sd_alg and undisclosed elements are removed from the evaluated mandate", async () => {
    const chain = await accepted(present(issued()));
    const text = JSON.stringify(chain.root.claims);
    expect(text).not.toContain("_sd");
    expect(text).not.toContain('"..."');
    expect(chain.root.claims).not.toHaveProperty("host_constraints");
    expect(chain.root.claims).not.toHaveProperty("schcp_status");
  });
  it("§3.4: only allowlist entries are disclosable, never limits: a hidden window (top-level _sd) is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    const hidden = disc("constraints", {
      window: { not_before: "2026-10-15T12:00:00Z", not_after: "2026-10-15T17:00:00Z" },
    });
    await refusedFor(
      /never limits/,
      forgeWith({
        aud: [ref(audD)],
        hc: { _sd: [memberD.digest] },
        extra: { _sd: [hidden.digest], constraints: undefined },
        disclosures: [audD, memberD],
      }),
    );
  });
  it("§3.4: only allowlist entries are disclosable: an _sd inside a host_constraints member (a hidden limit) is refused", async () => {
    const audD = disc(HOST);
    const limit = disc("max_price", { amount: "5.00", currency: "CAD" });
    const memberD = disc(HOST, { _sd: [limit.digest] });
    await refusedFor(
      /never limits/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD] }),
    );
  });
});

describe("§3.4 Selective disclosure and the evaluated mandate", () => {
  it("§3.4: a presentation withholding its own host_constraints member is refused (fails closed)", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, { max_price: { amount: "10.00", currency: "CAD" } });
    await refusedFor(
      /does not disclose this host's host_constraints member/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD] }),
    );
  });
  it("§3.4: a presentation made for another garage (its aud element and member) is refused here", async () => {
    const sdJwt = issued();
    const forOther = present(sdJwt, { hostId: OTHER });
    // Presented at HOST with a KB-JWT for HOST: still no member for HOST.
    const [jwt, a, m] = forOther.split("~");
    const kb = signJws(
      { typ: "kb+jwt" },
      { aud: HOST, nonce: "n", iat: NOW, sd_hash: sdHash(jwt!, [a!, m!]) },
      agentKey,
    );
    await refusedFor(/audience does not include this host/, `${jwt}~${a}~${m}~${kb}`);
  });
  it("§3.4: a presentation that does not disclose this host's aud element is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    await refusedFor(
      /audience does not include this host/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [memberD] }),
    );
  });
  it("§3.4: a constraint set in both places (shared and the host's member) is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, { services: ["tire-swap"] });
    await refusedFor(
      /both in constraints and in host_constraints/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD] }),
    );
  });
  it("§3.4: the issuer refuses to set a constraint in both places", () => {
    expect(() => issued({ hosts: { [HOST]: { services: ["x"] } } })).toThrow(/both/);
  });
  it("§3.4: aud holds no wildcard, even at a host that allows wildcard compact mandates", async () => {
    const star = disc("*");
    const audD = disc(HOST);
    const memberD = disc(HOST, {});
    await refused(
      forgeWith({
        aud: [ref(audD), ref(star)],
        hc: { _sd: [memberD.digest] },
        disclosures: [audD, star, memberD],
      }),
      "mandate_invalid",
      ctx({ allowWildcardAudience: true }),
    );
  });
  it("§3.4: the issuer refuses a wildcard aud", () => {
    expect(() => issued({ hosts: { "*": {} } })).toThrow(/wildcard/);
  });
  it("§3.4: a closed mandate naming more than one host (aud padded or listing two) is refused", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, { offer_sha256: sha256Base64Url("offer") });
    const decoy = { "...": sha256Base64Url("decoy") };
    await refusedFor(
      /exactly one host/,
      forgeWith({ aud: [ref(audD), decoy], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD] }),
    );
  });
  it("§3.4: a closed mandate naming exactly one host is accepted, and the issuer adds no decoys to it", async () => {
    const offer = sha256Base64Url("offer");
    const sdJwt = issueSdJwtMandate(
      mandateClaims({ hosts: { [HOST]: { offer_sha256: offer } } }),
      edPrincipal,
    ).sdJwt;
    const chain = await accepted(present(sdJwt));
    expect(chain.root.claims.constraints?.offer_sha256).toBe(offer);
    expect(() => issued({ hosts: { [HOST]: { offer_sha256: offer }, [OTHER]: {} } })).toThrow(
      /exactly one host/,
    );
  });
  it("§3.4 Not in this profile: a mandate with a status claim (Token Status List) is refused", async () => {
    await refusedFor(
      /Token Status List/,
      forge({ payload: { status: { status_list: { idx: 0, uri: "https://x.example/sl" } } } }),
    );
  });
  it("§3.4: the evaluated mandate is validated against MandateClaims: an unknown constraint name is invalid", async () => {
    const audD = disc(HOST);
    const memberD = disc(HOST, { cancellation_fee: { amount: "20.00", currency: "CAD" } });
    await refusedFor(
      /cancellation_fee is not a member/,
      forgeWith({ aud: [ref(audD)], hc: { _sd: [memberD.digest] }, disclosures: [audD, memberD] }),
    );
  });
  it("§3.4 / §8: no AP2 payment mandate is carried or accepted: an unknown claim fails MandateClaims", async () => {
    await refusedFor(
      /payment_mandate is not a member/,
      forge({ payload: { payment_mandate: { amount: "5" } } }),
    );
  });
  it("§3.4: principal_jwk is not a claim in this profile (the key is the jwk header)", async () => {
    await refusedFor(
      /principal_jwk is not a claim/,
      forge({ payload: { principal_jwk: edPrincipal.publicJwk } }),
    );
  });
  it("§3.4 Keys: cnf.jwk must be Ed25519 (request signing stays Ed25519-only)", async () => {
    await refusedFor(/cnf.jwk/, forge({ payload: { cnf: { jwk: p256Principal.publicJwk } } }));
  });
  it("§3.4: cnf.jwk must be the key that signed the HTTP request (cnf.jkt = its thumbprint, §3.3 check 4)", async () => {
    await refused(present(issued()), "mandate_invalid", ctx({ requestKeyThumbprint: thumb(stranger) }));
  });
});

describe("§3.4 Key Binding JWT", () => {
  it("§3.4: every presentation MUST end in a KB-JWT; one without is refused", async () => {
    await refusedFor(/must end in a Key Binding JWT/, forge({ kb: false }));
  });
  it("§3.4: KB-JWT typ other than kb+jwt is refused", async () => {
    await refusedFor(/typ must be "kb\+jwt"/, forge({ kb: { header: { typ: "JWT" } } }));
  });
  it("§3.4: a KB-JWT not signed by cnf.jwk is refused", async () => {
    await refusedFor(/KB-JWT signature does not verify/, forge({ kb: { key: stranger } }));
  });
  it("§3.4: a KB-JWT signed by the principal instead of cnf.jwk is refused", async () => {
    await refusedFor(/KB-JWT signature does not verify/, forge({ kb: { key: edPrincipal } }));
  });
  it("§3.4: KB-JWT aud that is not this host is refused", async () => {
    await refusedFor(/KB-JWT aud is not this host/, forge({ kb: { payload: { aud: OTHER } } }));
  });
  it("§3.4: KB-JWT aud must be a single string, not a list", async () => {
    await refusedFor(/single string/, forge({ kb: { payload: { aud: [HOST] } } }));
  });
  it("§3.4: KB-JWT iat 300 s old is accepted, 301 s old is refused", async () => {
    await accepted(forge({ kb: { payload: { iat: NOW - 300 } } }));
    await refusedFor(/more than 300 s old/, forge({ kb: { payload: { iat: NOW - 301 } } }));
  });
  it("§3.4: KB-JWT iat 60 s ahead is accepted, 61 s ahead is refused", async () => {
    await accepted(forge({ kb: { payload: { iat: NOW + 60 } } }));
    await refusedFor(/more than 60 s in the future/, forge({ kb: { payload: { iat: NOW + 61 } } }));
  });
  it("§3.4: a KB-JWT without a nonce is refused", async () => {
    await refusedFor(/nonce is required/, forge({ kb: { payload: { nonce: undefined } } }));
  });
  it("§3.4: a KB-JWT whose sd_hash does not match the presented disclosures is refused", async () => {
    await refusedFor(/sd_hash does not match/, forge({ kb: { sdHash: sdHash("other", []) } }));
  });
  it("§3.4: dropping a disclosure after the KB-JWT was signed breaks sd_hash", async () => {
    const p = present(issued());
    const parts = p.split("~");
    const onlyMember = [parts[0], parts[2], parts[3]].join("~");
    await refusedFor(/sd_hash does not match|does not reference|audience/, onlyMember);
  });
  it("§3.4: a presentation's KB-JWT is bound to one host: replayed at another garage it is refused", async () => {
    const p = present(issued());
    await refused(p, "mandate_invalid", ctx({ hostId: OTHER }));
  });
});
