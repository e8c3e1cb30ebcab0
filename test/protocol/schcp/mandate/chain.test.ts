import { describe, expect, it } from "vitest";
import {
  CachingMandateStatus,
  delegateMandate,
  verifyMandate,
} from "../../../../src/protocol/schcp/mandate/index.js";
import type {
  MandateStatusPort,
  VerifyMandateContext,
} from "../../../../src/protocol/schcp/mandate/index.js";
import {
  NOW,
  agent,
  childClaims,
  childContext,
  expectRefusal,
  forge,
  fullChildClaims,
  fullRootClaims,
  issOf,
  issueChild,
  issueRoot,
  otherPrincipal,
  principal,
  stranger,
  subAgent,
  thumb,
} from "./helpers.js";

interface Row {
  name: string;
  mandate: () => Promise<string>;
  ctx?: Partial<VerifyMandateContext>;
  field?: string;
}

/** §3.3 Attenuation: every rule a chain must pass, one row each. */
const refused: Row[] = [
  {
    name: "depth 3 (a parent that itself has a parent) is refused",
    mandate: async () => {
      const child = await issueChild({ scope: ["hold", "delegate"] });
      return delegateMandate(
        child,
        { ...childClaims({ jti: "m-grandchild" }), cnf: { jkt: thumb(stranger) } },
        subAgent,
      );
    },
    ctx: { requestKeyThumbprint: thumb(stranger) },
    field: "SchCP-Mandate/payload/parent/payload/parent",
  },
  {
    name: "a child not signed by the key the parent's cnf.jkt names is refused",
    mandate: async () => forge(fullChildClaims(await issueRoot()), stranger),
    field: "SchCP-Mandate",
  },
  {
    name: "a child whose issuer_jwk is not the parent's cnf.jkt key is refused",
    mandate: async () =>
      forge(fullChildClaims(await issueRoot(), { issuer_jwk: stranger.publicJwk }), stranger),
    field: "SchCP-Mandate/payload/issuer_jwk",
  },
  {
    name: "a parent without delegate in scope is refused",
    mandate: async () => issueChild({}, await issueRoot({ scope: ["hold", "book"] })),
    field: "SchCP-Mandate/payload/parent/payload/scope",
  },
  {
    name: "a child scope wider than its parent's is refused",
    mandate: async () =>
      issueChild({ scope: ["hold", "cancel"] }, await issueRoot({ scope: ["hold", "delegate"] })),
    field: "SchCP-Mandate/payload/scope",
  },
  {
    name: "a child whose iss differs from its parent's is refused",
    mandate: async () => forge(fullChildClaims(await issueRoot(), { iss: issOf(otherPrincipal) }), agent),
    field: "SchCP-Mandate/payload/iss",
  },
  {
    name: "a child whose sub differs from its parent's is refused",
    mandate: async () => forge(fullChildClaims(await issueRoot(), { sub: "someone-else" }), agent),
    field: "SchCP-Mandate/payload/sub",
  },
  {
    name: "a child whose exp is later than its parent's is refused",
    mandate: async () => issueChild({ exp: NOW + 3601 }, await issueRoot({ exp: NOW + 3600 })),
    field: "SchCP-Mandate/payload/exp",
  },
  {
    name: "a child repeating its parent's jti is refused",
    mandate: async () => issueChild({ jti: "m-root" }),
    field: "SchCP-Mandate/payload/jti",
  },
  {
    name: "an invalid root (another host's aud) under a valid child is refused",
    mandate: async () => issueChild({}, await issueRoot({ aud: "other-garage" })),
    field: "SchCP-Mandate/payload/parent/payload/aud",
  },
  {
    name: "an invalid root (signed by another key) under a valid child is refused",
    mandate: async () => issueChild({}, await forge(fullRootClaims(), stranger)),
    field: "SchCP-Mandate/payload/parent",
  },
  {
    name: "an invalid root (iat in the future) under a valid child is refused",
    mandate: async () => issueChild({}, await issueRoot({ iat: NOW + 61 })),
    field: "SchCP-Mandate/payload/parent/payload/iat",
  },
  {
    name: "a child carrying principal_jwk instead of issuer_jwk is refused",
    mandate: async () => {
      const claims: Record<string, unknown> = {
        ...fullChildClaims(await issueRoot()),
        principal_jwk: agent.publicJwk,
      };
      delete claims.issuer_jwk;
      return forge(claims, agent);
    },
  },
  {
    name: "a child carrying both principal_jwk and issuer_jwk is refused",
    mandate: async () =>
      forge({ ...fullChildClaims(await issueRoot()), principal_jwk: principal.publicJwk }, agent),
  },
  {
    name: "a root carrying issuer_jwk is refused",
    mandate: () => forge({ ...fullRootClaims(), issuer_jwk: principal.publicJwk }),
  },
  {
    name: "a root with issuer_jwk and no principal_jwk is refused",
    mandate: () => {
      const claims: Record<string, unknown> = { ...fullRootClaims(), issuer_jwk: principal.publicJwk };
      delete claims.principal_jwk;
      return forge(claims);
    },
  },
  {
    name: "a parent whose signature segment was altered is refused (parent is the exact JWS)",
    mandate: async () => {
      const root = await issueRoot();
      const altered = `${root.slice(0, -2)}${root.endsWith("AA") ? "BA" : "AA"}`;
      return forge(fullChildClaims(altered), agent);
    },
  },
  {
    name: "a parent re-encoded with the same claims is refused (parent is the exact JWS)",
    mandate: async () => {
      const [h, p, s] = (await issueRoot()).split(".") as [string, string, string];
      const claims: unknown = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
      const reencoded = Buffer.from(JSON.stringify(claims, null, 1)).toString("base64url");
      return forge(fullChildClaims(`${h}.${reencoded}.${s}`), agent);
    },
  },
  {
    name: "a parent with trailing whitespace is refused",
    mandate: async () => forge(fullChildClaims(`${await issueRoot()} `), agent),
  },
  {
    name: "the request signed by the parent's agent, not the leaf's, is refused (check 4 on the leaf)",
    mandate: () => issueChild(),
    ctx: { requestKeyThumbprint: thumb(agent) },
    field: "SchCP-Mandate/payload/cnf/jkt",
  },
  {
    name: "a child naming another host is refused (check 2 on every link)",
    mandate: () => issueChild({ aud: "other-garage" }),
    field: "SchCP-Mandate/payload/aud",
  },
  {
    name: "a child with iat in the future is refused (check 3 on every link)",
    mandate: () => issueChild({ iat: NOW + 61 }),
  },
  {
    name: "a child failing the schema (unknown constraint) is refused",
    mandate: () => issueChild({ constraints: { max_price_ever: 1 } as never }),
  },
  {
    name: "a parent failing the schema (unknown claim) is refused",
    mandate: async () => issueChild({}, await forge({ ...fullRootClaims(), extra: true })),
  },
  {
    name: "a child signed with a P-256-shaped issuer_jwk is refused",
    mandate: async () =>
      forge(
        fullChildClaims(await issueRoot(), {
          issuer_jwk: { kty: "EC", crv: "P-256", x: "AA", y: "AA" } as never,
        }),
        agent,
      ),
  },
];

describe("verifyMandate: delegation chains (§3.3 Attenuation)", () => {
  it.each(refused)("$name", async (row) => {
    const result = await verifyMandate(await row.mandate(), childContext(row.ctx));
    const refusal = expectRefusal(result, "MANDATE_INVALID", "mandate_invalid");
    if (row.field !== undefined) expect(refusal.field).toBe(row.field);
  });

  it("an expired root under a child is mandate_expired", async () => {
    const root = await issueRoot({ exp: NOW });
    const child = await issueChild({ exp: NOW }, root);
    expectRefusal(await verifyMandate(child, childContext()), "MANDATE_INVALID", "mandate_expired");
  });

  it("a valid root and child verify into a chain, root first", async () => {
    const root = await issueRoot();
    const child = await issueChild({}, root);
    const result = await verifyMandate(child, childContext());
    expect(result.ok, result.ok ? "" : JSON.stringify(result.error)).toBe(true);
    if (!result.ok) return;
    const chain = result.value;
    expect(chain.links.map((l) => [l.depth, l.compact])).toEqual([
      [0, root],
      [1, child],
    ]);
    expect(chain.root.signerJwk).toEqual(principal.publicJwk);
    expect(chain.leaf.signerJwk).toEqual(agent.publicJwk);
    expect(chain.leaf.claims.parent).toBe(root);
    expect(chain.rootIss).toBe(issOf(principal));
    expect(chain.principal).toBe(issOf(principal));
    expect(chain.subject).toBe("principal-pseudonym-7f3a");
  });

  it("§3.3/§7.5: a child carrying attestations is accepted; a host reads them from the root only, so they are ignored, never rejected", async () => {
    const att = await forge({ iss: "phonecheck.example" }, stranger, {
      alg: "EdDSA",
      typ: "schcp-attestation+jwt",
    });
    const result = await verifyMandate(await issueChild({ attestations: [att] }), childContext());
    expect(result.ok, result.ok ? "" : JSON.stringify(result.error)).toBe(true);
  });

  it("a child may name the same agent key as its parent", async () => {
    const child = await issueChild({ cnf: { jkt: thumb(agent) } });
    expect((await verifyMandate(child, childContext({ requestKeyThumbprint: thumb(agent) }))).ok).toBe(true);
  });

  it("a child with exp equal to its parent's and a scope equal to its parent's is accepted", async () => {
    const root = await issueRoot({ scope: ["hold", "delegate"] });
    const child = await issueChild({ exp: NOW + 3600, scope: ["hold", "delegate"] }, root);
    expect((await verifyMandate(child, childContext())).ok).toBe(true);
  });

  it("a child's wider constraints are not compared at verification (checked per action)", async () => {
    const root = await issueRoot({ constraints: { max_price: { amount: "50.00", currency: "CAD" } } });
    const child = await issueChild(
      { constraints: { max_price: { amount: "500.00", currency: "CAD" } } },
      root,
    );
    expect((await verifyMandate(child, childContext())).ok).toBe(true);
  });

  describe("check 7 on every link, root first", () => {
    function recording(answers: Record<string, "active" | "revoked" | "unknown">) {
      const calls: string[] = [];
      const status: MandateStatusPort = {
        status(link) {
          calls.push(`${link.iss}|${link.jti}|${link.statusUrl ?? "-"}`);
          return Promise.resolve(answers[link.jti] ?? "active");
        },
      };
      return { status, calls };
    }

    it("asks the root first, then the child, each with its own iss, jti and status URL", async () => {
      const { status, calls } = recording({});
      const root = await issueRoot({ status: "https://keyapp.example/status/m-root" });
      const child = await issueChild({ status: "https://agent.example/status/m-child" }, root);
      expect((await verifyMandate(child, childContext({ status }))).ok).toBe(true);
      expect(calls).toEqual([
        `${issOf(principal)}|m-root|https://keyapp.example/status/m-root`,
        `${issOf(principal)}|m-child|https://agent.example/status/m-child`,
      ]);
    });

    it("a revoked root refuses the chain even when the child is active", async () => {
      const { status } = recording({ "m-root": "revoked", "m-child": "active" });
      expectRefusal(
        await verifyMandate(await issueChild(), childContext({ status })),
        "MANDATE_INVALID",
        "mandate_invalid",
      );
    });

    it("§3.3 Ids are per link: through the per-link cache, a child's status URL answering active for its parent's jti does not stand in for the revoked root", async () => {
      const rootUrl = "https://keyapp.example/status/m-root";
      const delegateUrl = "https://delegate.example/status/m-root";
      const fetched: string[] = [];
      const cache = new CachingMandateStatus({
        ttlMs: 60_000,
        clock: { now: () => 0 },
        fetcher: {
          status(link) {
            fetched.push(link.statusUrl ?? "-");
            return Promise.resolve(link.statusUrl === rootUrl ? "revoked" : "active");
          },
        },
      });
      // The delegate's URL is asked (and cached) first, for the root's iss and jti.
      expect(await cache.status({ iss: issOf(principal), jti: "m-root", statusUrl: delegateUrl })).toBe(
        "active",
      );
      const root = await issueRoot({ status: rootUrl });
      const child = await issueChild({ status: delegateUrl }, root);
      expectRefusal(
        await verifyMandate(child, childContext({ status: cache })),
        "MANDATE_INVALID",
        "mandate_invalid",
      );
      expect(fetched).toEqual([delegateUrl, rootUrl]);
      // And a child that gives itself its parent's jti is invalid whatever its status says.
      const sameJti = await issueChild({ jti: "m-root", status: delegateUrl }, root);
      expectRefusal(
        await verifyMandate(sameJti, childContext({ status: cache })),
        "MANDATE_INVALID",
        "mandate_invalid",
      );
    });

    it("a revoked child refuses the chain", async () => {
      const { status } = recording({ "m-child": "revoked" });
      const refusal = expectRefusal(
        await verifyMandate(await issueChild(), childContext({ status })),
        "MANDATE_INVALID",
        "mandate_invalid",
      );
      expect(refusal.message).toMatch(/revoked/);
    });
  });
});
