/**
 * iCalendar text (RFC 5545 §3.1) as content lines a parser can take whole: a UTF-8 byte-order
 * mark dropped (Windows tools write one), lines unfolded first (a line break followed by one
 * space or tab continues the line, even inside a name: Mozilla and KOrganizer write "RRULE" CRLF
 * SP ":FREQ=…"; bare LF is accepted too), and lines that are not content lines (no ":", as
 * Apple's "X-APPLE-RADIUS=…") left out and reported, so one such line never costs the rest.
 *
 * Pure and shared: the recurrence engine (src/calendar) and the calendar connectors read
 * calendars through it.
 */

/** A content line: a name, parameters (quoted values may hold ":" and ";"), then ":". */
const CONTENT_LINE = /^[A-Za-z0-9-]+(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*)(?:,(?:"[^"]*"|[^";:,]*))*)*:/;

/** At most this much of a skipped line is reported. */
const SNIPPET = 80;

export interface SkippedLine {
  /** The line's number after unfolding (1-based). */
  readonly line: number;
  readonly text: string;
}

export interface ContentLines {
  readonly lines: string[];
  /** Lines left out because they are not content lines (at most `maxReported` of them listed). */
  readonly skipped: readonly SkippedLine[];
  readonly skippedCount: number;
}

export function contentLinesOf(text: string, maxReported = 20): ContentLines {
  const body = text.replace(/^\uFEFF/, "");
  const physical = body.replace(/\r?\n[ \t]/g, "").split(/\r?\n|\r/);
  const lines: string[] = [];
  const skipped: SkippedLine[] = [];
  let skippedCount = 0;
  for (const [i, line] of physical.entries()) {
    if (line.trim() === "") continue;
    if (!CONTENT_LINE.test(line)) {
      skippedCount += 1;
      if (skipped.length < maxReported)
        skipped.push({ line: i + 1, text: line.length > SNIPPET ? `${line.slice(0, SNIPPET)}…` : line });
      continue;
    }
    lines.push(line);
  }
  return { lines, skipped, skippedCount };
}
