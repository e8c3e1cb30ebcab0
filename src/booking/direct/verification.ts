/**
 * Verification pass-through (OSBP verification.send / verify): the platform sends and checks
 * its own codes; the core only routes the call to the host's upstream, so no edge holds a
 * connector. The upstream's answer comes back as it is (an UpstreamFailure, errors.ts): the
 * edge's protocol names these conditions.
 */
import type { UpstreamAnswer, UpstreamCustomer } from "../upstream.js";
import type { BookingDeps } from "../api.js";

type Method = { readonly method: "sms" | "email" };

const noHost = (hostId: string): UpstreamAnswer<Method> => ({
  ok: false,
  error: { code: "not_found", message: `no host ${hostId}` },
});

const unsupported = (): UpstreamAnswer<Method> => ({
  ok: false,
  error: { code: "unsupported", message: "this platform has no customer verification" },
});

export async function sendVerification(
  deps: BookingDeps,
  hostId: string,
  customer: UpstreamCustomer,
  purpose: string,
): Promise<UpstreamAnswer<Method>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return noHost(hostId);
  return host.connector.verification?.send(customer, purpose) ?? unsupported();
}

export async function verifyCode(
  deps: BookingDeps,
  hostId: string,
  customer: UpstreamCustomer,
  purpose: string,
  code: string,
): Promise<UpstreamAnswer<Method>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return noHost(hostId);
  return host.connector.verification?.verify(customer, purpose, code) ?? unsupported();
}
