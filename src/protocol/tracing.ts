/**
 * Spans, through `@opentelemetry/api` only (docs/ARCHITECTURE.md, Tracing): every layer opens
 * its spans here, each the child of the span active where it starts, so an edge request's span
 * holds the core's booking operation, which holds each upstream call. The gateway registers no
 * SDK: without one every span is a no-op that costs a few calls; a process that registers a
 * TracerProvider and a context manager (the OpenTelemetry Node SDK, started before the gateway)
 * gets them exported.
 *
 * Attributes never carry customer data or secrets: ids (a host's, a hold id the gateway
 * made), fixed names (an operation, a vendor), statuses, call lines with their contact segments
 * redacted, and an upstream's own request id.
 */
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";

export type { Span } from "@opentelemetry/api";

/** The instrumentation scope's name. */
const TRACER_NAME = "booking-gateway";

export interface SpanOptions {
  readonly attributes?: Attributes;
  /** "server" for an edge request, "client" for a call out (default: internal). */
  readonly kind?: "server" | "client";
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

/**
 * Runs `fn` inside a new span made active for it, and ends the span when `fn` settles. A throw
 * is recorded on the span (status error) and thrown on; `fn` marks other failures itself
 * (`failSpan`).
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(
    name,
    {
      ...(options.attributes !== undefined && { attributes: options.attributes }),
      ...(options.kind !== undefined && { kind: KINDS[options.kind] }),
    },
    async (span) => {
      try {
        return await fn(span);
      } catch (e) {
        span.recordException(e instanceof Error ? e : String(e));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed, with a short fixed description (a code, never a message from outside). */
export function failSpan(span: Span, code: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
