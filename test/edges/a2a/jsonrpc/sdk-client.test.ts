/**
 * The A2A client library from npm (@a2a-js/sdk) against the edge on a real loopback server:
 * it resolves the agent card and books, cancels (X-Org-Api-Key as a service parameter, which
 * the JSON-RPC transport sends as an HTTP header) and reschedules through message/send.
 *
 * Where the SDK and the Servicialo spec meet (checked here, reported with the edge):
 * - @a2a-js/sdk 1.3 speaks A2A v1.0 natively; the spec pins v0.3.0. The SDK reads a v0.3.0
 *   card only with `legacyCompat` on (resolver and transport factory), detecting it by `url`
 *   without `supportedInterfaces`; without it the card yields no usable interface (last test).
 * - The spec's minimal card would resolve too (preferredTransport defaults to JSONRPC, a
 *   missing `version` is passed through), but v0.3.0's schema requires `version`, so the card
 *   carries it, and `preferredTransport` to say JSONRPC outright.
 * - The SDK's v0.3 transport needs the result Message's `messageId` and `role` and accepts a
 *   Message result as is: no Task is needed, as the spec's wire has none.
 * - The spec's request examples omit `messageId` and `kind`; the SDK always sends them, and
 *   the edge accepts either.
 */
import { serve } from "@hono/node-server";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import type { Message, Part } from "@a2a-js/sdk";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { a2aClientFactory, dataPart, userMessage } from "../../../support/a2a-sdk.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountA2aJsonRpc } from "../../../../src/edges/a2a/jsonrpc/routes.js";
import { a2aIntentsDouble } from "../../../support/a2a-intents-double.js";

const intents = a2aIntentsDouble();
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
let server: ReturnType<typeof serve>;
let base = "";

beforeAll(async () => {
  // Routes are mounted once the port (and so the card's origin) is known.
  const app = new Hono();
  const port = await new Promise<number>((done) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      done(info.port),
    );
  });
  base = `http://127.0.0.1:${port}`;
  mountA2aJsonRpc(app, intents, { publicOrigin: base, logger: silent });
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** The DataPart `data` of an agent Message result. */
function outcomeOf(result: unknown): Record<string, unknown> {
  const msg = result as Message;
  expect(msg.role).toBe(Role.ROLE_AGENT);
  expect(msg.messageId).not.toBe("");
  const kinds = msg.parts.map((p) => p.content?.$case);
  expect(kinds).toEqual(["text", "data"]);
  const data = msg.parts[1]?.content;
  return data?.$case === "data" ? (data.value as Record<string, unknown>) : {};
}

describe("@a2a-js/sdk client against the A2A edge", () => {
  it("discovers the card and books, cancels and reschedules through message/send", async () => {
    const factory = a2aClientFactory();
    const client = await factory.createFromUrl(base, "/api/servicialo/clinica-demo/.well-known/agent.json");
    const card = await client.getAgentCard();
    expect(card.name).toBe("Clinica Demo");
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${base}/api/servicialo/clinica-demo/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "0.3.0",
    });
    expect(card.skills.map((s) => s.id)).toContain("cancel-session");

    const send = (parts: Part[], headers?: Record<string, string>) =>
      client.sendMessage(
        { tenant: "", message: userMessage(parts), configuration: undefined, metadata: undefined },
        headers === undefined ? undefined : { serviceParameters: headers },
      );

    const booked = outcomeOf(
      await send([
        dataPart({
          intent: "book_session",
          params: { serviceId: "svc-msk", scheduledAt: "2026-04-01T10:00:00-03:00" },
          client: { name: "Joaquin", lastName: "Lopez", email: "joaquin.lopez@mail.com" },
        }),
      ]),
    );
    expect(booked).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    const sessionId = (booked.result as { session: { id: string } }).session.id;
    expect(intents.sessions.get(sessionId)?.email).toBe("joaquin.lopez@mail.com");
    // The abuse limits' key: the loopback peer's address.
    expect(intents.calls[0]?.origin).toBe("127.0.0.1");

    const moved = outcomeOf(
      await send(
        [
          dataPart({
            intent: "reschedule_session",
            params: { sessionId, scheduledAt: "2026-04-02T11:00:00-03:00" },
          }),
        ],
        { "X-Org-Api-Key": "key-clinica" },
      ),
    );
    expect(moved).toMatchObject({ status: "completed", http_status: 200, result: { sessionId } });
    expect(intents.sessions.get(sessionId)?.scheduledAt).toBe("2026-04-02T11:00:00-03:00");

    const refused = outcomeOf(await send([dataPart({ intent: "cancel_session", params: { sessionId } })]));
    expect(refused).toMatchObject({ status: "failed", http_status: 401 });

    const cancelled = outcomeOf(
      await send([dataPart({ intent: "cancel_session", params: { sessionId, reason: "enfermo" } })], {
        "X-Org-Api-Key": "key-clinica",
      }),
    );
    expect(cancelled).toMatchObject({
      status: "completed",
      http_status: 200,
      result: { status: "cancelled" },
    });
    expect(intents.sessions.get(sessionId)?.status).toBe("cancelled");
    expect(intents.calls.map((c) => [c.intent, c.apiKey])).toEqual([
      ["book_session", undefined],
      ["reschedule_session", "key-clinica"],
      ["cancel_session", undefined],
      ["cancel_session", "key-clinica"],
    ]);
  });

  it("surfaces the spec's JSON-RPC errors as errors", async () => {
    const factory = a2aClientFactory();
    const client = await factory.createFromUrl(base, "/api/servicialo/salon/.well-known/agent.json");
    await expect(
      client.sendMessage({
        tenant: "",
        message: userMessage([dataPart({ intent: "cancel_session", params: { sessionId: "x" } })]),
        configuration: undefined,
        metadata: undefined,
      }),
    ).rejects.toThrow(/not offered/);
  });

  it("cannot use the v0.3.0 card without the SDK's legacy compatibility", async () => {
    const v1Only = new ClientFactory({ transports: [new JsonRpcTransportFactory()] });
    await expect(
      v1Only.createFromUrl(base, "/api/servicialo/clinica-demo/.well-known/agent.json"),
    ).rejects.toThrow(/No compatible transport/);
  });
});
