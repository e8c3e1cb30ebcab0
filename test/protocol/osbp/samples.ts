/**
 * The spec's own example objects (OSBP "BookingMandate", "availability.find",
 * "service.describe", "policy.explain", "booking.create"), as fresh copies with overrides.
 */
import type {
  BookingCreateInput,
  BookingMandate,
  Policy,
  Service,
  Slot,
} from "../../../src/protocol/osbp/index.js";

/** Before the example mandate expires (2026-05-01T23:59:59-07:00 = 2026-05-02T06:59:59Z). */
export const NOW = Date.parse("2026-05-01T12:00:00Z");

export function mandate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: BookingMandate = {
    id: "mnd_2026_05_01_001",
    expires_at: "2026-05-01T23:59:59-07:00",
    allowed_actions: ["booking.create"],
    organization_id: "org_01jw3z8x9k2m4n6p8r0s1t3v5w",
    service_ids: ["service_123"],
    provider_ids: ["provider_123"],
    schedule_ids: ["schedule_123"],
    earliest_start: "2026-05-01T09:00:00",
    latest_end: "2026-05-14T18:00:00",
    max_price: { amount_minor: 10000, currency: "USD" },
    allow_policy_fee: false,
    max_extra_fee: { amount_minor: 0, currency: "USD" },
  };
  return { ...structuredClone(base), ...overrides };
}

export function slot(overrides: Partial<Slot> = {}): Slot {
  return {
    id: "schedule_123:provider_123:service_123:2026-05-05T13:00:00",
    organization_id: "org_01jw3z8x9k2m4n6p8r0s1t3v5w",
    schedule_id: "schedule_123",
    schedule_name: "Main Studio",
    schedule_timezone: "America/Los_Angeles",
    provider_id: "provider_123",
    provider_name: "Jordan Lee",
    service_id: "service_123",
    starts_at: "2026-05-05T20:00:00.000Z",
    ends_at: "2026-05-05T21:00:00.000Z",
    starts_at_local: "2026-05-05T13:00:00",
    ends_at_local: "2026-05-05T14:00:00",
    price: { amount_minor: 9500, currency: "USD", type: "fixed", display: "$95.00" },
    ...overrides,
  };
}

export function service(overrides: Partial<Service> = {}): Service {
  return {
    id: "service_123",
    name: "Haircut",
    duration: "PT60M",
    price: { amount_minor: 9500, currency: "USD", type: "fixed", display: "$95.00" },
    requires_consultation: false,
    ...overrides,
  };
}

export function policy(overrides: Partial<Policy> = {}): Policy {
  return {
    service_id: "service_123",
    cancellation_enabled: true,
    cancellation_window: "PT6H",
    cancellation_note: "Cancel at least 6 hours before the appointment.",
    late_grace: "PT15M",
    cancellation_fee: { amount_minor: 2500, currency: "USD", type: "fixed", display: "$25.00" },
    no_show_fee: { amount_minor: 5000, currency: "USD", type: "fixed", display: "$50.00" },
    payment_requirement: "none",
    deposit: { amount_minor: 0, currency: "USD" },
    verification_method: "sms",
    organization: {
      id: "org_01jw3z8x9k2m4n6p8r0s1t3v5w",
      name: "Bayview Hair Studio",
      timezone: "America/Los_Angeles",
      currency: "USD",
      country: "US",
    },
    ...overrides,
  };
}

export function createInput(overrides: Partial<BookingCreateInput> = {}): BookingCreateInput {
  return {
    mandate: mandate() as unknown as BookingMandate,
    idempotency_key: "idem_2026_05_01_001",
    service_id: "service_123",
    schedule_id: "schedule_123",
    provider_id: "provider_123",
    date: "2026-05-05",
    time: "13:00",
    customer: {
      id: "customer_123",
      display_name: "Jane Customer",
      given_name: "Jane",
      family_name: "Customer",
      phone: "+15555550100",
      email: "jane@example.com",
    },
    ...overrides,
  };
}
