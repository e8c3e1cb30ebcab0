/**
 * The A2A client library from npm (@a2a-js/sdk) against the edge on a real loopback server:
 * it resolves the agent card and books, cancels (X-Org-Api-Key as a service parameter, which
 * the JSON-RPC transport sends as an HTTP header) and reschedules, over the Servicialo v0.3.0
 * wire (message/send) with the SDK's legacy option, and over A2A 1.0 (SendMessage) with its
 * default client, no option at all.
 *
 * Where the SDK and the Servicialo spec meet (checked here, reported with the edge):
 * - @a2a-js/sdk 1.3 speaks A2A v1.0 natively; the spec pins v0.3.0. The SDK reads a v0.3.0
 *   card only with `legacyCompat` on (resolver and transport factory), detecting it by `url`
 *   without `supportedInterfaces`; without it that card yields no usable interface. Its
 *   resolver sends `A2A-Version: 1.0` for the card, and the edge answers that with its 1.0
 *   card, at agent.json and at 1.0's own agent-card.json (routes.ts).
 * - The spec's minimal card would resolve too (preferredTransport defaults to JSONRPC, a
 *   missing `version` is passed through), but v0.3.0's schema requires `version`, so the card
 *   carries it, and `preferredTransport` to say JSONRPC outright.
 * - The SDK's v0.3 transport needs the result Message's `messageId` and `role` and accepts a
 *   Message result as is: no Task is needed, as the spec's wire has none.
 * - The spec's request examples omit `messageId` and `kind`; the SDK always sends them, and
 *   the edge accepts either.
 */
import { serve } from "@hono/node-server";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
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

  it("the v0.3.0 card alone gives the SDK's 1.0 client no transport; the edge's negotiation is what serves it", async () => {
    const v03 = (await (
      await fetch(`${base}/api/servicialo/clinica-demo/.well-known/agent.json`)
    ).json()) as Record<string, unknown>;
    expect(v03).toMatchObject({ protocolVersion: "0.3.0" });
    expect(v03).not.toHaveProperty("supportedInterfaces");
    const v1Only = new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
      cardResolver: new DefaultAgentCardResolver(),
    });
    await expect(v1Only.createFromAgentCard(v03 as never)).rejects.toThrow(/No compatible transport/);
  });
});

describe("the SDK's default client (A2A 1.0, no legacy option) against the A2A edge", () => {
  it("discovers the 1.0 card from the organization's base URL and books, moves and cancels through SendMessage", async () => {
    const before = intents.calls.length;
    // The SDK's defaults: JSON-RPC and REST transports, its default resolver, 1.0's card path.
    const client = await new ClientFactory().createFromUrl(`${base}/api/servicialo/clinica-demo/`);
    const card = await client.getAgentCard();
    expect(card.name).toBe("Clinica Demo");
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${base}/api/servicialo/clinica-demo/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    expect(card.skills.map((s) => s.id)).toContain("reschedule-session");
    expect(client.protocolVersion).toBe("1.0");

    const send = (parts: Part[], headers?: Record<string, string>) =>
      client.sendMessage(
        { tenant: "", message: userMessage(parts), configuration: undefined, metadata: undefined },
        headers === undefined ? undefined : { serviceParameters: headers },
      );
    const booked = outcomeOf(
      await send([
        dataPart({
          intent: "book_session",
          params: { serviceId: "svc-msk", scheduledAt: "2026-04-01T12:00:00-03:00" },
          client: { name: "Ana", lastName: "Ruiz", email: "ana.ruiz@mail.com" },
        }),
      ]),
    );
    expect(booked).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    const sessionId = (booked.result as { session: { id: string } }).session.id;
    expect(intents.sessions.get(sessionId)?.email).toBe("ana.ruiz@mail.com");

    const moved = outcomeOf(
      await send(
        [
          dataPart({
            intent: "reschedule_session",
            params: { sessionId, newScheduledAt: "2026-04-02T12:00:00-03:00" },
          }),
        ],
        { "X-Org-Api-Key": "key-clinica" },
      ),
    );
    expect(moved).toMatchObject({ status: "completed", http_status: 200, result: { sessionId } });
    const cancelled = outcomeOf(
      await send([dataPart({ intent: "cancel_session", params: { sessionId } })], {
        "X-Org-Api-Key": "key-clinica",
      }),
    );
    expect(cancelled).toMatchObject({
      status: "completed",
      http_status: 200,
      result: { status: "cancelled" },
    });
    expect(intents.calls.slice(before).map((c) => [c.intent, c.apiKey])).toEqual([
      ["book_session", undefined],
      ["reschedule_session", "key-clinica"],
      ["cancel_session", "key-clinica"],
    ]);
  });

  it("reads the 1.0 card at the spec's agent.json too, and free text gets a text-only question", async () => {
    const client = await new ClientFactory().createFromUrl(
      base,
      "/api/servicialo/clinica-demo/.well-known/agent.json",
    );
    expect((await client.getAgentCard()).supportedInterfaces[0]?.protocolVersion).toBe("1.0");
    const asked = (await client.sendMessage({
      tenant: "",
      message: userMessage([
        {
          content: { $case: "text", value: "quiero una hora" },
          metadata: undefined,
          filename: "",
          mediaType: "",
        },
      ]),
      configuration: undefined,
      metadata: undefined,
    })) as Message;
    expect(asked.role).toBe(Role.ROLE_AGENT);
    expect(asked.parts.map((p) => p.content?.$case)).toEqual(["text"]);
  });

  it("surfaces an intent the organization does not offer as an invalid-params error", async () => {
    const client = await new ClientFactory().createFromUrl(`${base}/api/servicialo/salon/`);
    await expect(
      client.sendMessage({
        tenant: "",
        message: userMessage([dataPart({ intent: "cancel_session", params: { sessionId: "x" } })]),
        configuration: undefined,
        metadata: undefined,
      }),
    ).rejects.toThrow(/not offered/);
  });
});
