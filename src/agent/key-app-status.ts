/**
 * A key app's status service (SchCP §3.3): what hosts reach at a mandate's status URL.
 *
 * - GET {status}: { "status": "active" | "revoked", "remaining": n } (check 7, and the bookings
 *   left under a shared booking limit beside it; remaining is absent without a limit).
 * - POST {status}/claims { "claim_id" }: 201 claimed, 200 that claim id is already held (a
 *   confirm retried under another idempotency key), 409 no bookings left (or revoked).
 * - DELETE {status}/claims/{claim_id}: the unit back, 204; 404 when it is not held.
 *
 * In memory, for agents, tests and demos: one process keeps the counts. `handler()` serves it
 * inside any node:http server; `listen()` starts one.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface KeyAppStatusServiceOptions {
  /** Where status URLs live on the server (default "/status"): {basePath}/{jti}. */
  readonly basePath?: string;
}

export interface MandateStatusRecord {
  readonly revoked: boolean;
  /** constraints.max_bookings of a shared booking limit; null without one. */
  readonly maxBookings: number | null;
  readonly claims: readonly string[];
}

export interface KeyAppListenOptions {
  readonly port?: number;
  /** The address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** Serve https with this key and certificate (PEM). */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  /** The host name status URLs carry when serving https (default "localhost"). */
  readonly name?: string;
}

export interface RunningKeyAppStatus {
  /** http://host:port of the server. */
  readonly origin: string;
  /** The status URL of a mandate (its jti) on this server. */
  statusUrl(jti: string): string;
  close(): Promise<void>;
}

interface Entry {
  revoked: boolean;
  maxBookings: number | null;
  readonly claims: Set<string>;
}

const MAX_BODY_BYTES = 4096;

export class KeyAppStatusService {
  readonly basePath: string;
  readonly #entries = new Map<string, Entry>();

  constructor(options: KeyAppStatusServiceOptions = {}) {
    this.basePath = (options.basePath ?? "/status").replace(/\/$/, "");
  }

  /** Starts keeping a mandate's status: active, with a shared limit of maxBookings when given. */
  register(jti: string, options: { readonly maxBookings?: number } = {}): void {
    this.#entries.set(jti, { revoked: false, maxBookings: options.maxBookings ?? null, claims: new Set() });
  }

  /** §3.3 check 7: hosts that consult status refuse the mandate from now on. */
  revoke(jti: string): void {
    const e = this.#entries.get(jti);
    if (e !== undefined) e.revoked = true;
  }

  record(jti: string): MandateStatusRecord | undefined {
    const e = this.#entries.get(jti);
    return e === undefined
      ? undefined
      : { revoked: e.revoked, maxBookings: e.maxBookings, claims: [...e.claims] };
  }

  /** Bookings left under the shared limit; null without one. */
  remaining(jti: string): number | null {
    const e = this.#entries.get(jti);
    if (e === undefined || e.maxBookings === null) return null;
    return Math.max(0, e.maxBookings - e.claims.size);
  }

  /** The path of a mandate's status URL: {basePath}/{jti}. */
  statusPath(jti: string): string {
    return `${this.basePath}/${encodeURIComponent(jti)}`;
  }

  /** A node:http request handler; answers 404 outside basePath. */
  handler(): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      this.#handle(req, res).catch(() => send(res, 500, { error: "internal_error" }));
    };
  }

  /**
   * Serves the handler on its own server (default 127.0.0.1, a free port). Status URLs are https
   * only (the MandateClaims schema, §3.3): give `tls` (a key and certificate, e.g. made by
   * mkcert or openssl for "localhost") and the URLs name https://{name}:{port}, `name` being
   * "localhost" unless told otherwise; without it they are http, for tests of the service alone.
   */
  async listen(options: KeyAppListenOptions = {}): Promise<RunningKeyAppStatus> {
    const handler = this.handler();
    const server: Server =
      options.tls === undefined
        ? createServer(handler)
        : createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler);
    const host = options.host ?? "127.0.0.1";
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const name = options.tls === undefined ? host : (options.name ?? "localhost");
    const scheme = options.tls === undefined ? "http" : "https";
    const origin = `${scheme}://${name.includes(":") ? `[${name}]` : name}:${port}`;
    return {
      origin,
      statusUrl: (jti) => `${origin}${this.statusPath(jti)}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://key-app.invalid").pathname;
    if (!path.startsWith(`${this.basePath}/`)) return send(res, 404, { error: "not_found" });
    const rest = path.slice(this.basePath.length + 1).split("/");
    const jti = safeDecode(rest[0] ?? "");
    const entry = jti === undefined ? undefined : this.#entries.get(jti);
    if (jti === undefined || entry === undefined) return send(res, 404, { error: "not_found" });

    if (rest.length === 1 && req.method === "GET") {
      const remaining = this.remaining(jti);
      return send(res, 200, {
        status: entry.revoked ? "revoked" : "active",
        ...(remaining !== null && { remaining }),
      });
    }
    if (rest[1] !== "claims") return send(res, 404, { error: "not_found" });

    if (rest.length === 2 && req.method === "POST") {
      const body = await readJson(req);
      const claimId =
        typeof body === "object" && body !== null ? (body as Record<string, unknown>)["claim_id"] : undefined;
      if (typeof claimId !== "string" || claimId === "" || claimId.length > 512) {
        return send(res, 400, { error: "claim_id required" });
      }
      if (entry.claims.has(claimId))
        return send(res, 200, { claim_id: claimId, remaining: this.remaining(jti) });
      const full = entry.maxBookings !== null && entry.claims.size >= entry.maxBookings;
      if (entry.revoked || full)
        return send(res, 409, { error: entry.revoked ? "revoked" : "no_bookings_left" });
      entry.claims.add(claimId);
      return send(res, 201, { claim_id: claimId, remaining: this.remaining(jti) });
    }

    // {claim_id} expanded as RFC 6570 does ("/" as %2F), or left with its "/" as it is.
    if (rest.length >= 3 && req.method === "DELETE") {
      const claimId = safeDecode(rest.slice(2).join("/"));
      if (claimId === undefined || !entry.claims.delete(claimId))
        return send(res, 404, { error: "not_held" });
      res.writeHead(204).end();
      return;
    }
    return send(res, 405, { error: "method_not_allowed" });
  }
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}
