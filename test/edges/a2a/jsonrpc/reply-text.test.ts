import { describe, expect, it } from "vitest";
import { askFor, summarize } from "../../../../src/edges/a2a/jsonrpc/reply-text.js";

describe("reply text", () => {
  it.each([
    [
      "list_services",
      { httpStatus: 200, body: { services: [{ name: "A" }, { name: "B" }] } },
      "es",
      "Servicios disponibles (2): A, B.",
    ],
    [
      "check_availability",
      { httpStatus: 200, body: { slots: [{}, {}, {}] } },
      "es",
      "Disponibilidad consultada (3 resultado(s)). Detalle en la DataPart.",
    ],
    [
      "check_availability",
      { httpStatus: 200, body: { date: "2026-04-02", available_slots: [], reason: "ALL_SLOTS_BOOKED" } },
      "en",
      "No times available on 2026-04-02 (ALL_SLOTS_BOOKED).",
    ],
    [
      "book_session",
      {
        httpStatus: 409,
        body: { error: "Provider already has a session at this time", code: "SLOT_CONFLICT" },
      },
      "es",
      "No se pudo completar la reserva: Provider already has a session at this time (HTTP 409).",
    ],
    [
      "reschedule_session",
      { httpStatus: 200, body: { scheduledAt: "2026-04-05T18:00:00.000Z" } },
      "en",
      "Session rescheduled to 2026-04-05T14:00:00-04:00 (America/Santiago).",
    ],
    ["cancel_session", { httpStatus: 200, body: { status: "cancelled" } }, "es", "Sesión cancelada."],
  ] as const)("%s %j (%s)", (intent, outcome, lang, expected) => {
    expect(summarize(intent, outcome, lang, "America/Santiago")).toBe(expected);
  });

  // A booking's sentence says the status the DataPart carries, in the host's zone: a session
  // waiting for the business is never "confirmed", and no time is left in UTC.
  it.each([
    [
      "pendiente_confirmacion",
      "en",
      "Booking requested, awaiting the business's confirmation, for Maths lesson at 2026-12-07T17:00:00-05:00 (America/Toronto).",
    ],
    [
      "pendiente_confirmacion",
      "es",
      "Reserva solicitada, pendiente de confirmación por el negocio, de Maths lesson para 2026-12-07T17:00:00-05:00 (America/Toronto).",
    ],
    ["agendado", "en", "Booking confirmed for Maths lesson at 2026-12-07T17:00:00-05:00 (America/Toronto)."],
  ] as const)("book_session %s (%s) states the real status in the host's zone", (status, lang, expected) => {
    const outcome = {
      httpStatus: 201,
      body: {
        success: true,
        session: { id: "b_1", status, scheduled_at: "2026-12-07T22:00:00.000Z", service: "Maths lesson" },
      },
    };
    expect(summarize("book_session", outcome, lang, "America/Toronto")).toBe(expected);
  });

  it("a reschedule of a pending session says it still waits for the business", () => {
    const outcome = {
      httpStatus: 200,
      body: { sessionId: "b_1", status: "pending_confirmation", scheduledAt: "2026-12-07T22:15:00.000Z" },
    };
    expect(summarize("reschedule_session", outcome, "en", "America/Toronto")).toBe(
      "Session rescheduled to 2026-12-07T17:15:00-05:00 (America/Toronto); it still awaits the business's confirmation.",
    );
  });

  it("asks for exactly what is missing, listing the services to choose from", () => {
    expect(askFor(["service", "email"], ["A", "B"], "es")).toBe(
      "Para continuar necesito qué servicio (A, B) y el email de la persona que se atiende.",
    );
    expect(askFor(["date", "time", "api_key"], [], "en")).toBe(
      "To continue I need the day (for example tomorrow, Wednesday or 2026-04-01); the time (for example at 10am or 15:30) and the organization's API key in the X-Org-Api-Key header.",
    );
  });
});
