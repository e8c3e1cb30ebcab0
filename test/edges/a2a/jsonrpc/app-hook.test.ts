import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import { edgeFixture } from "../../../gateway/support/fakes.js";
import { a2aIntentsDouble } from "../../../support/a2a-intents-double.js";

const CARD = "/api/servicialo/clinica-demo/.well-known/agent.json";
const rpc = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: { message: { role: "user", parts: [{ kind: "data", data: { intent: "list_services" } }] } },
});

describe("the gateway app mounts the A2A edge when given A2aIntents", () => {
  it("serves the card (url from the configured public origin) and message/send", async () => {
    const f = edgeFixture();
    const app = createHttpApp({ ...f.deps, a2a: a2aIntentsDouble() });
    const card = (await (await app.request(CARD)).json()) as { url: string };
    expect(card.url).toBe(`${f.deps.publicOrigin}/api/servicialo/clinica-demo/a2a`);
    const r = await app.request("/api/servicialo/clinica-demo/a2a", { method: "POST", body: rpc });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ id: 1, result: { kind: "message", role: "agent" } });
  });

  it("has no such routes without it", async () => {
    const app = createHttpApp(edgeFixture().deps);
    expect((await app.request(CARD)).status).toBe(404);
  });
});
