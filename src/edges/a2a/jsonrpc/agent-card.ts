/**
 * A host's agent card (A2A §Agent Card Shape), an A2A v0.3.0 AgentCard.
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
import type { A2aHostFacts, A2aIntent } from "../port.js";

const A2A_PROTOCOL_VERSION = "0.3.0";
/** The Servicialo A2A payload version this edge implements. */
const AGENT_VERSION = "1.2.0";
const API_KEY_SCHEME = "orgApiKey";

const SKILLS: Record<A2aIntent, { id: string; name: string; description: string; tags: string[] }> = {
  list_services: {
    id: "list-services",
    name: "List services",
    description: "View the catalog of available professional services",
    tags: ["catalog", "discovery"],
  },
  check_availability: {
    id: "check-availability",
    name: "Check availability",
    description: "Query available time slots for scheduling",
    tags: ["scheduling", "availability"],
  },
  book_session: {
    id: "book-session",
    name: "Book session",
    description: "Reserve an appointment with a professional",
    tags: ["booking", "appointment"],
  },
  cancel_session: {
    id: "cancel-session",
    name: "Cancel session",
    description: "Cancel an existing session (needs the organization API key in X-Org-Api-Key)",
    tags: ["booking", "cancellation"],
  },
  reschedule_session: {
    id: "reschedule-session",
    name: "Reschedule session",
    description: "Move an existing session to a new time (needs the organization API key in X-Org-Api-Key)",
    tags: ["booking", "reschedule"],
  },
};

const NEEDS_KEY: ReadonlySet<A2aIntent> = new Set(["cancel_session", "reschedule_session"]);

/** The card for `host`, served at `${origin}/api/servicialo/${hostId}/.well-known/agent.json`. */
export function agentCard(host: A2aHostFacts, origin: string): Record<string, unknown> {
  const order = Object.keys(SKILLS) as A2aIntent[];
  const intents = order.filter((i) => host.intents.includes(i));
  const keyed = intents.some((i) => NEEDS_KEY.has(i));
  return {
    name: host.name,
    description: host.description ?? `Reservas con ${host.name}`,
    url: `${origin}/api/servicialo/${encodeURIComponent(host.hostId)}/a2a`,
    preferredTransport: "JSONRPC",
    protocolVersion: A2A_PROTOCOL_VERSION,
    version: AGENT_VERSION,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["text", "application/json"],
    defaultOutputModes: ["text", "application/json"],
    skills: intents.map((i) => ({
      ...SKILLS[i],
      ...(i === "book_session" &&
        host.confirmation === "host_approval" && {
          description: `${SKILLS[i].description}; the business confirms each request itself, so a new session is pendiente_confirmacion until it does`,
        }),
      ...(NEEDS_KEY.has(i) && { security: [{ [API_KEY_SCHEME]: [] }] }),
    })),
    metadata: { confirmation: host.confirmation },
    authentication: { schemes: [] },
    ...(keyed && {
      securitySchemes: {
        [API_KEY_SCHEME]: {
          type: "apiKey",
          in: "header",
          name: "X-Org-Api-Key",
          description: "The organization's API key; required by cancel-session and reschedule-session only",
        },
      },
    }),
  };
}
