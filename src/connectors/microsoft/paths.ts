/**
 * Graph URLs of one mailbox: `/me` for the signed-in business account, or `/users/{id}` when
 * the connector acts for a named user (an application permission). A calendar id "primary"
 * (or "default") is the mailbox's default calendar, else `/calendars/{id}`.
 */
export class GraphPaths {
  readonly base: string;
  private readonly user: string;

  constructor(base: string, user: string) {
    this.base = base.replace(/\/+$/, "");
    this.user = user === "me" ? "me" : `users/${encodeURIComponent(user)}`;
  }

  /** `{base}/{user}/{...segments}` */
  mailbox(...segments: string[]): string {
    return [this.base, this.user, ...segments.map(encodeURIComponent)].join("/");
  }

  /** `{base}/{user}[/calendars/{id}]/{...segments}` */
  calendar(calendarId: string, ...segments: string[]): string {
    return isDefault(calendarId)
      ? this.mailbox(...segments)
      : this.mailbox("calendars", calendarId, ...segments);
  }

  /** The subscription resource for a calendar's events, relative ("me/events"). */
  eventsResource(calendarId: string): string {
    return isDefault(calendarId)
      ? `${this.user}/events`
      : `${this.user}/calendars/${encodeURIComponent(calendarId)}/events`;
  }

  /** `{base}/{...segments}` (subscriptions live at the root). */
  root(...segments: string[]): string {
    return [this.base, ...segments.map(encodeURIComponent)].join("/");
  }
}

const isDefault = (calendarId: string): boolean => calendarId === "primary" || calendarId === "default";
