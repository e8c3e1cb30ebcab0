import type { PlatformIdentity } from "../port.js";

/** Google Calendar API v3, the only version there is; the path carries it on every call. */
export const GOOGLE_CALENDAR_PLATFORM: PlatformIdentity = { vendor: "google-calendar", api_version: "v3" };
