import { describe, expect, it } from "vitest";
/**
 * SchCP §9.1 on the core's one idempotency mechanism, over the hold store's records
 * (src/edges/schcp/idempotency.ts).
 */
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { confirmHold } from "../../../src/edges/schcp/confirm.js";
import {
  requestHash,
  schcpIdempotencyStore,
  withIdempotency as gate,
  type IdempotencyContext,
  type ReplayAuthorizer,
} from "../../../src/edges/schcp/idempotency.js";
import { mandateReplayAuthorizer } from "../../../src/edges/schcp/replay.js";
import type { StoredResponse } from "../../../src/holds/port.js";
import {
  INSTANT,
  callerFor,
  makeWorld,
  newParty,
  placeTestHold,
  refusalOf,
  unwrap,
} from "../../booking/bookings/world.js";
import type { World } from "../../booking/bookings/world.js";

const ok200 = (body: unknown, status = 200): StoredResponse => ({ status, body: JSON.stringify(body) });
const always = () => ({ ok: true as const, value: undefined });

function ctx(world: World, caller: SchcpCaller, key: string, body: string): IdempotencyContext {
  return {
    agentKey: caller.agentKey,
    idempotencyKey: key,
    requestHash: requestHash("POST", "/schcp/v0/h/holds/x/confirm", body),
    principal: caller.mandate?.principal ?? null,
    clock: world.clock,
  };
}

/** The gate over the world's hold store, as the runtime wires it. */
function withIdempotency(
  world: World,
  context: IdempotencyContext,
  run: () => Promise<StoredResponse>,
  authorize: ReplayAuthorizer,
) {
  return gate(schcpIdempotencyStore(world.store), context, run, authorize);
}

describe("requestHash (SchCP §9.1)", () => {
  it("differs by method, path and body bytes, and is stable", () => {
    const a = requestHash("POST", "/p", '{"a":1}');
    expect(requestHash("post", "/p", new TextEncoder().encode('{"a":1}'))).toBe(a);
    expect(requestHash("PUT", "/p", '{"a":1}')).not.toBe(a);
    expect(requestHash("POST", "/q", '{"a":1}')).not.toBe(a);
    expect(requestHash("POST", "/p", '{"a": 1}')).not.toBe(a);
  });
});

describe("withIdempotency (SchCP §9.1)", () => {
  it("replays the stored response for the same body without acting again", async () => {
    const world = makeWorld();
    const caller = await callerFor(world, newParty());
    let runs = 0;
    const run = () => Promise.resolve(ok200({ n: ++runs }, 201));
    const first = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    const second = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    expect(first).toEqual({ response: { status: 201, body: '{"n":1}' }, replayed: false });
    expect(second).toEqual({ response: { status: 201, body: '{"n":1}' }, replayed: true });
    expect(runs).toBe(1);
  });

  it("keeps a response for at least 24 h: a retry a day and half an hour later still replays it", async () => {
    const world = makeWorld();
    const caller = await callerFor(world, newParty());
    let runs = 0;
    const run = () => Promise.resolve(ok200({ n: ++runs }, 201));
    unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    world.clock.t += 24.5 * 3_600_000;
    const later = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    expect(later).toEqual({ response: { status: 201, body: '{"n":1}' }, replayed: true });
    expect(runs).toBe(1);
  });

  it("another body under the same key is 409 IDEMPOTENCY_CONFLICT; another principal too", async () => {
    const world = makeWorld();
    const party = newParty();
    const caller = await callerFor(world, party);
    const run = () => Promise.resolve(ok200({}));
    unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    refusalOf(
      await withIdempotency(world, ctx(world, caller, "k", '{"x":1}'), run, always),
      "IDEMPOTENCY_CONFLICT",
    );
    // The same agent key acting for another principal (§9.1 "one agent key serves many principals").
    const other = { ...(await callerFor(world, { principal: newParty().principal, agent: party.agent })) };
    refusalOf(
      await withIdempotency(world, ctx(world, other, "k", "{}"), run, always),
      "IDEMPOTENCY_CONFLICT",
    );
  });

  it("401/403/429/5xx are not stored: the same key runs again (e.g. with a corrected mandate)", async () => {
    for (const status of [401, 403, 429, 503]) {
      const world = makeWorld();
      const caller = await callerFor(world, newParty());
      let runs = 0;
      const run = () => Promise.resolve(ok200({ runs: ++runs }, runs === 1 ? status : 201));
      const first = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
      expect(first.response.status).toBe(status);
      const second = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
      expect(second).toMatchObject({ replayed: false, response: { status: 201 } });
    }
  });

  it("other refusals are stored and replayed (409)", async () => {
    const world = makeWorld();
    const caller = await callerFor(world, newParty());
    let runs = 0;
    const run = () => Promise.resolve(ok200({ error: { code: "SLOT_UNAVAILABLE" }, runs: ++runs }, 409));
    await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always);
    const again = unwrap(await withIdempotency(world, ctx(world, caller, "k", "{}"), run, always));
    expect(again).toMatchObject({ replayed: true, response: { status: 409 } });
    expect(runs).toBe(1);
  });

  it("a request still running answers 409 INVALID_STATE; an exception stores nothing", async () => {
    const world = makeWorld();
    const caller = await callerFor(world, newParty());
    let release: (r: StoredResponse) => void = () => undefined;
    const slow = withIdempotency(
      world,
      ctx(world, caller, "k", "{}"),
      () => new Promise((r) => (release = r)),
      always,
    );
    const during = await withIdempotency(
      world,
      ctx(world, caller, "k", "{}"),
      () => Promise.resolve(ok200({})),
      always,
    );
    refusalOf(during, "INVALID_STATE");
    release(ok200({ done: true }));
    expect(unwrap(await slow).replayed).toBe(false);

    const boom = () => Promise.reject(new Error("store down"));
    await expect(withIdempotency(world, ctx(world, caller, "k2", "{}"), boom, always)).rejects.toThrow(
      "store down",
    );
    const after = unwrap(
      await withIdempotency(world, ctx(world, caller, "k2", "{}"), () => Promise.resolve(ok200({})), always),
    );
    expect(after.replayed).toBe(false);
  });
});

describe("a replay is authorized like a fresh request (SchCP §9.1)", () => {
  async function confirmedOnce() {
    const world = makeWorld();
    const party = newParty();
    const caller = await callerFor(world, party);
    const hold = await placeTestHold(world, world.host(), caller);
    const body = JSON.stringify({ idempotency_key: "k", offer_sha256: hold.offerSha256 });
    let creates = 0;
    const run = async (): Promise<StoredResponse> => {
      creates++;
      const r = await confirmHold(world.deps, INSTANT, caller, hold.record.holdId, {
        idempotency_key: "k",
        offer_sha256: hold.offerSha256,
      });
      return r.ok
        ? { status: r.value.status, body: JSON.stringify(r.value.body) }
        : { status: 409, body: JSON.stringify(r.error) };
    };
    const replay = (c: SchcpCaller) =>
      withIdempotency(world, ctx(world, c, "k", body), run, mandateReplayAuthorizer(c, "book"));
    const first = unwrap(await replay(caller));
    expect(first.response.status).toBe(201);
    return { world, party, caller, replay, creates: () => creates, first };
  }

  it("a re-issued mandate that covers the booking replays it and never books twice", async () => {
    const { world, party, replay, creates, first } = await confirmedOnce();
    const fresh = await callerFor(world, party, {
      constraints: { max_price: { amount: "100.00", currency: "CAD" } },
    });
    const again = unwrap(await replay(fresh));
    expect(again).toEqual({ response: first.response, replayed: true });
    expect(creates()).toBe(1);
  });

  it("a current mandate that would not cover it is refused: scope, max_price, service, bookings", async () => {
    const { world, party, replay } = await confirmedOnce();
    refusalOf(
      await replay(await callerFor(world, party, { scope: ["hold"] })),
      "MANDATE_SCOPE",
      "not_in_scope",
    );
    refusalOf(
      await replay(
        await callerFor(world, party, { constraints: { max_price: { amount: "80.00", currency: "CAD" } } }),
      ),
      "MANDATE_LIMIT",
      "over_max_price",
    );
    refusalOf(
      await replay(await callerFor(world, party, { constraints: { services: ["haircut"] } })),
      "MANDATE_SCOPE",
      "service_not_allowed",
    );
    refusalOf(
      await replay(await callerFor(world, party, { constraints: { bookings: ["b_x"] } })),
      "MANDATE_SCOPE",
      "booking_not_allowed",
    );
    refusalOf(await replay({ agentKey: (await callerFor(world, party)).agentKey }), "IDEMPOTENCY_CONFLICT");
  });
});
