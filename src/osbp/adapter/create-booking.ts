/**
 * booking.create (OSBP "booking.create", "Mandate Enforcement", "Adapter Contract"). The order is
 * the contract: idempotency, then the slot from the platform's catalog, then validateMandate
 * BEFORE anything that could reach a platform mutation, then the live availability check, then
 * the final-confirmation gate, and only then the platform create.
 *
 * The idempotency lease taken in step 1 is settled with the receipt on success and released on
 * every other outcome (including a throw), so the agent's retry of the same attempt proceeds.
 */
import type {
  Catalog,
  CatalogResource,
  CatalogService,
  UpstreamBooking,
  UpstreamSlot,
} from "../../connectors/port.js";
import {
  approvalFactsFrom,
  bookingPayloadHash,
  problem,
  validateMandate,
  type AdapterResult,
  type AdapterRuntimeDiagnostics,
  type BookingCreateInput,
  type Problem,
  type Receipt,
  type Slot,
} from "../../protocol/osbp/index.js";
import { parseLocalDate, parseLocalTime } from "../../protocol/time/index.js";
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
import { adapterProblem, connectorProblem } from "./problems.js";
import { requestedSlot } from "./slots.js";
import { merchantVisibleName, upstreamCustomer } from "./verification.js";

/** OSBP "Result Envelope": the one defined osbp_runtime value. */
export const LOCAL_REPLAY: AdapterRuntimeDiagnostics = {
  idempotency: "local_cache_replay",
  message: "No platform create call was made; this result was replayed from local OSBP idempotency state.",
};

const fail = (p: Problem): AdapterResult<never> => ({ ok: false, problem: p });

/** The local cache key: the idempotency_key scoped by the mandate's organization. */
export const localKey = (input: BookingCreateInput): string =>
  `${input.mandate.organization_id}:${input.idempotency_key}`;

/** The platform's idempotency key: a retry of one attempt can never book twice upstream. */
export const upstreamKey = (organizationId: string, idempotencyKey: string): string =>
  `osbp:${organizationId}:${idempotencyKey}`;

export async function createBooking(
  ctx: AdapterContext,
  input: BookingCreateInput,
): Promise<AdapterResult<Receipt>> {
  // 1. Idempotency first ("the same idempotency_key returns the same result if retried; the same
  //    key with a different payload fails with idempotency_conflict, while transient approval and
  //    verification_code fields do not create a new logical attempt").
  const key = localKey(input);
  const hash = bookingPayloadHash(input);
  const begun = await ctx.idempotency.begin(key, hash, ctx.clock.now());
  switch (begun.kind) {
    case "conflict":
      return fail(problem("idempotency_conflict", undefined, { field: "/idempotency_key" }));
    case "replay":
      return { ok: true, value: begun.receipt, osbp_runtime: LOCAL_REPLAY };
    case "in_progress":
      return fail(
        adapterProblem(
          "idempotency_in_progress",
          "Another booking.create with this idempotency_key is still running; retry shortly with the same input.",
          { retryable: true, field: "/idempotency_key" },
        ),
      );
    case "started":
      break;
  }

  let outcome: AdapterResult<Receipt>;
  try {
    outcome = await attempt(ctx, input);
  } catch (error) {
    await releaseQuietly(ctx, key, hash);
    throw error;
  }
  if (outcome.ok) {
    try {
      await ctx.idempotency.settle(key, hash, outcome.value, ctx.clock.now());
    } catch (error) {
      // The appointment exists: answer with it. Until the lease lapses a retry hears
      // idempotency_in_progress; after it the platform's own key returns this same booking.
      ctx.logger.error(`osbp adapter: could not record the booking.create receipt: ${describe(error)}`);
    }
  } else {
    await releaseQuietly(ctx, key, hash);
  }
  return outcome;
}

async function releaseQuietly(ctx: AdapterContext, key: string, hash: string): Promise<void> {
  try {
    await ctx.idempotency.release(key, hash);
  } catch (error) {
    ctx.logger.error(`osbp adapter: could not release a booking.create lease: ${describe(error)}`);
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function attempt(ctx: AdapterContext, input: BookingCreateInput): Promise<AdapterResult<Receipt>> {
  // 2. Resolve the catalog, service and policy and build the Slot the request names
  //    ("createBooking fetches the service and policy, builds the Slot, and calls validateMandate
  //    before issuing any create call", OSBP "Adapter Contract").
  const date = parseLocalDate(input.date, "/date");
  if (!date.ok)
    return fail(adapterProblem("invalid_input", `Invalid input: ${date.error.message}`, { field: "/date" }));
  const time = parseLocalTime(input.time, "/time");
  if (!time.ok)
    return fail(adapterProblem("invalid_input", `Invalid input: ${time.error.message}`, { field: "/time" }));
  const read = await ctx.catalog();
  if (!read.ok) return fail(read.problem);
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
          `${input.date} ${input.time} does not exist in ${zone} (the clocks skip it); choose a slot from availability.find.`,
          { field: "/time" },
        ),
      );
    }
    start = at.ms;
  }
  // staffShape refused open-ended services, so the duration is a number here.
  const fixed = service.value as CatalogService & { readonly duration: number };
  const slot = requestedSlot({ catalog, service: fixed, provider: named.value, wall, start });
  const osbpService = toService(catalog, fixed);
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

  // 4. The slot is actually offered now, and with which resources (provider plus rooms/bays).
  const platformKey = upstreamKey(catalog.organization.id, input.idempotency_key);
  const chosen = await chooseResources(ctx, {
    catalog,
    service: fixed,
    shape: shape.value,
    provider: named.value,
    start,
    platformKey,
    approved: input.approval !== undefined,
  });
  if (!chosen.ok) return fail(chosen.problem);
  const provider = chosen.provider;
  const shown: Slot =
    provider === named.value ? slot : requestedSlot({ catalog, service: fixed, provider, wall, start });

  // 5. Final confirmation ("final confirmation is present before any platform appointment
  //    create"): no or a stale approval gets the (re)challenge with a fresh summary and token.
  const customerName = merchantVisibleName(input.customer);
  const base = approvalFactsFrom({ slot: shown, service: osbpService, policy, customer: input.customer });
  const facts = {
    ...base,
    customer_name: customerName,
    // One location: the schedule is the organization, named once.
    schedule_name: base.schedule_name === base.organization_name ? undefined : base.schedule_name,
  };
  const approval = ctx.gate.check({ input, facts }, input.approval);
  if (approval.outcome === "rechallenge") return fail(approval.problem);

  // 6. The platform create, under the attempt's own upstream key. The verification code passes
  //    through and is kept nowhere.
  const created = await ctx.upstream((c) =>
    c.bookings.create({
      idempotencyKey: platformKey,
      serviceId: fixed.id,
      start,
      end: start + fixed.duration,
      resourceIds: chosen.resourceIds,
      customer: upstreamCustomer(input.customer),
      tentative: false,
      ...(input.verification_code === undefined ? {} : { verificationCode: input.verification_code }),
    }),
  );
  // 7. Platform refusals in OSBP terms (problems.ts, shared by every method).
  if (!created.ok) return fail(connectorProblem(created.error, "create"));

  // 8. The receipt: no customer data in its text.
  return { ok: true, value: receiptFor(catalog, fixed, input.idempotency_key, created.value, provider) };
}

type Chosen =
  | { ok: true; resourceIds: readonly string[]; provider: CatalogResource | undefined }
  | { ok: false; problem: Problem };

/**
 * Step 4. An approved attempt first asks whether the platform already holds an appointment
 * under this attempt's key: a create whose answer was lost (timeout, 5xx after commit) did
 * book, its time is no longer "free", and the retry must reach the platform with the same
 * request so the platform answers with that appointment instead of this adapter saying
 * slot_taken. Otherwise the platform's availability for exactly that start decides.
 */
async function chooseResources(
  ctx: AdapterContext,
  a: {
    catalog: Catalog;
    service: CatalogService;
    shape: StaffShape;
    provider: CatalogResource | undefined;
    start: number;
    platformKey: string;
    approved: boolean;
  },
): Promise<Chosen> {
  if (a.approved) {
    const existing = await ctx.upstream((c) => c.bookings.findByIdempotencyKey(a.platformKey));
    if (!existing.ok && existing.error.code !== "unsupported")
      return { ok: false, problem: connectorProblem(existing.error, "read") };
    const booked = existing.ok ? existing.value : null;
    if (booked !== null && booked.serviceId === a.service.id && booked.start === a.start) {
      return {
        ok: true,
        resourceIds: booked.resourceIds,
        provider: staffOf(a.catalog, booked) ?? a.provider,
      };
    }
  }
  const offered = await ctx.upstream((c) =>
    c.slots.find({
      serviceId: a.service.id,
      range: { start: a.start, end: a.start + 60_000 },
      ...(a.provider === undefined ? {} : { resourceIds: [a.provider.id] }),
    }),
  );
  if (!offered.ok) return { ok: false, problem: connectorProblem(offered.error, "read") };
  const match = offered.value.find((s) => s.start === a.start && s.serviceId === a.service.id);
  const free = new Set(match?.resourceIds ?? []);
  const provider =
    a.shape.kind === "provider" ? (a.provider ?? a.shape.providers.find((p) => free.has(p.id))) : undefined;
  if (
    match === undefined ||
    (a.shape.kind === "provider" && (provider === undefined || !free.has(provider.id)))
  ) {
    return {
      ok: false,
      problem: problem(
        "slot_taken",
        "The selected slot is not offered by the platform now; call availability.find and choose another.",
      ),
    };
  }
  return { ok: true, resourceIds: resourcesFor(a.catalog, a.service, a.shape, match, provider), provider };
}

/** One resource per requirement: the provider for the staff one, the first free of each other type. */
function resourcesFor(
  catalog: Catalog,
  service: CatalogService,
  shape: StaffShape,
  slot: UpstreamSlot,
  provider: CatalogResource | undefined,
): string[] {
  const free = new Set(slot.resourceIds);
  const used = new Set<string>();
  const out: string[] = [];
  for (const req of service.requires) {
    const pick =
      shape.kind === "provider" &&
      req.resourceType === shape.type &&
      provider !== undefined &&
      !used.has(provider.id)
        ? provider
        : catalog.resources.find((r) => r.type === req.resourceType && free.has(r.id) && !used.has(r.id));
    // A type the platform reported no free resource of is left to the platform to assign.
    if (pick === undefined) continue;
    used.add(pick.id);
    out.push(pick.id);
  }
  return out;
}

function staffOf(catalog: Catalog, b: UpstreamBooking): CatalogResource | undefined {
  return catalog.resources.find((r) => r.staff === true && b.resourceIds.includes(r.id));
}

/** "Booked <service> on <date> at <HH:MM> (<zone>) with <provider>. Appointment id: <id>." */
function receiptFor(
  catalog: Catalog,
  service: CatalogService,
  idempotencyKey: string,
  booking: UpstreamBooking,
  provider: CatalogResource | undefined,
): Receipt {
  const zone = catalog.organization.timezone;
  const local = localWall(booking.start, zone);
  const who = staffOf(catalog, booking) ?? provider;
  const withWhom = who === undefined ? "" : ` with ${who.name}`;
  return {
    id: `receipt_${idempotencyKey}`,
    booking_id: booking.upstreamId,
    text:
      `Booked ${service.name} on ${dateText(local)} at ${hhmmText(local)} (${zone})${withWhom}. ` +
      `Appointment id: ${booking.upstreamId}.`,
  };
}
