/**
 * The gateway mounted in a real Express 5 app on loopback (docs/express.md):
 * the host app's own routes keep working, discovery and a signed SchCP availability request
 * go through the router, a path the gateway has no route for reaches the app's next handler
 * with its body unread, and a body parser mounted first is named as the mistake.
 */
import express from "express";
import type { Express } from "express";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyApp, SchcpClient, createAgentKey } from "../../../src/agent/index.js";
import { embeddedDefaultHosts } from "../../../src/booking/hosts/index.js";
import { gatewayRouter } from "../../../src/gateway/express.js";
import { createGatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import type { GatewayRuntime } from "../../../src/gateway/runtime/runtime.js";
import { silentLogger } from "../../../src/protocol/logger.js";

let app: Express;
let server: Server;
let origin: string;
let runtime: GatewayRuntime;
let dataDir: string;

beforeAll(async () => {
  app = express();
  // Bound first: the public origin names the port actually bound (the app's own origin root).
  server = await new Promise<Server>((done) => {
    const s = app.listen(0, "127.0.0.1", () => done(s));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dataDir = mkdtempSync(join(tmpdir(), "gw-express-"));
  runtime = await createGatewayRuntime({
    hosts: embeddedDefaultHosts(),
    publicOrigin: origin,
    dataDir,
    logger: silentLogger,
    workers: false,
  });
  app.get("/hello", (_req, res) => void res.json({ from: "host app" }));
  app.use(gatewayRouter(runtime));
  app.use(express.json());
  app.post("/orders", (req, res) => void res.status(201).json({ got: req.body as unknown }));
  app.get("/schcp/v0-not-ours", (_req, res) => void res.send("host app again"));
  app.use((_req, res) => void res.status(404).send("host app 404"));
}, 30_000);

afterAll(async () => {
  await new Promise<void>((done) => server?.close(() => done()));
  await runtime?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("gatewayRouter(runtime) in an Express 5 app", () => {
  it("leaves the host app's own route alone", async () => {
    const r = await fetch(`${origin}/hello`);
    expect(await r.json()).toEqual({ from: "host app" });
  });

  it("serves discovery, health and a signed SchCP availability request", async () => {
    const doc = await fetch(`${origin}/.well-known/scheduling.json`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get("schcp-version")).toBe("0.4");
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);

    const client = new SchcpClient({ agentKey: createAgentKey() });
    const host = await client.discoverHost(`${origin}/hosts/maple-street-auto/scheduling.json`);
    expect(host.ok).toBe(true);
    if (!host.ok) return;
    const now = Date.now();
    const slots = await client.availability(host.value, {
      service_id: "oil-change",
      window: {
        start: new Date(now + 2 * 86_400_000).toISOString(),
        end: new Date(now + 9 * 86_400_000).toISOString(),
      },
      limit: 5,
    });
    expect(slots.ok).toBe(true);
    if (slots.ok) expect(slots.value.body.slots.length).toBeGreaterThan(0);
  });

  it("takes a signed hold through the router (a POST whose body the gateway reads itself)", async () => {
    const agent = createAgentKey();
    const keyApp = new KeyApp({ principalKey: createAgentKey() });
    const client = new SchcpClient({ agentKey: agent });
    const host = await client.discoverHost(`${origin}/hosts/maple-street-auto/scheduling.json`);
    if (!host.ok) throw new Error("discovery failed");
    const now = Date.now();
    const slots = await client.availability(host.value, {
      service_id: "oil-change",
      window: {
        start: new Date(now + 3 * 86_400_000).toISOString(),
        end: new Date(now + 10 * 86_400_000).toISOString(),
      },
      limit: 1,
    });
    if (!slots.ok) throw new Error("availability failed");
    const m = await keyApp.issueMandate({ agent, audience: "maple-street-auto", scope: ["hold"] });
    const hold = await client.hold(
      host.value,
      { service_id: "oil-change", start: slots.value.body.slots[0]!.start },
      { mandate: m.compact },
    );
    expect(hold.ok).toBe(true);
  });

  it("hands a path it has no route for to the host app, body unread", async () => {
    const r = await fetch(`${origin}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sku: "tyres" }),
    });
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({ got: { sku: "tyres" } });
    expect(await (await fetch(`${origin}/schcp/v0-not-ours`)).text()).toBe("host app again");
    const missing = await fetch(`${origin}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("host app 404");
  });

  it("keeps the gateway's own refusal for a gateway route (an unknown host)", async () => {
    const r = await fetch(`${origin}/hosts/no-such-host/scheduling.json`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });
});

describe("mount mistakes are named", () => {
  it("a body parser before the router: a gateway POST gets a 500 that says to mount it first", async () => {
    const wrong = express();
    wrong.use(express.json());
    wrong.use(gatewayRouter(runtime));
    const s = await new Promise<Server>((done) => {
      const x = wrong.listen(0, "127.0.0.1", () => done(x));
    });
    try {
      const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      const r = await fetch(`${url}/schcp/v0/maple-street-auto/holds`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(r.status).toBe(500);
      expect(await r.text()).toMatch(/mount gatewayRouter before express\.json\(\)/);
    } finally {
      await new Promise<void>((done) => s.close(() => done()));
    }
  });

  it("a sub-path mount is refused with the reason", async () => {
    const wrong = express();
    wrong.use("/gw", gatewayRouter(runtime));
    const s = await new Promise<Server>((done) => {
      const x = wrong.listen(0, "127.0.0.1", () => done(x));
    });
    try {
      const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      const r = await fetch(`${url}/gw/healthz`);
      expect(r.status).toBe(500);
      expect(await r.text()).toMatch(/mount gatewayRouter at the root/);
    } finally {
      await new Promise<void>((done) => s.close(() => done()));
    }
  });
});
