import { describe, expect, it } from "vitest";
import { SchcpClient, createAgentKey } from "../../src/agent/index.js";
import { DISCOVERY_URL, ENDPOINT, ORIGIN, createFakeHost } from "./support/fake-host.js";
import { T0, setup } from "./support/setup.js";

describe("discovery (SchCP §2, §3.1)", () => {
  it("reads the operator document with a plain unsigned GET (§2.3, §3.2)", async () => {
    const { client, host } = setup();
    const op = await client.discoverOperator(ORIGIN);
    expect(op.ok).toBe(true);
    if (!op.ok) return;
    expect(op.value.url).toBe(`${ORIGIN}/.well-known/scheduling.json`);
    expect(op.value.document.hosts.map((h) => h.id)).toEqual(["fake-barber"]);
    expect(host.requests[0]?.headers.get("signature")).toBeNull();
    expect(host.requests[0]?.headers.get("signature-input")).toBeNull();
  });

  it("authorizes a gateway-published host by rule 2: both sides claim it (§2.2)", async () => {
    const { client, host } = setup();
    const d = await client.discoverHost(DISCOVERY_URL);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.value).toMatchObject({
      hostId: "fake-barber",
      endpoint: ENDPOINT,
      consentDomain: "fake-gateway.example",
    });
    expect(d.value.authorization).toMatchObject({ rule: 2, operatorDomain: "fake-gateway.example" });
    expect(d.value.keys).toHaveLength(1);
    // The operator document was read to check the claim, both unsigned.
    expect(host.requests.map((r) => r.url)).toEqual([DISCOVERY_URL, `${ORIGIN}/.well-known/scheduling.json`]);
    expect(host.requests.every((r) => r.headers.get("signature") === null)).toBe(true);
  });

  it("authorizes a host's own domain by rule 1, and only that exact hostname (§2.2)", async () => {
    const { client, host } = setup();
    host.misbehave.rewrite = (route, body) => (route === "discovery" ? { ...body, operator: null } : body);
    const d = await client.discoverHost(DISCOVERY_URL);
    expect(d.ok && d.value.authorization.rule).toBe(1);

    for (const endpoint of [
      "https://api.fake-gateway.example/schcp/v0/fake-barber",
      "https://example/schcp/v0/x",
    ]) {
      host.misbehave.rewrite = (route, body) =>
        route === "discovery" ? { ...body, operator: null, endpoint } : body;
      const sub = await client.discoverHost(DISCOVERY_URL);
      expect(sub.ok).toBe(false);
      if (!sub.ok) expect(sub.error).toMatchObject({ code: "endpoint_not_authorized", field: "/endpoint" });
    }
  });

  it("checks rule 2 at the operator's own domain, which must list the host back (§2.2, §2.3)", async () => {
    const { client, host } = setup();
    host.misbehave.rewrite = (route, body) => {
      if (route === "discovery") {
        return {
          ...body,
          operator: { domain: "booksy.example" },
          endpoint: "https://booksy.example/schcp/v0/fake-barber",
        };
      }
      if (route === "operator") return { ...body, operator: { name: "Booksy", domain: "booksy.example" } };
      return body;
    };
    const d = await client.discoverHost(DISCOVERY_URL);
    expect(d.ok).toBe(true);
    if (d.ok) expect(d.value.authorization).toMatchObject({ rule: 2, operatorDomain: "booksy.example" });
    expect(host.requests.at(-1)?.url).toBe("https://booksy.example/.well-known/scheduling.json");

    // The operator does not list the host back: no rule holds.
    host.misbehave.rewrite = (route, body) => {
      if (route === "discovery") {
        return {
          ...body,
          operator: { domain: "booksy.example" },
          endpoint: "https://booksy.example/schcp/v0/fake-barber",
        };
      }
      if (route === "operator")
        return { ...body, operator: { name: "Booksy", domain: "booksy.example" }, hosts: [] };
      return body;
    };
    const refused = await client.discoverHost(DISCOVERY_URL);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("endpoint_not_authorized");
  });

  it("accepts operator trust (rule 3) only when asked, and then claims no verified domain (§2.2, §5.3)", async () => {
    const { client, host } = setup();
    host.misbehave.rewrite = (route, body) => (route === "operator" ? { ...body, hosts: [] } : body);
    const strict = await client.discoverHost(DISCOVERY_URL);
    expect(strict.ok).toBe(false);
    const trusting = await client.discoverHost(DISCOVERY_URL, { trustOperator: true });
    expect(trusting.ok).toBe(true);
    if (trusting.ok) {
      expect(trusting.value.authorization.rule).toBe(3);
      expect(trusting.value.consentDomain).toBeNull();
    }
  });

  it.each([
    ["another version", (b: Record<string, unknown>) => ({ ...b, schcp: "0.3" }), "/schcp"],
    ["no keys", (b: Record<string, unknown>) => ({ ...b, keys: undefined }), "/keys"],
  ])("refuses a discovery document with %s (§2.1)", async (_label, rewrite, field) => {
    const { client, host } = setup();
    host.misbehave.rewrite = (route, body) => (route === "discovery" ? rewrite(body) : body);
    const d = await client.discoverHost(DISCOVERY_URL);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.error).toMatchObject({ code: "invalid_discovery", field });
  });

  it("refuses a document without SchCP-Version, or with duplicate members (§3.1)", async () => {
    const { client, host } = setup();
    host.misbehave.omitVersion = true;
    const noVersion = await client.discoverOperator(ORIGIN);
    expect(!noVersion.ok && noVersion.error.field).toBe("SchCP-Version");
    host.misbehave.omitVersion = false;
    host.misbehave.raw = (route) =>
      route === "operator"
        ? '{"schcp":"0.4","schcp":"0.4","operator":{"name":"x","domain":"x.example"},"hosts":[]}'
        : undefined;
    const dup = await client.discoverOperator(ORIGIN);
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.error.message).toMatch(/duplicate|twice/i);
  });

  it("never sends plain http off loopback (§3.1), and reports a dead origin as a network error", async () => {
    const host = createFakeHost(T0);
    const client = new SchcpClient({ agentKey: createAgentKey(), fetch: host.fetch, clock: host.clock });
    const plain = await client.discoverOperator("http://fake-gateway.example");
    expect(!plain.ok && plain.error.code).toBe("invalid_url");
    const dead = new SchcpClient({
      agentKey: createAgentKey(),
      fetch: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")),
    });
    const r = await dead.discoverOperator("http://127.0.0.1:9");
    expect(!r.ok && r.error.code).toBe("network");
  });

  it("accepts a local gateway's http:// endpoint on loopback, and only under the http policy (§3.1)", async () => {
    const host = createFakeHost(T0);
    host.misbehave.rewrite = (route, body) =>
      route === "discovery"
        ? { ...body, operator: null, endpoint: "http://127.0.0.1:8787/schcp/v0/fake-barber" }
        : body;
    const url = "http://127.0.0.1:8787/hosts/fake-barber/scheduling.json";
    const local = new SchcpClient({ agentKey: createAgentKey(), fetch: host.fetch, clock: host.clock });
    const d = await local.discoverHost(url);
    expect(d.ok && d.value).toMatchObject({
      endpoint: "http://127.0.0.1:8787/schcp/v0/fake-barber",
      authorization: { rule: 1 },
      consentDomain: "127.0.0.1",
    });
    const strict = new SchcpClient({
      agentKey: createAgentKey(),
      fetch: host.fetch,
      clock: host.clock,
      allowHttp: "never",
    });
    const refused = await strict.discoverHost(url);
    expect(!refused.ok && refused.error.code).toBe("invalid_url");
    // An http endpoint off loopback is not upgraded: the schema's https rule refuses it.
    host.misbehave.rewrite = (route, body) =>
      route === "discovery"
        ? { ...body, operator: null, endpoint: "http://fake-gateway.example/schcp/v0/fake-barber" }
        : body;
    const offLoopback = await local.discoverHost(DISCOVERY_URL);
    expect(!offLoopback.ok && offLoopback.error).toMatchObject({
      code: "invalid_discovery",
      field: "/endpoint",
    });
  });
});
