import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkMandateAction, sharedLimitLinks } from "../../../../src/protocol/schcp/mandate/index.js";
import type {
  MandateAction,
  MandateActionKind,
  MandateBookingCounter,
  MandateChain,
} from "../../../../src/protocol/schcp/mandate/index.js";
import type { MandateConstraints, MandateScope } from "../../../../src/protocol/schcp/types.js";
import {
  childContext,
  expectRefusal,
  issOf,
  issueChild,
  issueRoot,
  otherPrincipal,
  principal,
  verifiedChain,
} from "./helpers.js";

const at = (text: string): number => Date.parse(text);
const NOT_BEFORE = "2026-10-15T12:00:00-04:00";
const NOT_AFTER = "2026-10-15T17:00:00-04:00";
const HASH = "Xy3".padEnd(42, "a") + "A";
const OTHER_HASH = "Zz9".padEnd(42, "b") + "A";

/** Active items per (root iss, jti); never per jti alone (§3.3 "Ids are per link"). */
class FakeCounter implements MandateBookingCounter {
  readonly items = new Map<string, string[]>();
  readonly calls: [string, string, string | undefined][] = [];
  add(rootIss: string, jti: string, itemId: string): this {
    const key = JSON.stringify([rootIss, jti]);
    this.items.set(key, [...(this.items.get(key) ?? []), itemId]);
    return this;
  }
  active(rootIss: string, jti: string, excludeItemId?: string): Promise<number> {
    this.calls.push([rootIss, jti, excludeItemId]);
    const list = this.items.get(JSON.stringify([rootIss, jti])) ?? [];
    return Promise.resolve(list.filter((id) => id !== excludeItemId).length);
  }
}

const action = (over: Partial<MandateAction> = {}): MandateAction => ({
  kind: "hold",
  serviceId: "oil-change",
  start: at("2026-10-15T13:00:00-04:00"),
  end: at("2026-10-15T13:45:00-04:00"),
  total: { minor: 7900, currency: "CAD" },
  ...over,
});

const ALL_SCOPES: MandateScope[] = ["hold", "book", "cancel", "reschedule", "delegate"];

async function root(
  constraints?: MandateConstraints,
  scope: MandateScope[] = ALL_SCOPES,
): Promise<MandateChain> {
  return verifiedChain(await issueRoot({ scope, ...(constraints && { constraints }) }));
}

async function run(
  chain: MandateChain,
  act: MandateAction,
  counter: MandateBookingCounter = new FakeCounter(),
) {
  return checkMandateAction(chain, act, { counter });
}

describe("checkMandateAction: check 5, scope per action (§3.3)", () => {
  const needs: [MandateActionKind, MandateScope | null][] = [
    ["hold", "hold"],
    ["release", "hold"],
    ["waitlist_join", "hold"],
    ["waitlist_leave", "hold"],
    ["book", "book"],
    ["cancel", "cancel"],
    ["change_offer", "reschedule"],
    ["reschedule", "reschedule"],
    ["proposal_response", "reschedule"],
    ["read", null],
    ["respond", null],
    ["availability", null],
  ];

  it.each(needs)("%s needs %s", async (kind, scope) => {
    if (scope !== null) {
      const without = await root(
        undefined,
        ALL_SCOPES.filter((s) => s !== scope),
      );
      const refusal = expectRefusal(await run(without, action({ kind })), "MANDATE_SCOPE", "not_in_scope");
      expect(refusal.basis).toEqual({ scope });
      const only = await root(undefined, [scope]);
      expect((await run(only, action({ kind }))).ok).toBe(true);
    } else {
      const none = await root(undefined, ["delegate"]);
      expect((await run(none, action({ kind }))).ok).toBe(true);
    }
  });
});

describe("checkMandateAction: check 6, constraints (§3.3)", () => {
  describe("bookings (management mandates)", () => {
    const bookings = { bookings: ["b_1", "b_2"] };
    it.each<[string, Partial<MandateAction>]>([
      ["a hold is refused", { kind: "hold", bookingId: "b_1" }],
      ["a book is refused", { kind: "book", bookingId: "b_1" }],
      ["a waitlist join is refused", { kind: "waitlist_join", bookingId: "b_1" }],
      ["a cancel naming no booking is refused", { kind: "cancel" }],
      ["a cancel of an unlisted booking is refused", { kind: "cancel", bookingId: "b_9" }],
      ["a read naming no booking (a hold) is refused", { kind: "read" }],
      ["availability is refused", { kind: "availability" }],
    ])("%s", async (_name, over) => {
      const refusal = expectRefusal(
        await run(await root(bookings), action(over)),
        "MANDATE_SCOPE",
        "booking_not_allowed",
      );
      expect(refusal.field).toBe("SchCP-Mandate/payload/constraints/bookings");
    });

    it.each<MandateActionKind>(["cancel", "reschedule", "change_offer", "read"])(
      "%s of a listed booking is allowed",
      async (kind) => {
        expect((await run(await root(bookings), action({ kind, bookingId: "b_2" }))).ok).toBe(true);
      },
    );
  });

  describe("services", () => {
    it("a listed service passes", async () => {
      expect((await run(await root({ services: ["tires", "oil-change"] }), action())).ok).toBe(true);
    });
    it("another service is refused", async () => {
      const chain = await root({ services: ["tires"] });
      expectRefusal(await run(chain, action()), "MANDATE_SCOPE", "service_not_allowed");
    });
    it("binds reads too", async () => {
      const chain = await root({ services: ["tires"] });
      expectRefusal(await run(chain, action({ kind: "read" })), "MANDATE_SCOPE", "service_not_allowed");
    });
  });

  describe("window: start ≥ not_before and end ≤ not_after, both inclusive", () => {
    const window = { window: { not_before: NOT_BEFORE, not_after: NOT_AFTER } };
    const closedRows: [string, Partial<MandateAction>, "ok" | "not_before" | "not_after"][] = [
      [
        "starting exactly at not_before passes",
        { start: at(NOT_BEFORE), end: at(NOT_BEFORE) + 45 * 60_000 },
        "ok",
      ],
      [
        "ending exactly at not_after passes",
        { start: at(NOT_AFTER) - 45 * 60_000, end: at(NOT_AFTER) },
        "ok",
      ],
      ["the whole window passes", { start: at(NOT_BEFORE), end: at(NOT_AFTER) }, "ok"],
      [
        "starting 1 ms before not_before is refused",
        { start: at(NOT_BEFORE) - 1, end: at(NOT_BEFORE) + 60_000 },
        "not_before",
      ],
      [
        "ending 1 ms after not_after is refused",
        { start: at(NOT_AFTER) - 60_000, end: at(NOT_AFTER) + 1 },
        "not_after",
      ],
      [
        "open-ended: its start for both, at not_after passes",
        { start: at(NOT_AFTER), end: undefined, openEnded: true },
        "ok",
      ],
      [
        "open-ended: a start after not_after is refused",
        { start: at(NOT_AFTER) + 1, end: undefined, openEnded: true },
        "not_after",
      ],
      [
        "open-ended: a start before not_before is refused",
        { start: at(NOT_BEFORE) - 1, end: undefined, openEnded: true },
        "not_before",
      ],
    ];
    it.each(closedRows)("%s", async (_name, over, expected) => {
      const result = await run(await root(window), action(over));
      if (expected === "ok") {
        expect(result.ok).toBe(true);
        return;
      }
      const refusal = expectRefusal(result, "MANDATE_LIMIT", "outside_window");
      expect(refusal.basis).toMatchObject({ constraint: `window.${expected}` });
      expect(refusal.field).toBe(`SchCP-Mandate/payload/constraints/window/${expected}`);
    });

    it("only not_before: an open-ended bound, any later start passes", async () => {
      const chain = await root({ window: { not_before: NOT_BEFORE } });
      expect(
        (await run(chain, action({ start: at("2027-01-01T00:00:00Z"), end: at("2027-01-01T01:00:00Z") }))).ok,
      ).toBe(true);
      expectRefusal(
        await run(chain, action({ start: at(NOT_BEFORE) - 1 })),
        "MANDATE_LIMIT",
        "outside_window",
      );
    });

    it("only not_after: any earlier slot passes, one ending after is refused", async () => {
      const chain = await root({ window: { not_after: NOT_AFTER } });
      expect((await run(chain, action({ start: at("2020-01-01T00:00:00Z"), end: at(NOT_AFTER) }))).ok).toBe(
        true,
      );
      expectRefusal(await run(chain, action({ end: at(NOT_AFTER) + 1 })), "MANDATE_LIMIT", "outside_window");
    });
  });

  describe("max_price: the stated all-in total ≤ max_price", () => {
    const limit = { max_price: { amount: "100.00", currency: "CAD" } };
    it("a total equal to max_price passes", async () => {
      expect((await run(await root(limit), action({ total: { minor: 10_000, currency: "CAD" } }))).ok).toBe(
        true,
      );
    });
    it("1 minor unit over is refused", async () => {
      const result = await run(await root(limit), action({ total: { minor: 10_001, currency: "CAD" } }));
      const refusal = expectRefusal(result, "MANDATE_LIMIT", "over_max_price");
      expect(refusal.basis).toEqual({
        constraint: "max_price",
        limit: { amount: "100.00", currency: "CAD" },
      });
    });
    it("another currency is refused, even when smaller", async () => {
      const result = await run(await root(limit), action({ total: { minor: 100, currency: "USD" } }));
      expectRefusal(result, "MANDATE_LIMIT", "currency_mismatch");
    });
    it.each([
      ["null", null],
      ["absent", undefined],
    ])("an unpriced offer (total %s) always fits", async (_n, total) => {
      expect((await run(await root(limit), action({ total }))).ok).toBe(true);
    });
    it("a zero-decimal currency compares in its own minor units", async () => {
      const chain = await root({ max_price: { amount: "5000", currency: "JPY" } });
      expect((await run(chain, action({ total: { minor: 5000, currency: "JPY" } }))).ok).toBe(true);
      expectRefusal(
        await run(chain, action({ total: { minor: 5001, currency: "JPY" } })),
        "MANDATE_LIMIT",
        "over_max_price",
      );
    });
  });

  describe("max_bookings: active items under (root iss, jti) < max_bookings (§3.3, §7.1)", () => {
    const limit = { max_bookings: 1 };
    it("with nothing active, a hold passes; the counter is asked with (root iss, jti)", async () => {
      const counter = new FakeCounter();
      expect((await run(await root(limit), action(), counter)).ok).toBe(true);
      expect(counter.calls).toEqual([[issOf(principal), "m-root", undefined]]);
    });
    it.each<MandateActionKind>(["hold", "book", "waitlist_join"])(
      "%s at the limit is refused",
      async (kind) => {
        const counter = new FakeCounter().add(issOf(principal), "m-root", "h_1");
        const refusal = expectRefusal(
          await run(await root(limit), action({ kind }), counter),
          "MANDATE_LIMIT",
          "max_bookings_reached",
        );
        expect(refusal.basis).toEqual({ constraint: "max_bookings", limit: 1 });
      },
    );
    it.each<MandateActionKind>(["cancel", "release", "reschedule", "read"])(
      "%s is not counted",
      async (kind) => {
        const counter = new FakeCounter().add(issOf(principal), "m-root", "h_1");
        expect((await run(await root(limit), action({ kind }), counter)).ok).toBe(true);
        expect(counter.calls).toEqual([]);
      },
    );
    it("a jti reused by ANOTHER principal does not share the count", async () => {
      const counter = new FakeCounter().add(issOf(otherPrincipal), "m-root", "h_theirs");
      expect((await run(await root(limit), action(), counter)).ok).toBe(true);
      counter.add(issOf(principal), "m-root", "h_ours");
      expectRefusal(await run(await root(limit), action(), counter), "MANDATE_LIMIT", "max_bookings_reached");
    });
    it("confirming a hold excludes that hold, already counted", async () => {
      const counter = new FakeCounter().add(issOf(principal), "m-root", "h_1");
      const book = action({ kind: "book", countedItemId: "h_1" });
      expect((await run(await root(limit), book, counter)).ok).toBe(true);
      expect(counter.calls).toEqual([[issOf(principal), "m-root", "h_1"]]);
      counter.add(issOf(principal), "m-root", "h_2");
      expectRefusal(await run(await root(limit), book, counter), "MANDATE_LIMIT", "max_bookings_reached");
    });
    it("each link counts under its own (root iss, jti)", async () => {
      const chain = await verifiedChain(
        await issueChild(
          { jti: "m-child", constraints: { max_bookings: 2 } },
          await issueRoot({ constraints: { max_bookings: 5 } }),
        ),
        childContext(),
      );
      const counter = new FakeCounter()
        .add(issOf(principal), "m-child", "h_1")
        .add(issOf(principal), "m-child", "h_2");
      const refusal = expectRefusal(
        await run(chain, action(), counter),
        "MANDATE_LIMIT",
        "max_bookings_reached",
      );
      expect(refusal.field).toBe("SchCP-Mandate/payload/constraints/max_bookings");
      expect(counter.calls).toEqual([
        [issOf(principal), "m-root", undefined],
        [issOf(principal), "m-child", undefined],
      ]);
    });
  });
});

describe("checkMandateAction: every link binds (§3.3 'an action must fit the root's constraints and the child's')", () => {
  async function chainOf(rootConstraints: MandateConstraints, childConstraints?: MandateConstraints) {
    const parent = await issueRoot({ constraints: rootConstraints });
    return verifiedChain(
      await issueChild(childConstraints ? { constraints: childConstraints } : {}, parent),
      childContext(),
    );
  }

  it("a child with a wider max_price is still refused by the root's", async () => {
    const chain = await chainOf(
      { max_price: { amount: "50.00", currency: "CAD" } },
      { max_price: { amount: "500.00", currency: "CAD" } },
    );
    const refusal = expectRefusal(await run(chain, action()), "MANDATE_LIMIT", "over_max_price");
    expect(refusal.field).toBe("SchCP-Mandate/payload/parent/payload/constraints/max_price");
  });
  it("a child with a longer window is still refused by the root's", async () => {
    const chain = await chainOf(
      { window: { not_before: NOT_BEFORE, not_after: NOT_AFTER } },
      { window: { not_before: "2026-01-01T00:00:00Z", not_after: "2027-01-01T00:00:00Z" } },
    );
    const late = action({ start: at(NOT_AFTER), end: at(NOT_AFTER) + 45 * 60_000 });
    const refusal = expectRefusal(await run(chain, late), "MANDATE_LIMIT", "outside_window");
    expect(refusal.field).toBe("SchCP-Mandate/payload/parent/payload/constraints/window/not_after");
  });
  it("a child that leaves a constraint out is bound by the root's", async () => {
    const chain = await chainOf({ services: ["tires"] });
    expectRefusal(await run(chain, action()), "MANDATE_SCOPE", "service_not_allowed");
  });
  it("a child's narrower constraint refuses what the root allows", async () => {
    const chain = await chainOf({ services: ["tires", "oil-change"] }, { services: ["tires"] });
    const refusal = expectRefusal(await run(chain, action()), "MANDATE_SCOPE", "service_not_allowed");
    expect(refusal.field).toBe("SchCP-Mandate/payload/constraints/services");
  });
  it("the root's failure wins over the child's (root first)", async () => {
    const chain = await chainOf({ services: ["tires"] }, { max_price: { amount: "1.00", currency: "CAD" } });
    expectRefusal(await run(chain, action()), "MANDATE_SCOPE", "service_not_allowed");
  });
  it("an action fitting both links passes", async () => {
    const chain = await chainOf(
      { services: ["oil-change"] },
      { max_price: { amount: "80.00", currency: "CAD" } },
    );
    expect((await run(chain, action())).ok).toBe(true);
  });
});

describe("checkMandateAction: closed mandates, offer_sha256 (§5.3)", () => {
  const closed = { offer_sha256: HASH };
  it.each<[string, Partial<MandateAction>, boolean]>([
    ["book accepting that offer passes", { kind: "book", offerSha256: HASH }, true],
    ["reschedule accepting that change offer passes", { kind: "reschedule", offerSha256: HASH }, true],
    ["proposal_response accepting that offer passes", { kind: "proposal_response", offerSha256: HASH }, true],
    ["a read of what it accepts passes", { kind: "read", offerSha256: HASH }, true],
    ["a read naming no offer passes", { kind: "read" }, true],
    ["book of another offer is refused", { kind: "book", offerSha256: OTHER_HASH }, false],
    ["book naming no offer is refused", { kind: "book" }, false],
    ["a read of another offer's hold is refused", { kind: "read", offerSha256: OTHER_HASH }, false],
    ["releasing the hold is refused", { kind: "release", offerSha256: HASH }, false],
    ["a new hold is refused", { kind: "hold" }, false],
    ["a cancel is refused", { kind: "cancel", offerSha256: HASH }, false],
    ["asking for a change offer is refused", { kind: "change_offer" }, false],
    ["joining a waitlist is refused", { kind: "waitlist_join" }, false],
  ])("%s", async (_name, over, passes) => {
    const result = await run(await root(closed), action(over));
    if (passes) expect(result.ok).toBe(true);
    else
      expect(expectRefusal(result, "MANDATE_LIMIT", "offer_mismatch").details).toEqual({
        offer_sha256: HASH,
      });
  });

  it("a closed child binds too (any link)", async () => {
    const chain = await verifiedChain(await issueChild({ constraints: closed }), childContext());
    expectRefusal(await run(chain, action({ kind: "hold" })), "MANDATE_LIMIT", "offer_mismatch");
    expect((await run(chain, action({ kind: "book", offerSha256: HASH }))).ok).toBe(true);
  });
});

describe("sharedLimitLinks (§3.3 'One consent, several hosts')", () => {
  it("returns the links with shared_limit true, root first, with their status URL", async () => {
    const parent = await issueRoot({
      constraints: { max_bookings: 1, shared_limit: true },
      status: "https://keyapp.example/status/m-root",
    });
    const child = await issueChild({ constraints: { max_bookings: 1, shared_limit: true } }, parent);
    const chain = await verifiedChain(child, childContext());
    const links = sharedLimitLinks(chain);
    expect(links.map((l) => [l.link.claims.jti, l.statusUrl])).toEqual([
      ["m-root", "https://keyapp.example/status/m-root"],
      ["m-child", undefined],
    ]);
  });
  it("is empty when no link shares its limit", async () => {
    expect(sharedLimitLinks(await root({ max_bookings: 1, shared_limit: false }))).toEqual([]);
  });
});

describe("checkMandateAction: properties of check 6", () => {
  it("window: an action passes iff start ≥ not_before and end ≤ not_after (both inclusive)", async () => {
    const chain = await root({ window: { not_before: NOT_BEFORE, not_after: NOT_AFTER } });
    const lo = at(NOT_BEFORE);
    const hi = at(NOT_AFTER);
    const around = fc.integer({ min: lo - 3_600_000, max: hi + 3_600_000 });
    await fc.assert(
      fc.asyncProperty(around, fc.nat({ max: 4 * 3_600_000 }), async (start, length) => {
        const result = await run(chain, action({ start, end: start + length }));
        expect(result.ok).toBe(start >= lo && start + length <= hi);
      }),
    );
  });

  it("max_price: a same-currency total passes iff it is ≤ the limit", async () => {
    const chain = await root({ max_price: { amount: "100.00", currency: "CAD" } });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 20_000 }), async (minor) => {
        const result = await run(chain, action({ total: { minor, currency: "CAD" } }));
        expect(result.ok).toBe(minor <= 10_000);
      }),
    );
  });
});
