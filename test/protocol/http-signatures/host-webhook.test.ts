import { sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentDigestSha256 } from "../../../src/protocol/http-signatures/content-digest.js";
import { signHostWebhook, verifyHostWebhook } from "../../../src/protocol/http-signatures/host-webhook.js";
import type { HostWebhookHeaders } from "../../../src/protocol/http-signatures/host-webhook.js";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/nonce-memory.js";
import { verifyRfc9421Ed25519 } from "../../../src/protocol/http-signatures/rfc9421-verify.js";
import { buildSignatureBase } from "../../../src/protocol/http-signatures/signature-base.js";
import { encodeBase64, encodeBase64Url } from "../../../src/protocol/json/base64.js";
import { ed25519PublicKeyFromJwk, generateEd25519KeyPair } from "../../../src/protocol/jose/jwk.js";
import type { HostSigningKey } from "../../../src/protocol/schcp/offer/index.js";
import type { Jwk } from "../../../src/protocol/schcp/types.js";

const NOW = 1792000000;
const URL_ = "https://agent.example/hooks/schcp";
const HOST = "maple-street-auto";
const NONCE = encodeBase64Url(new Uint8Array(16).fill(9));
const BODY = new TextEncoder().encode(
  JSON.stringify({
    event_id: "e_1",
    type: "hold.expired",
    host_id: HOST,
    occurred_at: "2026-10-15T13:00:00Z",
  }),
);

function hostKey(kid: string): HostSigningKey {
  const pair = generateEd25519KeyPair();
  return { kid, privateKey: pair.privateKey, publicJwk: { ...pair.publicJwk, kid } };
}
const key = hostKey("maple-street-auto-2026-10");
const other = hostKey("other-2026-10");
const discovery: Jwk[] = [{ ...key.publicJwk, kid: key.kid, use: "sig" }];

type Headers = Record<string, string | string[]>;
const lookup = (headers: Headers) => (name: string) => headers[name];

function delivery(opts: { body?: Uint8Array; created?: number; nonce?: string; k?: HostSigningKey } = {}) {
  const body = opts.body ?? BODY;
  const headers: HostWebhookHeaders = signHostWebhook({
    targetUri: URL_,
    hostId: HOST,
    body,
    key: opts.k ?? key,
    created: opts.created ?? NOW,
    nonce: opts.nonce ?? NONCE,
  });
  return { body, headers: { ...headers } as Headers };
}

function verify(
  d: { body: Uint8Array; headers: Headers },
  opts: { uri?: string; nowSec?: number; keys?: Jwk[]; nonces?: MemoryNonceMemory; method?: string } = {},
) {
  return verifyHostWebhook({
    method: opts.method ?? "POST",
    targetUri: opts.uri ?? URL_,
    headers: lookup(d.headers),
    body: d.body,
    nowSec: opts.nowSec ?? NOW,
    discoveryKeys: opts.keys ?? discovery,
    nonces: opts.nonces ?? new MemoryNonceMemory(() => NOW),
  });
}

/** Signs an arbitrary Signature-Input correctly, so a refusal proves the form rule. */
function customSigned(components: string[], params: string, label = "schcp") {
  const digest = contentDigestSha256(BODY);
  const fields: Array<[string, string]> = [
    ["content-digest", digest],
    ["schcp-mandate", "x.y.z"],
  ];
  const list = `(${components.map((c) => `"${c}"`).join(" ")})${params}`;
  const base = buildSignatureBase(components, list, { method: "POST", targetUri: URL_, headers: fields });
  if (!base.ok) throw new Error(base.error.message);
  const sig = sign(null, Buffer.from(base.value), key.privateKey);
  const headers: Headers = {
    "content-type": "application/json",
    "schcp-host": HOST,
    "content-digest": digest,
    "schcp-mandate": "x.y.z",
    "signature-input": `${label}=${list}`,
    signature: `${label}=:${encodeBase64(sig)}:`,
  };
  return { body: BODY, headers };
}

const PARAMS = `;created=${NOW};keyid="${key.kid}";nonce="${NONCE}";alg="ed25519"`;

describe("signHostWebhook (SchCP §5.8 signed with the host key, §3.2 one exact form)", () => {
  it("produces the §3.2 form with the host kid as keyid, SchCP-Host and Content-Type", () => {
    const { headers } = delivery();
    expect(headers["signature-input"]).toBe(`schcp=("@method" "@target-uri" "content-digest")${PARAMS}`);
    expect(headers["schcp-host"]).toBe(HOST);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["content-digest"]).toBe(contentDigestSha256(BODY));
    expect(headers.signature).toMatch(/^schcp=:[A-Za-z0-9+/]{86}==:$/);
  });

  it("is a standard RFC 9421 signature (verified by the generic verifier with the host's public key)", () => {
    const { headers } = delivery();
    const message = {
      method: "POST",
      targetUri: URL_,
      headers: Object.entries(headers).map(([k, v]) => [k, String(v)] as const),
    };
    expect(verifyRfc9421Ed25519(message, "schcp", ed25519PublicKeyFromJwk(key.publicJwk))).toEqual({
      ok: true,
      value: true,
    });
  });

  it("draws a fresh nonce for every delivery", () => {
    const a = signHostWebhook({ targetUri: URL_, hostId: HOST, body: BODY, key, created: NOW });
    const b = signHostWebhook({ targetUri: URL_, hostId: HOST, body: BODY, key, created: NOW });
    expect(a["signature-input"]).not.toBe(b["signature-input"]);
  });

  it.each([
    ["an empty body", { body: new Uint8Array(0) }],
    ["a fractional created", { created: 1.5 }],
    ["a short nonce", { nonce: encodeBase64Url(new Uint8Array(8)) }],
    ["a kid with a quote", { key: hostKey('bad"kid') }],
  ])("throws on %s (programmer error)", (_name, patch) => {
    expect(() =>
      signHostWebhook({ targetUri: URL_, hostId: HOST, body: BODY, key, created: NOW, ...patch }),
    ).toThrow(TypeError);
  });
});

describe("verifyHostWebhook (agent side, SchCP §5.8 + §3.2)", () => {
  it("accepts a delivery signed with the discovery key its keyid names", async () => {
    const res = await verify(delivery());
    expect(res).toEqual({ ok: true, value: { hostId: HOST, kid: key.kid, created: NOW, nonce: NONCE } });
  });

  it("accepts a lower-case method and a rotated key listed beside the old one (§2.1 keys)", async () => {
    const keys = [...discovery, { ...other.publicJwk, kid: other.kid }];
    const res = await verify(delivery({ k: other }), { keys, method: "post" });
    expect(res.ok).toBe(true);
  });

  it.each<[string, () => { body: Uint8Array; headers: Headers }, Parameters<typeof verify>[1], string]>([
    ["a keyid that names no discovery key", () => delivery({ k: other }), {}, "signature-input"],
    [
      "a kid listed twice in discovery",
      () => delivery(),
      { keys: [...discovery, { ...other.publicJwk, kid: key.kid }] },
      "signature-input",
    ],
    [
      "another key signing under the host's kid",
      () => delivery({ k: { ...other, kid: key.kid } }),
      {},
      "signature",
    ],
    ["another target URI", () => delivery(), { uri: "https://agent.example/other" }, "signature"],
    ["another method", () => delivery(), { method: "PUT" }, "signature"],
  ])("refuses %s (bad_signature)", async (_name, make, opts, field) => {
    const res = await verify(make(), opts);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error).toMatchObject({ code: "BAD_SIGNATURE", reason: "bad_signature", field });
  });

  it("refuses a body that does not match Content-Digest", async () => {
    const d = delivery();
    const res = await verify({ ...d, body: new TextEncoder().encode('{"host_id":"maple-street-auto"}') });
    expect(res).toMatchObject({ ok: false, error: { reason: "bad_signature", field: "content-digest" } });
  });

  it.each<[string, (h: Headers) => void, string]>([
    ["a missing Signature-Input", (h) => delete h["signature-input"], "signature-input"],
    ["a missing Signature", (h) => delete h.signature, "signature"],
    ["a missing Content-Digest", (h) => delete h["content-digest"], "content-digest"],
    ["a missing SchCP-Host", (h) => delete h["schcp-host"], "schcp-host"],
    [
      "SchCP-Host naming another host than the body",
      (h) => (h["schcp-host"] = "fades-on-queen"),
      "schcp-host",
    ],
    ["two SchCP-Host lines", (h) => (h["schcp-host"] = [HOST, HOST]), "schcp-host"],
    [
      "two Signature lines",
      (h) => (h.signature = [h.signature as string, h.signature as string]),
      "signature",
    ],
    [
      "a second signature in the dictionary",
      (h) => (h["signature-input"] = `${String(h["signature-input"])}, other=("@method");created=1`),
      "signature-input",
    ],
    ["a truncated signature", (h) => (h.signature = "schcp=:AAAA:"), "signature"],
    ["a malformed Signature-Input", (h) => (h["signature-input"] = "schcp=(((("), "signature-input"],
  ])("refuses %s", async (_name, mutate, field) => {
    const d = delivery();
    mutate(d.headers);
    const res = await verify(d);
    expect(res).toMatchObject({ ok: false, error: { reason: "bad_signature", field } });
  });

  it.each<[string, string[], string, string?]>([
    ["another label", ["@method", "@target-uri", "content-digest"], PARAMS, "sig1"],
    ["a covered schcp-mandate", ["@method", "@target-uri", "content-digest", "schcp-mandate"], PARAMS],
    ["content-digest left out", ["@method", "@target-uri"], PARAMS],
    ["another component order", ["@target-uri", "@method", "content-digest"], PARAMS],
    [
      "another parameter order",
      ["@method", "@target-uri", "content-digest"],
      `;keyid="${key.kid}";created=${NOW};nonce="${NONCE}";alg="ed25519"`,
    ],
    ["an extra parameter", ["@method", "@target-uri", "content-digest"], `${PARAMS};expires=${NOW + 60}`],
    [
      "another alg",
      ["@method", "@target-uri", "content-digest"],
      `;created=${NOW};keyid="${key.kid}";nonce="${NONCE}";alg="rsa-pss-sha512"`,
    ],
    [
      "a short nonce",
      ["@method", "@target-uri", "content-digest"],
      `;created=${NOW};keyid="${key.kid}";nonce="AAAA";alg="ed25519"`,
    ],
  ])("refuses a correctly signed but non-conforming form: %s (§3.2)", async (_name, comps, params, label) => {
    const res = await verify(customSigned(comps, params, label));
    expect(res).toMatchObject({ ok: false, error: { reason: "bad_signature", field: "signature-input" } });
  });

  it("control: the custom signer's conforming form verifies", async () => {
    expect((await verify(customSigned(["@method", "@target-uri", "content-digest"], PARAMS))).ok).toBe(true);
  });

  it.each([
    [NOW - 300, true],
    [NOW + 300, true],
    [NOW - 301, false],
    [NOW + 301, false],
  ])("created %i against the agent clock: accepted=%s (§3.2 300 s)", async (created, accepted) => {
    const res = await verify(delivery({ created }));
    if (accepted) expect(res.ok).toBe(true);
    else expect(res).toMatchObject({ ok: false, error: { reason: "stale_signature" } });
  });

  it("refuses a replayed delivery, and remembers the nonce until created + 301 s (§3.2)", async () => {
    let now = NOW;
    const nonces = new MemoryNonceMemory(() => now);
    const d = delivery();
    expect((await verify(d, { nonces })).ok).toBe(true);
    expect(await verify(d, { nonces })).toMatchObject({ ok: false, error: { reason: "replayed_nonce" } });
    now = NOW + 301;
    // Past the memory, the same bytes are stale anyway.
    expect(await verify(d, { nonces, nowSec: now })).toMatchObject({
      ok: false,
      error: { reason: "stale_signature" },
    });
  });

  it("does not spend the nonce of a delivery that fails verification", async () => {
    const nonces = new MemoryNonceMemory(() => NOW);
    const forged = delivery({ k: { ...other, kid: key.kid } });
    expect((await verify(forged, { nonces })).ok).toBe(false);
    expect((await verify(delivery(), { nonces })).ok).toBe(true);
  });

  it("refuses a bodiless delivery", async () => {
    const d = delivery();
    expect(await verify({ ...d, body: new Uint8Array(0) })).toMatchObject({
      ok: false,
      error: { reason: "bad_signature" },
    });
  });
});
