/**
 * The human-readable text part of a reply (A2A §Response), in the request's language: a
 * summary of an executed intent, or a question naming exactly what is missing.
 *
 * A booking's sentence says the status the DataPart carries (`session.status`, A2A §3 Response
 * Fields: `agendado` or `pendiente_confirmacion`), never "confirmed" for a session still
 * waiting for the business; and a time is written in the host's zone with its offset and the
 * zone's name (the DataPart keeps the spec's UTC instants).
 */
import { formatInstant } from "../../../protocol/time/index.js";
import type { A2aIntent, IntentOutcome } from "../port.js";
import type { Language, Missing } from "./intent-detect.js";

const INTENT_LABEL: Record<Language, Record<A2aIntent, string>> = {
  es: {
    list_services: "la consulta de servicios",
    check_availability: "la consulta de disponibilidad",
    book_session: "la reserva",
    cancel_session: "la cancelación",
    reschedule_session: "la reprogramación",
  },
  en: {
    list_services: "the service listing",
    check_availability: "the availability check",
    book_session: "the booking",
    cancel_session: "the cancellation",
    reschedule_session: "the reschedule",
  },
};

function count(body: Readonly<Record<string, unknown>>, key: string): number {
  const v = body[key];
  return Array.isArray(v) ? v.length : 0;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** "2026-12-07T17:00:00-05:00 (America/Toronto)": the host's wall clock, its offset and zone. */
function localTime(iso: string | undefined, timeZone: string): string {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(ms)) return iso ?? "";
  return `${formatInstant(ms, timeZone)} (${timeZone})`;
}

type BookingWord = "confirmed" | "pending" | "cancelled" | "other";

/** A2A §3 `session.status` / §5 `status` (internal values, either language) to what is said. */
function statusWord(status: string | undefined): BookingWord {
  switch (status ?? "") {
    case "agendado":
    case "confirmado":
    case "scheduled":
    case "confirmed":
      return "confirmed";
    case "pendiente_confirmacion":
    case "pending_confirmation":
    case "solicitado":
      return "pending";
    case "cancelled":
    case "cancelado":
      return "cancelled";
    default:
      return "other";
  }
}

const BOOKED: Record<Language, Record<BookingWord, string>> = {
  es: {
    confirmed: "Reserva confirmada",
    pending: "Reserva solicitada, pendiente de confirmación por el negocio,",
    cancelled: "Reserva cancelada",
    other: "Reserva registrada",
  },
  en: {
    confirmed: "Booking confirmed",
    pending: "Booking requested, awaiting the business's confirmation,",
    cancelled: "Booking cancelled",
    other: "Booking recorded",
  },
};

/** One sentence about the outcome; details stay in the DataPart. Times in the host's `timeZone`. */
export function summarize(
  intent: A2aIntent,
  outcome: IntentOutcome,
  lang: Language,
  timeZone: string,
): string {
  const b = outcome.body;
  const es = lang === "es";
  if (outcome.httpStatus >= 400) {
    const reason = str(b.error) ?? `HTTP ${outcome.httpStatus}`;
    return es
      ? `No se pudo completar ${INTENT_LABEL.es[intent]}: ${reason} (HTTP ${outcome.httpStatus}).`
      : `Could not complete ${INTENT_LABEL.en[intent]}: ${reason} (HTTP ${outcome.httpStatus}).`;
  }
  switch (intent) {
    case "list_services": {
      const names = (Array.isArray(b.services) ? b.services : [])
        .map((s) => str((s as Record<string, unknown> | null)?.name))
        .filter((n): n is string => n !== undefined);
      return es
        ? `Servicios disponibles (${names.length}): ${names.join(", ")}.`
        : `Available services (${names.length}): ${names.join(", ")}.`;
    }
    case "check_availability": {
      const n = "slots" in b ? count(b, "slots") : count(b, "available_slots");
      // Single-day mode explains an empty day (A2A §check_availability: `reason`).
      const reason = str(b.reason);
      if (n === 0 && reason !== undefined)
        return es
          ? `No hay horas disponibles el ${str(b.date) ?? ""} (${reason}).`
          : `No times available on ${str(b.date) ?? ""} (${reason}).`;
      return es
        ? `Disponibilidad consultada (${n} resultado(s)). Detalle en la DataPart.`
        : `Availability checked (${n} result(s)). Details in the DataPart.`;
    }
    case "book_session": {
      const s = (b.session ?? {}) as Record<string, unknown>;
      const at = localTime(str(s.scheduled_at), timeZone);
      const service = str(s.service);
      const word = statusWord(str(s.status) ?? str(s.derived_state));
      const status = word === "other" && str(s.status) !== undefined ? ` (${str(s.status)})` : "";
      return es
        ? `${BOOKED.es[word]}${service === undefined ? "" : ` de ${service}`} para ${at}${status}.`
        : `${BOOKED.en[word]}${service === undefined ? "" : ` for ${service}`} at ${at}${status}.`;
    }
    case "cancel_session":
      return es ? "Sesión cancelada." : "Session cancelled.";
    case "reschedule_session": {
      const at = localTime(str(b.scheduledAt), timeZone);
      // §5: `status` is the session's own, unchanged by the move: still pending if it was.
      const pending = statusWord(str(b.status)) === "pending";
      return es
        ? `Sesión reprogramada para ${at}${pending ? "; sigue pendiente de confirmación por el negocio" : ""}.`
        : `Session rescheduled to ${at}${pending ? "; it still awaits the business's confirmation" : ""}.`;
    }
  }
}

const ASK: Record<Language, Record<Missing, string>> = {
  es: {
    intent:
      "qué quieres hacer: ver servicios, consultar disponibilidad, reservar, cancelar o reprogramar una sesión",
    service: "qué servicio",
    date: "el día (por ejemplo mañana, el miércoles o 2026-04-01)",
    time: "la hora (por ejemplo a las 10 o 15:30)",
    email: "el email de la persona que se atiende",
    session_id: "el id de la sesión (el que devolvió la reserva)",
    api_key: "la API key de la organización en el header X-Org-Api-Key",
  },
  en: {
    intent: "what you want to do: list services, check availability, book, cancel or reschedule a session",
    service: "which service",
    date: "the day (for example tomorrow, Wednesday or 2026-04-01)",
    time: "the time (for example at 10am or 15:30)",
    email: "the email of the person attending",
    session_id: "the session id (the one the booking returned)",
    api_key: "the organization's API key in the X-Org-Api-Key header",
  },
};

/** A question naming exactly what is missing (and, for the service, the names to choose from). */
export function askFor(missing: readonly Missing[], candidates: readonly string[], lang: Language): string {
  const items = missing.map((m) =>
    m === "service" && candidates.length > 0
      ? `${ASK[lang].service} (${candidates.join(", ")})`
      : ASK[lang][m],
  );
  const list =
    items.length <= 1
      ? (items[0] ?? "")
      : `${items.slice(0, -1).join("; ")}${lang === "es" ? " y " : " and "}${items.at(-1)}`;
  return lang === "es" ? `Para continuar necesito ${list}.` : `To continue I need ${list}.`;
}
