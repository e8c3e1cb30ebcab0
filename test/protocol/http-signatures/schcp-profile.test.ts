import { sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentDigestSha256 } from "../../../src/protocol/http-signatures/content-digest.js";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/nonce-memory.js";
import type { NonceMemory } from "../../../src/protocol/http-signatures/nonce-memory.js";
import { signSchcpRequest, verifySchcpRequest } from "../../../src/protocol/http-signatures/schcp-profile.js";
import type { SignatureRefusalReason } from "../../../src/protocol/http-signatures/schcp-profile.js";
import { buildSignatureBase } from "../../../src/protocol/http-signatures/signature-base.js";
import { encodeBase64, encodeBase64Url } from "../../../src/protocol/json/base64.js";
import { generateEd25519KeyPair, jwkThumbprint } from "../../../src/protocol/jose/jwk.js";

const NOW = 1792000000;
const URI = "https://gw.example/schcp/v1/holds";
const BODY = new TextEncoder().encode('{"service":"oil-change","start":"2026-10-15T13:00:00-04:00"}');
const MANDATE = "eyJhbGciOiJFZERTQSJ9.eyJqdGkiOiJtLTEifQ.c2ln";
const agent = generateEd25519KeyPair();
const KEYID = jwkThumbprint(agent.publicJwk);
const NONCE = encodeBase64Url(new Uint8Array(16).fill(7));
const b64url = (s: string) => encodeBase64Url(new TextEncoder().encode(s));

type Headers = Record<string, string | string[]>;
interface Req {
  method: string;
  targetUri: string;
  body: Uint8Array;
  headers: Headers;
}

function signed(
  opts: { method?: string; body?: Uint8Array; mandate?: string; created?: number; nonce?: string } = {},
): Req {
  const body = opts.body ?? BODY;
  const headers = signSchcpRequest({
    method: opts.method ?? "POST",
    targetUri: URI,
    body,
    ...(opts.mandate === undefined ? {} : { mandate: opts.mandate }),
    privateKey: agent.privateKey,
    publicJwk: agent.publicJwk,
    created: opts.created ?? NOW,
    nonce: opts.nonce ?? NONCE,
  });
  return { method: (opts.method ?? "POST").toUpperCase(), targetUri: URI, body, headers: { ...headers } };
}

/**
 * Signs an arbitrary Signature-Input correctly, so a refusal proves the form rule and not
 * a broken signature. `params` is the text after "(...)".
 */
function customSigned(opts: {
  components: string[];
  params?: string;
  label?: string;
  body?: Uint8Array;
  extraHeaders?: Array<[string, string]>;
}): Req {
  const body = opts.body ?? BODY;
  const label = opts.label ?? "schcp";
  const headers: Headers = { "schcp-agent-key": b64url(JSON.stringify(agent.publicJwk)) };
  if (body.length > 0) headers["content-digest"] = contentDigestSha256(body);
  for (const [n, v] of opts.extraHeaders ?? []) headers[n] = v;
  const params = `(${opts.components.map((c) => `"${c}"`).join(" ")})${opts.params ?? `;created=${NOW};keyid="${KEYID}";nonce="${NONCE}";alg="ed25519"`}`;
  const fields = Object.entries(headers).map(([n, v]): [string, string] => [n, String(v)]);
  const base = buildSignatureBase(opts.components, params, {
    method: "POST",
    targetUri: URI,
    headers: fields,
  });
  if (!base.ok) throw new Error(base.error.message);
  headers["signature-input"] = `${label}=${params}`;
  headers.signature = `${label}=:${encodeBase64(sign(null, Buffer.from(base.value), agent.privateKey))}:`;
  return { method: "POST", targetUri: URI, body, headers };
}

function verify(req: Req, opts: { nowSec?: number; nonces?: NonceMemory } = {}) {
  return verifySchcpRequest({
    method: req.method,
    targetUri: req.targetUri,
    headers: (name) => req.headers[name],
    body: req.body,
    nowSec: opts.nowSec ?? NOW,
    nonces: opts.nonces ?? new MemoryNonceMemory(() => opts.nowSec ?? NOW),
  });
}

async function reasonOf(
  req: Req,
  opts?: { nowSec?: number; nonces?: NonceMemory },
): Promise<SignatureRefusalReason | "ok"> {
  const r = await verify(req, opts);
  return r.ok ? "ok" : r.error.reason;
}

const withHeaders = (req: Req, patch: Headers): Req => ({ ...req, headers: { ...req.headers, ...patch } });
const without = (req: Req, name: string): Req => {
  const headers = { ...req.headers };
  delete headers[name];
  return { ...req, headers };
};

describe("signSchcpRequest: the one exact form (SchCP §3.2)", () => {
  it("POST with body and mandate covers all four components in order", () => {
    const req = signed({ mandate: MANDATE });
    expect(req.headers["signature-input"]).toBe(
      `schcp=("@method" "@target-uri" "content-digest" "schcp-mandate");created=${NOW};keyid="${KEYID}";nonce="${NONCE}";alg="ed25519"`,
    );
    expect(req.headers["content-digest"]).toBe(contentDigestSha256(BODY));
    expect(req.headers["schcp-mandate"]).toBe(MANDATE);
    expect(req.headers.signature).toMatch(/^schcp=:[A-Za-z0-9+/]{86}==:$/);
  });

  it("a bodiless GET has no content-digest, and @method is upper case", () => {
    const headers = signSchcpRequest({
      method: "get",
      targetUri: URI,
      privateKey: agent.privateKey,
      publicJwk: agent.publicJwk,
      created: NOW,
    });
    expect(headers["signature-input"]).toMatch(
      /^schcp=\("@method" "@target-uri"\);created=\d+;keyid="[\w-]+";nonce="[\w-]{22}";alg="ed25519"$/,
    );
    expect(headers["content-digest"]).toBeUndefined();
    expect(headers["schcp-mandate"]).toBeUndefined();
  });

  it("draws a fresh nonce of at least 16 bytes per request", () => {
    const a = signSchcpRequest({
      method: "GET",
      targetUri: URI,
      privateKey: agent.privateKey,
      publicJwk: agent.publicJwk,
      created: NOW,
    });
    const b = signSchcpRequest({
      method: "GET",
      targetUri: URI,
      privateKey: agent.privateKey,
      publicJwk: agent.publicJwk,
      created: NOW,
    });
    expect(a["signature-input"]).not.toBe(b["signature-input"]);
  });

  it("sends the agent key as base64url JSON with kty, crv, x only", () => {
    const req = signed();
    const json = Buffer.from(String(req.headers["schcp-agent-key"]), "base64url").toString("utf8");
    expect(JSON.parse(json)).toEqual(agent.publicJwk);
  });

  it("throws on its caller's own bad values (programmer errors)", () => {
    const base = {
      method: "GET",
      targetUri: URI,
      privateKey: agent.privateKey,
      publicJwk: agent.publicJwk,
      created: NOW,
    };
    expect(() => signSchcpRequest({ ...base, created: 1.5 })).toThrow(TypeError);
    expect(() => signSchcpRequest({ ...base, nonce: "short" })).toThrow(TypeError);
    expect(() => signSchcpRequest({ ...base, mandate: "a\r\nb" })).toThrow(TypeError);
  });
});

describe("verifySchcpRequest: round trips", () => {
  it.each([
    ["GET, bodiless, no mandate", { method: "GET", body: new Uint8Array(0) }],
    ["GET, bodiless, with mandate", { method: "GET", body: new Uint8Array(0), mandate: MANDATE }],
    ["POST with body, no mandate", {}],
    ["POST with body and mandate", { mandate: MANDATE }],
    ["DELETE, bodiless", { method: "DELETE", body: new Uint8Array(0), mandate: MANDATE }],
  ])("%s", async (_n, opts) => {
    const req = signed(opts);
    const r = await verify(req);
    expect(r).toEqual({
      ok: true,
      value: {
        keyid: KEYID,
        agentJwk: agent.publicJwk,
        created: NOW,
        nonce: NONCE,
        ...("mandate" in opts ? { mandate: MANDATE } : {}),
      },
    });
  });

  it("accepts an agent key with kid and members in another order", async () => {
    const req = customSigned({ components: ["@method", "@target-uri", "content-digest"] });
    const key = b64url(JSON.stringify({ x: agent.publicJwk.x, kid: "mine", crv: "Ed25519", kty: "OKP" }));
    const r = await verify(withHeaders(req, { "schcp-agent-key": key }));
    expect(r.ok && r.value.agentJwk).toEqual({ ...agent.publicJwk, kid: "mine" });
  });

  it("accepts single-element header arrays (frameworks that keep lines apart)", async () => {
    const req = signed({ mandate: MANDATE });
    const arrays = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, [String(v)]]));
    expect(await reasonOf({ ...req, headers: arrays })).toBe("ok");
  });
});

const other = generateEd25519KeyPair();
const FULL = ["@method", "@target-uri", "content-digest"];
const P = (p: Partial<Record<"created" | "keyid" | "nonce" | "alg", string>>) =>
  `;created=${p.created ?? NOW};keyid="${p.keyid ?? KEYID}";nonce="${p.nonce ?? NONCE}";alg="${p.alg ?? "ed25519"}"`;

describe("verifySchcpRequest: refusals (SchCP §3.2)", () => {
  const good = signed({ mandate: MANDATE });
  // The byte sequence with its colons, e.g. ":AbC...==:".
  const goodSig = String(good.headers.signature).slice("schcp=".length);
  const cases: Array<[string, () => Req, RegExp]> = [
    ["wrong label", () => customSigned({ components: FULL, label: "sig1" }), /label must be/],
    [
      "two signatures in one Signature-Input",
      () => {
        const r = customSigned({ components: FULL });
        return withHeaders(r, {
          "signature-input": `${String(r.headers["signature-input"])}, other=("@method");created=${NOW}`,
          signature: `${String(r.headers.signature)}, other=${goodSig}`,
        });
      },
      /exactly one signature/,
    ],
    [
      "the same label twice",
      () => {
        const r = customSigned({ components: FULL });
        return withHeaders(r, {
          "signature-input": `${String(r.headers["signature-input"])}, ${String(r.headers["signature-input"])}`,
        });
      },
      /exactly one signature/,
    ],
    [
      "a second Signature value",
      () => withHeaders(good, { signature: `${String(good.headers.signature)}, x=${goodSig}` }),
      /exactly one signature/,
    ],
    [
      "repeated Signature-Input lines",
      () =>
        withHeaders(good, {
          "signature-input": [
            String(good.headers["signature-input"]),
            String(good.headers["signature-input"]),
          ],
        }),
      /more than once/,
    ],
    [
      "repeated SchCP-Mandate lines",
      () => withHeaders(good, { "schcp-mandate": [MANDATE, MANDATE] }),
      /more than once/,
    ],
    [
      "reordered components",
      () => customSigned({ components: ["@target-uri", "@method", "content-digest"] }),
      /covered components/,
    ],
    [
      "an extra component",
      () =>
        customSigned({
          components: [...FULL, "content-type"],
          extraHeaders: [["content-type", "application/json"]],
        }),
      /covered components/,
    ],
    [
      "an extra derived component",
      () => customSigned({ components: [...FULL, "@authority"] }),
      /covered components/,
    ],
    [
      "a missing component (content-digest uncovered)",
      () => customSigned({ components: ["@method", "@target-uri"] }),
      /covered components/,
    ],
    [
      "a component with a parameter",
      () => {
        const r = customSigned({ components: FULL });
        return withHeaders(r, {
          "signature-input": String(r.headers["signature-input"]).replace(
            '"content-digest"',
            '"content-digest";sf',
          ),
        });
      },
      /covered components/,
    ],
    [
      "an extra parameter",
      () => customSigned({ components: FULL, params: `${P({})};expires=${NOW + 60}` }),
      /parameters must be exactly/,
    ],
    [
      "reordered parameters",
      () =>
        customSigned({
          components: FULL,
          params: `;keyid="${KEYID}";created=${NOW};nonce="${NONCE}";alg="ed25519"`,
        }),
      /parameters must be exactly/,
    ],
    [
      "a missing alg",
      () => customSigned({ components: FULL, params: `;created=${NOW};keyid="${KEYID}";nonce="${NONCE}"` }),
      /parameters must be exactly/,
    ],
    [
      'alg "ed25519 "',
      () => customSigned({ components: FULL, params: P({ alg: "ed25519 " }) }),
      /alg must be/,
    ],
    [
      'alg "rsa"',
      () => customSigned({ components: FULL, params: P({ alg: "rsa-pss-sha512" }) }),
      /alg must be/,
    ],
    [
      "alg as a token",
      () =>
        customSigned({
          components: FULL,
          params: `;created=${NOW};keyid="${KEYID}";nonce="${NONCE}";alg=ed25519`,
        }),
      /alg must be/,
    ],
    [
      "a decimal created",
      () => customSigned({ components: FULL, params: P({ created: `${NOW}.5` }) }),
      /created must be an integer/,
    ],
    [
      "a string created",
      () => customSigned({ components: FULL, params: P({ created: `"${NOW}"` }) }),
      /created must be an integer/,
    ],
    [
      "extra spaces in the inner list",
      () => {
        const r = customSigned({ components: FULL });
        return withHeaders(r, { "signature-input": String(r.headers["signature-input"]).replace("(", "( ") });
      },
      /one exact form/,
    ],
    [
      "keyid of another key",
      () => customSigned({ components: FULL, params: P({ keyid: jwkThumbprint(other.publicJwk) }) }),
      /thumbprint/,
    ],
    [
      "a short nonce (15 bytes)",
      () => customSigned({ components: FULL, params: P({ nonce: encodeBase64Url(new Uint8Array(15)) }) }),
      /nonce must be/,
    ],
    [
      "a padded nonce",
      () => customSigned({ components: FULL, params: P({ nonce: `${encodeBase64(new Uint8Array(16))}` }) }),
      /nonce must be/,
    ],
    ["a missing SchCP-Agent-Key", () => without(good, "schcp-agent-key"), /SchCP-Agent-Key is missing/],
    [
      "an agent key with d",
      () =>
        withHeaders(good, {
          "schcp-agent-key": b64url(
            JSON.stringify({ ...agent.publicJwk, d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" }),
          ),
        }),
      /private key/,
    ],
    [
      "an agent key with an extra member",
      () =>
        withHeaders(good, { "schcp-agent-key": b64url(JSON.stringify({ ...agent.publicJwk, use: "sig" })) }),
      /not allowed/,
    ],
    [
      "an agent key with a duplicate member",
      () =>
        withHeaders(good, {
          "schcp-agent-key": b64url(
            `{"kty":"OKP","crv":"Ed25519","x":"${other.publicJwk.x}","x":"${agent.publicJwk.x}"}`,
          ),
        }),
      /duplicate member/,
    ],
    [
      "an agent key with invalid UTF-8",
      () =>
        withHeaders(good, {
          "schcp-agent-key": encodeBase64Url(
            Buffer.concat([
              Buffer.from(JSON.stringify({ ...agent.publicJwk, kid: "k" }).slice(0, -2)),
              Buffer.from([0xff, 0x22, 0x7d]),
            ]),
          ),
        }),
      /UTF-8/,
    ],
    [
      "an agent key in padded base64url",
      () => withHeaders(good, { "schcp-agent-key": `${String(good.headers["schcp-agent-key"])}=` }),
      /base64url/,
    ],
    [
      "another agent key (keyid mismatch)",
      () => withHeaders(good, { "schcp-agent-key": b64url(JSON.stringify(other.publicJwk)) }),
      /thumbprint/,
    ],
    [
      "a tampered body",
      () => ({ ...good, body: new TextEncoder().encode('{"service":"brakes"}') }),
      /does not match the body/,
    ],
    [
      "a tampered body with a matching Content-Digest",
      () => {
        const body = new TextEncoder().encode('{"service":"brakes"}');
        return { ...withHeaders(good, { "content-digest": contentDigestSha256(body) }), body };
      },
      /does not verify/,
    ],
    ["a missing Content-Digest", () => without(good, "content-digest"), /Content-Digest is missing/],
    [
      "a sha-512-only Content-Digest",
      () => withHeaders(good, { "content-digest": `sha-512=:${encodeBase64(new Uint8Array(64))}:` }),
      /no sha-256/,
    ],
    [
      "content-digest covered on an empty body",
      () =>
        customSigned({
          components: FULL,
          body: new Uint8Array(0),
          extraHeaders: [["content-digest", contentDigestSha256(new Uint8Array(0))]],
        }),
      /covered components/,
    ],
    [
      "an uncovered Content-Digest on an empty body",
      () =>
        withHeaders(signed({ method: "GET", body: new Uint8Array(0) }), {
          "content-digest": contentDigestSha256(new Uint8Array(0)),
        }),
      /bodiless/,
    ],
    [
      "a Host-derived target URI",
      () => ({ ...good, targetUri: "http://10.0.0.7:8080/schcp/v1/holds" }),
      /does not verify/,
    ],
    ["a target URI with another query", () => ({ ...good, targetUri: `${URI}?x=1` }), /does not verify/],
    ["a lower-case method at the host", () => ({ ...good, method: "post" }), /does not verify/],
    ["another method", () => ({ ...good, method: "PUT" }), /does not verify/],
    [
      "a swapped mandate header",
      () => withHeaders(good, { "schcp-mandate": "eyJhbGciOiJFZERTQSJ9.eyJqdGkiOiJtLTIifQ.c2ln" }),
      /does not verify/,
    ],
    ["a dropped mandate header", () => without(good, "schcp-mandate"), /covered components/],
    [
      "a mandate added to an unmandated request",
      () => withHeaders(signed(), { "schcp-mandate": MANDATE }),
      /covered components/,
    ],
    ["a missing Signature", () => without(good, "signature"), /Signature is missing/],
    ["a missing Signature-Input", () => without(good, "signature-input"), /Signature-Input is missing/],
    [
      "a flipped signature bit",
      () =>
        withHeaders(good, {
          signature: `schcp=:${encodeBase64(Buffer.from(goodSig.slice(1, -1), "base64").map((b, i) => (i === 0 ? b ^ 1 : b)))}:`,
        }),
      /does not verify/,
    ],
    [
      "a signature of the wrong length",
      () => withHeaders(good, { signature: `schcp=:${encodeBase64(new Uint8Array(63))}:` }),
      /64 bytes/,
    ],
    [
      "a Signature with a parameter",
      () => withHeaders(good, { signature: `${String(good.headers.signature)};x=1` }),
      /byte sequence/,
    ],
    [
      "a Signature signed by another key",
      () => {
        const forged = signSchcpRequest({
          method: "POST",
          targetUri: URI,
          body: BODY,
          mandate: MANDATE,
          privateKey: other.privateKey,
          publicJwk: agent.publicJwk,
          created: NOW,
          nonce: NONCE,
        });
        return withHeaders(good, { signature: forged.signature });
      },
      /does not verify/,
    ],
    ["unparseable Signature-Input", () => withHeaders(good, { "signature-input": "schcp=(" }), /bare item/],
  ];

  it("the genuine request verifies (control for every row below)", async () => {
    expect(await reasonOf(good)).toBe("ok");
  });

  it.each(cases)("%s -> bad_signature (%s)", async (_n, build, message) => {
    const r = await verify(build());
    expect(r).toMatchObject({ ok: false, error: { code: "BAD_SIGNATURE", reason: "bad_signature" } });
    expect(!r.ok && r.error.message).toMatch(message);
  });

  it("every refusal is code BAD_SIGNATURE with a message and the field it is about", async () => {
    const r = await verify(customSigned({ components: FULL, label: "sig1" }));
    expect(r).toMatchObject({
      ok: false,
      error: { code: "BAD_SIGNATURE", reason: "bad_signature", field: "signature-input" },
    });
    const k = await verify(
      withHeaders(good, { "schcp-agent-key": b64url(JSON.stringify({ ...agent.publicJwk, d: "x" })) }),
    );
    expect(k).toMatchObject({ ok: false, error: { field: "schcp-agent-key/d" } });
  });
});

describe("verifySchcpRequest: freshness and replay (SchCP §3.2)", () => {
  it.each([
    [NOW + 300, "ok"],
    [NOW - 300, "ok"],
    [NOW + 301, "stale_signature"],
    [NOW - 301, "stale_signature"],
  ] as const)("created %i against a host clock of NOW -> %s", async (created, reason) => {
    expect(await reasonOf(signed({ created }))).toBe(reason);
  });

  it("throws on a clock that is not a number (programmer error), instead of accepting", async () => {
    await expect(verify(signed(), { nowSec: Number.NaN })).rejects.toThrow(TypeError);
  });

  it("refuses a replayed nonce, per key", async () => {
    const nonces = new MemoryNonceMemory(() => NOW);
    expect(await reasonOf(signed(), { nonces })).toBe("ok");
    expect(await reasonOf(signed(), { nonces })).toBe("replayed_nonce");
    expect(await reasonOf(signed({ mandate: MANDATE }), { nonces })).toBe("replayed_nonce");
    const otherNonce = encodeBase64Url(new Uint8Array(16).fill(9));
    expect(await reasonOf(signed({ nonce: otherNonce }), { nonces })).toBe("ok");
  });

  it("remembers the nonce until created + 301, the last moment the signature could verify", async () => {
    const calls: Array<[string, string, number]> = [];
    const nonces: NonceMemory = {
      rememberIfNew: (keyid, nonce, expiresAtSec) => {
        calls.push([keyid, nonce, expiresAtSec]);
        return Promise.resolve(true);
      },
    };
    expect(await reasonOf(signed({ created: NOW - 10 }), { nonces })).toBe("ok");
    expect(calls).toEqual([[KEYID, NONCE, NOW - 10 + 301]]);
  });

  it("a forged, malformed or stale request does not spend the nonce", async () => {
    let now = NOW;
    const nonces = new MemoryNonceMemory(() => now);
    const good = signed();
    const forged = signSchcpRequest({
      method: "POST",
      targetUri: URI,
      body: BODY,
      privateKey: other.privateKey,
      publicJwk: agent.publicJwk,
      created: NOW,
      nonce: NONCE,
    });
    expect(await reasonOf({ ...good, headers: { ...forged } }, { nonces })).toBe("bad_signature");
    expect(await reasonOf({ ...good, targetUri: `${URI}/x` }, { nonces })).toBe("bad_signature");
    now = NOW + 400;
    expect(await reasonOf(good, { nonces, nowSec: now })).toBe("stale_signature");
    now = NOW;
    expect(nonces.size).toBe(0);
    expect(await reasonOf(good, { nonces })).toBe("ok");
    expect(nonces.size).toBe(1);
  });
});
