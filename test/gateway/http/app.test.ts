import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../src/gateway/http/app.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";

const app = createHttpApp({
  publicOrigin: "https://gateway.example",
  operatorName: "Example Gateway",
  hosts: [
    {
      id: "maple-street-auto",
      discovery: "https://gateway.example/h/maple-street-auto/scheduling.json",
      host_domain: null,
    },
  ],
});

describe("HTTP edge", () => {
  it("serves the operator document with SchCP-Version (SchCP §2.3, §3.1)", async () => {
    const res = await app.request("http://127.0.0.1/.well-known/scheduling.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("SchCP-Version")).toBe("0.4");
    const doc: unknown = await res.json();
    expect(validateSchcp("OperatorDocument", doc).ok).toBe(true);
    // The operator's domain comes from the configured public origin, never the Host header (§3.2).
    expect(doc).toMatchObject({ schcp: "0.4", operator: { domain: "gateway.example" } });
  });

  it("answers unknown routes with a registered SchCP refusal (§9.2)", async () => {
    const res = await app.request("http://127.0.0.1/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("SchCP-Version")).toBe("0.4");
    const body: unknown = await res.json();
    expect(validateSchcp("Refusal", body).ok).toBe(true);
    expect(body).toMatchObject({ error: { code: "NOT_FOUND", reason: "not_found" } });
  });
});
