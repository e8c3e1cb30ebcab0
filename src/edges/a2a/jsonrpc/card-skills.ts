/**
 * What both agent cards say of a host (agent-card.ts, the Servicialo v0.3.0 card; agent-card-v1.ts,
 * the A2A 1.0 card): the skills it serves, with the same ids, names and descriptions, and the
 * organization key the cancel and reschedule skills need (A2A §Authentication over A2A).
 */
import type { A2aHostFacts, A2aIntent } from "../port.js";

/** The Servicialo A2A payload version this edge implements. */
export const AGENT_VERSION = "1.2.0";
export const API_KEY_SCHEME = "orgApiKey";
export const API_KEY_HEADER = "X-Org-Api-Key";
export const API_KEY_DESCRIPTION =
  "The organization's API key; required by cancel-session and reschedule-session only";

interface Skill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
}

const SKILLS: Record<A2aIntent, Skill> = {
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

export interface HostSkill extends Skill {
  /** Whether the skill needs the organization key. */
  readonly keyed: boolean;
}

/**
 * The host's skills in the spec's order, only those it serves (A2A §Agent Card Shape: "only
 * verified capabilities appear"). A host whose business accepts each booking itself says so in
 * the book skill's description, where an agent reads before booking.
 */
export function hostSkills(host: A2aHostFacts): HostSkill[] {
  const order = Object.keys(SKILLS) as A2aIntent[];
  return order
    .filter((i) => host.intents.includes(i))
    .map((i) => ({
      ...SKILLS[i],
      keyed: NEEDS_KEY.has(i),
      ...(i === "book_session" &&
        host.confirmation === "host_approval" && {
          description: `${SKILLS[i].description}; the business confirms each request itself, so a new session is pendiente_confirmacion until it does`,
        }),
    }));
}

/** The JSON-RPC endpoint of a host (A2A §Endpoint), which both cards name. */
export const a2aEndpoint = (origin: string, hostId: string): string =>
  `${origin}/api/servicialo/${encodeURIComponent(hostId)}/a2a`;
