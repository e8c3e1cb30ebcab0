/**
 * A host's agent card (A2A §Agent Card Shape), an A2A v0.3.0 AgentCard: the card the Servicialo
 * spec requires at `/.well-known/agent.json`. An A2A 1.0 client is served its own card
 * (agent-card-v1.ts); routes.ts says which request gets which.
 *
 * Beyond the spec's minimal example it carries `version` (the agent's own version), which the
 * v0.3.0 AgentCard schema requires and the example omits, and `preferredTransport`
 * ("JSONRPC", the v0.3 default, stated so a client need not assume it). `authentication` is the spec's
 * legacy field, kept as written; the apiKey scheme lives in `securitySchemes` (v0.3.0) and is
 * required only by the cancel and reschedule skills, since booking stays public.
 *
 * A host whose business accepts each booking itself says so where an agent reads before
 * booking: the book skill's description, and `metadata.confirmation` ("host_approval"; the
 * reference implementation extends the card with `metadata`, and "Consumers MUST ignore fields
 * they don't understand", A2A §Agent Card Shape). Its bookings answer pendiente_confirmacion.
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

const A2A_PROTOCOL_VERSION = "0.3.0";

/** The card for `host`, served at `${origin}/api/servicialo/${hostId}/.well-known/agent.json`. */
export function agentCard(host: A2aHostFacts, origin: string): Record<string, unknown> {
  const skills = hostSkills(host);
  return {
    name: host.name,
    description: host.description ?? `Reservas con ${host.name}`,
    url: a2aEndpoint(origin, host.hostId),
    preferredTransport: "JSONRPC",
    protocolVersion: A2A_PROTOCOL_VERSION,
    version: AGENT_VERSION,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["text", "application/json"],
    defaultOutputModes: ["text", "application/json"],
    skills: skills.map(({ keyed, ...s }) => ({
      ...s,
      tags: [...s.tags],
      ...(keyed && { security: [{ [API_KEY_SCHEME]: [] }] }),
    })),
    metadata: { confirmation: host.confirmation },
    authentication: { schemes: [] },
    ...(skills.some((s) => s.keyed) && {
      securitySchemes: {
        [API_KEY_SCHEME]: {
          type: "apiKey",
          in: "header",
          name: API_KEY_HEADER,
          description: API_KEY_DESCRIPTION,
        },
      },
    }),
  };
}
