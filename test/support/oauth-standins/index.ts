/**
 * Local stand-ins for the OAuth authorization servers Connect talks to: Google,
 * Microsoft identity platform v2.0 and Square, each a loopback HTTP server answering the real
 * endpoints' paths, parameters and answer shapes, with a consent page the owner clicks. See
 * each module for its sources, and routing.ts for how the real origins reach them.
 */
export { startGoogleStandin, GOOGLE_ORIGINS } from "./google.js";
export { startMicrosoftStandin, MICROSOFT_ORIGINS } from "./microsoft.js";
export { startSquareStandin, SQUARE_ORIGINS, SQUARE_SANDBOX_ORIGINS } from "./square.js";
export {
  installRewritingFetch,
  originMap,
  rewritingFetch,
  routeBrowserToStandins,
  rewrite,
} from "./routing.js";
export type { OAuthStandin } from "./standin.js";
export type { ClientRegistration, IssuedGrant } from "./grants.js";
export type { ReceivedRequest, Answer } from "./loopback.js";
export { startGoogleCalendarFake, startGraphCalendarFake, type CalendarApiFake } from "./api-fakes.js";
export { squareApi } from "./square-api.js";
