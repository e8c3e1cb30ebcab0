/**
 * The OSBP MCP server on the process's stdio (OSBP "Transport": "a local stdio MCP server").
 * stdout carries MCP frames and nothing else; the logger must write elsewhere (stderr).
 *
 * The SDK's stdio transport does not notice the client going away, so this module does: when
 * stdin ends or closes, the server lets in-flight tool calls finish (a booking.create half
 * done is the one thing worth waiting for), then closes, and `closed` resolves.
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { AuditLog } from "../audit/port.js";
import type { Logger } from "../../../protocol/logger.js";
import type { AdapterResult, Service } from "../../../protocol/osbp/index.js";
import { createToolDispatcher, type ToolDispatcher, type ToolDispatcherOptions } from "./dispatch.js";
import { createOsbpMcpServer } from "./server.js";
import type { ServiceSummary } from "./service-catalog.js";

/** An adapter that can also list its host's services (the generic connector adapter can). */
export type ListingAdapter = ToolDispatcherOptions["adapter"] & {
  listServices?(): Promise<AdapterResult<Service[]>>;
};

export interface OsbpStdioOptions {
  /** Its listServices(), when present, is read once at startup for service discovery. */
  readonly adapter: ListingAdapter;
  readonly audit: AuditLog;
  /** The operator channel: it must write to stderr, since stdout carries nothing but MCP frames. */
  readonly logger: Logger;
  readonly name?: string;
  readonly version?: string;
  /** Default process.stdin / process.stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Longest wait for in-flight calls when closing (default 10 s); then the server closes anyway. */
  readonly drainMs?: number;
}

export interface RunningOsbpStdio {
  /** Resolves once the server has closed: the client went away, or close() was called. */
  readonly closed: Promise<void>;
  /** Stops reading, waits for in-flight calls (up to drainMs), closes. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_DRAIN_MS = 10_000;

export async function startOsbpStdioServer(opts: OsbpStdioOptions): Promise<RunningOsbpStdio> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const { logger } = opts;

  const inFlight = new Set<Promise<unknown>>();
  const inner = createToolDispatcher({ adapter: opts.adapter, audit: opts.audit, logger });
  const dispatcher: ToolDispatcher = {
    call(name, input) {
      const pending = inner.call(name, input);
      inFlight.add(pending);
      const done = () => inFlight.delete(pending);
      pending.then(done, done);
      return pending;
    },
  };

  const services = await readServices(opts.adapter, logger);
  const server = createOsbpMcpServer({
    dispatcher,
    ...(services !== undefined && { services }),
    ...(opts.name !== undefined && { name: opts.name }),
    ...(opts.version !== undefined && { version: opts.version }),
  });
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  server.onclose = () => markClosed();
  // Unparseable frames and the like: the transport reports them and keeps reading.
  server.onerror = (e) => logger.warn("mcp transport error", { error: e.message });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      stdin.off("end", onGone);
      stdin.off("close", onGone);
      await drain(inFlight, opts.drainMs ?? DEFAULT_DRAIN_MS);
      await server.close();
      markClosed();
    })());
  const onGone = (): void => void close();
  stdin.once("end", onGone);
  stdin.once("close", onGone);
  // A client that vanished turns our next write into EPIPE; unhandled, that would crash.
  stdout.on("error", (e: Error) => {
    logger.warn("stdout failed; closing the MCP server", { error: e.message });
    void close();
  });

  await server.connect(new StdioServerTransport(stdin, stdout));
  return { closed, close };
}

/**
 * The host's services for the instructions. A failing read (the upstream down at startup) is
 * logged and the server starts anyway: its tools still work, and the instructions then say how
 * to reach the default service.
 */
async function readServices(
  adapter: ListingAdapter,
  logger: Logger,
): Promise<readonly ServiceSummary[] | undefined> {
  if (adapter.listServices === undefined) return undefined;
  try {
    const listed = await adapter.listServices();
    if (listed.ok)
      return listed.value.map(({ id, name, duration, price }) => ({ id, name, duration, price }));
    logger.warn("could not read the service list for the MCP instructions", { code: listed.problem.code });
  } catch (e) {
    logger.warn("could not read the service list for the MCP instructions", {
      error: e instanceof Error ? e.message : String(e),
    });
  }
  return undefined;
}

async function drain(inFlight: ReadonlySet<Promise<unknown>>, maxMs: number): Promise<void> {
  if (inFlight.size > 0) {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...inFlight]), limit]);
    clearTimeout(timer);
  }
  // The SDK writes each response a few microtasks after our dispatcher settles, and closing
  // the server aborts responses not yet written: one macrotask turn lets them all go out.
  await new Promise<void>((resolve) => setImmediate(resolve));
}
