/** Request bodies at the edge: size bound, strict JSON (§3.1), payment data (§8), closed schemas (§5.2). */
import { describe, expect, it } from "vitest";
import { createHttpApp } from "../../../../src/gateway/app/app.js";
import * as ex from "../../../protocol/schcp/schemas/spec-examples.js";
import { edgeFixture } from "../../../gateway/support/fakes.js";
import { BASE, call, expectRefusal } from "../../../gateway/support/edge-call.js";

describe("request bodies (§3.1, §5.2, §8)", () => {
  it("refuses a body over the bound with 413 before verifying anything", async () => {
    const f = edgeFixture({ maxBodyBytes: 100 });
    const big = { ...ex.holdRequest(), callback_url: `https://agent.example/${"x".repeat(200)}` };
    const { status, json } = await call(f, { method: "POST", path: `${BASE}/holds`, body: big });
    expect(status).toBe(413);
    expectRefusal(json, "INVALID_REQUEST");
    expect(f.api.calls).toHaveLength(0);
  });

  it("refuses a streamed body over the bound even without Content-Length", async () => {
    const f = edgeFixture({ maxBodyBytes: 64 });
    const app = createHttpApp(f.deps);
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < 10; i++) ctl.enqueue(new Uint8Array(16).fill(0x20));
        ctl.close();
      },
    });
    const res = await app.request(`${BASE}/holds`, { method: "POST", body: stream, duplex: "half" });
    expect(res.status).toBe(413);
  });

  it("refuses duplicate members with 400 INVALID_REQUEST naming the member (§3.1)", async () => {
    const f = edgeFixture();
    const body =
      '{"service_id":"oil-change","service_id":"brake-inspection","start":"2026-10-15T13:00:00-04:00","idempotency_key":"k"}';
    const { status, json } = await call(f, { method: "POST", path: `${BASE}/holds`, body });
    expect(status).toBe(400);
    expectRefusal(json, "INVALID_REQUEST", "invalid_request");
    expect(json).toMatchObject({ error: { details: { field: "/service_id" } } });
    expect(JSON.stringify(json)).toMatch(/duplicate/);
  });

  it("refuses invalid UTF-8 with 400 INVALID_REQUEST (§3.1)", async () => {
    const f = edgeFixture();
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"service_id":"'),
      0xc3,
      0x28,
      ...new TextEncoder().encode('"}'),
    ]);
    const { status, json } = await call(f, { method: "POST", path: `${BASE}/holds`, body: bytes });
    expect(status).toBe(400);
    expectRefusal(json, "INVALID_REQUEST", "invalid_request");
    expect(JSON.stringify(json)).toMatch(/UTF-8/);
  });

  it.each([
    ["an unknown member", { ...ex.holdRequest(), colour: "red" }, "/colour"],
    ["an unknown nested member", { ...ex.holdRequest(), place: { name: "x", floor: 2 } }, "/place/floor"],
    ["a missing required member", { service_id: "oil-change", idempotency_key: "k" }, "/start"],
    ["a wrongly typed member", { ...ex.holdRequest(), party_size: "two" }, "/party_size"],
    ["an unparseable date", { ...ex.holdRequest(), start: "2026-02-30T10:00:00Z" }, "/start"],
  ])("refuses %s with 400 INVALID_REQUEST naming the field (closed schema)", async (_what, body, field) => {
    const f = edgeFixture();
    const { status, json } = await call(f, { method: "POST", path: `${BASE}/holds`, body });
    expect(status).toBe(400);
    expectRefusal(json, "INVALID_REQUEST", "invalid_request");
    expect(json).toMatchObject({ error: { details: { field } } });
    expect(f.api.calls).toHaveLength(0);
  });

  it.each([
    ["a payment member", { ...ex.holdRequest(), payment: { token: "tok_1" } }, "/payment"],
    [
      "a nested card member",
      { ...ex.holdRequest(), place: { name: "x", card_number: "x" } },
      "/place/card_number",
    ],
    [
      "a deposit beside other unknown members",
      { ...ex.holdRequest(), aaa: 1, depositAmount: "10" },
      "/depositAmount",
    ],
    [
      "a card number in the notes",
      { ...ex.confirmRequest(), notes: "card 4111 1111 1111 1111 exp 12/30" },
      "/notes",
    ],
  ])(
    "refuses %s with 400 payment_not_accepted, before the closed-schema error (§8)",
    async (_what, body, field) => {
      const f = edgeFixture();
      const path = "notes" in body ? `${BASE}/holds/h_1/confirm` : `${BASE}/holds`;
      const { status, json } = await call(f, { method: "POST", path, body });
      expect(status).toBe(400);
      expectRefusal(json, "INVALID_REQUEST", "payment_not_accepted");
      expect(json).toMatchObject({ error: { details: { field } } });
      expect(f.api.calls).toHaveLength(0);
    },
  );
});
