/**
 * The Square platform of test/support/square-platform.ts (recorded-response shapes of
 * fixtures/square/, rules that are the tests' stand-in for Square's: see fixtures/square/SOURCES.md)
 * scripted with nock at BASE, for the connector's unit tests and contract subject.
 *
 * Here the first start of a weekday is 13:00 UTC and booking timestamps are fixed, as these tests
 * were written against. Every request is recorded (method, path, query, headers, body); faults
 * are queued per operation: rate_limited (429 + Retry-After), timeout (never answers: the
 * client's timeout ends it), lost_response (does the work, then the connection drops with an
 * error), revoked (every call 401), or any status and body.
 */
import nock from "nock";
import { SquarePlatform, type SquareChange } from "../../support/square-platform.js";

export {
  AVERY,
  HAIRCUT,
  JORDAN,
  LOCATION_ID,
  type SquareOperation as FakeOperation,
  type SquarePlatformFault as FakeFault,
  type SquareRequest as RecordedRequest,
} from "../../support/square-platform.js";

export const BASE = "https://connect.squareupsandbox.com";

const STAMPS: Record<SquareChange, string> = {
  create: "2026-10-18T16:00:00Z",
  update: "2026-10-18T16:30:00Z",
  cancel: "2026-10-18T17:00:00Z",
};

function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export class FakeSquare extends SquarePlatform {
  constructor(token: string, itemsFixture = "square/catalog-search-items.json") {
    super(token, { itemsFixture, firstStartHour: 13, stamp: (change) => STAMPS[change] });
  }

  install(): void {
    for (const method of ["GET", "POST", "PUT"]) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- nock binds `this` to the request
      const fake = this;
      nock(BASE)
        .persist()
        .intercept(() => true, method)
        .reply(function (uri, rawBody, cb) {
          const body: unknown = typeof rawBody === "string" && rawBody !== "" ? JSON.parse(rawBody) : rawBody;
          const r = fake.handle(method, uri, body, headerRecord(this.req.headers));
          if (r.transportFault === "timeout") return;
          if (r.transportFault === "lost_response")
            return cb(new Error("socket hang up (lost_response fault)"), [0, ""]);
          cb(null, [r.status, JSON.stringify(r.body ?? {}), r.headers]);
        });
    }
  }

  /** How many bookings are not cancelled. */
  live(): number {
    return this.liveBookings().length;
  }
}
