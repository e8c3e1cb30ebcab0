import { describe, expect, it } from "vitest";
import { leadTimeWords, retentionWords } from "../../../../src/protocol/schcp/consent/length-words.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe("retentionWords (SchCP §2.1 retention, §5.2 consent text)", () => {
  it.each([
    [365, "1 year"],
    [730, "2 years"],
    [1095, "3 years"],
    [366, "366 days"],
    [30, "30 days"],
    [1, "1 day"],
    [7, "1 week"],
    [14, "2 weeks"],
    [28, "4 weeks"],
    [10, "10 days"],
  ])("%i days reads %s", (days, words) => {
    expect(retentionWords(days * DAY)).toBe(words);
  });
});

describe("leadTimeWords (SchCP §5.10 reconfirm.before)", () => {
  it.each([
    [24 * HOUR, "24 hours"],
    [HOUR, "1 hour"],
    [48 * HOUR, "2 days"],
    [7 * DAY, "7 days"],
    [36 * HOUR, "36 hours"],
    [90 * 60_000, "1 hour and 30 minutes"],
    [HOUR + 60_000 + 1000, "1 hour, 1 minute and 1 second"],
    [45 * 60_000, "45 minutes"],
    [1500, "1.5 seconds"],
  ])("%i ms reads %s", (ms, words) => {
    expect(leadTimeWords(ms)).toBe(words);
  });
});
