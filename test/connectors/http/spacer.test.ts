import { describe, expect, it } from "vitest";
import { createSpacer } from "../../../src/connectors/http/spacer.js";

describe("createSpacer", () => {
  it("delays calls past the published rate instead of sending them together", async () => {
    let now = 1_000;
    const slept: number[] = [];
    const spacer = createSpacer(2, { now: () => now }, (ms) => {
      slept.push(ms);
      return Promise.resolve();
    });
    await Promise.all([spacer.wait(), spacer.wait(), spacer.wait()]);
    expect(slept).toEqual([500, 1000]);
    now += 5_000;
    await spacer.wait();
    expect(slept).toEqual([500, 1000]);
  });

  it("does nothing without a rate", async () => {
    const slept: number[] = [];
    const spacer = createSpacer(0, { now: () => 0 }, (ms) => {
      slept.push(ms);
      return Promise.resolve();
    });
    await spacer.wait();
    await spacer.wait();
    expect(slept).toEqual([]);
  });
});
