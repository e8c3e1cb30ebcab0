/** The "did you mean" of config errors (src/protocol/nearest-name.ts). */
import { describe, expect, it } from "vitest";
import { didYouMean, editDistance, nearestName } from "../../src/protocol/nearest-name.js";

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
    ["flaw", "lawn", 2],
    ["max_ttl", "max_tll", 1],
    ["same", "same", 0],
  ])("%j to %j is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("nearestName", () => {
  const host = ["id", "name", "kind", "timezone", "domain", "url", "connector", "policies", "services"];
  it("takes case, _ and - as no difference", () => {
    expect(nearestName("timeZone", host)).toBe("timezone");
    expect(nearestName("time_zone", host)).toBe("timezone");
    expect(nearestName("page_size", ["pageSize", "timeoutMs"])).toBe("pageSize");
  });
  it("names a slip of a letter or two, the nearest first", () => {
    expect(nearestName("conector", host)).toBe("connector");
    expect(nearestName("polices", host)).toBe("policies");
    expect(nearestName("accesTokenFile", ["accessTokenFile"])).toBe("accessTokenFile");
  });
  it("names nothing when no known name is near", () => {
    expect(nearestName("colour", host)).toBeUndefined();
    expect(nearestName("x", ["id"])).toBeUndefined();
    expect(nearestName("anything", [])).toBeUndefined();
  });
  it("never suggests the name itself", () => {
    expect(nearestName("name", ["name"])).toBeUndefined();
  });
});

describe("didYouMean", () => {
  it("is the sentence's tail, or nothing", () => {
    expect(didYouMean("timeZone", ["timezone"])).toBe("; did you mean `timezone`?");
    expect(didYouMean("colour", ["timezone"])).toBe("");
  });
});
