/**
 * The one place the Square SDK client is built and every Square call is made.
 *
 * Every request goes through connectors/http.ts: the SDK is given the upstream client's
 * capturing `fetch`, which
 * - sets `Square-Version` to the pinned version LAST, on the outgoing request itself. The SDK
 *   writes its own default ("2026-09-16" in square@46) into each request's headers after the
 *   client-level `version` option, so a client option alone is not a pin;
 * - attaches the bearer token (the SDK itself is built with `auth: false` and never sees it),
 *   sends the gateway's User-Agent and bounds each request with the timeout;
 * - records each request's UpstreamMeta into the `withCapture` scope of the operation that made
 *   it (concurrent operations never see each other's) and announces Deprecation/Sunset.
 * SDK retries are off (maxRetries 0): the booking core decides what is retried, and a 429 comes
 * back as rate_limited with its Retry-After instead of being slept on inside the SDK.
 */
import type { Clock } from "../../protocol/clock.js";
import type { SquareClient } from "square";
import type { Logger } from "../../protocol/logger.js";
import type { UpstreamClient, UpstreamNotice, UpstreamPacing } from "../http.js";
import type { ConnectorResult, PlatformIdentity, UpstreamMeta } from "../port.js";
import { Refusal, SquareCallError, squareErrorOf } from "./errors.js";
import { squareSdk } from "./sdk.js";
import { createSquareUpstream, SQUARE_VENDOR } from "./upstream.js";
import { baseUrlOf, type SquareSettings } from "./settings.js";

/** Supplies the current access token; undefined when the business has no valid grant (revoked). */
type SquareTokenProvider = () => Promise<string | undefined>;

export interface SquareDeps {
  readonly clock: Clock;
  /** The HTTP client (default globalThis.fetch). */
  readonly fetch?: typeof fetch;
  /** OAuth tokens from the gateway's onboarding; exclusive with settings.accessToken. */
  readonly tokenProvider?: SquareTokenProvider;
  /** Operator log for Deprecation/Sunset notices (default: console, JSON). */
  readonly logger?: Pick<Logger, "warn">;
  /** Every Deprecation/Sunset notice, for the integrator to record per host. */
  readonly onNotice?: (notice: UpstreamNotice) => void;
  /** Retry-After honoured across calls and processes (connectors/http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

const DEFAULT_TIMEOUT_MS = 10_000;
// The SDK's own timeout only backs up http.ts's, which fires first and is the one recorded.
const SDK_TIMEOUT_SLACK_MS = 5_000;

export class SquareApi {
  readonly platform: PlatformIdentity;
  readonly upstream: UpstreamClient;
  /** Built once the SDK has loaded (sdk.ts), which starts with the connector. */
  private readonly client: Promise<SquareClient>;

  constructor(
    readonly settings: SquareSettings,
    private readonly deps: SquareDeps,
  ) {
    this.platform = { vendor: SQUARE_VENDOR, api_version: settings.version };
    const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.upstream = createSquareUpstream({
      accessToken: () => this.token(),
      version: settings.version,
      environment: settings.environment,
      ...(settings.baseUrl !== undefined && { baseUrl: settings.baseUrl }),
      timeoutMs,
      clock: deps.clock,
      // The SDK parses answers with its own JavaScript parser and then converts every field:
      // 8–14× JSON.parse's time per token (`npm run bench:json`, on the CI machine loaded and
      // quiet). An eighth of the default budget keeps its parse near 12 ms there, about what
      // JSON.parse takes at the full budget on the loaded machine.
      parseCostFactor: 8,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(deps.onNotice === undefined ? {} : { onNotice: deps.onNotice }),
      ...(deps.pacing === undefined ? {} : { pacing: deps.pacing }),
    });
    this.client = squareSdk().then(
      ({ SquareClient }) =>
        new SquareClient({
          baseUrl: baseUrlOf(settings),
          auth: false,
          fetch: this.upstream.fetch,
          maxRetries: 0,
          timeoutInSeconds: (timeoutMs + SDK_TIMEOUT_SLACK_MS) / 1000,
          logging: { silent: true },
        }),
    );
    // A failed load is answered by the first call that awaits it, not as an unhandled rejection.
    this.client.catch(() => undefined);
  }

  now(): number {
    return this.deps.clock.now();
  }

  /** Whether the operation's last request was refused for its answer's size or parse cost. */
  lastAnswerTooLarge(): boolean {
    const failure = this.upstream.lastCall()?.failure;
    return failure === "too_large" || failure === "too_costly";
  }

  private async token(): Promise<string> {
    if (this.settings.accessToken !== undefined) return this.settings.accessToken;
    let token: string | undefined;
    try {
      token = await this.deps.tokenProvider?.();
    } catch {
      // The provider's own error may quote what it was refreshing; it is not passed on.
      throw new SquareCallError("unavailable", "the Square access token could not be obtained");
    }
    if (token === undefined || token === "")
      throw new SquareCallError("unauthorized", "the business has no valid Square grant: reconnect Square");
    return token;
  }

  /**
   * Runs one operation (one or more SDK requests) and answers its result with the metadata of
   * the last request it made. `intent` is the call line reported when no request was made.
   */
  async call<T>(intent: string, op: (client: SquareClient) => Promise<T>): Promise<ConnectorResult<T>> {
    try {
      await this.token();
    } catch (error) {
      return {
        ok: false,
        error: squareErrorOf(error, { call: intent, status: 0 }, this.now()),
        upstream: { call: intent, status: 0 },
      };
    }
    const client = await this.client;
    const captured = await this.upstream.withCapture(() => op(client));
    let meta: UpstreamMeta = captured.meta ?? { call: intent, status: 0 };
    if (captured.ok) return { ok: true, value: captured.value, upstream: meta };
    const thrown = captured.error;
    const last = captured.calls.at(-1);
    // The connector's own refusal on a 2xx answer: the metadata stays that answer's (call
    // line, request id) with the refusal's status, because a failed result never reports a
    // 2xx status (the contract suite's rule for every connector).
    if (thrown instanceof Refusal) {
      if (meta.status >= 200 && meta.status < 300) meta = { ...meta, status: thrown.status };
      return { ok: false, error: squareErrorOf(thrown, meta, this.now()), upstream: meta };
    }
    // Transport outcomes by http.ts's rules (no answer, timeout, 429, 401/403, 5xx, and a call
    // the capture marked failed whatever its status: an answer over the cap, a call held back by
    // the upstream's Retry-After), the rest by Square's error body.
    const marked = last?.failure !== undefined;
    const transport =
      last === undefined || (!marked && last.meta.status >= 200 && last.meta.status < 300)
        ? undefined
        : this.upstream.errorOf(last);
    // A failed result never reports a 2xx status (a 200 whose body was over the cap).
    if (marked && meta.status >= 200 && meta.status < 300) meta = { ...meta, status: 0 };
    const error = transport ?? squareErrorOf(thrown, meta, this.now());
    return { ok: false, error, upstream: meta };
  }
}
