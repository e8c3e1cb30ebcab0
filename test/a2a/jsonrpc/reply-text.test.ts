import { describe, expect, it } from "vitest";
import { askFor, summarize } from "../../../src/a2a/jsonrpc/reply-text.js";

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
      "Session rescheduled to 2026-04-05T18:00:00.000Z.",
    ],
    ["cancel_session", { httpStatus: 200, body: { status: "cancelled" } }, "es", "Sesión cancelada."],
  ] as const)("%s %j (%s)", (intent, outcome, lang, expected) => {
    expect(summarize(intent, outcome, lang)).toBe(expected);
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
