/**
 * Discovery (SchCP §2.1, §2.4) and operator (§2.3) documents. These are NOT closed: "an agent
 * ignores members it does not know". The members we know are still typed, so a document the
 * gateway publishes cannot carry a wrongly typed known member. Keys use the closed Jwk schema
 * (§3.4: host keys are OKP/Ed25519), and each discovery key carries its kid (§2.1).
 */
import { enumOf, nonNegativeInt, open, positiveInt, ref, str } from "./common.js";
import type { Schema } from "./common.js";

const durationOr = (word: string): Schema => ({ anyOf: [ref("Duration"), { const: word }] });
const keyWithKid: Schema = { allOf: [ref("Jwk"), { required: ["kid"] }] };

const service: Schema = open(
  {
    id: ref("Id"),
    name: str,
    duration: durationOr("open"),
    buffer_after: ref("Duration"),
    set_aside: durationOr("until_close"),
    price: ref("Money"),
    price_per: enumOf("person", "booking"),
    fees: { type: "array", items: open({ label: str, amount: ref("Money") }, ["label", "amount"]) },
    tax_exempt: { type: "boolean" },
    surcharges: {
      type: "array",
      items: open(
        {
          when: enumOf("same_day", "weekend", "after_hours"),
          label: str,
          amount: ref("Money"),
          percent: { type: "number", exclusiveMinimum: 0 },
          after: { type: "string", pattern: "^(?:[01][0-9]|2[0-3]):[0-5][0-9]$" },
        },
        ["when", "label"],
      ),
    },
    requires: {
      type: "array",
      items: open({ resource_type: str, combine: { type: "boolean" }, selectable: { type: "boolean" } }, [
        "resource_type",
      ]),
    },
    selectable: { type: "boolean" },
    booking_window: open({
      min_notice: ref("Duration"),
      max_advance: ref("Duration"),
      opens: open(
        { days_ahead: nonNegativeInt, at: { type: "string", pattern: "^(?:[01][0-9]|2[0-3]):[0-5][0-9]$" } },
        ["days_ahead", "at"],
      ),
    }),
    party_size: open({ min: positiveInt, max: positiveInt }, ["min", "max"]),
    location: enumOf("host", "guest", "elsewhere"),
    eligibility: open({ guest: enumOf("returning", "new") }, ["guest"]),
  },
  ["id", "name", "duration"],
);

const policies: Schema = open(
  {
    holds: open({
      max_ttl: ref("Duration"),
      max_active_per_agent: nonNegativeInt,
      requires_mandate: { type: "boolean" },
      max_active_unproven: nonNegativeInt,
      max_active_per_attester: nonNegativeInt,
    }),
    confirmation: enumOf("instant", "host_approval"),
    closed_mandate: enumOf("never", "always"),
    retention: ref("Retention"),
    access: enumOf("public", "contacts"),
    reconfirm: open({ before: ref("Duration"), default: enumOf("release", "keep") }, ["before"]),
    waitlist: open({ offer_ttl: ref("Duration"), max_entries_per_agent: nonNegativeInt }),
    service_area: open({ country: str, postal_prefixes: { type: "array", items: str } }, ["country"]),
    data: open({
      free_text_notes: enumOf("accept", "refuse"),
      intake_url: { type: "string", format: "uri" },
    }),
  },
  // "policies.retention (required)" (§2.1).
  ["retention"],
);

export const discoveryDefs: Record<string, Schema> = {
  DiscoveryService: service,
  DiscoveryDocument: open(
    {
      schcp: { const: "0.4" },
      host: open(
        {
          id: ref("Id"),
          name: str,
          kind: enumOf("business", "person"),
          timezone: ref("TimeZone"),
          url: ref("Uri"),
          phone: str,
          address: { type: "object" },
        },
        ["id", "name", "timezone"],
      ),
      endpoint: ref("EndpointUri"),
      operator: {
        anyOf: [
          { type: "null" },
          open({ domain: { type: "string", format: "hostname" }, name: str }, ["domain"]),
        ],
      },
      keys: { type: "array", items: keyWithKid, minItems: 1 },
      services: { type: "array", items: ref("DiscoveryService") },
      policies,
      capabilities: { type: "array", items: str, uniqueItems: true },
      auth: open({ request_signing: str, mandates: { type: "array", items: str } }),
      trust: open({
        attesters: {
          type: "array",
          items: open({ id: ref("Id"), name: str, keys: { type: "array", items: ref("Jwk"), minItems: 1 } }, [
            "id",
            "keys",
          ]),
        },
      }),
      brand: open(
        {
          id: ref("Id"),
          name: str,
          locations: {
            type: "array",
            items: open({ host_id: ref("Id"), name: str, discovery: ref("EndpointUri") }, [
              "host_id",
              "discovery",
            ]),
          },
        },
        ["id", "name"],
      ),
    },
    ["schcp", "host", "endpoint", "keys", "services", "policies"],
  ),
  OperatorDocument: open(
    {
      schcp: { const: "0.4" },
      operator: open({ name: str, domain: { type: "string", format: "hostname" } }, ["name", "domain"]),
      hosts: {
        type: "array",
        items: open(
          {
            id: ref("Id"),
            discovery: ref("EndpointUri"),
            host_domain: { anyOf: [{ type: "null" }, { type: "string", format: "hostname" }] },
          },
          ["id", "discovery", "host_domain"],
        ),
      },
    },
    ["schcp", "operator", "hosts"],
  ),
};
