/**
 * What the tests that drive the A2A edge with the npm client (@a2a-js/sdk) share: a client that
 * reads the edge's v0.3.0 card (the SDK speaks A2A v1.0 and reaches v0.3.0 through its
 * legacyCompat option), and the SDK-typed user Message of DataParts the edge routes.
 */
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import type { Message, Part } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";

export function a2aClientFactory(fetchImpl?: typeof fetch): ClientFactory {
  return new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        legacyCompat: { enabled: true },
        ...(fetchImpl !== undefined && { fetchImpl }),
      }),
    ],
    cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
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
