import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { describe, expect, it } from "vitest";
import { SCHCP_SCHEMA_DOCUMENT, SCHCP_SCHEMA_ID } from "../../../../src/protocol/schcp/schemas/document.js";
import { isDateTime, isLocalDateTime, isTimeZone } from "../../../../src/protocol/schcp/schemas/formats.js";
import { SCHEMA_NAMES, validateSchcp } from "../../../../src/protocol/schcp/validate.js";
import * as ex from "./spec-examples.js";

describe("SCHCP_SCHEMA_DOCUMENT (§2.1 Versions)", () => {
  it("carries the $id the spec names and the 2020-12 dialect", () => {
    expect(SCHCP_SCHEMA_DOCUMENT.$id).toBe("https://schcp.org/schemas/0.4/schcp.schema.json");
    expect(SCHCP_SCHEMA_ID).toBe(SCHCP_SCHEMA_DOCUMENT.$id);
    expect(SCHCP_SCHEMA_DOCUMENT.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("defines every schema name in $defs", () => {
    const defs = Object.keys(SCHCP_SCHEMA_DOCUMENT.$defs as object);
    for (const name of SCHEMA_NAMES) expect(defs).toContain(name);
  });

  it("is plain JSON: it survives a round trip unchanged", () => {
    expect(JSON.parse(JSON.stringify(SCHCP_SCHEMA_DOCUMENT))).toEqual(SCHCP_SCHEMA_DOCUMENT);
  });

  it("is frozen, so no caller can change what the validators were compiled from", () => {
    expect(Object.isFrozen(SCHCP_SCHEMA_DOCUMENT)).toBe(true);
    expect(Object.isFrozen((SCHCP_SCHEMA_DOCUMENT.$defs as Record<string, object>).OfferClaims)).toBe(true);
  });

  it("as published, compiles in a fresh validator and gives the same answers", () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addFormat("date-time", isDateTime);
    ajv.addFormat("local-date-time", isLocalDateTime);
    ajv.addFormat("iana-time-zone", isTimeZone);
    for (const f of ["uri", "hostname", "email"] as const) ajv.addFormat(f, fullFormats[f]);
    ajv.addSchema(JSON.parse(JSON.stringify(SCHCP_SCHEMA_DOCUMENT)) as object);
    const offer = ajv.getSchema(`${SCHCP_SCHEMA_ID}#/$defs/OfferClaims`);
    expect(offer?.(ex.offer())).toBe(true);
    expect(offer?.({ ...ex.offer(), slot: { ...ex.offer().slot, cancellation_fee: "10.00" } })).toBe(false);
  });
});

describe("validateSchcp never throws (result.ts: bad input comes back as a Result)", () => {
  it.each(SCHEMA_NAMES)("%s compiles and refuses junk without throwing", (name) => {
    for (const junk of [undefined, null, 0, "", [], {}, { __proto__: { x: 1 } }, "PT1H\n", Number.NaN]) {
      const result = validateSchcp(name, junk);
      if (!result.ok) expect(result.error.code).toBe("schema");
    }
  });

  it("property: any JSON-like value gives a Result, never an exception", () => {
    const names = fc.constantFrom(...SCHEMA_NAMES);
    fc.assert(
      fc.property(names, fc.anything({ withObjectString: true, withNullPrototype: true }), (name, value) => {
        const result = validateSchcp(name, value);
        return typeof result.ok === "boolean";
      }),
      { numRuns: 2000 },
    );
  });

  it("property: a mutated valid offer either validates or names a field that exists in the value's path", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("host", "service", "slot", "price", "total"),
        fc.string().filter((k) => k !== "__proto__"),
        (member, key) => {
          const offer = ex.offer() as unknown as Record<string, Record<string, unknown>>;
          offer[member]![key] = 1;
          const result = validateSchcp("OfferClaims", offer);
          if (result.ok) return false; // every one of these objects is closed
          return result.error.field.startsWith(`/${member}/`) || result.error.field === `/${member}`;
        },
      ),
    );
  });

  it("reports every issue in errors, the first being the most specific", () => {
    const body = { ...ex.holdRequest(), payment: {}, ttl: "1 hour" };
    const result = validateSchcp("HoldRequest", body);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.errors?.map((e) => e.field).sort()).toEqual(["/payment", "/ttl"]);
      expect(result.error.message).toContain("HoldRequest");
    }
  });
});
