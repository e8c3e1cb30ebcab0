/**
 * What the console's route files share: its own deps (ConsoleDeps) and the guard and response
 * helpers mountConsole (routes.ts) lends the routes it mounts beside its own (ConsoleKit). The
 * route files import these from here, never from routes.ts, which imports them: this file
 * imports none of the route files.
 */
import type { Context } from "hono";
import type { ConsoleViewer, OwnerCaps } from "./managed-hosts.js";
import type { OwnerAccounts } from "./accounts.js";
import type { Session, Sessions } from "./sessions.js";
import type { SignInGate } from "./sign-in-gate.js";
import type { SignInLimiter } from "./sign-in-limit.js";
import type { SetupChoices } from "./setup/choices.js";
import type { Result } from "../../protocol/result.js";

/**
 * A calendar host's busy time in [from, to), as its last syncs left it (the events the gateway
 * wrote itself left out); undefined when the host has no calendar. The root builds it over the
 * calendar sync's state (src/gateway/runtime/features/calendar.ts) and hands it in.
 */
export type CalendarBusy = (
  hostId: string,
  from: number,
  to: number,
) => Promise<ReadonlyArray<{ readonly start: number; readonly end: number }> | undefined>;

export interface ConsoleDeps {
  readonly sessions: Sessions;
  readonly signInLimiter: SignInLimiter;
  /** How many credential checks run at once (sign-in-gate.ts). */
  readonly signInGate: SignInGate;
  readonly accounts: OwnerAccounts;
  /** How many hosts and drafts one owner may have (default DEFAULT_OWNER_CAPS: 20 drafts, 50 hosts). */
  readonly ownerCaps?: OwnerCaps;
  /** What an upstream offers a host being set up (src/edges/console/setup/choices.ts); absent: ids are typed. */
  readonly setupChoices?: SetupChoices;
  /** Busy time from calendar hosts' calendars, for a host's week (week-view.ts); absent: bookings only. */
  readonly calendarBusy?: CalendarBusy;
}

/** What the account and A2A key routes (accounts-routes.ts, a2a-key-routes.ts) share with the console's own. */
export interface ConsoleKit {
  readonly html: (status: number, body: string, headers?: Record<string, string>) => Response;
  readonly sameOrigin: (c: Context) => boolean;
  readonly readForm: (c: Context) => Promise<URLSearchParams | undefined>;
  /** `maxBytes`: a form bigger than the console's usual few hundred bytes (a signed rule). */
  readonly authorized: (c: Context, maxBytes?: number) => Promise<Authorized>;
  /** The live session and its viewer of a GET, if any. */
  readonly signedIn: (
    c: Context,
  ) => Promise<{ id: string; session: Session; viewer: ConsoleViewer } | undefined>;
  /** 303 to a console page. */
  readonly redirect: (location: string) => Response;
  readonly forbidden: (text: string) => Response;
  /** Ends the request's old session, starts one for `viewer` (a new id), and goes home. */
  readonly startSession: (c: Context, viewer?: ConsoleViewer) => Promise<Response>;
}

/** A state-changing POST's session id, session, viewer and form; or the 403 that refuses it. */
export type Authorized = Result<
  { id: string; session: Session; viewer: ConsoleViewer; form: URLSearchParams },
  Response
>;
