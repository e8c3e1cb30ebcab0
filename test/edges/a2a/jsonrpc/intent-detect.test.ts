import { describe, expect, it } from "vitest";
import {
  detectIntent,
  matchService,
  parsePhone,
  parseTime,
} from "../../../../src/edges/a2a/jsonrpc/intent-detect.js";
import type { Detection } from "../../../../src/edges/a2a/jsonrpc/intent-detect.js";
import { CLINIC } from "../../../support/a2a-intents-double.js";

// Monday 2026-03-30, 12:00 in Santiago (UTC-3 until 5 April).
const NOW = Date.parse("2026-03-30T15:00:00Z");
const ctx = (hasApiKey: boolean) => ({
  now: NOW,
  timeZone: CLINIC.timezone,
  services: CLINIC.services,
  hasApiKey,
});

const PELVIC = "Kinesiología de Piso Pélvico";
const MSK = "Kinesiología Musculoesquelética";
const ALL = CLINIC.services.map((s) => s.name);

const table: ReadonlyArray<readonly [string, boolean, Detection]> = [
  // Spanish
  ["¿Qué servicios tienen?", false, { kind: "call", lang: "es", intent: "list_services", params: {} }],
  [
    "Quiero una hora de kinesio esta semana para mi hijo",
    false,
    {
      kind: "ask",
      lang: "es",
      intent: "check_availability",
      missing: ["service"],
      candidates: [PELVIC, MSK],
    },
  ],
  [
    "Disponibilidad de la musculoesquelética esta semana",
    false,
    {
      kind: "call",
      lang: "es",
      intent: "check_availability",
      params: { serviceId: "svc-msk", from: "2026-03-30", days: 7 },
    },
  ],
  [
    "¿Hay horas para asesoría lactancia mañana?",
    false,
    {
      kind: "call",
      lang: "es",
      intent: "check_availability",
      params: { serviceId: "svc-lact", date: "2026-03-31" },
    },
  ],
  [
    "Reservar kinesiología musculoesquelética el miércoles a las 10, a nombre de mi hijo Joaquín López, email joaquin.lopez@mail.com, +56 9 1234 5678",
    false,
    {
      kind: "call",
      lang: "es",
      intent: "book_session",
      params: { serviceId: "svc-msk", scheduledAt: "2026-04-01T10:00:00-03:00" },
      client: { email: "joaquin.lopez@mail.com", phone: "+56912345678", name: "Joaquín", lastName: "López" },
    },
  ],
  [
    "Quiero reservar asesoría lactancia mañana",
    false,
    { kind: "ask", lang: "es", intent: "book_session", missing: ["time", "email"], candidates: [] },
  ],
  [
    "Cancelar la sesión sess1x12",
    false,
    { kind: "ask", lang: "es", intent: "cancel_session", missing: ["api_key"], candidates: [] },
  ],
  [
    "Cancelar la sesión sess1x12",
    true,
    {
      kind: "call",
      lang: "es",
      intent: "cancel_session",
      params: { sessionId: "sess1x12", cancelledBy: "client" },
    },
  ],
  [
    "Quiero cancelar mi reserva",
    false,
    { kind: "ask", lang: "es", intent: "cancel_session", missing: ["session_id", "api_key"], candidates: [] },
  ],
  [
    "Reprogramar la sesión sess1x12 para el viernes a las 15:30",
    true,
    {
      kind: "call",
      lang: "es",
      intent: "reschedule_session",
      params: { sessionId: "sess1x12", scheduledAt: "2026-04-03T15:30:00-03:00" },
    },
  ],
  [
    "La musculoesquelética",
    false,
    { kind: "call", lang: "es", intent: "check_availability", params: { serviceId: "svc-msk", next: 5 } },
  ],
  ["hola", false, { kind: "ask", lang: "es", missing: ["intent"], candidates: [] }],
  // English
  ["What services do you offer?", false, { kind: "call", lang: "en", intent: "list_services", params: {} }],
  [
    "Show me available times for Asesoria Lactancia on 2026-04-02",
    false,
    {
      kind: "call",
      lang: "en",
      intent: "check_availability",
      params: { serviceId: "svc-lact", date: "2026-04-02" },
    },
  ],
  [
    "Book Kinesiologia Musculoesqueletica tomorrow at 3pm, email ann@example.com",
    false,
    {
      kind: "call",
      lang: "en",
      intent: "book_session",
      params: { serviceId: "svc-msk", scheduledAt: "2026-03-31T15:00:00-03:00" },
      client: { email: "ann@example.com" },
    },
  ],
  [
    "I want to book a session",
    false,
    {
      kind: "ask",
      lang: "en",
      intent: "book_session",
      missing: ["service", "date", "time", "email"],
      candidates: ALL,
    },
  ],
  [
    "Please cancel booking sess9x12",
    true,
    {
      kind: "call",
      lang: "en",
      intent: "cancel_session",
      params: { sessionId: "sess9x12", cancelledBy: "client" },
    },
  ],
  [
    "Reschedule session sess1x12 to Friday at 10:30am",
    false,
    { kind: "ask", lang: "en", intent: "reschedule_session", missing: ["api_key"], candidates: [] },
  ],
  [
    "Move my appointment to next week",
    true,
    {
      kind: "ask",
      lang: "en",
      intent: "reschedule_session",
      missing: ["session_id", "date", "time"],
      candidates: [],
    },
  ],
];

describe("free-text intent detection (es + en)", () => {
  it.each(table)("%s (api key: %s)", (text, hasKey, expected) => {
    expect(detectIntent(text, ctx(hasKey))).toEqual(expected);
  });

  it("matches service names without accents or case, and refuses to guess between equals", () => {
    expect(matchService("KINESIOLOGIA DE PISO PELVICO", CLINIC.services).chosen?.id).toBe("svc-pelvic");
    expect(matchService("piso pélvico", CLINIC.services).chosen?.id).toBe("svc-pelvic");
    expect(matchService("kinesiología", CLINIC.services)).toEqual({ candidates: [PELVIC, MSK] });
    expect(matchService("yoga", CLINIC.services)).toEqual({ candidates: ALL });
  });

  it.each([
    ["a las 10", { hour: 10, minute: 0 }],
    ["a las 4 de la tarde", { hour: 16, minute: 0 }],
    ["10:45", { hour: 10, minute: 45 }],
    ["at 9pm", { hour: 21, minute: 0 }],
    ["12am", { hour: 0, minute: 0 }],
    ["15 h", { hour: 15, minute: 0 }],
    ["el 2026-04-01", undefined],
    ["a las 27", undefined],
  ])("reads the time in %s", (text, expected) => {
    expect(parseTime(text)).toEqual(expected);
  });

  it("reads phones of 8+ digits and not dates", () => {
    expect(parsePhone("llamar al (+56) 9-1234-5678")).toBe("+56912345678");
    expect(parsePhone("el 2026-04-01 a las 10")).toBeUndefined();
  });
});

describe("service names before intent keywords, and exact instants", () => {
  // A garage whose service name carries an intent keyword ("change"), in Toronto.
  const GARAGE = [
    { id: "oil", name: "Oil change" },
    { id: "tires", name: "Tire swap" },
  ];
  const garage = (hasApiKey = false) => ({
    now: Date.parse("2026-12-05T15:00:00Z"),
    timeZone: "America/Toronto",
    services: GARAGE,
    hasApiKey,
  });

  it("reads a service's whole name before the intent keywords inside it", () => {
    expect(detectIntent("Do you have availability for Oil change on 2026-12-08?", garage())).toEqual({
      kind: "call",
      lang: "en",
      intent: "check_availability",
      params: { serviceId: "oil", date: "2026-12-08" },
    });
    // The keyword outside the name still counts: this one is a reschedule.
    const move = detectIntent("Please change session bk12345678 to 2026-12-09 at 10", garage(true));
    expect(move).toMatchObject({ kind: "call", intent: "reschedule_session" });
  });

  it("books the exact instant check_availability answered (with its offset)", () => {
    const text = "Book Oil change at 2026-12-08T10:00:00-05:00 for Ann Lee, email ann@example.com";
    expect(detectIntent(text, garage())).toEqual({
      kind: "call",
      lang: "en",
      intent: "book_session",
      params: { serviceId: "oil", scheduledAt: "2026-12-08T10:00:00-05:00" },
      client: { email: "ann@example.com", name: "Ann", lastName: "Lee" },
    });
  });

  it("reads an instant in another offset as the host's wall clock at that instant", () => {
    // 15:00Z is 10:00 in Toronto (EST, UTC-5) on 8 December.
    const utc = detectIntent("book Oil change 2026-12-08T15:00:00.000Z email ann@example.com", garage());
    expect(utc).toMatchObject({ params: { scheduledAt: "2026-12-08T10:00:00-05:00" } });
    // Without an offset, the date and time are the host's own.
    const local = detectIntent("book Oil change 2026-12-08 14:30 email ann@example.com", garage());
    expect(local).toMatchObject({ params: { scheduledAt: "2026-12-08T14:30:00-05:00" } });
  });

  it("does not read an instant's digits as a phone or a session id", () => {
    expect(parsePhone("at 2026-12-08T10:00:00-05:00")).toBeUndefined();
    const move = detectIntent("Reschedule session bk12345678 to 2026-12-09T11:00:00-05:00", garage(true));
    expect(move).toEqual({
      kind: "call",
      lang: "en",
      intent: "reschedule_session",
      params: { sessionId: "bk12345678", scheduledAt: "2026-12-09T11:00:00-05:00" },
    });
  });
});
