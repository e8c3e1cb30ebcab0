/**
 * The business as the core reads it and hands it to the edges: its organization, services,
 * resources with their weekly hours, and taxes (HostRuntime.catalog, api.ts). Every edge
 * describes a host from these (SchCP discovery §2.1, OSBP service.describe and Slots, A2A
 * list_services), so they are the core's own declarations: an edge names the core, never a
 * connector (docs/ARCHITECTURE.md, Dependency rules).
 *
 * A platform's connector reads the same shapes (src/connectors/ports/catalog.ts): a
 * connector's catalog is assignable to this one, which test/booking/domain-types.test.ts pins,
 * so the core takes what a connector read as it is. A calendar host's catalog is the host's
 * configured services (src/booking/calendar/config.ts).
 */
import type { WorkingPeriod } from "../calendar/index.js";
import type { Money } from "../protocol/money/index.js";

/** ISO weekday and wall-clock "HH:MM" in the location's zone; close ≤ open continues past midnight. */
export type WeeklyPeriod = WorkingPeriod;

export interface CatalogResource {
  readonly id: string;
  /** SchCP resource_type (§4.1): "bay", "technician", "chair", "person". */
  readonly type: string;
  readonly name: string;
  readonly capacity: number;
  readonly hours: readonly WeeklyPeriod[];
  /**
   * A person (staff member) whose time a booking binds, as opposed to a room, bay or piece of
   * equipment: the OSBP Provider.
   */
  readonly staff?: boolean;
}

export interface CatalogTax {
  readonly label: string;
  /** The exact decimal as written (e.g. "13"), applied half up (SchCP §2.1). */
  readonly percent: string;
}

export interface CatalogService {
  readonly id: string;
  readonly name: string;
  /** Milliseconds, or "open" for an open-ended service (SchCP §4.2). */
  readonly duration: number | "open";
  readonly bufferAfterMs: number;
  /** Open-ended services: ms set aside, or until the first resource closes (SchCP §4.2). */
  readonly setAside?: number | "until_close";
  /** Absent: the service has no price (SchCP §5.2). */
  readonly price?: Money;
  readonly pricePer?: "booking" | "person";
  /** Mandatory fees added as lines (SchCP §5.2 service.fees). */
  readonly fees?: ReadonlyArray<{ readonly label: string; readonly amount: Money }>;
  readonly taxExempt?: boolean;
  readonly requires: ReadonlyArray<{ readonly resourceType: string; readonly combine?: boolean }>;
  /** The platform needs the customer verified before it books this service. */
  readonly requiresVerification?: boolean;
  /** The platform routes this service to a consultation/quote workflow (OSBP). */
  readonly requiresConsultation?: boolean;
  /**
   * Payment the platform itself requires (OSBP policy.explain); SchCP never moves money.
   * Absent means the platform did not say, which OSBP reads as "unknown" and fails closed on.
   */
  readonly payment?: {
    readonly requirement: "none" | "deposit" | "full_prepay" | "unknown";
    readonly deposit?: Money;
  };
  /** Non-fixed price kinds a platform may report (OSBP Money type). */
  readonly priceType?: "fixed" | "insurance_dependent" | "quote_required" | "unknown";
  readonly cancellationFee?: Money;
  readonly noShowFee?: Money;
  /** Cancellation terms the platform reports (OSBP policy.explain); absent when it reports none. */
  readonly cancellation?: {
    readonly enabled: boolean;
    /** How long before the start a cancellation is still accepted, ms. */
    readonly windowMs?: number;
    /** The platform's own wording, shown as display data. */
    readonly note?: string;
    /** Lateness tolerated before the appointment counts as a no-show, ms. */
    readonly lateGraceMs?: number;
  };
}

/** Where a business is: a one-line postal address and WGS 84 coordinates, each when known. */
export interface PlaceLocation {
  readonly address?: string;
  readonly latitude?: number;
  readonly longitude?: number;
}

/** The business: services, resources, hours, taxes. */
export interface Catalog {
  readonly organization: {
    readonly id: string;
    readonly name: string;
    readonly timezone: string;
    readonly currency?: string;
    readonly country?: string;
    /** The location's address and coordinates, when the upstream reports them. */
    readonly location?: PlaceLocation;
    /**
     * How the platform itself answers a new booking, when it says: "host_approval" when it
     * holds each one for the business to accept. Absent: the platform does not say.
     */
    readonly confirmation?: "instant" | "host_approval";
  };
  readonly services: readonly CatalogService[];
  readonly resources: readonly CatalogResource[];
  readonly taxes: readonly CatalogTax[];
  readonly verificationMethod?: "sms" | "email" | "none" | "unknown";
}
