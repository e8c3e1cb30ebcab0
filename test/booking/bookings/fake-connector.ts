/**
 * A small platform Connector for the booking tests: an appointment store that is idempotent
 * by key, with fault switches per operation (the next N calls fail with a given error).
 */
import type {
  BookingPort,
  Catalog,
  CatalogSource,
  Connector,
  ConnectorError,
  ConnectorErrorCode,
  ConnectorResult,
  SlotSource,
  UpstreamBooking,
  UpstreamCreate,
  UpstreamStatus,
} from "../../../src/connectors/port.js";
import { err, ok } from "../../../src/protocol/result.js";

type Op = "create" | "find" | "move" | "cancel" | "setStatus";

export class FakeConnector implements Connector {
  /** The attempt each findByIdempotencyKey was handed (ports/bookings.ts), in order. */
  readonly findAttempts: (UpstreamCreate | undefined)[] = [];
  readonly kind = "platform" as const;
  readonly platform = { vendor: "fake", api_version: "test" };
  readonly appointments = new Map<string, UpstreamBooking>();
  readonly calls: Record<Op, number> = { create: 0, find: 0, move: 0, cancel: 0, setStatus: 0 };
  private readonly faults: Record<Op, ConnectorError[]> = {
    create: [],
    find: [],
    move: [],
    cancel: [],
    setStatus: [],
  };
  /** create: make the booking upstream, then fail as if the answer was lost (a timeout after the fact). */
  loseNextCreateAnswer = false;
  private seq = 0;

  constructor(private readonly catalogValue: Catalog) {}

  fail(op: Op, code: ConnectorErrorCode, times = 1, retryAfterMs?: number): void {
    for (let i = 0; i < times; i++) {
      this.faults[op].push({
        code,
        message: `injected ${code}`,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
      });
    }
  }

  private fault(op: Op): ConnectorError | undefined {
    this.calls[op]++;
    return this.faults[op].shift();
  }

  byKey(key: string): UpstreamBooking | undefined {
    return [...this.appointments.values()].find((a) => a.idempotencyKey === key);
  }

  readonly catalog: CatalogSource = { read: () => Promise.resolve(ok(this.catalogValue)) };
  /** Starts the platform lists as free, on every resource of the catalog (none by default). */
  openStarts: number[] = [];
  readonly slots: SlotSource = {
    find: (q) => {
      const service = this.catalogValue.services.find((x) => x.id === q.serviceId);
      const duration = typeof service?.duration === "number" ? service.duration : undefined;
      return Promise.resolve(
        ok(
          this.openStarts
            .filter((start) => start >= q.range.start && start < q.range.end)
            .map((start) => ({
              serviceId: q.serviceId,
              start,
              ...(duration !== undefined && { end: start + duration }),
              resourceIds: q.resourceIds ?? this.catalogValue.resources.map((r) => r.id),
            })),
        ),
      );
    },
  };
  readonly bookings: BookingPort = {
    create: (r) => this.createBooking(r),
    get: (id) => this.getBooking(id),
    findByIdempotencyKey: (key, attempt) => {
      this.findAttempts.push(attempt);
      return this.findBookingByIdempotencyKey(key);
    },
    move: (id, c) => this.moveBooking(id, c),
    cancel: (id) => this.cancelBooking(id),
    setStatus: (id, status) => this.setStatus(id, status),
  };

  createBooking(r: UpstreamCreate): Promise<ConnectorResult<UpstreamBooking>> {
    const f = this.fault("create");
    if (f !== undefined) return Promise.resolve(err(f));
    const existing = this.byKey(r.idempotencyKey);
    const booking: UpstreamBooking = existing ?? {
      upstreamId: `up_${++this.seq}`,
      idempotencyKey: r.idempotencyKey,
      serviceId: r.serviceId,
      start: r.start,
      ...(r.end !== undefined && { end: r.end }),
      resourceIds: r.resourceIds,
      status: r.tentative ? "tentative" : "confirmed",
    };
    this.appointments.set(booking.upstreamId, booking);
    if (this.loseNextCreateAnswer) {
      this.loseNextCreateAnswer = false;
      return Promise.resolve(err({ code: "timeout", message: "answer lost" }));
    }
    return Promise.resolve(ok(booking));
  }

  findBookingByIdempotencyKey(key: string): Promise<ConnectorResult<UpstreamBooking | null>> {
    const f = this.fault("find");
    if (f !== undefined) return Promise.resolve(err(f));
    return Promise.resolve(ok(this.byKey(key) ?? null));
  }

  getBooking(id: string): Promise<ConnectorResult<UpstreamBooking>> {
    const a = this.appointments.get(id);
    return Promise.resolve(a === undefined ? err({ code: "not_found", message: id }) : ok(a));
  }

  private change(
    op: Op,
    id: string,
    patch: Partial<UpstreamBooking>,
  ): Promise<ConnectorResult<UpstreamBooking>> {
    const f = this.fault(op);
    if (f !== undefined) return Promise.resolve(err(f));
    const a = this.appointments.get(id);
    if (a === undefined) return Promise.resolve(err({ code: "not_found", message: id }));
    const next = { ...a, ...patch };
    this.appointments.set(id, next);
    return Promise.resolve(ok(next));
  }

  setStatus(id: string, status: UpstreamStatus): Promise<ConnectorResult<UpstreamBooking>> {
    return this.change("setStatus", id, { status });
  }
  moveBooking(
    id: string,
    c: { readonly start: number; readonly end?: number; readonly resourceIds: readonly string[] },
  ): Promise<ConnectorResult<UpstreamBooking>> {
    return this.change("move", id, {
      start: c.start,
      ...(c.end !== undefined && { end: c.end }),
      resourceIds: c.resourceIds,
    });
  }
  cancelBooking(id: string): Promise<ConnectorResult<UpstreamBooking>> {
    return this.change("cancel", id, { status: "cancelled" });
  }
}
