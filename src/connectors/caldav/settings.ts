/**
 * A CalDAV host's connection settings, checked before a connector is made: every problem comes
 * back as a FieldError naming the field ("/serverUrl", "/calendarPath", "/username", …).
 *
 * - serverUrl: the server's base URL, https or http. Which of them may be reached, and where, is
 *   the outbound address policy's to say when the request is made (src/protocol/net/policy.ts:
 *   public addresses over https, unless the operator allows private networks and plain http,
 *   since Basic credentials over http cross the network readable). No user info (the
 *   credentials go in username/password, never in a URL that may be logged), no query or fragment.
 * - calendarPath: the calendar collection the host books into (a path on the server, or its full
 *   URL on the same origin); the default calendarId.
 * - username / password: HTTP Basic credentials, both or neither (a server without auth).
 * Unknown members are refused, so a misspelt field is not silently ignored.
 */
import { err, fieldError, ok, type FieldError, type Result } from "../../protocol/result.js";
import { didYouMean } from "../../protocol/nearest-name.js";
import { calendarUrl } from "./resources.js";

export interface CaldavSettings {
  readonly serverUrl: string;
  readonly calendarPath?: string;
  readonly username?: string;
  readonly password?: string;
}

const KNOWN = new Set(["serverUrl", "calendarPath", "username", "password"]);

export function validateCaldavSettings(input: unknown): Result<CaldavSettings, FieldError> {
  const bad = (field: string, message: string): Result<CaldavSettings, FieldError> =>
    err(fieldError("invalid_settings", field, message));
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return bad("", "CalDAV settings are an object { serverUrl, calendarPath?, username?, password? }");
  const s = input as Record<string, unknown>;
  const unknown = Object.keys(s).find((k) => !KNOWN.has(k));
  if (unknown !== undefined)
    return bad(
      `/${unknown}`,
      `unknown CalDAV setting ${JSON.stringify(unknown)}${didYouMean(unknown, KNOWN)}`,
    );

  if (typeof s["serverUrl"] !== "string" || s["serverUrl"] === "")
    return bad("/serverUrl", "serverUrl is required: the CalDAV server's base URL");
  let server: URL;
  try {
    server = new URL(s["serverUrl"]);
  } catch {
    return bad("/serverUrl", "serverUrl is not a URL");
  }
  if (server.protocol !== "https:" && server.protocol !== "http:")
    return bad("/serverUrl", "serverUrl must be an https URL");
  if (server.username !== "" || server.password !== "")
    return bad("/serverUrl", "serverUrl must not carry credentials: set username and password");
  if (server.search !== "" || server.hash !== "")
    return bad("/serverUrl", "serverUrl must not have a query or fragment");

  const calendarPath = s["calendarPath"];
  if (calendarPath !== undefined) {
    if (typeof calendarPath !== "string") return bad("/calendarPath", "calendarPath is a string");
    const where = calendarUrl(server, calendarPath);
    if (!where.ok) return bad("/calendarPath", where.error.replace("calendarId", "calendarPath"));
  }

  const { username, password } = s;
  if (username !== undefined && (typeof username !== "string" || username === "" || username.includes(":")))
    return bad("/username", "username is a non-empty string without ':' (HTTP Basic, RFC 7617)");
  if (password !== undefined && typeof password !== "string") return bad("/password", "password is a string");
  if (username !== undefined && password === undefined)
    return bad("/password", "password is required with a username");
  if (password !== undefined && username === undefined)
    return bad("/username", "username is required with a password");

  return ok({
    serverUrl: server.href,
    ...(typeof calendarPath === "string" ? { calendarPath } : {}),
    ...(typeof username === "string" ? { username } : {}),
    ...(typeof password === "string" ? { password } : {}),
  });
}
