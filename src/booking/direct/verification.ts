/**
 * Verification pass-through (OSBP verification.send / verify): the platform sends and checks
 * its own codes; the core only routes the call to the host's upstream, so no edge holds a
 * connector. A ConnectorError comes back as it is: the edge's protocol names these conditions.
 */
import type { ConnectorResult, UpstreamCustomer } from "../../connectors/port.js";
import type { BookingDeps } from "../api.js";

type Method = { readonly method: "sms" | "email" };

const noHost = (hostId: string): ConnectorResult<Method> => ({
  ok: false,
  error: { code: "not_found", message: `no host ${hostId}` },
});

const unsupported = (): ConnectorResult<Method> => ({
  ok: false,
  error: { code: "unsupported", message: "this platform has no customer verification" },
});

export async function sendVerification(
  deps: BookingDeps,
  hostId: string,
  customer: UpstreamCustomer,
  purpose: string,
): Promise<ConnectorResult<Method>> {
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
): Promise<ConnectorResult<Method>> {
  const host = deps.hosts.get(hostId);
  if (host === undefined) return noHost(hostId);
  return host.connector.verification?.verify(customer, purpose, code) ?? unsupported();
}
