/**
 * A loopback HTTP server standing in for an agent's webhook endpoint (§5.8). The gateway
 * delivers through the public-only transport (src/jobs/outbound) with allowPrivateForTests; callback URLs are
 * https://agent.test/... (the schema requires https) and the transport is pointed at this
 * server, as a TLS-terminating proxy in front of an agent would be. Deliveries are verified
 * as an agent must: the host-key signature against the discovery keys, then the closed
 * WebhookEvent schema.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryNonceMemory } from "../../../src/protocol/http-signatures/index.js";
import { verifyHostWebhook } from "../../../src/protocol/http-signatures/host-webhook.js";
import { parseStrictJson } from "../../../src/protocol/json/index.js";
import type { Jwk, WebhookEvent } from "../../../src/protocol/schcp/types.js";
import { validateSchcp } from "../../../src/protocol/schcp/validate.js";
import { createPublicFetch } from "../../../src/jobs/outbound/public-fetch.js";
import type { PublicFetch } from "../../../src/jobs/outbound/public-fetch.js";

export const CALLBACK_ORIGIN = "https://agent.test";

export interface Delivery {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

export interface WebhookSink {
  readonly deliveries: Delivery[];
  /** The transport to hand the gateway (createGatewayRuntime's webhookFetch). */
  readonly transport: PublicFetch;
  /** Waits until a delivery matches (or fails after timeoutMs). */
  waitFor(
    match: (event: WebhookEvent) => boolean,
    timeoutMs?: number,
  ): Promise<{ event: WebhookEvent; delivery: Delivery }>;
  close(): Promise<void>;
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      deliveries.push({
        url: `${CALLBACK_ORIGIN}${req.url ?? "/"}`,
        headers,
        body: new Uint8Array(Buffer.concat(chunks)),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const inner = createPublicFetch({ allowPrivate: true });
  const transport: PublicFetch = (request) =>
    inner({ ...request, url: request.url.replace(CALLBACK_ORIGIN, `http://127.0.0.1:${port}`) });

  const parse = (d: Delivery): WebhookEvent | undefined => {
    const json = parseStrictJson(d.body, "");
    return json.ok ? (json.value as WebhookEvent) : undefined;
  };
  return {
    deliveries,
    transport,
    waitFor: async (match, timeoutMs = 8000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        for (const d of deliveries) {
          const event = parse(d);
          if (event !== undefined && match(event)) return { event, delivery: d };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(
        `no matching webhook within ${timeoutMs} ms; got ${deliveries.map((d) => parse(d)?.type).join(", ") || "none"}`,
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What an agent checks on a delivery: the host's signature (§5.8, §3.2 rules) and the schema. */
export async function verifyDelivery(
  d: Delivery,
  keys: readonly Jwk[],
  nowSec: number,
): Promise<{ ok: boolean; why: string }> {
  const sig = await verifyHostWebhook({
    method: "POST",
    targetUri: d.url,
    headers: (name) => d.headers[name],
    body: d.body,
    nowSec,
    discoveryKeys: keys,
    nonces: new MemoryNonceMemory(() => nowSec),
  });
  if (!sig.ok) return { ok: false, why: `signature: ${sig.error.message}` };
  const json = parseStrictJson(d.body, "");
  if (!json.ok) return { ok: false, why: json.error.message };
  const valid = validateSchcp("WebhookEvent", json.value);
  return valid.ok ? { ok: true, why: "" } : { ok: false, why: valid.error.message };
}
