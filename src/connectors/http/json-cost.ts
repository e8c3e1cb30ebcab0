/**
 * What a JSON answer will cost to parse, told before it is parsed. JSON.parse (and the
 * Square SDK's own parser) run on the event loop in one piece, and their cost follows the
 * number of values more than the number of bytes: 8 MiB of `[],[],…` took 0.7 s to parse on the
 * 2-core CI machine, 8 MiB of one object with distinct keys 0.3 s, while 8 MiB of realistic
 * answers took 27 ms (`npm run bench:json`). So an answer is measured first in structural tokens
 * (`{`, `[`, `,`, `:` outside strings: every value but the first adds at least one), nesting
 * depth and members per object, and one over the budget is refused unparsed; the budget bounds
 * the parse that follows.
 *
 * Written by hand because no library counts without building the values: a streaming parser
 * would itself cost what this avoids. The scan walks strings with indexOf, so text costs little,
 * and waits for the next turn of the event loop every SLICE characters, so a large answer never
 * holds the loop while it is measured.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Result } from "../../protocol/result.js";

export interface JsonBudget {
  /** Structural tokens the answer may have. */
  readonly maxTokens: number;
  /** How deeply arrays and objects may nest. */
  readonly maxDepth: number;
  /** Members one object may have (an object with many distinct keys costs most per token). */
  readonly maxKeys: number;
}

/** The answer's count of structural tokens, or the bound it passes. */
export type JsonCost = Result<number, "tokens" | "depth" | "keys">;

/** Characters scanned between two turns of the event loop. */
const SLICE = 1 << 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Where the string opened at `open` ends (its closing quote), or -1 when it never does. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let slashes = 0;
    for (let k = at - 1; k > open && text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * The answer's cost, or which bound it passes. Malformed JSON is not judged here: it is
 * measured as far as it goes and JSON.parse refuses it after.
 */
export async function jsonCost(text: string, budget: JsonBudget): Promise<JsonCost> {
  let tokens = 0;
  let depth = 0;
  // Members seen in each open container (-1: an array), innermost at `depth`.
  const members = new Int32Array(Math.min(budget.maxDepth, 1 << 16) + 2);
  members[0] = -1;
  let turnAt = SLICE;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (i >= turnAt) {
      turnAt = i + SLICE;
      await nextTurn();
    }
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) break;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++tokens > budget.maxTokens) return { ok: false, error: "tokens" };
      if (++depth > budget.maxDepth || depth >= members.length) return { ok: false, error: "depth" };
      members[depth] = c === OPEN_BRACE ? 0 : -1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      if (++tokens > budget.maxTokens) return { ok: false, error: "tokens" };
    } else if (c === COLON) {
      if (++tokens > budget.maxTokens) return { ok: false, error: "tokens" };
      const m = members[depth] ?? -1;
      if (m >= 0) {
        if (m >= budget.maxKeys) return { ok: false, error: "keys" };
        members[depth] = m + 1;
      }
    }
  }
  return { ok: true, value: tokens };
}
