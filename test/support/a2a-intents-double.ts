/**
 * TEST DOUBLE of the A2aIntents port (src/edges/a2a/port.ts), for testing the JSON-RPC edge alone.
 * It is not the booking core: it keeps a few sessions in a Map, checks the API key per host,
 * and answers in the spec's REST shapes closely enough for the edge's wrapping to be checked.
 * Every call is recorded so tests can see exactly what the edge passed through.
 */
import type { A2aHostFacts, A2aIntents, IntentCall, IntentOutcome } from "../../src/edges/a2a/port.js";

export interface DoubleSession {
  id: string;
  serviceId: string;
  scheduledAt: string;
  email: string;
  status: "agendado" | "cancelled";
}

export interface A2aIntentsDouble extends A2aIntents {
  readonly calls: IntentCall[];
  readonly sessions: Map<string, DoubleSession>;
  /** The next run answers this instead (e.g. a 429), once. */
  failNext(outcome: IntentOutcome | Error): void;
}

export const CLINIC: A2aHostFacts = {
  hostId: "clinica-demo",
  name: "Clinica Demo",
  description: "Centro de estimulacion y terapias infantiles",
  timezone: "America/Santiago",
  confirmation: "instant",
  intents: ["list_services", "check_availability", "book_session", "cancel_session", "reschedule_session"],
  services: [
    { id: "svc-pelvic", name: "Kinesiología de Piso Pélvico" },
    { id: "svc-msk", name: "Kinesiología Musculoesquelética" },
    { id: "svc-lact", name: "Asesoría Lactancia" },
  ],
};

/** A host that only lists and books (no API key issued): its card has no cancel/reschedule. */
export const SALON: A2aHostFacts = {
  hostId: "salon",
  name: "Salon",
  timezone: "Europe/Madrid",
  confirmation: "instant",
  intents: ["list_services", "check_availability", "book_session"],
  services: [{ id: "svc-cut", name: "Haircut" }],
};

export function a2aIntentsDouble(
  hosts: readonly A2aHostFacts[] = [CLINIC, SALON],
  apiKeys: Readonly<Record<string, string>> = { "clinica-demo": "key-clinica" },
): A2aIntentsDouble {
  const calls: IntentCall[] = [];
  const sessions = new Map<string, DoubleSession>();
  let next: IntentOutcome | Error | undefined;
  let seq = 0;
  const byId = new Map(hosts.map((h) => [h.hostId, h]));

  const run = (call: IntentCall): IntentOutcome => {
    const host = byId.get(call.hostId);
    if (host === undefined)
      return { httpStatus: 404, body: { error: "Organization not found or not public" } };
    const p = call.params;
    const authed = apiKeys[call.hostId] !== undefined && call.apiKey === apiKeys[call.hostId];
    const unauthorized = {
      httpStatus: 401,
      body: { error: "API key requerida (X-Org-Api-Key)", code: "UNAUTHORIZED" },
    };
    switch (call.intent) {
      case "list_services":
        return {
          httpStatus: 200,
          body: {
            servicialo_version: "1.0",
            organization: { name: host.name, slug: host.hostId },
            services: host.services.map((s) => ({ id: s.id, name: s.name })),
          },
        };
      case "check_availability":
        if (typeof p.serviceId !== "string")
          return { httpStatus: 400, body: { error: "serviceId is required" } };
        return {
          httpStatus: 200,
          body: {
            slots: [
              { date: "2026-04-01", start: "2026-04-01T13:00:00.000Z", end: "2026-04-01T14:00:00.000Z" },
            ],
            service: { id: p.serviceId, duration_minutes: 60 },
            timezone: host.timezone,
          },
        };
      case "book_session": {
        const email = call.client?.email ?? p.clientEmail;
        if (typeof email !== "string" || typeof p.serviceId !== "string" || typeof p.scheduledAt !== "string")
          return { httpStatus: 400, body: { error: "Invalid data", code: "VALIDATION_ERROR" } };
        const id = `sess${++seq}x${call.hostId.length}`;
        sessions.set(id, {
          id,
          serviceId: p.serviceId,
          scheduledAt: p.scheduledAt,
          email,
          status: "agendado",
        });
        return {
          httpStatus: 201,
          body: {
            servicialo_version: "1.0",
            success: true,
            session: {
              id,
              status: "agendado",
              derived_state: "agendado",
              scheduled_at: p.scheduledAt,
              client_email: email,
            },
          },
        };
      }
      case "cancel_session": {
        if (!authed) return unauthorized;
        const s = sessions.get(String(p.sessionId));
        if (s === undefined) return { httpStatus: 404, body: { error: "Session not found" } };
        if (s.status === "cancelled")
          return {
            httpStatus: 409,
            body: { error: "Session is already cancelled", code: "ALREADY_CANCELLED" },
          };
        s.status = "cancelled";
        return {
          httpStatus: 200,
          body: { sessionId: s.id, status: "cancelled", policy_applied: { penalty: "none" } },
        };
      }
      case "reschedule_session": {
        if (!authed) return unauthorized;
        const s = sessions.get(String(p.sessionId));
        if (s === undefined) return { httpStatus: 404, body: { error: "Session not found" } };
        const at = p.scheduledAt ?? p.newScheduledAt;
        if (typeof at !== "string") return { httpStatus: 400, body: { error: "Invalid data" } };
        s.scheduledAt = at;
        return {
          httpStatus: 200,
          body: { sessionId: s.id, status: "scheduled", scheduledAt: at, duration: 60 },
        };
      }
    }
  };

  return {
    calls,
    sessions,
    failNext(outcome) {
      next = outcome;
    },
    host: (hostId) => byId.get(hostId),
    run(call) {
      calls.push(call);
      const forced = next;
      next = undefined;
      if (forced instanceof Error) return Promise.reject(forced);
      return Promise.resolve(forced ?? run(call));
    },
  };
}
