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

export async function sendVerification(
  deps: BookingDeps,
  hostId: string,
  customer: UpstreamCustomer,
  purpose: string,
): Promise<ConnectorResult<Method>> {
  const host = deps.hosts.get(hostId);
  return host === undefined ? noHost(hostId) : host.connector.sendVerification(customer, purpose);
}

export async function verifyCode(
  deps: BookingDeps,
  hostId: string,
  customer: UpstreamCustomer,
  purpose: string,
  code: string,
): Promise<ConnectorResult<Method>> {
  const host = deps.hosts.get(hostId);
  return host === undefined ? noHost(hostId) : host.connector.verifyCode(customer, purpose, code);
}
