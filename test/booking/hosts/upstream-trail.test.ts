/**
 * The upstream trail of one edge operation (hosts/upstream-trail.ts): each operation sees only
 * its own calls, however many run at once, and a result answered from a connector's memory
 * (UpstreamMeta.replay) is no call at all (OSBP "Audit": upstream is absent when the tool
 * answered locally).
 */
import { describe, expect, it } from "vitest";
import { recordUpstream, traceUpstream } from "../../../src/booking/hosts/upstream-trail.js";
import type { UpstreamMeta } from "../../../src/connectors/port.js";

const meta = (call: string, extra: Partial<UpstreamMeta> = {}): UpstreamMeta => ({
  call,
  status: 200,
  ...extra,
});

describe("traceUpstream", () => {
  it("keeps each concurrent operation's calls apart", async () => {
    const tick = () => new Promise((r) => setTimeout(r, 1));
    const [a, b] = await Promise.all([
      traceUpstream(async () => {
        await tick();
        recordUpstream(meta("GET /a"));
      }),
      traceUpstream(async () => {
        recordUpstream(meta("GET /b"));
        await tick();
      }),
    ]);
    expect(a.upstream.map((m) => m.call)).toEqual(["GET /a"]);
    expect(b.upstream.map((m) => m.call)).toEqual(["GET /b"]);
  });

  it("leaves a replayed answer off the trail", async () => {
    const { upstream } = await traceUpstream(() => {
      recordUpstream(meta("POST /appointments", { replay: true }));
      recordUpstream(meta("GET /availability"));
      return Promise.resolve();
    });
    expect(upstream.map((m) => m.call)).toEqual(["GET /availability"]);
  });
});
