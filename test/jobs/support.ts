/**
 * Shared fakes for the jobs tests: a host directory with real signing keys, a valid
 * WebhookEvent, a recording logger, a manual scheduler and a loopback "agent" that verifies
 * each delivery's signature as an agent would (SchCP §5.8).
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HostDirectory, HostRuntime, OutboundEvent } from "../../src/booking/api.js";
import type { LogFields, Logger } from "../../src/protocol/logger.js";
import type { Scheduler } from "../../src/jobs/scheduler.js";
import { verifyHostWebhook } from "../../src/protocol/http-signatures/host-webhook.js";
import type { VerifiedHostWebhook } from "../../src/protocol/http-signatures/host-webhook.js";
import { MemoryNonceMemory } from "../../src/protocol/http-signatures/nonce-memory.js";
import type { SignatureRefusal } from "../../src/protocol/http-signatures/schcp-profile.js";
import { generateEd25519KeyPair } from "../../src/protocol/jose/jwk.js";
import type { Result } from "../../src/protocol/result.js";
import type { HostSigningKey } from "../../src/protocol/schcp/offer/index.js";
import type { Hold, Jwk } from "../../src/protocol/schcp/types.js";

export const HOST_ID = "maple-street-auto";

export function hostKey(kid: string): HostSigningKey {
  const pair = generateEd25519KeyPair();
  return { kid, privateKey: pair.privateKey, publicJwk: { ...pair.publicJwk, kid } };
}

/** Only config.id and keys are read by the jobs layer; the rest of a runtime is not needed. */
export function fakeHosts(keysByHost: Record<string, readonly HostSigningKey[]>): HostDirectory {
  const runtimes = new Map<string, HostRuntime>(
    Object.entries(keysByHost).map(([id, keys]) => [id, { config: { id }, keys } as unknown as HostRuntime]),
  );
  return { get: (id) => runtimes.get(id), list: () => [...runtimes.values()] };
}

export function discoveryKeys(keys: readonly HostSigningKey[]): Jwk[] {
  return keys.map((k) => ({ ...k.publicJwk, kid: k.kid }));
}

export const FAKE_OFFER = "eyJhbGciOiJFZERTQSJ9.eyJ2IjoxfQ.c2lnbmF0dXJl";

export function sampleHold(holdId = "h_1"): Hold {
  return {
    hold_id: holdId,
    status: "held",
    service_id: "oil-change",
    start: "2026-10-15T09:00:00-04:00",
    end: "2026-10-15T09:45:00-04:00",
    expires_at: "2026-10-15T12:10:00Z",
    offer: FAKE_OFFER,
  };
}

export function holdExpiredEvent(eventId: string, hostId = HOST_ID): Record<string, unknown> {
  return {
    event_id: eventId,
    type: "hold.expired",
    host_id: hostId,
    occurred_at: "2026-10-15T12:10:00Z",
    hold: { ...sampleHold(), status: "expired" },
  };
}

export function outbound(eventId: string, callbackUrl: string, hostId = HOST_ID): OutboundEvent {
  return { hostId, callbackUrl, event: holdExpiredEvent(eventId, hostId) };
}

export interface LogEntry {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields: LogFields;
}

export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (message: string, fields: LogFields = {}): void =>
      void entries.push({ level, message, fields });
  return { entries, info: at("info"), warn: at("warn"), error: at("error") };
}

/** Timers that fire only when the test says so; records every delay asked for. */
export class ManualScheduler implements Scheduler {
  private readonly timers = new Map<number, { fn: () => void; delayMs: number }>();
  private next = 1;
  readonly delays: number[] = [];

  set(fn: () => void, delayMs: number): unknown {
    const id = this.next++;
    this.timers.set(id, { fn, delayMs });
    this.delays.push(delayMs);
    return id;
  }

  clear(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Fires every timer set so far (not those they set in turn). */
  fireAll(): void {
    const due = [...this.timers.entries()];
    for (const [id, timer] of due) {
      this.timers.delete(id);
      timer.fn();
    }
  }
}

export interface Received {
  readonly path: string;
  readonly body: string;
  readonly verified: Result<VerifiedHostWebhook, SignatureRefusal>;
}

/**
 * A loopback agent endpoint: verifies every delivery with the host's discovery keys, then
 * answers with the next status from `statuses` (200 once they run out).
 */
export async function startAgent(keys: readonly Jwk[], statuses: number[] = []) {
  const received: Received[] = [];
  const nonces = new MemoryNonceMemory();
  let port = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      void verifyHostWebhook({
        method: req.method ?? "",
        targetUri: `http://127.0.0.1:${port}${req.url ?? ""}`,
        headers: (name) => req.headers[name],
        body: new Uint8Array(body),
        nowSec: Date.now() / 1000,
        discoveryKeys: keys,
        nonces,
      }).then((verified) => {
        received.push({ path: req.url ?? "", body: body.toString(), verified });
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/hooks/schcp") => `http://127.0.0.1:${port}${path}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}
