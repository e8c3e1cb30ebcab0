/**
 * Square's API behind the Square stand-in: Square serves its OAuth endpoints and its API on one
 * origin (connect.squareup.com), so the stand-in hands every non-OAuth path to this handler.
 *
 * The setup page's reads (src/edges/console/setup/choices.ts) are answered here, in the documented
 * shapes and from the same fixtures as the platform fake (fixtures/square/):
 * - ListLocations, GET /v2/locations → { locations: [location.json's location] }
 * - SearchTeamMembers, POST /v2/team-members/search → { team_members: [...] } built from
 *   team-member-booking-profiles.json (given/family name split from display_name)
 * - SearchCatalogObjects, POST /v2/catalog/search → { objects: catalog-search-items.json's items }
 * Everything else (the connector's catalog, availability and booking calls) is forwarded to
 * the stateful platform fake (test/e2e/support/fake-square.ts) on its loopback socket.
 * The setup reads take only the platform's token, as Square would.
 */
import { readFixtureJson } from "../fixtures.js";
import { json, type Answer, type ReceivedRequest } from "./loopback.js";

type Json = Record<string, unknown>;

export function squareApi(platform: { readonly origin: string; readonly token: string }) {
  const unauthorized = json(401, {
    errors: [
      {
        category: "AUTHENTICATION_ERROR",
        code: "UNAUTHORIZED",
        detail: "This request could not be authorized.",
      },
    ],
  });
  return async (r: ReceivedRequest): Promise<Answer> => {
    const setupRead =
      (r.method === "GET" && r.path === "/v2/locations") ||
      (r.method === "POST" && (r.path === "/v2/team-members/search" || r.path === "/v2/catalog/search"));
    if (setupRead) {
      if (r.headers["authorization"] !== `Bearer ${platform.token}`) return unauthorized;
      if (r.path === "/v2/locations")
        return json(200, {
          locations: [readFixtureJson<{ location: Json }>("square/location.json").location],
        });
      if (r.path === "/v2/team-members/search") {
        const profiles = readFixtureJson<{ team_member_booking_profiles: Json[] }>(
          "square/team-member-booking-profiles.json",
        ).team_member_booking_profiles;
        return json(200, {
          team_members: profiles.map((p) => {
            const [given, ...family] = String(p["display_name"]).split(" ");
            return {
              id: p["team_member_id"],
              is_owner: false,
              status: "ACTIVE",
              given_name: given,
              family_name: family.join(" "),
            };
          }),
        });
      }
      return json(200, {
        objects: readFixtureJson<{ items: Json[] }>("square/catalog-search-items.json").items,
      });
    }
    const query = new URLSearchParams(r.query).toString();
    const res = await fetch(`${platform.origin}${r.path}${query === "" ? "" : `?${query}`}`, {
      method: r.method,
      headers: Object.fromEntries(
        Object.entries(r.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
      ),
      ...(r.body !== undefined && { body: JSON.stringify(r.body) }),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!["content-length", "transfer-encoding", "connection", "keep-alive"].includes(k)) headers[k] = v;
    });
    return { status: res.status, headers, body: await res.text() };
  };
}
