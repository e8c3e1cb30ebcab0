/**
 * tsdav's discovery walk (RFC 6764 /.well-known/caldav, RFC 5397 current-user-principal,
 * RFC 4791 §6.2.1 calendar-home-set, then the home's calendar collections), run in the parse
 * worker with a fetch the main thread answers (discover.ts): tsdav parses every answer itself,
 * so the walk runs where a hostile answer's parse cannot block the event loop.
 */
import { createAccount, fetchCalendars } from "tsdav";

export interface WalkedCalendar {
  readonly url: string;
  readonly displayName?: string;
  readonly components?: readonly string[];
  readonly syncToken?: string;
}

export async function walkDiscovery(
  serverUrl: string,
  fetch: typeof globalThis.fetch,
): Promise<readonly WalkedCalendar[]> {
  const account = await createAccount({
    account: { serverUrl, accountType: "caldav" },
    headers: {},
    fetch,
  });
  const calendars = await fetchCalendars({ account, headers: {}, fetch });
  return calendars.map((c) => ({
    url: c.url,
    ...(typeof c.displayName === "string" ? { displayName: c.displayName } : {}),
    ...(c.components === undefined ? {} : { components: [...c.components] }),
    ...(c.syncToken === undefined || c.syncToken === null ? {} : { syncToken: String(c.syncToken) }),
  }));
}
