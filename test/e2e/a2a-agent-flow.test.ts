/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- JSON bodies read loosely in assertions */
/**
 * The A2A spec's "Autonomous Agent Flow" (Padre buscando hora de kinesiologia para su hijo esta
 * semana) replayed turn by turn against a running gateway on loopback, once over the REST
 * endpoints and once over JSON-RPC message/send, each response checked against the spec's
 * field tables (support/a2a-shapes.ts). The host is the scenario's Clinica Demo on the
 * Servicialo platform fake, the gateway's clock on Monday 2026-03-30 (support/a2a-clinic.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLINIC,
  MSK_ID,
  PELVIC_ID,
  PROVIDER,
  WEDNESDAY_10_LOCAL,
  messageSend,
  startClinicGateway,
  type ClinicGateway,
} from "./support/a2a-clinic.js";
import {
  checkA2aMessage,
  checkAgentCard,
  checkAvailabilityDay,
  checkAvailabilityRange,
  checkBookResponse,
  checkCancelResponse,
  checkRescheduleResponse,
  checkServiceObject,
  checkServicesResponse,
} from "./support/a2a-shapes.js";

const MSK = "Kinesiologia Musculoesqueletica";
const PELVIC = "Kinesiologia de Piso Pelvico";
const WEEK = "from=2026-03-30&days=7";
const JOAQUIN = { email: "joaquin.lopez@mail.com", name: "Joaquin", lastName: "Lopez" };

/** "10:00" in Santiago for an instant: what the agent shows the parent. */
const santiagoTime = (iso: string) =>
  new Date(iso).toLocaleTimeString("en-GB", {
    timeZone: "America/Santiago",
    hour: "2-digit",
    minute: "2-digit",
  });

/** Turn 1's checks on a list_services body, either transport. */
function expectCatalog(body: any): void {
  expect(checkServicesResponse(body)).toEqual([]);
  // `confirmation` beyond the spec's members: whether the business accepts each booking itself.
  expect(body.organization).toEqual({ name: "Clinica Demo", slug: CLINIC, confirmation: "instant" });
  const byName = new Map<string, any>(body.services.map((s: any) => [s.name, s]));
  expect(byName.get(PELVIC)).toMatchObject({
    id: PELVIC_ID,
    price: "46000",
    currency: "CLP",
    duration_minutes: 60,
  });
  expect(byName.get(MSK)).toMatchObject({
    id: MSK_ID,
    price: "40000",
    currency: "CLP",
    duration_minutes: 60,
  });
  expect(Number(byName.get(MSK)!.price)).toBe(40000);
}

/** Turn 2's checks on this week's availability; the Wednesday 10:00 slot is in it. */
function expectWeek(body: any): any {
  expect(checkAvailabilityRange(body)).toEqual([]);
  expect(body.timezone).toBe("America/Santiago");
  expect(body.service).toEqual({ id: MSK_ID, duration_minutes: 60 });
  expect(body.slots.length).toBeGreaterThan(0);
  for (const s of body.slots) {
    expect(s.provider).toEqual(PROVIDER);
    expect(s.date >= "2026-03-30" && s.date <= "2026-04-05").toBe(true);
  }
  // Weekends contribute no entries (the platform's hours are weekdays 09:00-13:00).
  expect(body.slots.some((s: any) => s.date === "2026-04-04" || s.date === "2026-04-05")).toBe(false);
  const wednesday10 = body.slots.find((s: any) => s.start === WEDNESDAY_10_LOCAL);
  expect(wednesday10).toEqual({
    date: "2026-04-01",
    start: WEDNESDAY_10_LOCAL,
    end: "2026-04-01T14:00:00.000Z",
    provider: PROVIDER,
    // Beyond the spec's members: the all-in amount of a booking at that start (no tax here).
    price: "40000",
    currency: "CLP",
  });
  expect(santiagoTime(wednesday10.start)).toBe("10:00");
  return wednesday10;
}

/** Turn 4's checks on the 201 body. */
function expectBooked(body: any): string {
  expect(checkBookResponse(body)).toEqual([]);
  expect(body.session).toMatchObject({
    status: "agendado",
    derived_state: "agendado",
    derived_state_index: 1,
    scheduled_at: WEDNESDAY_10_LOCAL,
    duration_minutes: 60,
    service: MSK,
    client_email: JOAQUIN.email,
  });
  return body.session.id;
}

/** After the booking: the slot is gone from the week, the day, the operator and the platform. */
async function expectTaken(clinic: ClinicGateway, sessionId: string, week: any, day: any): Promise<void> {
  expect(checkAvailabilityRange(week)).toEqual([]);
  expect(week.slots.map((s: any) => s.start)).not.toContain(WEDNESDAY_10_LOCAL);
  expect(week.slots.some((s: any) => s.date === "2026-04-01")).toBe(true);
  expect(checkAvailabilityDay(day)).toEqual([]);
  expect(day.available_slots.map((s: any) => s.start)).not.toContain(WEDNESDAY_10_LOCAL);
  const bookings = await clinic.operatorBookings();
  expect(bookings).toHaveLength(1);
  expect(bookings[0]).toMatchObject({
    booking_id: sessionId,
    service: { id: MSK_ID, name: MSK },
    status: "confirmed",
  });
  expect(Date.parse(bookings[0]!.start as string)).toBe(Date.parse(WEDNESDAY_10_LOCAL));
  const live = clinic.platform.live();
  expect(live).toHaveLength(1);
  expect(live[0]).toMatchObject({ serviceId: MSK_ID, providerId: PROVIDER.id, email: JOAQUIN.email });
  expect(live[0]!.start).toBe(Date.parse(WEDNESDAY_10_LOCAL));
}

describe("the Autonomous Agent Flow over REST", () => {
  let clinic: ClinicGateway;
  const api = (path: string) => `${clinic.gw.origin}/api/servicialo/${CLINIC}/${path}`;
  const get = async (path: string) => {
    const r = await fetch(api(path));
    return { status: r.status, body: (await r.json()) as any };
  };
  beforeAll(async () => {
    clinic = await startClinicGateway();
  }, 30_000);
  afterAll(async () => clinic?.close());

  it("discovers, lists, checks this week, books Wednesday 10:00 for Joaquin, and the slot is gone", async () => {
    // Conversation Contract 1: the agent card first.
    const card = await get(".well-known/agent.json");
    expect(card.status).toBe(200);
    expect(checkAgentCard(card.body, api("a2a"))).toEqual([]);
    expect(card.body.skills.map((s: any) => s.id)).toEqual(
      expect.arrayContaining(["list-services", "check-availability", "book-session"]),
    );

    // Turn 1: "Quiero una hora de kinesio esta semana para mi hijo".
    const services = await get("services");
    expect(services.status).toBe(200);
    expectCatalog(services.body);

    // The other option answers in the same shape (the agent could have offered it instead).
    const pelvic = await get(`availability?serviceId=${PELVIC_ID}&${WEEK}`);
    expect(pelvic.status).toBe(200);
    expect(checkAvailabilityRange(pelvic.body)).toEqual([]);
    expect(pelvic.body.service).toEqual({ id: PELVIC_ID, duration_minutes: 60 });

    // Turn 2: "La musculoesqueletica" → this week's availability.
    const week = await get(`availability?serviceId=${MSK_ID}&${WEEK}`);
    expect(week.status).toBe(200);
    const slot = expectWeek(week.body);

    // Turns 3-4: "El miercoles a las 10, a nombre de mi hijo Joaquin Lopez" ... "Si, confirma".
    const r = await fetch(api("book"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        clientEmail: JOAQUIN.email,
        clientName: JOAQUIN.name,
        clientLastName: JOAQUIN.lastName,
        serviceId: MSK_ID,
        providerId: slot.provider.id,
        scheduledAt: slot.start, // verbatim, as the spec says
        notes: "Hijo de usuario, referido por padre",
      }),
    });
    expect(r.status).toBe(201);
    const sessionId = expectBooked(await r.json());

    const after = await get(`availability?serviceId=${MSK_ID}&${WEEK}`);
    const day = await get(`availability?serviceId=${MSK_ID}&date=2026-04-01`);
    await expectTaken(clinic, sessionId, after.body, day.body);
  });
});

describe("the Autonomous Agent Flow over JSON-RPC message/send", () => {
  let clinic: ClinicGateway;
  let nextId = 1;
  const a2aUrl = () => `${clinic.gw.origin}/api/servicialo/${CLINIC}/a2a`;
  /** One message/send; the Message's parts after checking the envelope. */
  const send = async (parts: unknown[]) => {
    const id = nextId++;
    const r = await fetch(a2aUrl(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(messageSend(id, parts)),
    });
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(checkA2aMessage(body, id)).toEqual([]);
    return body.result.parts as any[];
  };
  const text = (t: string) => send([{ kind: "text", text: t }]);
  const data = async (intent: string, params: Record<string, unknown>, client?: Record<string, unknown>) => {
    const parts = await send([{ kind: "data", data: { intent, params, ...(client && { client }) } }]);
    expect(parts).toHaveLength(2);
    expect(parts[1].data.intent).toBe(intent);
    return parts[1].data;
  };
  beforeAll(async () => {
    clinic = await startClinicGateway();
  }, 30_000);
  afterAll(async () => clinic?.close());

  it("Turn 1 in free text: the parent's words get a question naming both kinesiology services", async () => {
    const parts = await text("Quiero una hora de kinesio esta semana para mi hijo");
    expect(parts).toHaveLength(1);
    expect(parts[0].text).toContain(PELVIC);
    expect(parts[0].text).toContain(MSK);
  });

  it("Turn 2 in free text: 'La musculoesqueletica' answers its availability", async () => {
    const parts = await text("La musculoesqueletica");
    expect(parts).toHaveLength(2);
    const outcome = parts[1].data;
    expect(outcome).toMatchObject({ intent: "check_availability", status: "completed", http_status: 200 });
    expect(checkAvailabilityRange(outcome.result)).toEqual([]);
    expect(outcome.result.service.id).toBe(MSK_ID);
    // From the gateway's today (Monday 2026-03-30), not the machine's.
    expect(outcome.result.slots[0].start).toBe("2026-03-30T12:00:00.000Z");
    // Naming the week reads "esta semana" on the gateway's clock too: Monday through Sunday.
    const week = (await text("La musculoesqueletica, esta semana"))[1].data;
    expectWeek(week.result);
  });

  it("Turns 1-4 with DataParts: list, this week, book Wednesday 10:00; the slot is gone", async () => {
    const services = await data("list_services", {});
    expect(services).toMatchObject({ status: "completed", http_status: 200 });
    expectCatalog(services.result);

    const week = await data("check_availability", { serviceId: MSK_ID, from: "2026-03-30", days: 7 });
    expect(week).toMatchObject({ status: "completed", http_status: 200 });
    const slot = expectWeek(week.result);

    const booked = await data(
      "book_session",
      { serviceId: MSK_ID, providerId: slot.provider.id, scheduledAt: slot.start, notes: "Hijo de usuario" },
      { name: JOAQUIN.name, lastName: JOAQUIN.lastName, email: JOAQUIN.email },
    );
    expect(booked).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    const sessionId = expectBooked(booked.result);

    const after = await data("check_availability", { serviceId: MSK_ID, from: "2026-03-30", days: 7 });
    const day = await data("check_availability", { serviceId: MSK_ID, date: "2026-04-01" });
    await expectTaken(clinic, sessionId, after.result, day.result);

    // Retrying the same booking is the same session; the slot cannot be had by another client.
    const other = await data(
      "book_session",
      { serviceId: MSK_ID, scheduledAt: slot.start },
      { name: "Ana", email: "ana@mail.com" },
    );
    expect(other).toMatchObject({ status: "failed", http_status: 409, result: { code: "SLOT_CONFLICT" } });
    expect(clinic.platform.live()).toHaveLength(1);
  });

  it("Turns 3-4 in free text: the stateless edge asks for the service, then books what is named", async () => {
    // The spec's Turn 3 words alone: the edge keeps no conversation, so it asks which service.
    const ask = await text(
      "El miercoles a las 10, a nombre de mi hijo Joaquin Lopez, email joaquin.lopez@mail.com",
    );
    expect(ask).toHaveLength(1);
    expect(ask[0].text).toContain(MSK);
    // Named in full, Thursday 10:00 local is booked with the host's offset, for Joaquin.
    const parts = await text(
      "Reserva la musculoesqueletica el jueves a las 10, a nombre de mi hijo Joaquin Lopez, email joaquin.lopez@mail.com",
    );
    expect(parts).toHaveLength(2);
    const booked = parts[1].data;
    expect(booked).toMatchObject({ intent: "book_session", status: "completed", http_status: 201 });
    expect(checkBookResponse(booked.result)).toEqual([]);
    expect(booked.result.session).toMatchObject({
      scheduled_at: "2026-04-02T13:00:00.000Z",
      derived_state: "agendado",
      service: MSK,
      client_email: JOAQUIN.email,
    });
    const mine = (await clinic.operatorBookings()).find((b) => b.booking_id === booked.result.session.id);
    expect(mine).toMatchObject({ status: "confirmed" });
    expect(clinic.platform.live().map((l) => l.start)).toContain(Date.parse("2026-04-02T13:00:00.000Z"));
  });
});

describe("the shape checkers", () => {
  // The spec's own examples, verbatim: the checkers pass what the spec calls right...
  it("accept the spec's Turn 2 and Turn 4 responses and its cancel/reschedule examples", () => {
    const slot = (date: string, h: number) => ({
      date,
      start: `${date}T${h}:00:00.000Z`,
      end: `${date}T${h + 1}:00:00.000Z`,
      provider: { id: "clx1abc123", name: "Dra. Maria Gonzalez" },
    });
    expect(
      checkAvailabilityRange({
        slots: [slot("2026-03-31", 13), slot("2026-04-01", 18)],
        service: { id: "cmiofy3o7005zus0wvsk0xqdc", duration_minutes: 60 },
        timezone: "America/Santiago",
      }),
    ).toEqual([]);
    expect(
      checkBookResponse({
        servicialo_version: "1.0",
        success: true,
        session: {
          id: "cm5session123",
          status: "agendado",
          derived_state: "agendado",
          derived_state_index: 1,
          scheduled_at: "2026-04-01T13:00:00.000Z",
          duration_minutes: 60,
          service: "Kinesiologia Musculoesqueletica",
          client_email: "joaquin.lopez@mail.com",
        },
        client_portal_url: "https://coordinalo.com/portal/clinica-demo?token=eyJhbG...",
        order_id: "cm5order456",
        venta_id: "cm5venta789",
      }),
    ).toEqual([]);
    expect(
      checkCancelResponse({
        sessionId: "cm5xyz789session",
        status: "cancelled",
        policy_applied: { penalty: "partial", penalty_percent: 50 },
      }),
    ).toEqual([]);
    expect(
      checkRescheduleResponse({
        sessionId: "cm5xyz789session",
        status: "scheduled",
        scheduledAt: "2026-04-05T18:00:00.000Z",
        duration: 60,
      }),
    ).toEqual([]);
  });

  // ...and name each departure from the field tables.
  it("name what departs from the field tables", () => {
    // The Turn 1 example abbreviates: a number for price (the table says numeric string) and
    // no price_unit, category, requirements, tags... The gateway answers the full table.
    const turn1 = {
      id: "cmiofy3o7005zus0wvsk0xqdc",
      name: "Kinesiologia Musculoesqueletica",
      description: "Kinesiologia para dolor muscular...",
      price: 40000,
      currency: "CLP",
      modality: "a_domicilio",
      duration_minutes: 60,
    };
    const problems = checkServiceObject(turn1);
    expect(problems.join("\n")).toMatch(/price: a numeric string/);
    expect(problems.join("\n")).toMatch(/price_unit/);
    expect(problems.join("\n")).toMatch(/requirements: string\[\]/);
    expect(
      checkAvailabilityRange({
        slots: [
          {
            date: "2026-04-01",
            start: "2026-04-01T10:00:00-03:00",
            end: "2026-04-01T14:00:00Z",
            provider: {},
          },
        ],
        service: { id: "s", duration_minutes: 60 },
        timezone: "Santiago",
        reason: "ALL_SLOTS_BOOKED",
      }),
    ).toEqual([
      'availability.timezone: an IANA timezone (got "Santiago")',
      'availability.reason: absent in multi-day modes (got "ALL_SLOTS_BOOKED")',
      'availability.slots[0].start: ISO 8601 UTC with .000Z (got "2026-04-01T10:00:00-03:00")',
      'availability.slots[0].end: ISO 8601 UTC with .000Z (got "2026-04-01T14:00:00Z")',
      "availability.slots[0].provider.id: a non-empty string (got undefined)",
      "availability.slots[0].provider.name: a non-empty string (got undefined)",
    ]);
    const book = checkBookResponse({
      servicialo_version: "1.0",
      success: true,
      session: { id: "x", status: "scheduled", derived_state: "scheduled", derived_state_index: 1 },
      order_id: "o",
      venta_id: "v",
    });
    expect(book.join("\n")).toMatch(/session.status: one of agendado/);
    expect(book.join("\n")).toMatch(/derived_state: one of solicitado/);
    expect(book.join("\n")).toMatch(/client_portal_url: string or null/);
  });
});
