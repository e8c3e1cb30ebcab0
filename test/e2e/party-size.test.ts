/**
 * End to end over real HTTP (found by an adversarial run): a party_size no service
 * can take was answered 503 UPSTREAM_UNAVAILABLE "try again shortly" because the platform
 * refused it. It is a 400 INVALID_REQUEST the agent cannot retry (§4.1, §9.2: no retry, no
 * retry remedy), for availability and for a hold, and the platform is never asked to book.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SyntheticConnector } from "../../src/connectors/synthetic/index.js";
import { formatInstant } from "../../src/protocol/time/index.js";
import { DAY_MS, discover, freeSlots, must, newAgent, openMandate, refusalOf } from "./support/agents.js";
import { startGateway } from "./support/gateway.js";
import type { E2eGateway } from "./support/gateway.js";

let gw: E2eGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

const HOST = "maple-street-auto";

describe("a party no service can take (§4.1)", () => {
  it("is 400 INVALID_REQUEST party_size or invalid_request, never retryable, for availability and holds", async () => {
    const agent = newAgent(gw);
    const maple = await discover(agent, gw, HOST);
    const [slot] = await freeSlots(agent, gw, maple, "oil-change");
    const m = await openMandate(agent, HOST);
    const connector = gw.runtime.hosts.get(HOST)!.connector as SyntheticConnector;
    let creates = 0;
    connector.faults.add({
      operation: "createBooking",
      fault: "unavailable",
      times: Infinity,
      when: () => {
        creates += 1;
        return false;
      },
    });

    const now = gw.clock.now();
    const window = { start: formatInstant(now + 2 * DAY_MS), end: formatInstant(now + 3 * DAY_MS) };
    const asked = refusalOf(
      await agent.client.availability(maple, { service_id: "oil-change", window, party_size: 5000 }),
    );
    const held = refusalOf(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start, party_size: 5000 },
        { mandate: m.compact },
      ),
    );
    for (const r of [asked, held]) {
      expect(r).toMatchObject({ status: 400, code: "INVALID_REQUEST" });
      expect(r.retry).toBeUndefined();
      expect((r.remedies ?? []).filter((x) => x.type === "retry")).toEqual([]);
    }
    expect(creates).toBe(0);
    // The same agent with a party the service takes is served: nothing else was wrong.
    must(
      await agent.client.hold(
        maple,
        { service_id: "oil-change", start: slot!.start, party_size: 2 },
        { mandate: m.compact },
      ),
      "hold for two",
    );
  });
});
