/**
 * The Openings platform of test/support/openings-platform.ts (the connector's unit tests script
 * the same one with nock) served on a loopback socket, so a `booking-gateway mcp` child process
 * can reach it. Its shapes are ASSUMED (fixtures/openings/SOURCES.md). A queued "lost_response"
 * lets the platform do the work, then drops the connection without an answer.
 */
import { OpeningsPlatform, operationOf, type RecordedRequest } from "../../support/openings-platform.js";
import { startLoopback, type FakeAnswer, type FakeRequest, type LoopbackServer } from "./fake-loopback.js";

export { BUSINESS, CODE, SLUG, TZ } from "../../support/openings-platform.js";

export class FakeOpeningsServer extends OpeningsPlatform {
  private server?: LoopbackServer;

  /** Starts serving; answers the origin (the connector's baseUrl). */
  async start(): Promise<string> {
    this.server = await startLoopback((req) => this.answer(req));
    return this.server.origin;
  }

  close(): Promise<void> {
    return this.server?.close() ?? Promise.resolve();
  }

  /** The requests received so far that are not reads (what changed, or tried to change, the platform). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== "GET");
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
