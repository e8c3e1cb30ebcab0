/**
 * Shared by the edge tests: a signed call into an in-process app built on the fakes, the
 * spec's example requests for every route, and a Refusal check.
 */
import { expect } from "vitest";
import { createHttpApp } from "../../../src/gateway/app/app.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import type { SchemaName } from "../../../src/protocol/schcp/validate.js";
import * as ex from "../../protocol/schcp/schemas/spec-examples.js";
import { mandateFor, newKey, signedInit } from "./agent.js";
import { NOW_MS, ORIGIN } from "./fakes.js";
import type { EdgeFixture } from "./fakes.js";

export const HOST = "maple-street-auto";
export const BASE = `/schcp/v0/${HOST}`;
export const NOW_SEC = NOW_MS / 1000;
export const agent = newKey();
export const principal = newKey();

export async function call(
  f: EdgeFixture,
  o: {
    method: string;
    path: string;
    body?: unknown;
    mandate?: string | null;
    created?: number;
    nonce?: string;
    signedOrigin?: string;
    requestOrigin?: string;
    headers?: Record<string, string>;
    signer?: typeof agent;
  },
) {
  const app = createHttpApp(f.deps);
  const mandate =
    o.mandate === null
      ? undefined
      : (o.mandate ??
        (await mandateFor({ principal, agent: o.signer ?? agent, aud: HOST, nowSec: NOW_SEC })));
  const init = signedInit({
    method: o.method,
    path: o.path,
    body: o.body,
    ...(mandate !== undefined && { mandate }),
    agent: o.signer ?? agent,
    created: o.created ?? NOW_SEC,
    ...(o.nonce !== undefined && { nonce: o.nonce }),
    signedOrigin: o.signedOrigin ?? ORIGIN,
    ...(o.headers !== undefined && { headers: o.headers }),
  });
  const res = await app.request(`${o.requestOrigin ?? "http://127.0.0.1:8787"}${o.path}`, init);
  const text = await res.text();
  return { res, status: res.status, json: text === "" ? undefined : (JSON.parse(text) as unknown), text };
}

export function expectRefusal(json: unknown, code: string, reason?: string) {
  expect(validateSchcp("Refusal", json).ok).toBe(true);
  expect(json).toMatchObject({ error: { code, ...(reason !== undefined && { reason }) } });
}

export const ROUTES: ReadonlyArray<{
  method: string;
  path: string;
  body?: unknown;
  use: string;
  status: number;
  schema: SchemaName;
  args: unknown[];
  idempotent: boolean;
}> = [
  {
    method: "POST",
    path: "/availability",
    body: ex.availabilityRequest(),
    use: "availability",
    status: 200,
    schema: "AvailabilityResponse",
    args: [ex.availabilityRequest()],
    idempotent: false,
  },
  {
    method: "POST",
    path: "/holds",
    body: ex.holdRequest(),
    use: "placeHold",
    status: 201,
    schema: "Hold",
    args: [ex.holdRequest()],
    idempotent: true,
  },
  {
    method: "GET",
    path: "/holds/h_1",
    use: "getHold",
    status: 200,
    schema: "Hold",
    args: ["h_1"],
    idempotent: false,
  },
  {
    method: "DELETE",
    path: "/holds/h_1",
    use: "releaseHold",
    status: 200,
    schema: "Hold",
    args: ["h_1"],
    idempotent: false,
  },
  {
    method: "POST",
    path: "/holds/h_1/confirm",
    body: ex.confirmRequest(),
    use: "confirm",
    status: 201,
    schema: "BookingResponse",
    args: ["h_1", ex.confirmRequest()],
    idempotent: true,
  },
  {
    method: "GET",
    path: "/bookings/b_1",
    use: "getBooking",
    status: 200,
    schema: "BookingResponse",
    args: ["b_1"],
    idempotent: false,
  },
  {
    method: "POST",
    path: "/bookings/b_1/cancel",
    body: ex.cancelRequest(),
    use: "cancel",
    status: 200,
    schema: "BookingResponse",
    args: ["b_1", ex.cancelRequest()],
    idempotent: true,
  },
  {
    method: "POST",
    path: "/bookings/b_1/change-offer",
    body: ex.changeOfferRequest(),
    use: "changeOffer",
    status: 201,
    schema: "ChangeOfferResponse",
    args: ["b_1", ex.changeOfferRequest()],
    idempotent: true,
  },
  {
    method: "POST",
    path: "/bookings/b_1/reschedule",
    body: ex.rescheduleRequest(),
    use: "reschedule",
    status: 200,
    schema: "BookingResponse",
    args: ["b_1", ex.rescheduleRequest()],
    idempotent: true,
  },
  {
    method: "POST",
    path: "/bookings/b_1/proposal-response",
    body: ex.proposalResponseRequest(),
    use: "proposalResponse",
    status: 200,
    schema: "BookingResponse",
    args: ["b_1", ex.proposalResponseRequest()],
    idempotent: true,
  },
];
