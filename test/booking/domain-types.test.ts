/**
 * The core's own domain types (src/booking/catalog.ts, upstream.ts, errors.ts UpstreamFailure)
 * stay compatible with the connector ports' shapes (src/connectors/ports/), so the core takes
 * what a connector answers as it is and edges name the core only (docs/ARCHITECTURE.md,
 * Dependency rules). The type assertions fail `tsc` when the two part; the runtime cases pin
 * upstreamFailureOf, the failure an edge maps behind a refusal.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { BookingRefusal } from "../../src/booking/api.js";
import type * as Core from "../../src/booking/catalog.js";
import { upstreamFailureOf, type PaymentHandoff, type UpstreamFailure } from "../../src/booking/errors.js";
import { upstreamRefusal } from "../../src/booking/bookings/refuse.js";
import { hostNeedsReconnection } from "../../src/booking/hosts/refusals.js";
import type * as Up from "../../src/booking/upstream.js";
import type * as Port from "../../src/connectors/port.js";

describe("a connector's answers are the core's types", () => {
  it("the catalog", () => {
    expectTypeOf<Port.Catalog>().toExtend<Core.Catalog>();
    expectTypeOf<Port.CatalogService>().toExtend<Core.CatalogService>();
    expectTypeOf<Port.CatalogResource>().toExtend<Core.CatalogResource>();
    expectTypeOf<Port.CatalogTax>().toExtend<Core.CatalogTax>();
    expectTypeOf<Port.PlaceLocation>().toExtend<Core.PlaceLocation>();
    expectTypeOf<Port.WeeklyPeriod>().toExtend<Core.WeeklyPeriod>();
  });

  it("bookings, slots, call metadata and booking abilities", () => {
    expectTypeOf<Port.UpstreamBooking>().toExtend<Up.UpstreamBooking>();
    expectTypeOf<Port.UpstreamStatus>().toEqualTypeOf<Up.UpstreamStatus>();
    expectTypeOf<Port.UpstreamSlot>().toExtend<Up.UpstreamSlot>();
    expectTypeOf<Port.UpstreamMeta>().toExtend<Up.UpstreamMeta>();
    expectTypeOf<Port.BookingAbilities>().toExtend<Up.BookingAbilities>();
    expectTypeOf<Port.ConnectorResult<{ n: number }>>().toExtend<Up.UpstreamAnswer<{ n: number }>>();
  });

  it("the customer the core passes on is a connector's", () => {
    expectTypeOf<Up.UpstreamCustomer>().toExtend<Port.UpstreamCustomer>();
  });

  it("a connector's error is an UpstreamFailure, code for code", () => {
    expectTypeOf<Port.ConnectorError>().toExtend<UpstreamFailure>();
    expectTypeOf<Port.ConnectorErrorCode>().toEqualTypeOf<UpstreamFailure["code"]>();
    expectTypeOf<Port.PaymentHandoff>().toExtend<PaymentHandoff>();
  });
});

describe("upstreamFailureOf", () => {
  it("is the upstream failure a refusal keeps", () => {
    const failure: Port.ConnectorError = { code: "rate_limited", message: "slow down", retryAfterMs: 3_000 };
    expect(upstreamFailureOf(upstreamRefusal(failure))).toBe(failure);
  });

  it("is unauthorized for a host refused for revoked credentials without asking upstream", () => {
    const r = hostNeedsReconnection();
    expect(r.upstream).toBeUndefined();
    expect(upstreamFailureOf(r)).toEqual({ code: "unauthorized", message: r.message });
  });

  it("is undefined for the core's own rules", () => {
    const r: BookingRefusal = { code: "slot_unavailable", reason: "slot_taken", message: "taken" };
    expect(upstreamFailureOf(r)).toBeUndefined();
  });
});
