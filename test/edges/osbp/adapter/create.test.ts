/**
 * OSBP "booking.create" through the generic adapter over the REAL synthetic platform: the
 * preflight and approval gate, idempotency, Mandate Enforcement before any upstream create, and
 * the platform's refusals in OSBP terms.
 */
import { attemptHoldId } from "../../../../src/booking/direct/index.js";
import { describe, expect, it } from "vitest";
import type { Connector, UpstreamCreate } from "../../../../src/connectors/port.js";
import { fadesOnQueen } from "../../../../src/connectors/synthetic/index.js";
import { LOCAL_REPLAY } from "../../../../src/edges/osbp/adapter/create-booking.js";
import { requestedSlot } from "../../../../src/edges/osbp/adapter/slots.js";
import { APPROVAL_TOKEN_PATTERN } from "../../../../src/protocol/osbp/index.js";
import { NIGHT_OWL, STUDIO } from "./scenarios.js";
import {
  MAPLE,
  MIN,
  approve,
  createInput,
  mandate,
  problemOf,
  rig,
  t,
  valueOf,
  withPayment,
  wrapConnector,
} from "./support.js";

const TEN = t("2026-10-19T10:00:00-04:00");

describe('OSBP "booking.create": preflight, approval, create, receipt', () => {
  it("preflight challenges with a token and creates nothing; the approved retry books exactly once", async () => {
    const r = rig();
    const input = createInput();
    const first = await r.adapter.createBooking(input);
    const p = problemOf(first, "requires_user_confirmation");
    expect(p.retryable).toBe(true);
    // The user-facing summary: resolved service, local time and zone, provider, price, payment prose, name.
    expect(p.message).toContain("Oil change at Maple Street Auto on Monday, October 19, 2026, 10:00–10:45");
    expect(p.message).toContain("(America/Toronto time) with Alex.");
    // The total the business records (79.00 and 13% HST), not the listed price alone.
    expect(p.message).toContain("Price: CAD 89.27.");
    expect(p.message).toContain("No upfront payment or deposit is required to book.");
    expect(p.message).toContain("The merchant will see the customer name: Jane Customer.");
    expect(p.message).not.toContain("+15555550100");
    const token = /approval\.token="([^"]+)"/.exec(p.message)?.[1];
    expect(token).toMatch(APPROVAL_TOKEN_PATTERN);
    expect(r.count("createBooking")).toBe(0);
    expect(await r.appointments()).toBe(0);

    const receipt = valueOf(
      await r.adapter.createBooking({ ...input, approval: { confirmed: true, token: token! } }),
    );
    expect(r.count("createBooking")).toBe(1);
    expect(await r.appointments()).toBe(1);
    expect(receipt).toEqual({
      id: "receipt_idem_1",
      booking_id: expect.stringMatching(/^b_/) as unknown,
      text: `Booked Oil change on 2026-10-19 at 10:00 (America/Toronto) with Alex. Appointment id: ${receipt.booking_id}.`,
    });
    // The platform holds the technician AND a bay, under the attempt's upstream key.
    const booked = valueOf(await r.synthetic.bookings.get(await r.upstreamIdOf(receipt.booking_id)));
    expect(booked).toMatchObject({
      // The core's upstream key: the hold's, which derives from the OSBP attempt (booking/direct).
      idempotencyKey: `maple-street-auto:${attemptHoldId("maple-street-auto", "osbp:maple-street-auto:idem_1", 0)}`,
      serviceId: "oil-change",
      start: TEN,
      end: TEN + 45 * MIN,
      status: "confirmed",
    });
    expect([...booked.resourceIds].sort()).toEqual(["bay-1", "tech-alex"]);
    // The total the user approved is the total the core recorded.
    const recorded = valueOf(await (await r.core).readBooking("maple-street-auto", receipt.booking_id));
    expect(recorded.state.contract.total).toEqual({ minor: 8927, currency: "CAD" });
  });

  it("tells the user before approval that the business accepts each booking itself", async () => {
    const r = rig({ policies: { confirmation: "host_approval" } });
    const p = problemOf(await r.adapter.createBooking(createInput()), "requires_user_confirmation");
    expect(p.message).toContain("The merchant accepts each booking itself");
    const instant = rig();
    const q = problemOf(await instant.adapter.createBooking(createInput()), "requires_user_confirmation");
    expect(q.message).not.toContain("accepts each booking itself");
  });

  it("sends the merchant-visible name and contact, never the verification code, and tentative: false", async () => {
    const creates: UpstreamCreate[] = [];
    const r = rig({
      wrap: (c) =>
        wrapConnector(c, {
          createBooking: (req: UpstreamCreate) => {
            creates.push(req);
            return c.bookings.create(req);
          },
        }),
    });
    const input = createInput({ customer: { given_name: "Sam", family_name: "Lee", phone: "+15555550111" } });
    valueOf(await r.adapter.createBooking(await approve(r.adapter, input)));
    expect(creates[0]).toMatchObject({
      customer: { name: "Sam Lee", phone: "+15555550111" },
      tentative: false,
      resourceIds: ["bay-1", "tech-alex"],
    });
    expect(creates[0]).not.toHaveProperty("verificationCode");
  });

  it("no provider_id: the first free technician is chosen and shown in the summary", async () => {
    const r = rig();
    const { provider_id: _omit, ...anyone } = createInput();
    const approved = await approve(r.adapter, anyone);
    const receipt = valueOf(await r.adapter.createBooking(approved));
    expect(receipt.text).toContain("with Alex.");
  });

  it("the overlap hour: 01:00 on 2026-11-01 books the first 01:00 (EDT)", async () => {
    const r = rig({ scenario: NIGHT_OWL, start: t("2026-10-25T12:00:00Z") });
    const input = createInput({
      mandate: mandate({
        organization_id: "night-owl",
        earliest_start: "2026-11-01T00:00:00",
        latest_end: "2026-11-01T06:00:00",
      }),
      service_id: "check",
      schedule_id: "night-owl",
      provider_id: "nurse-1",
      date: "2026-11-01",
      time: "01:00",
    });
    const receipt = valueOf(await r.adapter.createBooking(await approve(r.adapter, input)));
    expect(valueOf(await r.synthetic.bookings.get(await r.upstreamIdOf(receipt.booking_id))).start).toBe(
      t("2026-11-01T05:00:00Z"),
    );
  });

  it("a time in the spring-forward gap (02:30 on 2026-03-08): nonexistent_local_time, no upstream call", async () => {
    const r = rig({ scenario: NIGHT_OWL, start: t("2026-03-01T12:00:00Z") });
    const input = createInput({
      mandate: mandate({
        organization_id: "night-owl",
        earliest_start: "2026-03-08T00:00:00",
        latest_end: "2026-03-08T06:00:00",
      }),
      service_id: "check",
      schedule_id: "night-owl",
      provider_id: "nurse-1",
      date: "2026-03-08",
      time: "02:30",
    });
    problemOf(await r.adapter.createBooking(input), "nonexistent_local_time");
    expect(r.count("findAvailability") + r.count("createBooking")).toBe(0);
  });

  it("a tampered token is re-challenged with a fresh token; nothing is created", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    const token = approved.approval!.token;
    const forged = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
    const p = problemOf(
      await r.adapter.createBooking({ ...approved, approval: { confirmed: true, token: forged } }),
      "requires_user_confirmation",
    );
    expect(p.retryable).toBe(true);
    expect(p.message).not.toContain(forged);
    expect(r.count("createBooking")).toBe(0);
  });

  it("an approval that does not say confirmed: true is not an approval", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    problemOf(
      await r.adapter.createBooking({
        ...approved,
        approval: { confirmed: false, token: approved.approval!.token },
      }),
      "requires_user_confirmation",
    );
    expect(r.count("createBooking")).toBe(0);
  });
});

describe('OSBP "booking.create": idempotency', () => {
  it("the same key and payload replays the receipt with osbp_runtime and no upstream call at all", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    const receipt = valueOf(await r.adapter.createBooking(approved));
    const callsBefore = r.count();
    const meta = r.adapter.upstreamMeta;
    for (const retry of [approved, { ...approved, approval: undefined }]) {
      const again = await r.adapter.createBooking(retry);
      expect(again).toEqual({ ok: true, value: receipt, osbp_runtime: LOCAL_REPLAY });
    }
    expect(LOCAL_REPLAY).toEqual({
      idempotency: "local_cache_replay",
      message:
        "No platform create call was made; this result was replayed from local OSBP idempotency state.",
    });
    expect(r.count()).toBe(callsBefore);
    expect(r.adapter.upstreamMeta).toBe(meta);
    expect(await r.appointments()).toBe(1);
  });

  it("the same key with a different payload: idempotency_conflict, nothing created", async () => {
    const r = rig();
    valueOf(await r.adapter.createBooking(await approve(r.adapter, createInput())));
    const p = problemOf(
      await r.adapter.createBooking(createInput({ time: "11:00" })),
      "idempotency_conflict",
    );
    expect(p.retryable).toBe(false);
    expect(r.count("createBooking")).toBe(1);
  });

  it("two concurrent calls with one key: one proceeds, the other hears idempotency_in_progress (retryable)", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    const results = await Promise.all([r.adapter.createBooking(approved), r.adapter.createBooking(approved)]);
    expect(results.filter((x) => x.ok)).toHaveLength(1);
    const busy = results.find((x) => !x.ok);
    expect(busy && !busy.ok && busy.problem).toMatchObject({
      code: "idempotency_in_progress",
      retryable: true,
    });
    expect(await r.appointments()).toBe(1);
  });

  it("a new idempotency_key needs a new approval (the token binds the key)", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    problemOf(
      await r.adapter.createBooking({ ...approved, idempotency_key: "idem_2" }),
      "requires_user_confirmation",
    );
    expect(r.count("createBooking")).toBe(0);
  });
});

describe('OSBP "Mandate Enforcement": validateMandate runs before any upstream create', () => {
  const cases: Array<[string, Parameters<typeof createInput>[0], string]> = [
    ["expired", { mandate: mandate({ expires_at: "2026-10-01T00:00:00Z" }) }, "mandate_expired"],
    [
      "action not allowed",
      { mandate: mandate({ allowed_actions: ["booking.cancel"] }) },
      "action_not_allowed",
    ],
    [
      "another organization",
      { mandate: mandate({ organization_id: "fades-on-queen" }) },
      "organization_not_allowed",
    ],
    [
      "service outside scope",
      { mandate: mandate({ service_ids: ["brake-inspection"] }) },
      "service_not_allowed",
    ],
    ["schedule outside scope", { mandate: mandate({ schedule_ids: [] }) }, "schedule_not_allowed"],
    ["provider outside scope", { mandate: mandate({ provider_ids: ["tech-sam"] }) }, "provider_not_allowed"],
    ["too early", { mandate: mandate({ earliest_start: "2026-10-19T10:30:00" }) }, "slot_too_early"],
    ["too late", { mandate: mandate({ latest_end: "2026-10-19T10:30:00" }) }, "slot_too_late"],
    [
      "over max_price",
      { mandate: mandate({ max_price: { amount_minor: 7899, currency: "CAD" } }) },
      "price_exceeds_mandate",
    ],
    [
      "another currency",
      { mandate: mandate({ max_price: { amount_minor: 100_000, currency: "USD" } }) },
      "currency_mismatch",
    ],
    [
      "wall-clock with an offset",
      { mandate: mandate({ earliest_start: "2026-10-19T08:00:00-04:00" }) },
      "invalid_mandate",
    ],
  ];
  for (const [name, over, code] of cases) {
    it(`${name}: ${code}, with no availability check and no create`, async () => {
      const r = rig();
      problemOf(await r.adapter.createBooking(createInput(over)), code);
      expect(r.count("findAvailability")).toBe(0);
      expect(r.count("createBooking")).toBe(0);
    });
  }

  it("the mandate is checked again on the approved retry (an expired mandate never books)", async () => {
    const r = rig();
    const approved = await approve(
      r.adapter,
      createInput({ mandate: mandate({ expires_at: "2026-10-18T16:05:00Z" }) }),
    );
    r.clock.advance(10 * MIN);
    problemOf(await r.adapter.createBooking(approved), "mandate_expired");
    expect(r.count("createBooking")).toBe(0);
  });

  it("provider_ids pinned but no provider_id in the request: provider_unknown", async () => {
    const r = rig();
    const { provider_id: _omit, ...anyone } = createInput({
      mandate: mandate({ provider_ids: ["tech-alex"] }),
    });
    problemOf(await r.adapter.createBooking(anyone), "provider_unknown");
  });

  it("payment requirement not stated by the platform: requires_user_confirmation, terminal (no token)", async () => {
    const r = rig({ scenario: { ...MAPLE, services: MAPLE.services.map(({ payment: _p, ...s }) => s) } });
    const p = problemOf(await r.adapter.createBooking(createInput()), "requires_user_confirmation");
    expect(p.retryable).toBe(false);
    expect(p.message).not.toContain("approval.token");
  });

  it("a service with no price (Fades on Queen consultation): requires_user_confirmation, terminal", async () => {
    const r = rig({ scenario: withPayment(fadesOnQueen) });
    const input = createInput({
      mandate: mandate({
        organization_id: "fades-on-queen",
        earliest_start: "2026-10-20T00:00:00",
        latest_end: "2026-10-20T23:00:00",
      }),
      service_id: "consultation",
      schedule_id: "fades-on-queen",
      provider_id: "barber-marcus",
      date: "2026-10-20",
      time: "11:00",
    });
    expect(problemOf(await r.adapter.createBooking(input), "requires_user_confirmation").retryable).toBe(
      false,
    );
  });

  it("a deposit the mandate does not allow: requires_payment_handoff; a consultation service: requires_consultation_handoff", async () => {
    const r = rig({ scenario: STUDIO });
    const base = {
      mandate: mandate({
        organization_id: "policy-studio",
        max_price: { amount_minor: 20_000, currency: "CAD" },
      }),
      schedule_id: "policy-studio",
      provider_id: "stylist-1",
      time: "09:00",
    };
    problemOf(
      await r.adapter.createBooking(createInput({ ...base, service_id: "deposit-colour" })),
      "requires_payment_handoff",
    );
    problemOf(
      await r.adapter.createBooking(
        createInput({ ...base, idempotency_key: "idem_c", service_id: "consult" }),
      ),
      "requires_consultation_handoff",
    );
    // A quote-only price has no amount: the mandate cannot bound it (terminal, no token).
    const quote = await r.adapter.createBooking(
      createInput({ ...base, idempotency_key: "idem_q", service_id: "quote" }),
    );
    expect(problemOf(quote, "requires_user_confirmation").retryable).toBe(false);
    expect(r.count("createBooking")).toBe(0);
  });

  it("fees the platform reports appear in the approval summary", async () => {
    const r = rig({ scenario: STUDIO });
    const input = createInput({
      mandate: mandate({ organization_id: "policy-studio" }),
      service_id: "fee-cut",
      schedule_id: "policy-studio",
      provider_id: "stylist-1",
      time: "09:00",
    });
    const p = problemOf(await r.adapter.createBooking(input), "requires_user_confirmation");
    expect(p.message).toContain("Cancellation policy: Cancel at least 6 hours before.");
    expect(p.message).toContain("A cancellation fee of CAD 25.00 may apply.");
    expect(p.message).toContain("A no-show fee of CAD 50.00 may apply.");
  });
});

describe('OSBP "booking.create": the request must name what the platform has', () => {
  it("unknown schedule, provider or service: adapter Problems, nothing upstream but the catalog", async () => {
    const r = rig();
    problemOf(await r.adapter.createBooking(createInput({ schedule_id: "downtown" })), "schedule_not_found");
    problemOf(await r.adapter.createBooking(createInput({ provider_id: "bay-2" })), "provider_not_found");
    problemOf(await r.adapter.createBooking(createInput({ service_id: "detailing" })), "service_not_found");
    expect(r.count()).toBe(r.count("catalog"));
  });

  it("a time the platform does not offer now (someone else booked Alex at 10:00): slot_taken, retryable", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    valueOf(
      await r.synthetic.bookings.create({
        idempotencyKey: "someone-else",
        serviceId: "oil-change",
        start: TEN,
        end: TEN + 45 * MIN,
        resourceIds: ["tech-alex"],
        tentative: false,
      }),
    );
    const p = problemOf(await r.adapter.createBooking(approved), "slot_taken");
    expect(p.retryable).toBe(true);
    expect(r.count("createBooking")).toBe(0);
    expect(await r.appointments()).toBe(1);
  });

  it("a schema-invalid input is refused before anything (invalid_input / invalid_mandate)", async () => {
    const r = rig();
    problemOf(await r.adapter.createBooking({ ...createInput(), time: "25:00" }), "invalid_input");
    const { mandate: m, ...rest } = createInput();
    const { expires_at: _e, ...noExpiry } = m;
    problemOf(await r.adapter.createBooking({ ...rest, mandate: noExpiry as typeof m }), "invalid_mandate");
    expect(r.count()).toBe(0);
  });
});

describe('OSBP "booking.create": platform refusals mapped once', () => {
  it("the platform says slot_taken at create: slot_taken (retryable)", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    r.faults.next("createBooking", "slot_taken");
    expect(problemOf(await r.adapter.createBooking(approved), "slot_taken").retryable).toBe(true);
  });

  it("HTTP 429: rate_limited (retryable) saying when; the retry books", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    r.faults.next("createBooking", "rate_limited", 1, { retryAfterSeconds: 7 });
    const p = problemOf(await r.adapter.createBooking(approved), "rate_limited");
    expect(p.retryable).toBe(true);
    expect(p.message).toContain("Retry after 7 second(s)");
    valueOf(await r.adapter.createBooking(approved));
    expect(await r.appointments()).toBe(1);
  });

  it("5xx before the platform did anything: upstream_unavailable (retryable); the retry books once", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    r.faults.next("createBooking", "unavailable");
    const p = problemOf(await r.adapter.createBooking(approved), "upstream_unavailable");
    expect(p.retryable).toBe(true);
    expect(await r.appointments()).toBe(0);
    valueOf(await r.adapter.createBooking(approved));
    expect(await r.appointments()).toBe(1);
  });

  it("5xx after the platform booked (answer lost): the core asks the platform by key and records that same booking", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    r.faults.next("createBooking", "unavailable", 1, { afterCommit: true });
    const receipt = valueOf(await r.adapter.createBooking(approved));
    expect(await r.appointments()).toBe(1);
    expect(r.count("findBookingByIdempotencyKey")).toBe(1);
    // The retry of the same attempt replays; Alex's 10:00 is taken by this very attempt.
    expect(valueOf(await r.adapter.createBooking(approved))).toEqual(receipt);
    expect(await r.appointments()).toBe(1);
  });

  it("5xx after the platform booked, and the read by key fails too: the retry books once, under the same key", async () => {
    const r = rig();
    const approved = await approve(r.adapter, createInput());
    r.faults.next("createBooking", "unavailable", 1, { afterCommit: true });
    r.faults.next("findBookingByIdempotencyKey", "unavailable", 1);
    problemOf(await r.adapter.createBooking(approved), "upstream_unavailable");
    expect(await r.appointments()).toBe(1);
    // The hold is still this attempt's: its retry reaches the platform with the same key and
    // gets the appointment already made, not a second one.
    r.clock.advance(31_000);
    const core = await r.core;
    await core.reconcile(r.hostId);
    const receipt = valueOf(await r.adapter.createBooking(approved));
    expect(await r.appointments()).toBe(1);
    expect(await r.upstreamIdOf(receipt.booking_id)).toMatch(/^syn_/);
  });

  it("a receipt the store cannot record is still the answer; the failure is logged and the lease holds", async () => {
    const r = rig();
    r.idempotency.settle = () => Promise.reject(new Error("disk full"));
    const approved = await approve(r.adapter, createInput());
    const receipt = valueOf(await r.adapter.createBooking(approved));
    expect(receipt.booking_id).not.toBe("");
    expect(r.errors).toEqual(["osbp adapter: could not record the booking.create receipt: disk full"]);
    problemOf(await r.adapter.createBooking(approved), "idempotency_in_progress");
    expect(await r.appointments()).toBe(1);
  });

  it("a connector bug (a throw): internal_adapter_error, logged, and the lease is released for the retry", async () => {
    let broken = true;
    const r = rig({
      wrap: (c): Connector =>
        wrapConnector(c, {
          createBooking: (req: UpstreamCreate) => {
            if (broken) throw new Error("connector bug: undefined is not a function");
            return c.bookings.create(req);
          },
        }),
    });
    const approved = await approve(r.adapter, createInput());
    const p = problemOf(await r.adapter.createBooking(approved), "internal_adapter_error");
    expect(p).toEqual({
      code: "internal_adapter_error",
      message: "The adapter failed unexpectedly; the failure was recorded.",
      retryable: false,
    });
    expect(r.errors.join("\n")).toContain("connector bug");
    broken = false;
    valueOf(await r.adapter.createBooking(approved));
    expect(await r.appointments()).toBe(1);
  });

  it("the platform rejects the request (invalid_request): upstream_rejected; unauthorized: upstream_unauthorized", async () => {
    const refusing = (code: "invalid_request" | "unauthorized") => (c: Connector) =>
      wrapConnector(c, {
        createBooking: () =>
          Promise.resolve({ ok: false, error: { code, message: "the platform's words with +15555550100" } }),
      });
    for (const [code, expected] of [
      ["invalid_request", "upstream_rejected"],
      ["unauthorized", "upstream_unauthorized"],
    ] as const) {
      const r = rig({ wrap: refusing(code) });
      const p = problemOf(await r.adapter.createBooking(await approve(r.adapter, createInput())), expected);
      expect(p.retryable).toBe(false);
      expect(p.message).not.toContain("+1555");
    }
  });
});

describe('OSBP "Time Discipline": an unknown zone leaves starts_at absent and fails closed', () => {
  const approveOrInput = async (r: ReturnType<typeof rig>) => {
    const first = await r.adapter.createBooking(createInput());
    return first.ok ? createInput() : createInput({ approval: { confirmed: true, token: "t" } });
  };

  const marsZone = (c: Connector): Connector =>
    wrapConnector(c, {
      catalog: async () => {
        const read = await c.catalog!.read();
        return read.ok
          ? {
              ok: true,
              value: {
                ...read.value,
                organization: { ...read.value.organization, timezone: "Mars/Olympus_Mons" },
              },
            }
          : read;
      },
    });

  it("the requested slot carries wall-clock times only", () => {
    const catalog = { ...MAPLE, organization: { ...MAPLE.organization, timezone: "Mars/Olympus_Mons" } };
    const slot = requestedSlot({
      catalog,
      place: { organizationName: catalog.organization.name },
      service: MAPLE.services[0] as (typeof MAPLE.services)[0] & { duration: number },
      provider: undefined,
      wall: { year: 2026, month: 10, day: 19, hour: 10, minute: 0, second: 0, millisecond: 0 },
      start: undefined,
    });
    expect(slot).toMatchObject({
      starts_at_local: "2026-10-19T10:00:00",
      ends_at_local: "2026-10-19T10:45:00",
    });
    expect(slot).not.toHaveProperty("starts_at");
    expect(slot).not.toHaveProperty("ends_at");
    expect(slot).not.toHaveProperty("schedule_timezone");
  });

  it("a platform whose zone is not the host's IANA zone is never booked: every call fails closed, nothing upstream", async () => {
    // The gateway checks the platform's zone against the host's at start (booking/hosts): a
    // host whose platform reports "Mars/Olympus_Mons" does not serve, on any edge.
    const r = rig({ wrap: marsZone });
    const refused = await r.adapter.createBooking(await approveOrInput(r));
    expect(refused.ok).toBe(false);
    expect((await r.adapter.findAvailability({ service_id: "oil-change", date: "2026-10-19" })).ok).toBe(
      false,
    );
    expect(r.count("findAvailability") + r.count("createBooking")).toBe(0);
    expect(await r.appointments()).toBe(0);
  });
});
