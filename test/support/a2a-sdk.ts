/**
 * What the tests that drive the A2A edge with the npm client (@a2a-js/sdk) share: a client that
 * reads the edge's Servicialo v0.3.0 card (the SDK speaks A2A v1.0 and reaches v0.3.0 through
 * its legacyCompat option), and the SDK-typed user Message of DataParts the edge routes.
 *
 * The legacy client here is a v0.3 client in full: it fetches the card without the
 * `A2A-Version` header the SDK's resolver always sends (v0.3 has no such header), so the edge
 * answers the v0.3.0 card (src/edges/a2a/jsonrpc/routes.ts) and the SDK talks `message/send`.
 * The SDK's default client, `new ClientFactory()`, sends the header and is answered the 1.0 card.
 */
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import type { Message, Part } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";

/** `fetchImpl` as a v0.3 client would send: no A2A-Version header. */
function withoutVersionHeader(fetchImpl: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete("A2A-Version");
    return fetchImpl(input, { ...init, headers });
  };
}

export function a2aClientFactory(fetchImpl?: typeof fetch): ClientFactory {
  return new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        legacyCompat: { enabled: true },
        ...(fetchImpl !== undefined && { fetchImpl }),
      }),
    ],
    cardResolver: new DefaultAgentCardResolver({
      legacyCompat: { enabled: true },
      fetchImpl: withoutVersionHeader(fetchImpl),
    }),
  });
}

export const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "",
});

export const userMessage = (parts: Part[]): Message => ({
  messageId: randomUUID(),
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
