/**
 * The connectors the console's setup page reads through (src/edges/console/setup/choices.ts):
 * each platform's one upstream client (src/connectors/http.ts), made as its connector makes
 * it, with the platform's default origin; and the CalDAV discovery Connect uses.
 */
import { createGoogleUpstream } from "../../connectors/google/http.js";
import { createGraphUpstream } from "../../connectors/microsoft/http.js";
import { createSquareUpstream } from "../../connectors/square/upstream.js";
import type { SetupConnectors } from "../../edges/console/setup/choices.js";
import { caldavDiscovery } from "./connect-wiring.js";

export const setupConnectors: SetupConnectors = {
  google: ({ accessToken, timeoutMs, rootUrl, fetch }) =>
    createGoogleUpstream({ accessToken, timeoutMs, ...(rootUrl !== undefined && { rootUrl }), fetch }),
  microsoft: ({ accessToken, baseUrl, timeoutMs, fetch }) =>
    createGraphUpstream({ accessToken, baseUrl, timeoutMs, fetch }),
  square: ({ accessToken, environment, version, baseUrl, timeoutMs, fetch }) =>
    createSquareUpstream({
      accessToken,
      version,
      environment,
      ...(baseUrl !== undefined && { baseUrl }),
      timeoutMs,
      fetch,
    }),
  caldav: caldavDiscovery,
};
