/**
 * A TracerProvider and a context manager written against @opentelemetry/api's interfaces, for
 * tests that check the gateway's spans: @opentelemetry/sdk-trace-base (and its in-memory
 * exporter) is not a dependency, and the gateway needs only the API. `recordSpans()` registers
 * both globally and returns the finished spans as they end; `stop()` unregisters them, leaving
 * the process as it was (the API's no-op globals).
 *
 * The context manager keeps the active context in an AsyncLocalStorage, as the SDK's
 * AsyncLocalStorageContextManager does, so a span started after an await still finds its parent.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type ContextManager,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";

export interface RecordedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Readonly<Attributes>;
  readonly status: SpanStatus;
  readonly scope: string;
}

class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== "function") return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as unknown as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

class LiveSpan implements Span {
  private name: string;
  private readonly attributes: Attributes;
  private status: SpanStatus = { code: SpanStatusCode.UNSET };
  private ended = false;

  constructor(
    name: string,
    private readonly kind: SpanKind,
    private readonly context: SpanContext,
    private readonly parentSpanId: string | undefined,
    attributes: Attributes,
    private readonly scope: string,
    private readonly done: (span: RecordedSpan) => void,
  ) {
    this.name = name;
    this.attributes = { ...attributes };
  }
  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.done({
      name: this.name,
      kind: this.kind,
      traceId: this.context.traceId,
      spanId: this.context.spanId,
      ...(this.parentSpanId !== undefined && { parentSpanId: this.parentSpanId }),
      attributes: { ...this.attributes },
      status: this.status,
      scope: this.scope,
    });
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

class RecordingTracer implements Tracer {
  constructor(
    private readonly scope: string,
    private readonly done: (span: RecordedSpan) => void,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = trace.getSpan(ctx)?.spanContext();
    const spanContext: SpanContext = {
      traceId: parent?.traceId ?? randomBytes(16).toString("hex"),
      spanId: randomBytes(8).toString("hex"),
      traceFlags: TraceFlags.SAMPLED,
    };
    return new LiveSpan(
      name,
      options.kind ?? SpanKind.INTERNAL,
      spanContext,
      parent?.spanId,
      options.attributes ?? {},
      this.scope,
      this.done,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.at(-1) as F;
    const options = (rest.length >= 2 ? rest[0] : {}) as SpanOptions;
    const ctx = (rest.length >= 3 ? rest[1] : context.active()) as Context;
    const span = this.startSpan(name, options, ctx);
    return context.with(trace.setSpan(ctx, span), () => fn(span)) as ReturnType<F>;
  }
}

export interface SpanRecording {
  readonly spans: RecordedSpan[];
  /** The spans whose parent is `span`. */
  childrenOf(span: RecordedSpan): RecordedSpan[];
  /** Unregisters the provider and the context manager. */
  stop(): void;
}

export function recordSpans(): SpanRecording {
  const spans: RecordedSpan[] = [];
  const provider: TracerProvider = {
    getTracer: (scope) => new RecordingTracer(scope, (s) => spans.push(s)),
  };
  const manager = new StorageContextManager();
  if (!context.setGlobalContextManager(manager)) throw new Error("a context manager is already registered");
  if (!trace.setGlobalTracerProvider(provider)) throw new Error("a tracer provider is already registered");
  return {
    spans,
    childrenOf: (parent) => spans.filter((s) => s.parentSpanId === parent.spanId),
    stop: () => {
      trace.disable();
      context.disable();
      manager.disable();
    },
  };
}
