/**
 * The refusal shape (SchCP §9, §9.2): { error: { code, reason, message, basis?, retry?,
 * remedies?, details? } }, closed. The code must be registered and the reason registered
 * under it; the enums are generated from the registry in ../refusals.ts so the two cannot
 * drift. details is an open object: the spec puts offer_sha256 (CONTRACT_MISMATCH,
 * OFFER_APPROVAL_REQUIRED) and awaiting (awaiting_members) there, and we put a
 * SLOT_UNAVAILABLE's alternatives there too (§5.2).
 */
import { REFUSAL_CODES, REFUSALS } from "../refusals.js";
import { closed, enumOf, ref, str } from "./common.js";
import type { Schema } from "./common.js";

const reasonByCode: Schema[] = REFUSAL_CODES.map((code) => {
  const reasons: readonly string[] = REFUSALS[code].reasons;
  const reason: Schema =
    code === "DECLINED"
      ? // "host_declined:*": host_declined optionally followed by ":" and a host's own suffix.
        { anyOf: [{ enum: [...reasons] }, { type: "string", pattern: "^host_declined:[A-Za-z0-9_.-]+$" }] }
      : { enum: [...reasons] };
  return { if: { properties: { code: { const: code } } }, then: { properties: { reason } } };
});

const remedyBranches: Record<string, Schema> = {
  contact: {
    ...closed({ type: { const: "contact" }, phone: str, url: ref("Uri") }, ["type"]),
    anyOf: [{ required: ["phone"] }, { required: ["url"] }],
  },
  attest: closed({ type: { const: "attest" }, attesters: { type: "array", items: ref("Id"), minItems: 1 } }, [
    "type",
    "attesters",
  ]),
  approve_offer: closed({ type: { const: "approve_offer" }, offer_sha256: ref("Sha256") }, [
    "type",
    "offer_sha256",
  ]),
  retry: closed({ type: { const: "retry" }, after: ref("Duration") }, ["type", "after"]),
};

export const refusalDefs: Record<string, Schema> = {
  /** One remedy, dispatched on type so an error names the member, not a failed oneOf. */
  Remedy: {
    type: "object",
    required: ["type"],
    properties: { type: enumOf(...Object.keys(remedyBranches)) },
    allOf: Object.entries(remedyBranches).map(([type, schema]) => ({
      if: { properties: { type: { const: type } } },
      then: schema,
    })),
  },
  RefusalError: {
    ...closed(
      {
        code: enumOf(...REFUSAL_CODES),
        reason: str,
        message: { type: "string" },
        basis: { type: "object" },
        retry: closed({ after: ref("Duration") }, ["after"]),
        remedies: { type: "array", items: ref("Remedy") },
        details: { type: "object" },
      },
      ["code", "reason", "message"],
    ),
    allOf: reasonByCode,
  },
  Refusal: closed({ error: ref("RefusalError") }, ["error"]),
};
