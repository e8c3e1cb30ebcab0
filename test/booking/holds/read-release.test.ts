import { describe, expect, it } from "vitest";
import type { SchcpCaller } from "../../../src/edges/schcp/caller.js";
import { getHold, releaseHold } from "../../../src/edges/schcp/holds.js";
import { placeHold } from "../../../src/edges/schcp/place-hold.js";
import { offerSha256 } from "../../../src/protocol/schcp/offer/index.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import {
  agent,
  caller,
  deps,
  hostConfig,
  MIN,
  NOW,
  otherAgent,
  otherPrincipal,
  principal,
  principalOf,
  refusalOf,
  runtime,
  thumb,
  valueOf,
} from "./support.js";

const HOST = "maple-street-auto";
const THU = (hhmm: string) => `2026-10-15T${hhmm}:00-04:00`;

async function setup(config = hostConfig()) {
  const host = runtime(config);
  const d = deps([host], undefined);
  const owner = await caller();
  const held = valueOf(
    await placeHold(d, HOST, owner, {
      service_id: "oil-change",
      start: THU("13:00"),
      idempotency_key: "k",
      ttl: "PT5M",
    }),
  );
  return {
    d,
    owner,
    held,
    get: (who: SchcpCaller = owner) => getHold(d, HOST, who, held.hold_id),
    release: (who: SchcpCaller = owner) => releaseHold(d, HOST, who, held.hold_id),
    reputation: (kind: "agent" | "principal", id: string) => d.store.reputation({ kind, id }, d.clock.now()),
  };
}

describe("GET /holds/{id} (§5.2: the same offer bytes for the life of the hold)", () => {
  it("returns the closed Hold with identical offer bytes, its status from the store", async () => {
    const { d, held, get } = await setup();
    const read = valueOf(await get());
    expect(read).toEqual(held);
    expect(validateSchcp("Hold", read).ok).toBe(true);
    d.clock.advance(5 * MIN);
    const lapsed = valueOf(await get());
    expect(lapsed.status).toBe("expired");
    expect(lapsed.offer).toBe(held.offer);
    expect(validateSchcp("Hold", lapsed).ok).toBe(true);
  });

  it("reads confirmed once a booking consumed the hold", async () => {
    const { d, held, get } = await setup();
    const begun = await d.store.beginConfirm(HOST, held.hold_id, NOW, 30_000);
    if (!begun.ok) throw new Error(begun.error.reason);
    expect(valueOf(await get()).status).toBe("held");
    await d.store.completeConfirm(
      HOST,
      held.hold_id,
      begun.value.fence,
      { bookingId: "b_1", payload: "{}" },
      NOW,
    );
    const read = valueOf(await get());
    expect(read.status).toBe("confirmed");
    expect(read.offer).toBe(held.offer);
  });

  it("the hold's agent, or another agent of the same principal, may read it; anyone else is told it does not exist", async () => {
    const { get } = await setup();
    expect(
      (await get({ agentKey: thumb(otherAgent), mandate: (await caller({}, principal, otherAgent)).mandate }))
        .ok,
    ).toBe(true);
    refusalOf(await get({ agentKey: thumb(otherAgent) }), "NOT_FOUND", "not_found");
    refusalOf(await get(await caller({}, otherPrincipal, agent)), "NOT_FOUND", "not_found");
    refusalOf(
      await getHold((await setup()).d, HOST, { agentKey: thumb(agent) }, "h_nope"),
      "NOT_FOUND",
      "not_found",
    );
  });

  it("§3.3 a mandate binds reads: the hold must fall within its constraints", async () => {
    const { get, held } = await setup();
    refusalOf(
      await get(await caller({ constraints: { services: ["brake-inspection"] } })),
      "MANDATE_SCOPE",
      "service_not_allowed",
    );
    refusalOf(
      await get(await caller({ constraints: { max_price: { amount: "50.00", currency: "CAD" } } })),
      "MANDATE_LIMIT",
      "over_max_price",
    );
    // A closed mandate may read what it accepts (§5.3).
    expect(
      (await get(await caller({ scope: ["book"], constraints: { offer_sha256: offerSha256(held.offer) } })))
        .ok,
    ).toBe(true);
  });
});

describe("DELETE /holds/{id} (§5.4 idempotent release, §7.2/§7.3 reputation)", () => {
  it("releases once and returns the same Hold on every retry; the outcome is recorded once", async () => {
    const { release, held, reputation } = await setup();
    const first = valueOf(await release());
    expect(first).toEqual({ ...held, status: "released" });
    expect(validateSchcp("Hold", first).ok).toBe(true);
    expect(valueOf(await release())).toEqual(first);
    for (const [kind, id] of [
      ["agent", thumb(agent)],
      ["principal", principalOf(principal)],
    ] as const) {
      const counts = await reputation(kind, id);
      expect({ released: counts.released, expired: counts.expired, lifetime: counts.lifetime }).toEqual({
        released: 1,
        expired: 0,
        lifetime: 1,
      });
    }
  });

  it("a release in the last fifth of the TTL counts as an expiry (§7.2)", async () => {
    const { d, release, reputation } = await setup();
    d.clock.advance(4 * MIN); // 5-minute TTL: the last fifth starts at 4 minutes
    expect(valueOf(await release()).status).toBe("released");
    const counts = await reputation("agent", thumb(agent));
    expect({ expired: counts.expired, released: counts.released }).toEqual({ expired: 1, released: 0 });
  });

  it("just before the last fifth it is an ordinary release", async () => {
    const { d, release, reputation } = await setup();
    d.clock.advance(4 * MIN - 1);
    valueOf(await release());
    expect((await reputation("agent", thumb(agent))).released).toBe(1);
  });

  it("a lapsed hold reads expired and is returned unchanged", async () => {
    const { d, release, reputation } = await setup();
    d.clock.advance(6 * MIN);
    expect(valueOf(await release()).status).toBe("expired");
    expect((await reputation("agent", thumb(agent))).lifetime).toBe(0);
  });

  it("a confirmed hold cannot be released: 409 INVALID_STATE", async () => {
    const { d, held, release } = await setup();
    const begun = await d.store.beginConfirm(HOST, held.hold_id, NOW, 30_000);
    if (!begun.ok) throw new Error(begun.error.reason);
    const r = refusalOf(await release(), "INVALID_STATE", "invalid_state");
    expect(r.remedies).toEqual([{ type: "contact", phone: "+1-416-555-0177" }]);
  });

  it("§3.3 checked against the hold's service, time and price; a closed mandate cannot release (§5.3)", async () => {
    const { release, held } = await setup();
    refusalOf(await release(await caller({ scope: ["book"] })), "MANDATE_SCOPE", "not_in_scope");
    refusalOf(
      await release(await caller({ constraints: { window: { not_after: THU("12:00") } } })),
      "MANDATE_LIMIT",
      "outside_window",
    );
    refusalOf(
      await release(
        await caller({ scope: ["hold", "book"], constraints: { offer_sha256: offerSha256(held.offer) } }),
      ),
      "MANDATE_LIMIT",
      "offer_mismatch",
    );
    refusalOf(await release({ agentKey: thumb(otherAgent) }), "NOT_FOUND", "not_found");
    expect(valueOf(await release({ agentKey: thumb(agent) })).status).toBe("released");
  });
});
