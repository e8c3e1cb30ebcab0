/**
 * Change notifications for a mailbox's events (guides "Set up notifications for changes in
 * resource data", "Receive change notifications through webhooks"; resource "subscription"):
 *
 * - create: POST /subscriptions with changeType "created,updated,deleted", the notification
 *   URL, a clientState secret, and an expirationDateTime within Graph's limit for Outlook
 *   events (10 080 minutes, under 7 days); a request past it is clamped to just under it.
 * - validation and each notification's clientState are checked by the pure functions of
 *   notifications.ts.
 * - renew: PATCH /subscriptions/{id} with a new expirationDateTime, before it lapses
 *   (`needsRenewal`); delete: DELETE /subscriptions/{id}.
 *
 * Notifications say only that something changed; the sync job then replays the deltaLink.
 */
import type { ConnectorResult } from "../port.js";
import { graphError } from "./errors.js";
import type { GraphSubscription } from "./graph-types.js";
import { callGraph, type GraphHttpDeps } from "./http.js";
import type { GraphPaths } from "./paths.js";

/** Graph's longest subscription on Outlook events: 10 080 minutes. */
export const MAX_EVENT_SUBSCRIPTION_MS = 10_080 * 60_000;
/** How far under the limit a clamped expiry lands (Graph counts from its own clock). */
const UNDER_LIMIT_MS = 5 * 60_000;

export interface SubscriptionRequest {
  readonly calendarId: string;
  /** HTTPS URL Graph posts notifications (and the validation request) to. */
  readonly notificationUrl: string;
  /** For reauthorizationRequired / subscriptionRemoved / missed lifecycle notifications. */
  readonly lifecycleNotificationUrl?: string;
  /** Secret echoed in every notification; at most 128 characters. */
  readonly clientState: string;
  /** Wanted expiry, epoch ms; default and ceiling: just under Graph's limit from now. */
  readonly expiresAt?: number;
}

export interface Subscription {
  readonly subscriptionId: string;
  readonly resource: string;
  /** Epoch ms when Graph stops notifying. */
  readonly expiresAt: number;
}

export class GraphSubscriptions {
  constructor(
    private readonly paths: GraphPaths,
    private readonly deps: GraphHttpDeps,
  ) {}

  private now(): number {
    return this.deps.clock.now();
  }

  private expiry(wanted: number | undefined): number {
    const ceiling = this.now() + MAX_EVENT_SUBSCRIPTION_MS - UNDER_LIMIT_MS;
    return wanted === undefined ? ceiling : Math.min(wanted, ceiling);
  }

  async create(request: SubscriptionRequest): Promise<ConnectorResult<Subscription>> {
    for (const [field, url] of [
      ["notificationUrl", request.notificationUrl],
      ["lifecycleNotificationUrl", request.lifecycleNotificationUrl],
    ] as const) {
      if (url !== undefined && !url.startsWith("https://")) {
        return {
          ok: false,
          error: { code: "invalid_request", message: `${field}: Graph posts only to HTTPS URLs` },
        };
      }
    }
    if (request.clientState.length === 0 || request.clientState.length > 128) {
      return { ok: false, error: { code: "invalid_request", message: "clientState: 1-128 characters" } };
    }
    const resource = this.paths.eventsResource(request.calendarId);
    const outcome = await callGraph(this.deps, {
      method: "POST",
      url: this.paths.root("subscriptions"),
      body: {
        changeType: "created,updated,deleted",
        notificationUrl: request.notificationUrl,
        ...(request.lifecycleNotificationUrl !== undefined && {
          lifecycleNotificationUrl: request.lifecycleNotificationUrl,
        }),
        resource,
        expirationDateTime: new Date(this.expiry(request.expiresAt)).toISOString(),
        clientState: request.clientState,
      },
    });
    return this.read(outcome, 201);
  }

  async renew(subscriptionId: string, expiresAt?: number): Promise<ConnectorResult<Subscription>> {
    const outcome = await callGraph(this.deps, {
      method: "PATCH",
      url: this.paths.root("subscriptions", subscriptionId),
      body: { expirationDateTime: new Date(this.expiry(expiresAt)).toISOString() },
    });
    return this.read(outcome, 200);
  }

  /** Deletes a subscription; one Graph no longer has (404) is already gone. */
  async delete(subscriptionId: string): Promise<ConnectorResult<{ readonly deleted: boolean }>> {
    const outcome = await callGraph(this.deps, {
      method: "DELETE",
      url: this.paths.root("subscriptions", subscriptionId),
    });
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status === 204) return { ok: true, upstream, value: { deleted: true } };
    if (outcome.value.status === 404) return { ok: true, upstream, value: { deleted: false } };
    return { ok: false, upstream, error: graphError(outcome, this.now()) };
  }

  private read(
    outcome: Awaited<ReturnType<typeof callGraph>>,
    expected: number,
  ): ConnectorResult<Subscription> {
    if (!outcome.ok)
      return { ok: false, error: outcome.error, ...(outcome.meta && { upstream: outcome.meta }) };
    const upstream = outcome.meta;
    if (outcome.value.status !== expected)
      return { ok: false, upstream, error: graphError(outcome, this.now()) };
    const s = (outcome.value.data ?? {}) as GraphSubscription;
    const expiresAt = Date.parse(s.expirationDateTime ?? "");
    if (!s.id || !s.resource || Number.isNaN(expiresAt)) {
      return {
        ok: false,
        upstream,
        error: {
          code: "unavailable",
          message: `${upstream.call} answered a subscription without id, resource or expiry`,
        },
      };
    }
    return { ok: true, upstream, value: { subscriptionId: s.id, resource: s.resource, expiresAt } };
  }
}

/** True when the subscription lapses within `marginMs` of `now` (or has): renew it. */
export function needsRenewal(
  subscription: Pick<Subscription, "expiresAt">,
  now: number,
  marginMs: number,
): boolean {
  return subscription.expiresAt - now <= marginMs;
}
