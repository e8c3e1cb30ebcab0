/** The upstream request helper's options, requests and answers (connectors/http.ts). */
import type { Clock } from "../../protocol/clock.js";
import type { ConnectorError, ConnectorResult, UpstreamMeta } from "../ports/result.js";
import type { RedactionMarker, SegmentRedactor } from "./meta.js";
import type { Logger } from "../../protocol/logger.js";
import type { Err, Ok, Result } from "../../protocol/result.js";
import type { UpstreamNotice } from "./notices.js";
import type { UpstreamPacing } from "./pacing.js";

/** Where the platform's API version goes on each request. */
type VersionPin =
  | { readonly header: string; readonly value: string }
  /** Path-versioned APIs: prefixed to every request path (e.g. "/v1"). */
  | { readonly pathPrefix: string }
  /** A protocol whose version is its RFCs (CalDAV): nothing to send; the User-Agent names them. */
  | { readonly unversioned: true };

export interface UpstreamClientOptions {
  readonly vendor: string;
  /** The exact native pin (OSBP PlatformIdentity.api_version). */
  readonly apiVersion: string;
  /** Scheme, host and any fixed path before the pin, e.g. "https://api.example.com". */
  readonly baseUrl: string;
  readonly pin: VersionPin;
  /** Credential headers, asked for on each call (a token provider may refresh). */
  readonly credentials?: () => Promise<Readonly<Record<string, string>>>;
  readonly timeoutMs?: number;
  /** Bytes an answer may have (http/read-body.ts); default: http/limits.ts jsonBytes. */
  readonly maxResponseBytes?: number;
  /**
   * Structural tokens a JSON answer may have before it is parsed (http/json-cost.ts); default:
   * http/limits.ts jsonTokens, divided by parseCostFactor.
   */
  readonly maxJsonTokens?: number;
  /**
   * How many times JSON.parse's time per token the client's parser takes (an SDK that parses
   * with its own code): the default budget is divided by it, so that parse is bounded alike.
   */
  readonly parseCostFactor?: number;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
  /** The platform's published request rate for one client; absent: no spacing. */
  readonly maxPerSecond?: number;
  /** Extra contact-bearing path segments the platform uses (emails and phones are built in). */
  readonly redact?: SegmentRedactor;
  /** How redacted segments are written in call lines (default "{redacted}"). */
  readonly marker?: RedactionMarker;
  /**
   * Folds a call line to its endpoint for the once-per-endpoint Deprecation/Sunset warning, where
   * the platform's resource names are not id-shaped (CalDAV's "<event>.ics"); digits, UUIDs and
   * long opaque ids are folded anyway.
   */
  readonly endpointOf?: (call: string) => string;
  /** Response headers that echo the API version; the pin header is tried first. */
  readonly versionEchoHeaders?: readonly string[];
  /** Statuses that mean the credential is bad; default 401 and 403. */
  readonly unauthorizedStatuses?: readonly number[];
  readonly onNotice?: (notice: UpstreamNotice) => void;
  readonly logger?: Pick<Logger, "warn">;
  /** The gateway's version for the User-Agent; default: package.json's. */
  readonly gatewayVersion?: string;
  /** Retry-After honoured across calls: the account's "not before" gate (http/pacing.ts). */
  readonly pacing?: UpstreamPacing;
}

interface RequestCommon {
  readonly method: string;
  /** Sent as JSON when present. */
  readonly body?: unknown;
  /** Non-credential headers of this call (never for secrets: the provider attaches those). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** Send without the credential headers (public endpoints of an API that has private ones). */
  readonly anonymous?: boolean;
}

export type UpstreamRequest = RequestCommon &
  (
    | {
        /** Path after the pin prefix, e.g. "/businesses/acme"; may carry no query string. */
        readonly path: string;
        readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
      }
    | {
        /**
         * An absolute URL the platform handed back (a next or delta link), sent exactly as
         * written, never rebuilt; refused (invalid_request, nothing sent) unless it lies under
         * the base URL and pin prefix.
         */
        readonly link: string;
      }
  );

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON; undefined for an empty body (or an unreadable one on a non-2xx status). */
  readonly body: unknown;
}

/** An answer of any status: the caller reads its status, parsed body and headers. */
interface CallAnswer {
  readonly status: number;
  readonly data: unknown;
  readonly headers: Headers;
}
/**
 * A call read into its status, parsed body and headers, with its call's meta: what the calendar
 * transports answer with (Google's callGoogle over its SDK, Graph's callGraph over request()).
 */
export type Answered = Ok<CallAnswer> & { readonly meta: UpstreamMeta };
/**
 * No answer for the caller to read: no call made (the token provider failed: no meta), no
 * answer, or a transport error.
 */
type NotAnswered = Err<ConnectorError> & { readonly meta?: UpstreamMeta };
export type CallOutcome = Answered | NotAnswered;

/** One call the capturing fetch made: its meta and, when no answer came, why. */
export interface CapturedCall {
  readonly meta: UpstreamMeta;
  /**
   * refused: the URL lay outside the base URL and pin prefix; rate_limited: the account was told
   * to wait (http/pacing.ts); either way nothing was sent. too_large: the answer's body was over
   * the byte cap (set when the body read fails on it); too_costly: the answer's JSON was over
   * the token budget (http/json-cost.ts) and was not handed to the SDK.
   */
  readonly failure?: "timeout" | "unavailable" | "refused" | "rate_limited" | "too_large" | "too_costly";
  /** With rate_limited: how long the account must still wait. */
  readonly retryAfterMs?: number;
}

/** What `run` returned, or what it threw (as `error`), with the calls made inside. */
export type Captured<T> = Result<T, unknown> & {
  /** Every call made inside, in order. */
  readonly calls: readonly CapturedCall[];
  /** The last call's meta (the one whose answer the SDK returned or threw on). */
  readonly meta?: UpstreamMeta;
  /** The credential provider failed before a request went out (the first such failure). */
  readonly credentialError?: ConnectorError;
};

export interface UpstreamClient {
  readonly vendor: string;
  readonly apiVersion: string;
  readonly userAgent: string;
  request(request: UpstreamRequest): Promise<ConnectorResult<UpstreamResponse>>;
  /**
   * A fetch for SDKs: pin (set last), User-Agent, timeout, credentials and spacing applied
   * (a header pin; a path-prefix pin is the SDK's base URL and is not rewritten here);
   * each call's meta is recorded into the `withCapture` scope it runs in (AsyncLocalStorage, so
   * concurrent operations never see each other's calls) and Deprecation/Sunset announced.
   */
  readonly fetch: typeof fetch;
  /**
   * The last call made so far in the current `withCapture` scope, for an operation that
   * changes what it asks by what the previous answer was (a smaller range after an answer too
   * large to read).
   */
  lastCall(): CapturedCall | undefined;
  withCapture<T>(run: () => Promise<T>): Promise<Captured<T>>;
  /** The error a captured call maps to by transport rules, or undefined when it is the connector's. */
  errorOf(call: CapturedCall): ConnectorError | undefined;
}
