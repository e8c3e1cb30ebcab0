/**
 * Meeting contracts, acceptances (SchCP §5.12) and rules (§7.9). All closed, "the same way"
 * as mandates (§5.2 "Claims are closed").
 */
import {
  closed,
  enumOf,
  HOST_PRINCIPAL_PATTERN,
  numericDate,
  positiveInt,
  PRINCIPAL_PATTERN,
  ref,
  str,
  trueOnly,
} from "./common.js";
import type { Schema } from "./common.js";

const principals: Schema = { type: "array", items: ref("PrincipalId"), minItems: 1, uniqueItems: true };

export const meetingDefs: Record<string, Schema> = {
  /** A business member is named urn:schcp:host:<host id>; a person by their principal. */
  MeetingMember: {
    ...closed(
      {
        principal: { type: "string" },
        name: str,
        host: ref("Id"),
        domain: { anyOf: [{ type: "null" }, { type: "string", format: "hostname" }] },
        service_id: ref("Id"),
        offer_sha256: ref("Sha256"),
        business: trueOnly,
        answers: enumOf("person", "person_or_rule"),
      },
      ["principal", "name", "host", "domain", "service_id", "offer_sha256"],
    ),
    if: { required: ["business"] },
    then: { properties: { principal: { pattern: HOST_PRINCIPAL_PATTERN }, answers: false } },
    else: { properties: { principal: { pattern: PRINCIPAL_PATTERN } } },
  },
  /**
   * "start, then end or open_end: true (exactly one), and place" (§5.12 Terms): place is
   * required (strict reading). "at least two members".
   */
  MeetingContractClaims: {
    ...closed(
      {
        v: { const: "0.4" },
        iss: ref("PrincipalId"),
        principal_jwk: ref("Jwk"),
        iat: numericDate,
        exp: numericDate,
        meeting_id: ref("Id"),
        revision: positiveInt,
        title: str,
        tz: ref("TimeZone"),
        start: ref("DateTime"),
        end: ref("DateTime"),
        open_end: trueOnly,
        place: ref("Place"),
        members: { type: "array", items: ref("MeetingMember"), minItems: 2 },
        attendees: {
          type: "array",
          items: closed({ name: str, relationship: str }, ["name"]),
        },
        answers: enumOf("person", "person_or_rule"),
        statement: str,
      },
      [
        "v",
        "iss",
        "principal_jwk",
        "iat",
        "exp",
        "meeting_id",
        "revision",
        "title",
        "tz",
        "start",
        "place",
        "members",
        "statement",
      ],
    ),
    if: { required: ["open_end"] },
    then: { properties: { end: false } },
    else: { required: ["end"] },
  },
  /** by "rule" carries the rule the member signed; by "person" carries none. */
  AcceptanceClaims: {
    ...closed(
      {
        iss: ref("PrincipalId"),
        iat: numericDate,
        terms_sha256: ref("Sha256"),
        meeting_id: ref("Id"),
        by: enumOf("person", "rule"),
        statement: str,
        jwk: ref("Jwk"),
        rule: ref("CompactJws"),
      },
      ["iss", "iat", "terms_sha256", "by", "jwk"],
    ),
    if: { properties: { by: { const: "rule" } } },
    then: { required: ["rule"] },
    else: { properties: { rule: false } },
  },
  /** §7.9: weekdays are read in tz, "which is then required". */
  RuleClaims: {
    ...closed(
      {
        iss: ref("PrincipalId"),
        principal_jwk: ref("Jwk"),
        iat: numericDate,
        exp: numericDate,
        jti: ref("Id"),
        cnf: closed({ jkt: ref("Sha256") }, ["jkt"]),
        label: str,
        services: { type: "array", items: ref("Id"), minItems: 1, uniqueItems: true },
        weekdays: {
          type: "array",
          items: enumOf("mon", "tue", "wed", "thu", "fri", "sat", "sun"),
          minItems: 1,
          uniqueItems: true,
        },
        tz: ref("TimeZone"),
        organizers: principals,
      },
      ["iss", "principal_jwk", "iat", "exp", "jti", "cnf", "label"],
    ),
    dependentRequired: { weekdays: ["tz"] },
  },
};
