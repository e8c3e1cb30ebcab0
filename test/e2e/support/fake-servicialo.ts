/**
 * The Servicialo platform of test/support/servicialo-platform.ts (the connector's unit tests
 * script the same one with nock; fixtures/servicialo shapes, v1.2.0 REST endpoints) served on a
 * loopback socket, so a `booking-gateway mcp` child process can reach it. Here its own key; an
 * availability query needs a day (400 without `date`, `from` or `next`; a range starts today);
 * requests are recorded by path alone. A queued "lost_response" lets the platform do the work
 * (a book is made), then drops the connection without an answer. A service in `prepaid` is
 * booked only with a `paymentIntentId` (402 PAYMENT_REQUIRED, "3. book_session").
 */
import {
  operationOf,
  PREFIX,
  ServicialoPlatform,
  type FakeOperation,
  type Session,
} from "../../support/servicialo-platform.js";
import { startLoopback, type FakeAnswer, type FakeRequest, type LoopbackServer } from "./fake-loopback.js";

export {
  ORG as SERVICIALO_ORG,
  PROVIDERS as SERVICIALO_PROVIDERS,
  SERVICE as SERVICIALO_SERVICE,
  TZ as SERVICIALO_TZ,
} from "../../support/servicialo-platform.js";

export const SERVICIALO_API_KEY = "org-key-e2e-SECRET";

export type ServicialoSession = Session;
export type ServicialoOperation = FakeOperation;
export type ServicialoFault = { readonly kind: "lost_response" };

export interface ServicialoRecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export class FakeServicialoServer extends ServicialoPlatform {
  /** Loopback requests carry string headers only. */
  declare readonly requests: ServicialoRecordedRequest[];
  private server?: LoopbackServer;

  constructor() {
    super({ apiKey: SERVICIALO_API_KEY, recordQuery: false });
  }

  async start(): Promise<string> {
    this.server = await startLoopback((req) => this.answer(req));
    return this.server.origin;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  /** Only a lost answer is played over the socket. */
  override inject(operation: ServicialoOperation, fault: ServicialoFault): void {
    super.inject(operation, fault);
  }

  books(): ServicialoRecordedRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.path === `${PREFIX}/book`);
  }

  private answer(req: FakeRequest): FakeAnswer {
    const path = `${req.url.pathname}${req.url.search}`;
    const op = operationOf(req.method, path);
    const lost = op !== undefined && this.nextFault(op)?.kind === "lost_response";
    if (lost) this.takeFault(op);
    const r = this.handle(req.method, path, req.body, req.headers);
    return lost ? { drop: true } : { status: r.status, body: r.body, headers: r.headers };
  }
}
