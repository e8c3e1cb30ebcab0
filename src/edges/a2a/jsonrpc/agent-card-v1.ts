/**
 * A host's agent card for A2A 1.0 clients: the same agent, skills and endpoint as the
 * Servicialo v0.3.0 card (agent-card.ts), in the 1.0 AgentCard's shape (the protocol's JSON
 * form, as the A2A JS SDK reads it).
 *
 * Where 1.0 moved things: the endpoint is an entry of `supportedInterfaces` with its binding
 * and version instead of the top-level `url`, `preferredTransport` and `protocolVersion`; a
 * security scheme is a one-of (`apiKeySecurityScheme` with `location`) instead of a `type`
 * field; a skill's requirement is `securityRequirements` of `{schemes: {name: {list}}}`. The
 * card lists both bindings the endpoint speaks: JSON-RPC 1.0 (`SendMessage`) and the
 * Servicialo v0.3.0 wire (`message/send`, A2A §Transport), both at the one URL. 1.0 has no
 * `metadata` member: a host that approves each booking says so in the book skill's description.
 */
import type { A2aHostFacts } from "../port.js";
import {
  AGENT_VERSION,
  API_KEY_DESCRIPTION,
  API_KEY_HEADER,
  API_KEY_SCHEME,
  a2aEndpoint,
  hostSkills,
} from "./card-skills.js";

/** The version this card and the `SendMessage` binding speak (the A2A-Version header's value). */
const A2A_V1_VERSION = "1.0";

export function agentCardV1(host: A2aHostFacts, origin: string): Record<string, unknown> {
  const skills = hostSkills(host);
  const url = a2aEndpoint(origin, host.hostId);
  return {
    name: host.name,
    description: host.description ?? `Reservas con ${host.name}`,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: A2A_V1_VERSION },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3.0" },
    ],
    version: AGENT_VERSION,
    capabilities: { streaming: false, pushNotifications: false },
    ...(skills.some((s) => s.keyed) && {
      securitySchemes: {
        [API_KEY_SCHEME]: {
          apiKeySecurityScheme: {
            location: "header",
            name: API_KEY_HEADER,
            description: API_KEY_DESCRIPTION,
          },
        },
      },
    }),
    defaultInputModes: ["text", "application/json"],
    defaultOutputModes: ["text", "application/json"],
    skills: skills.map(({ keyed, ...s }) => ({
      ...s,
      tags: [...s.tags],
      ...(keyed && { securityRequirements: [{ schemes: { [API_KEY_SCHEME]: { list: [] } } }] }),
    })),
  };
}
