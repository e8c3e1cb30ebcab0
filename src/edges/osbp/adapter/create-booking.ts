/**
 * booking.create (OSBP "booking.create", "Mandate Enforcement", "Adapter Contract"). The order is
 * the contract: idempotency, then the slot from the platform's catalog, then validateMandate
 * BEFORE anything that could reach a platform mutation, then the live availability check, then
 * the final-confirmation gate, and only then the platform create.
 *
 * The idempotency lease taken in step 1 is settled with the receipt on success and released on
 * every other outcome (including a throw), so the agent's retry of the same attempt proceeds.
 */
import { confirmationOf } from "../../../booking/discovery/confirmation.js";
import { runOnce, type IdempotencyKey } from "../../../booking/idempotency/index.js";
import type { BookingState } from "../../../booking/bookings/state.js";
import { err, ok, type Result } from "../../../protocol/result.js";
import type { Catalog, CatalogResource, CatalogService } from "../../../booking/catalog.js";
import type { Money } from "../../../protocol/money/index.js";
import {
  approvalFactsFrom,
  bookingPayloadHash,
  problem,
  validateMandate,
  validateRequestScope,
  type AdapterResult,
  type AdapterRuntimeDiagnostics,
  type BookingCreateInput,
  type Problem,
  type Receipt,
  type Slot,
} from "../../../protocol/osbp/index.js";
import { parseLocalDate, parseLocalTime } from "../../../protocol/time/index.js";
import {
  checkSchedule,
  resolveProvider,
  resolveService,
  staffShape,
  toPolicy,
  toService,
  type StaffShape,
} from "./catalog-facts.js";
import type { AdapterContext } from "./context.js";
import { dateText, hhmmText, instantOfLocal, knownZone, localWall, wallOf } from "./local-time.js";
import { osbpAuthority } from "./authority.js";
import { openingsByProvider } from "./openings.js";
import { adapterProblem } from "./problems.js";
import { refusalProblem } from "./refusals.js";
import { requestedSlot } from "./slots.js";
import { merchantVisibleName, upstreamCustomer } from "./verification.js";

/** OSBP "Result Envelope": the one defined osbp_runtime value. */
export const LOCAL_REPLAY: AdapterRuntimeDiagnostics = {
  idempotency: "local_cache_replay",
  message: "No platform create call was made; this result was replayed from local OSBP idempotency state.",
};

const fail = (p: Problem): AdapterResult<never> => ({ ok: false, problem: p });

/** The local cache key: the idempotency_key scoped by the mandate's organization. */
const localKey = (input: BookingCreateInput): IdempotencyKey => ({
  scope: input.mandate.organization_id,
  key: input.idempotency_key,
});

/** The attempt's name in the core (its hold, and so its upstream key, derive from it). */
const upstreamKey = (organizationId: string, idempotencyKey: string): string =>
  `osbp:${organizationId}:${idempotencyKey}`;

export async function createBooking(
  ctx: AdapterContext,
  input: BookingCreateInput,
): Promise<AdapterResult<Receipt>> {
  // 1. Idempotency first ("the same idempotency_key returns the same result if retried; the same
  //    key with a different payload fails with idempotency_conflict, while transient approval and
  //    verification_code fields do not create a new logical attempt"), through the core's
  //    runOnce: only a successful create's receipt is kept; every other outcome (a throw
  //    included) releases the lease, so the agent's retry of the same attempt proceeds.
  const once = await runOnce(
    ctx.idempotency,
    { id: localKey(input), fingerprint: bookingPayloadHash(input) },
    () => attempt(ctx, input),
    {
      clock: ctx.clock,
      keep: (outcome) => (outcome.ok ? outcome.value : undefined),
      // A receipt not recorded: the appointment exists, so it is the answer. Until the lease
      // lapses a retry hears idempotency_in_progress; after it the platform's own key returns
      // this same booking.
      onStoreError: (operation, error) =>
        ctx.logger.error(`osbp adapter: could not ${STORE_STEP[operation]}: ${describe(error)}`),
    },
  );
  switch (once.kind) {
    case "conflict":
      return fail(
        problem(
          "idempotency_conflict",
          "This idempotency_key was already used with a different booking.create payload",
        ),
      );
    case "replayed":
      return { ok: true, value: once.answer, osbp_runtime: LOCAL_REPLAY };
    case "in_progress":
      return fail(
        adapterProblem(
          "idempotency_in_progress",
          "Another booking.create with this idempotency_key is still running; retry shortly with the same input.",
          { retryable: true },
        ),
      );
    case "ran":
      return once.result;
  }
}

const STORE_STEP = {
  settle: "record the booking.create receipt",
  release: "release a booking.create lease",
} as const;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function attempt(ctx: AdapterContext, input: BookingCreateInput): Promise<AdapterResult<Receipt>> {
  // 2. Resolve the catalog, service and policy and build the Slot the request names
  //    ("createBooking fetches the service and policy, builds the Slot, and calls validateMandate
  //    before issuing any create call", OSBP "Adapter Contract"). The ids the request names are
  //    judged against the mandate first, so an id outside its scope is refused in the mandate's
  //    terms (provider_not_allowed) whether or not the merchant has it.
  const scope = validateRequestScope(input.mandate, {
    now: ctx.clock.now(),
    action: "booking.create",
    ids: {
      organizationIds: [],
      serviceIds: [input.service_id],
      scheduleId: input.schedule_id,
      providerId: input.provider_id,
    },
  });
  if (!scope.ok) return fail(scope.error);
  const date = parseLocalDate(input.date, "/date");
  if (!date.ok) return fail(adapterProblem("invalid_input", `Invalid input: date: ${date.error.message}`));
  const time = parseLocalTime(input.time, "/time");
  if (!time.ok) return fail(adapterProblem("invalid_input", `Invalid input: time: ${time.error.message}`));
  const read = ctx.catalog();
  if (!read.ok) return fail(read.error);
  const catalog = read.value;
  const service = resolveService(catalog, input.service_id, {});
  if (!service.ok) return fail(service.error);
  const schedule = checkSchedule(catalog, input.schedule_id, {});
  if (schedule !== undefined) return fail(schedule);
  const shape = staffShape(catalog, service.value);
  if (!shape.ok) return fail(shape.error);
  const named = resolveProvider(shape.value, input.provider_id);
  if (!named.ok) return fail(named.error);
  const wall = wallOf(date.value, time.value);
  const zone = catalog.organization.timezone;
  let start: number | undefined;
  if (knownZone(zone)) {
    const at = instantOfLocal(wall, zone);
    if (at.kind === "nonexistent") {
      return fail(
        adapterProblem(
          "nonexistent_local_time",
          `date and time ${input.date} ${input.time} do not exist in ${zone} (the clocks skip it); choose a slot from availability.find.`,
        ),
      );
    }
    start = at.ms;
  }
  // staffShape refused open-ended services, so the duration is a number here.
  const fixed = service.value as CatalogService & { readonly duration: number };
  const place = ctx.place();
  const slot = requestedSlot({ catalog, place, service: fixed, provider: named.value, wall, start });
  const osbpService = toService(catalog, fixed, (s) => place.allIn?.(s, start));
  const policy = toPolicy(catalog, fixed);

  // 3. Mandate Enforcement, every bullet up to the payment one, before any upstream mutation.
  //    Its Problem is returned unchanged.
  const valid = validateMandate(input.mandate, {
    now: ctx.clock.now(),
    action: "booking.create",
    slot,
    service: osbpService,
    policy,
  });
  if (!valid.ok) return fail(valid.error);
  if (start === undefined) {
    return fail(
      adapterProblem(
        "unknown_timezone",
        "The platform reports a time zone that is not an IANA zone, so the appointment time cannot be placed; hand off to the merchant.",
      ),
    );
  }

  // 4. The slot is actually offered now: the core's openings at that start (live holds and
  //    bookings from every edge included), for the named provider or the first one free.
  const chosen = await chooseProvider(ctx, fixed, shape.value, named.value, start);
  if (!chosen.ok && input.approval === undefined) return fail(chosen.error);
  const provider = chosen.ok ? chosen.value.provider : named.value;
  // The upstream's own total at that start (a Servicialo upstream's slot price) is the price
  // the summary shows, so the person approves what the business records.
  const stated = chosen.ok ? chosen.value.stated : undefined;
  const shown: Slot =
    provider === named.value && stated === undefined
      ? slot
      : requestedSlot({
          catalog,
          place,
          service: fixed,
          provider,
          wall,
          start,
          ...(stated !== undefined && { stated }),
        });

  // 5. Final confirmation ("final confirmation is present before any platform appointment
  //    create"): no or a stale approval gets the (re)challenge with a fresh summary and token.
  const customerName = merchantVisibleName(input.customer);
  const base = approvalFactsFrom({ slot: shown, service: osbpService, policy, customer: input.customer });
  const facts = {
    ...base,
    customer_name: customerName,
    // One location: the schedule is the organization, named once.
    schedule_name: base.schedule_name === base.organization_name ? undefined : base.schedule_name,
    ...(awaitsMerchant(ctx) && { awaits_merchant: true }),
    ...(personHost(ctx) !== undefined && { host_person: personHost(ctx) }),
  };
  const approval = ctx.gate.check({ input, facts }, input.approval);
  if (approval.outcome === "rechallenge") return fail(approval.problem);

  // 6. The core books: a hold on the time (atomic against every edge's holds and bookings) and
  //    its two-phase platform create under a key derived from this attempt, so a retried or
  //    lost-answer attempt can never book twice. A retry after the slot was taken by this very
  //    attempt answers with its booking (the openings check above then saw it as taken).
  const authority = osbpAuthority({
    mandate: input.mandate,
    clock: ctx.clock,
    service: osbpService,
    policy,
    slotFor: (terms) =>
      requestedSlot({
        catalog,
        place,
        service: fixed,
        provider: catalog.resources.find((r) => r.id === terms.resourceId) ?? provider,
        wall: localWall(terms.start, zone),
        start: terms.start,
        // The total the core priced the hold at, which is the one the mandate must cover.
        ...(terms.total !== null && { stated: terms.total }),
      }),
  });
  const booked = await ctx.core.bookNow(
    ctx.hostId,
    // One origin for the public booking pool: the local stdio client this server answers
    // (mandate ids are the agent's to mint, so they cannot be one).
    { agentKey: `osbp:${input.mandate.id}`, authority, origin: "osbp:stdio" },
    {
      serviceId: fixed.id,
      start,
      ...(provider !== undefined && { resourceId: provider.id }),
      partySize: 1,
      customer: upstreamCustomer(input.customer),
      ...(input.verification_code === undefined ? {} : { verificationCode: input.verification_code }),
      attemptKey: upstreamKey(catalog.organization.id, input.idempotency_key),
    },
  );
  // 7. Refusals in OSBP terms (refusals.ts; platform failures as every method maps them).
  if (!booked.ok) return fail(refusalProblem(booked.error, "create"));

  // 8. The receipt: no customer data in its text.
  return {
    ok: true,
    value: receiptFor(catalog, fixed, input.idempotency_key, booked.value.state, personHost(ctx)),
  };
}

type Chosen = Result<{ readonly provider: CatalogResource | undefined; readonly stated?: Money }, Problem>;

/** Step 4: the named provider if the core offers that start with it, else the first provider that has it. */
async function chooseProvider(
  ctx: AdapterContext,
  service: CatalogService,
  shape: StaffShape,
  named: CatalogResource | undefined,
  start: number,
): Promise<Chosen> {
  const open = await openingsByProvider(ctx, service, shape, named, { start, end: start + 60_000 });
  if (!open.ok) return open;
  const at = open.value.filter((s) => s.start === start);
  if (at.length === 0) {
    return err(
      problem(
        "slot_taken",
        "The selected slot is not offered now; call availability.find and choose another.",
      ),
    );
  }
  const total = at[0]?.total;
  const stated = total === undefined ? {} : { stated: total };
  if (shape.kind !== "provider") return ok({ provider: undefined, ...stated });
  const id = at[0]?.resourceIds[0];
  return ok({ provider: named ?? shape.providers.find((p) => p.id === id), ...stated });
}

/** "Booked <service> on <date> at <HH:MM> (<zone>) with <provider>. Appointment id: <id>." */
function receiptFor(
  catalog: Catalog,
  service: CatalogService,
  idempotencyKey: string,
  booking: BookingState,
  person: string | undefined,
): Receipt {
  const zone = catalog.organization.timezone;
  const local = localWall(booking.start, zone);
  const who = catalog.resources.find((r) => r.staff === true && booking.resourceIds.includes(r.id));
  const withWhom = who === undefined ? "" : ` with ${who.name}`;
  const when = `${service.name} on ${dateText(local)} at ${hhmmText(local)} (${zone})${withWhom}`;
  const text =
    booking.status === "pending_host"
      ? `Requested ${when}. ${person === undefined ? "The business approves each booking" : `${person} approves each booking in person`}: it is pending until they answer; ` +
        `check booking.status. Appointment id: ${booking.bookingId}.`
      : `Booked ${when}.${answerText(booking)} Appointment id: ${booking.bookingId}.`;
  return { id: `receipt_${idempotencyKey}`, booking_id: booking.bookingId, text };
}

/**
 * SchCP §7.9 answer, where OSBP has a place for it (its Booking has none; the receipt's text is
 * read by the agent and its human): who said yes at a person's calendar.
 */
function answerText(booking: BookingState): string {
  const a = booking.answer;
  if (a?.by === "rule")
    return ` Accepted by a rule the host set in advance ("${a.rule ?? ""}"); they have not seen it yet.`;
  if (a?.by === "person") return " Accepted by the host in person.";
  return "";
}

/** A person's own calendar (SchCP §7.7): their name, for the words the user reads. */
function personHost(ctx: AdapterContext): string | undefined {
  const host = ctx.core.host(ctx.hostId);
  return host?.config.kind === "person" ? host.config.name : undefined;
}

/** Whether the host, or its upstream, holds each booking for the business to accept. */
function awaitsMerchant(ctx: AdapterContext): boolean {
  const host = ctx.core.host(ctx.hostId);
  return host !== undefined && confirmationOf(host) === "host_approval";
}
