/** The webhook outbox (in-process, or BullMQ with Redis) and the booking service over it. */
import type { BookingDeps } from "../../../booking/api.js";
import type { MutableHostDirectory } from "../../../booking/hosts/directory.js";
import { createBookingService, type BookingService } from "../../booking-service.js";
import { createOutbox, type WebhookOutbox } from "../../../jobs/webhooks/index.js";
import type { Infra } from "../infra.js";
import { bullmqPrefix, type GatewayRuntimeOptions, type RuntimeBasics } from "../options.js";
import type { Closable } from "../started.js";
import { createPublicFetch } from "../../../jobs/outbound/public-fetch.js";
import { createKeyAppClient } from "../../../jobs/key-app/client.js";
import {
  BullmqGiveBackQueue,
  MemoryGiveBackQueue,
  type GiveBackJob,
  type GiveBackQueue,
} from "../../../jobs/key-app/give-back-queue.js";
import { CachingMandateStatus, type MandateStatusPort } from "../../../protocol/schcp/mandate/index.js";
import type { SchcpKeyApps } from "../../../edges/schcp/key-app.js";
import { ruleCovers, verifyRule } from "../../../protocol/schcp/rule/index.js";
import type { RuleCheck } from "../../../booking/answers/index.js";
import { ok } from "../../../protocol/result.js";
import { schcpMeetingSigner } from "../../../edges/schcp/meeting/acceptance.js";

export type BookingFeatureOptions = Pick<
  GatewayRuntimeOptions,
  "redisUrl" | "redisKeyPrefix" | "webhookFetch" | "statusFetch" | "statusAllowPrivate" | "statusCa"
>;

export interface BookingFeature extends Closable {
  readonly outbox: WebhookOutbox;
  /** §3.3 check 7 for the SchCP HTTP edge: each link's status URL, cached per link. */
  readonly mandateStatus: MandateStatusPort;
  /** Give-backs to key apps that did not answer (§3.3), retried in the background. */
  readonly giveBacks: GiveBackQueue;
  readonly deps: BookingDeps;
  readonly service: BookingService;
}

/** close() drains and closes the outbox. */
export function mountBooking(
  opts: BookingFeatureOptions,
  { clock, logger, ids, metrics }: Pick<RuntimeBasics, "clock" | "logger" | "ids" | "metrics">,
  { directory, infra }: { readonly directory: MutableHostDirectory; readonly infra: Infra },
): BookingFeature {
  const fetch = opts.webhookFetch !== undefined && { fetch: opts.webhookFetch };
  const outbox = createOutbox(
    opts.redisUrl === undefined
      ? { mode: "memory", hosts: directory, clock, logger, ...fetch }
      : {
          mode: "bullmq",
          hosts: directory,
          clock,
          logger,
          redisUrl: opts.redisUrl,
          prefix: bullmqPrefix(opts),
          ...fetch,
        },
  );
  const deps: BookingDeps = {
    hosts: directory,
    store: infra.store,
    clock,
    ids,
    outbox,
    bookingIndex: infra.bookingIndex,
    publicPool: infra.publicPool,
    contacts: infra.contacts,
    rules: infra.rules,
    ruleCheck: SCHCP_RULE_CHECK,
    // SchCP §5.12, §7.9: a person member's calendar accepts a meeting by rule with the host's key.
    meetingSigner: schcpMeetingSigner,
    metrics,
  };
  const keyApps = mountKeyApps(opts, { clock, logger });
  return {
    outbox,
    deps,
    mandateStatus: keyApps.status,
    giveBacks: keyApps.queue,
    service: createBookingService(deps, { keyApps: keyApps.port }),
    close: async () => {
      await outbox.close();
      await keyApps.queue.close();
    },
  };
}

/** SchCP §7.9 rules (src/protocol/schcp/rule) as the core's RuleCheck (booking/answers/port.ts). */
const SCHCP_RULE_CHECK: RuleCheck = {
  verify: async (jws, nowSec) => {
    const verified = await verifyRule(jws, { now: nowSec });
    return verified.ok ? ok({ jws: verified.value.jws, claims: verified.value.claims }) : verified;
  },
  covers: ruleCovers,
};

/** How long a key app's "active" or "revoked" is reused (§3.3 check 7: best effort). */
const STATUS_TTL_MS = 30_000;

/**
 * Principals' key apps (SchCP §3.3): one client over the webhooks' outbound transport (§3.3
 * "Status URLs": the same policy as §5.8), short timeouts and a small answer bound; check 7's
 * status cached per link; and the give-back queue (BullMQ with Redis, so it survives a restart).
 */
function mountKeyApps(
  opts: BookingFeatureOptions,
  { clock, logger }: Pick<RuntimeBasics, "clock" | "logger">,
): { status: MandateStatusPort; queue: GiveBackQueue; port: SchcpKeyApps } {
  const fetch =
    opts.statusFetch ??
    createPublicFetch({
      connectTimeoutMs: 2_000,
      timeoutMs: 3_000,
      maxResponseBytes: 16 * 1024,
      ...(opts.statusAllowPrivate === true && { allowPrivate: true }),
      ...(opts.statusCa !== undefined && { extraCa: opts.statusCa }),
    });
  const client = createKeyAppClient({ fetch, userAgent: "booking-gateway-key-apps" });
  const attempt = (job: GiveBackJob) => client.giveBack(job.statusUrl, job.claimId);
  const queue: GiveBackQueue =
    opts.redisUrl === undefined
      ? new MemoryGiveBackQueue({ attempt, logger })
      : new BullmqGiveBackQueue({ redisUrl: opts.redisUrl, prefix: bullmqPrefix(opts), attempt, logger });
  const status = new CachingMandateStatus({
    clock,
    ttlMs: STATUS_TTL_MS,
    // A key app that does not answer is asked again after a few seconds, not on every request.
    unknownTtlMs: 5_000,
    fetcher: {
      status: async (link) =>
        link.statusUrl === undefined ? "unknown" : (await client.status(link.statusUrl)).status,
    },
  });
  return {
    status,
    queue,
    port: {
      claim: (url, id) => client.claim(url, id),
      giveBack: (url, id) => client.giveBack(url, id),
      giveBackLater: (job) => queue.enqueue(job),
    },
  };
}
