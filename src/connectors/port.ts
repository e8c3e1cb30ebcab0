/**
 * The Connector: a platform identity, a kind, and the small capability ports the upstream
 * can offer (docs/ARCHITECTURE.md, Folders). A connector implements what its upstream has and leaves the rest
 * absent; a host is checked at start for the capabilities its configuration needs
 * (src/booking/hosts/capabilities.ts).
 *
 * Two kinds of upstream (SchCP §10):
 * - "platform": a booking platform that computes its own availability and takes bookings
 *   (Square, Openings, Servicialo, the synthetic one): catalog + slots + bookings, and
 *   verification where the platform verifies customers.
 * - "calendar": a calendar (Google, Microsoft, CalDAV) the gateway reads busy time from and
 *   writes events into; availability is working hours minus busy time: calendar + events, and
 *   the services come from the host's configuration (a calendar has no catalog of its own).
 *
 * Connectors are plain translators. They take their I/O as constructor parameters (fetch or
 * SDK client, clock, token provider), never read process.env, never write the gateway's
 * stores, and return typed results, each with the metadata of its own upstream call. Every
 * upstream failure comes back as a ConnectorError; a connector throws only for its own bugs.
 */
import type { BookingPort } from "./ports/bookings.js";
import type { CalendarSync } from "./ports/calendar-sync.js";
import type { CatalogSource } from "./ports/catalog.js";
import type { EventWriter } from "./ports/event-writer.js";
import type { PlatformIdentity } from "./ports/result.js";
import type { SlotSource } from "./ports/slots.js";
import type { VerificationPort } from "./ports/verification.js";

export type { Interval } from "../calendar/index.js";
export type * from "./ports/bookings.js";
export { abilitiesOf } from "./ports/bookings.js";
export type * from "./ports/calendar-sync.js";
export type * from "./ports/catalog.js";
export type * from "./ports/event-writer.js";
export type * from "./ports/result.js";
export type * from "./ports/slots.js";
export type * from "./ports/verification.js";

export interface Connector {
  readonly platform: PlatformIdentity;
  readonly kind: "platform" | "calendar";
  /** Read the business: organization, services, resources, hours, taxes. */
  readonly catalog?: CatalogSource;
  /** Platforms: the platform's own free starts. */
  readonly slots?: SlotSource;
  /** Calendars: raw events with their recurrence data, incrementally. */
  readonly calendar?: CalendarSync;
  /** Calendars: the gateway's own events, written with a client-chosen id and a version check. */
  readonly events?: EventWriter;
  /** Appointments kept upstream. */
  readonly bookings?: BookingPort;
  /** Customer verification (OSBP). */
  readonly verification?: VerificationPort;
}

export type Capability = "catalog" | "slots" | "calendar" | "events" | "bookings" | "verification";

export const CAPABILITIES: readonly Capability[] = [
  "catalog",
  "slots",
  "calendar",
  "events",
  "bookings",
  "verification",
];

/** A connector known to have these capabilities. */
export type ConnectorWith<C extends Capability> = Connector & {
  readonly [K in C]-?: NonNullable<Connector[K]>;
};

/** What a platform host needs (the booking core's platform path). */
export type PlatformConnector = ConnectorWith<"catalog" | "slots" | "bookings">;

/** What a calendar host needs, besides services (from the catalog or the host's configuration). */
export type CalendarConnector = ConnectorWith<"calendar" | "events">;

export const capabilitiesOf = (c: Connector): Capability[] => CAPABILITIES.filter((k) => c[k] !== undefined);

export function hasCapabilities<C extends Capability>(
  c: Connector,
  needed: readonly C[],
): c is ConnectorWith<C> {
  return needed.every((k) => c[k] !== undefined);
}
