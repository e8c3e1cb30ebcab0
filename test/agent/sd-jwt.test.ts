/**
 * The agent SDK's side of SchCP §3.4: a key app with an Ed25519 or P-256 principal issues one
 * SD-JWT VC mandate for several hosts; the presenter discloses one host's entries and signs a
 * fresh KB-JWT (its own nonce, iat now) for every request the client sends.
 */
import { describe, expect, it } from "vitest";
import {
  KeyApp,
  SchcpClient,
  createAgentKey,
  createP256PrincipalKey,
  sdJwtPresenter,
} from "../../src/agent/index.js";
import { verifyMandate } from "../../src/protocol/schcp/mandate/index.js";

const NOW_MS = 1_792_000_000_000;
const clock = { now: () => NOW_MS };
const A = "maple-street-auto";
const B = "queen-west-tires";
const C = "dundas-garage";

const kbPayload = (presentation: string) =>
  JSON.parse(Buffer.from(presentation.split("~").at(-1)!.split(".")[1]!, "base64url").toString()) as {
    aud: string;
    nonce: string;
    iat: number;
  };

describe("agent SDK: SD-JWT VC mandates (§3.4)", () => {
  it.each([
    ["Ed25519", createAgentKey()],
    ["P-256", createP256PrincipalKey()],
  ])("§3.4 Keys: a key app with an %s principal issues a mandate the host verifies", async (_label, key) => {
    const agent = createAgentKey();
    const keyApp = new KeyApp({ principalKey: key, clock });
    const issued = keyApp.issueSdJwtMandate({
      agent,
      scope: ["hold"],
      hosts: { [A]: { max_bookings: 1 }, [B]: {}, [C]: {} },
    });
    expect(issued.hosts).toEqual([A, B, C]);
    const presented = sdJwtPresenter(issued.sdJwt, { host: { hostId: B }, agentKey: agent, clock }).present();
    if (!presented.ok) throw new Error(presented.error.message);
    const chain = await verifyMandate(presented.value, {
      hostId: B,
      nowSec: NOW_MS / 1000,
      requestKeyThumbprint: agent.thumbprint,
      acceptSdJwt: true,
    });
    expect(chain.ok, chain.ok ? "" : JSON.stringify(chain.error)).toBe(true);
    if (chain.ok) {
      expect(chain.value.principal).toBe(keyApp.principal);
      expect(chain.value.root.claims.jti).toBe(issued.jti);
    }
  });

  it("§3.4 Keys: a P-256 principal cannot sign a compact mandate (Ed25519 only outside this profile)", async () => {
    const keyApp = new KeyApp({ principalKey: createP256PrincipalKey(), clock });
    await expect(
      keyApp.issueMandate({ agent: createAgentKey(), audience: A, scope: ["hold"] }),
    ).rejects.toThrow(/SD-JWT VC mandates only/);
  });

  it("§3.4 decoys: padTo sets how many digests aud and host_constraints carry", () => {
    const keyApp = new KeyApp({ principalKey: createAgentKey(), clock });
    const issued = keyApp.issueSdJwtMandate({
      agent: createAgentKey(),
      scope: ["hold"],
      hosts: { [A]: {} },
      padTo: 5,
    });
    const payload = JSON.parse(
      Buffer.from(issued.sdJwt.split("~")[0]!.split(".")[1]!, "base64url").toString(),
    ) as { aud: unknown[]; host_constraints: { _sd: unknown[] } };
    expect(payload.aud).toHaveLength(5);
    expect(payload.host_constraints._sd).toHaveLength(5);
  });

  it("§3.4: the client asks the presenter once per request: a fresh KB-JWT and nonce each time, covered by the signature", async () => {
    const agent = createAgentKey();
    const sent: { mandate: string | null; input: string | null }[] = [];
    const client = new SchcpClient({
      agentKey: agent,
      clock,
      fetch: (_url, init) => {
        const h = new Headers(init.headers);
        sent.push({ mandate: h.get("schcp-mandate"), input: h.get("signature-input") });
        return Promise.resolve(new Response("{}", { status: 500 }));
      },
    });
    const keyApp = new KeyApp({ principalKey: createP256PrincipalKey(), clock });
    const issued = keyApp.issueSdJwtMandate({ agent, scope: ["hold"], hosts: { [A]: {}, [B]: {} } });
    const presenter = sdJwtPresenter(issued.sdJwt, { host: A, agentKey: agent, clock });
    const host = { endpoint: "http://127.0.0.1:9/schcp/v0/maple-street-auto" };
    await client.getHold(host, "h_1", { mandate: presenter });
    await client.getHold(host, "h_1", { mandate: presenter });
    expect(sent).toHaveLength(2);
    const [a, b] = sent.map((s) => s.mandate!);
    expect(a).not.toBe(b);
    expect(a!.split("~")[0]).toBe(b!.split("~")[0]);
    expect(kbPayload(a!).nonce).not.toBe(kbPayload(b!).nonce);
    expect(kbPayload(a!)).toMatchObject({ aud: A, iat: NOW_MS / 1000 });
    expect(sent[0]!.input).toContain('"schcp-mandate"');
  });

  it("§3.4: a presenter for a host the mandate does not name fails before anything is sent", async () => {
    const agent = createAgentKey();
    let calls = 0;
    const client = new SchcpClient({
      agentKey: agent,
      clock,
      fetch: () => (calls++, Promise.resolve(new Response("{}"))),
    });
    const issued = new KeyApp({ principalKey: createAgentKey(), clock }).issueSdJwtMandate({
      agent,
      scope: ["hold"],
      hosts: { [A]: {} },
    });
    const r = await client.getHold({ endpoint: "http://127.0.0.1:9/x" }, "h_1", {
      mandate: sdJwtPresenter(issued.sdJwt, { host: B, agentKey: agent, clock }),
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("mandate_unusable");
    expect(calls).toBe(0);
  });
});
