/** One fake host, one agent key, one key app and a client wired to the fake (no network). */
import { KeyApp, SchcpClient, createAgentKey } from "../../../src/agent/index.js";
import type { DiscoveredHost } from "../../../src/agent/index.js";
import { createFakeHost, DISCOVERY_URL } from "./fake-host.js";

/** Monday 7 January 2030, 09:00 in Toronto. */
export const T0 = Date.UTC(2030, 0, 7, 14, 0, 0);
/** Tuesday 8 January 2030, 10:00 in Toronto: a free slot. */
export const SLOT = "2030-01-08T10:00:00-05:00";

export function setup() {
  const host = createFakeHost(T0);
  const agentKey = createAgentKey();
  const client = new SchcpClient({ agentKey, fetch: host.fetch, clock: host.clock });
  const keyApp = new KeyApp({ principalKey: createAgentKey(), clock: host.clock });
  return { host, agentKey, client, keyApp };
}

export async function discovered(client: SchcpClient): Promise<DiscoveredHost> {
  const d = await client.discoverHost(DISCOVERY_URL);
  if (!d.ok) throw new Error(`discovery failed: ${d.error.message}`);
  return d.value;
}

/** An open mandate for the whole flow at the fake host. */
export async function openMandate(ctx: ReturnType<typeof setup>) {
  return ctx.keyApp.issueMandate({
    agent: ctx.agentKey,
    audience: "fake-barber",
    scope: ["hold", "book", "cancel", "reschedule"],
    constraints: { services: ["trim"], max_price: { amount: "50.00", currency: "CAD" } },
  });
}
