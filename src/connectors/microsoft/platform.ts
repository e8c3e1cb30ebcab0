import type { PlatformIdentity } from "../port.js";

/** Microsoft Graph v1.0 (the stable version; beta is not for production). Every URL carries it. */
export const MICROSOFT_GRAPH_PLATFORM: PlatformIdentity = { vendor: "microsoft-graph", api_version: "v1.0" };
