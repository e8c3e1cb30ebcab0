/**
 * The Square platform of test/support/square-platform.ts (the connector's unit tests script the
 * same one with nock) served on a loopback socket, for the end-to-end and gateway suites (a
 * `booking-gateway` child process reaches it over its socket; nock could not). Its shapes are
 * the recorded ones of fixtures/square/ (SOURCES.md names the reference page of each).
 *
 * Here the first start of a weekday is 14:00 UTC (inside the fixture location's 09:00–17:00
 * Toronto hours in winter and summer) and booking timestamps come from the clock. Each answer
 * echoes the request's Square-Version. A queued "lost_response" lets the platform do the work,
 * then drops the connection without an answer. `sellerCancels` / `sellerMoves` change a booking
 * as Square's own tools would (a new version), and `webhookFor` writes the booking.updated
 * notification for it.
 */
import {
  iso,
  LOCATION_ID,
  SquarePlatform,
  type SquareOperation,
  type SquareRequest,
} from "../../support/square-platform.js";
import { startLoopback, type FakeAnswer, type FakeRequest, type LoopbackServer } from "./fake-loopback.js";

export {
  AVERY as SQUARE_AVERY,
  HAIRCUT as SQUARE_HAIRCUT,
  JORDAN as SQUARE_JORDAN,
  LOCATION_ID as SQUARE_LOCATION_ID,
  type SquareOperation,
  type SquareRequest as SquareRecordedRequest,
} from "../../support/square-platform.js";

/** The faults a loopback socket can play (no timeout: the server always answers or drops). */
export type SquareFault =
  | { readonly kind: "lost_response" }
  | { readonly kind: "status"; status: number }
  | { readonly kind: "rate_limited"; readonly retryAfterSeconds: number };

type Json = Record<string, unknown>;

export class FakeSquareServer extends SquarePlatform {
  private server?: LoopbackServer;
  private eventSeq = 0;

  constructor(token: string) {
    super(token, { firstStartHour: 14 });
  }

  async start(): Promise<string> {
    this.server = await startLoopback((req) => this.answer(req));
    return this.server.origin;
  }

  get origin(): string {
    if (this.server === undefined) throw new Error("FakeSquareServer: not started");
    return this.server.origin;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  override inject(operation: SquareOperation, fault: SquareFault): void {
    super.inject(operation, fault);
  }

  /** Bookings not cancelled. */
  live(): Json[] {
    return this.liveBookings();
  }

  creates(): SquareRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path === "/v2/bookings");
  }

  /** The seller cancels in Square's own tools (Square Dashboard, Appointments app). */
  sellerCancels(id: string): Json {
    const b = this.mustGet(id);
    Object.assign(b, {
      status: "CANCELLED_BY_SELLER",
      version: Number(b["version"]) + 1,
      updated_at: iso(Date.now()),
    });
    return b;
  }

  /** The seller moves a booking in Square's own tools. */
  sellerMoves(id: string, start: number): Json {
    const b = this.mustGet(id);
    Object.assign(b, {
      start_at: iso(start),
      version: Number(b["version"]) + 1,
      updated_at: iso(Date.now()),
    });
    return b;
  }

  /** The booking.updated notification Square sends for a booking as it is now (fixture shape). */
  webhookFor(id: string): string {
    const b = this.mustGet(id);
    this.eventSeq += 1;
    return JSON.stringify({
      merchant_id: "MLQW2TJ8R0S7Y",
      location_id: LOCATION_ID,
      type: "booking.updated",
      event_id: `fake-event-${this.eventSeq}-${id}`,
      created_at: iso(Date.now()),
      data: { type: "booking", id: `${id}:${String(b["version"])}`, object: { booking: b } },
    });
  }

  private mustGet(id: string): Json {
    const b = this.bookings.get(id);
    if (b === undefined) throw new Error(`fake Square has no booking ${id}`);
    return b;
  }

  private answer(req: FakeRequest): FakeAnswer {
    const r = this.handle(req.method, `${req.url.pathname}${req.url.search}`, req.body, req.headers);
    if (r.transportFault !== undefined) return { drop: true };
    return {
      status: r.status,
      body: r.body,
      headers: { ...r.headers, "square-version": req.headers["square-version"] ?? "" },
    };
  }
}
