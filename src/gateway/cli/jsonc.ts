/**
 * JSON with comments and trailing commas (the `.jsonc` config files), through jsonc-parser.
 * Its errors are offsets; an operator editing a file wants "line:column", so they are turned
 * into that here. Duplicate members are refused as the strict JSON reader refuses them.
 */
import { parse, printParseErrorCode, visit } from "jsonc-parser";
import type { ParseError } from "jsonc-parser";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

/** The error reads "<line>:<column>: <what>" (1-based), to follow the file name. */
export function parseJsonc(text: string): Result<unknown, string> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    return err(
      `${position(text, first.offset)}: not valid JSON with comments: ${printParseErrorCode(first.error)}`,
    );
  }
  const duplicate = firstDuplicate(text);
  if (duplicate !== undefined) {
    return err(`${position(text, duplicate.offset)}: duplicate member "${duplicate.name}"`);
  }
  return ok(value);
}

/**
 * What makes a text that strict JSON refuses valid JSON with comments: its first comment, else
 * its first trailing comma, at "<line>:<column>"; undefined when it is not valid JSON with
 * comments either. A `.json` config that has one is answered with the `.jsonc` extension
 * instead of a syntax error at the comment.
 */
export function jsoncOnly(text: string): { at: string; what: "a comment" | "a trailing comma" } | undefined {
  if (!parseJsonc(text).ok) return undefined;
  let comment: number | undefined;
  visit(text, { onComment: (offset) => void (comment ??= offset) });
  if (comment !== undefined) return { at: position(text, comment), what: "a comment" };
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const first = errors[0];
  return first === undefined ? undefined : { at: position(text, first.offset), what: "a trailing comma" };
}

function firstDuplicate(text: string): { name: string; offset: number } | undefined {
  const seen: Set<string>[] = [];
  let found: { name: string; offset: number } | undefined;
  visit(text, {
    onObjectBegin: () => void seen.push(new Set()),
    onObjectEnd: () => void seen.pop(),
    onObjectProperty: (name, offset) => {
      const names = seen.at(-1);
      if (names === undefined || found !== undefined) return;
      if (names.has(name)) found = { name, offset };
      names.add(name);
    },
  });
  return found;
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}
