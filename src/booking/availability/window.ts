/**
 * The window of an availability query (SchCP §5.1, §7.2 "MUST bound the work a single query
 * can cause"): its instants, the granularity, and the bounds: at most 31 days, and at most
 * 3,000 candidate starts at the granularity (PT15M when none is given). Out of bounds is
 * 400 INVALID_REQUEST with the rule in basis.
 */
import { err, ok, type Result } from "../../protocol/result.js";
import { formatSchcpDuration, parseInstant, parseSchcpDuration } from "../../protocol/time/index.js";
import type { BookingRefusal } from "../api.js";
import { bookingRefusal } from "../rules/index.js";

export const MAX_CANDIDATE_STARTS = 3000;
const MAX_WINDOW_MS = 31 * 86_400_000;
const DEFAULT_GRANULARITY_MS = 15 * 60_000;

export interface QueryWindow {
  readonly start: number;
  readonly end: number;
  /** The requested granularity; absent: the upstream's own starts. */
  readonly stepMs?: number;
}

/**
 * What a query states about its window: its instants (RFC 3339) and, optionally, the
 * granularity (an ISO 8601 duration). An edge's query body carries it (SchCP's
 * AvailabilityRequest has this shape, §5.1); the refusals point into it with these names.
 */
export interface WindowQuery {
  readonly window: { readonly start: string; readonly end: string };
  readonly constraints?: { readonly granularity?: string };
}

const invalid = (field: string, message: string, basis?: Record<string, unknown>): BookingRefusal =>
  bookingRefusal("invalid_request", { message, details: { field }, ...(basis !== undefined && { basis }) });

export function parseQueryWindow(body: WindowQuery): Result<QueryWindow, BookingRefusal> {
  const start = parseInstant(body.window.start, "/window/start");
  if (!start.ok) return err(invalid(start.error.field, start.error.message));
  const end = parseInstant(body.window.end, "/window/end");
  if (!end.ok) return err(invalid(end.error.field, end.error.message));
  const span = end.value.epochMs - start.value.epochMs;
  if (span <= 0) return err(invalid("/window/end", "the window ends before it starts"));
  if (span > MAX_WINDOW_MS) {
    return err(
      invalid("/window", "the window is longer than 31 days", {
        policy: "availability.max_window",
        limit: formatSchcpDuration(MAX_WINDOW_MS),
      }),
    );
  }
  let stepMs: number | undefined;
  const granularity = body.constraints?.granularity;
  if (granularity !== undefined) {
    const step = parseSchcpDuration(granularity, "/constraints/granularity");
    if (!step.ok) return err(invalid(step.error.field, step.error.message));
    if (step.value < 60_000) {
      return err(invalid("/constraints/granularity", "the granularity is at least one minute"));
    }
    stepMs = step.value;
  }
  const candidates = Math.ceil(span / (stepMs ?? DEFAULT_GRANULARITY_MS));
  if (candidates > MAX_CANDIDATE_STARTS) {
    return err(
      invalid(
        "/window",
        `the query would test ${candidates} starts; narrow the window or coarsen the granularity`,
        {
          policy: "availability.max_candidates",
          limit: MAX_CANDIDATE_STARTS,
        },
      ),
    );
  }
  return ok({ start: start.value.epochMs, end: end.value.epochMs, ...(stepMs !== undefined && { stepMs }) });
}
