/**
 * OSBP "Platform Metadata and Versioning" and the adapter's boundary: platform identity, the
 * upstream metadata passed through by reference, Deprecation/Sunset on the operator channel
 * only, calendar-kind connectors, and catalog read failures.
 */
import { describe, expect, it } from "vitest";
import type { Connector, ConnectorResult, UpstreamMeta } from "../../../../src/connectors/port.js";
import { SYNTHETIC_PLATFORM } from "../../../../src/connectors/synthetic/index.js";
import { approve, createInput, MONDAY, problemOf, rig, valueOf, wrapConnector } from "./support.js";

type AnyResult = ConnectorResult<unknown>;

/** Passes every capability result through `f` (each result carries its own call's metadata). */
function mapResults(c: Connector, f: (r: AnyResult) => AnyResult): Connector {
  return new Proxy(c, {
    get(target, prop) {
      const capability = Reflect.get(target, prop, target) as unknown;
      if (prop === "platform" || typeof capability !== "object" || capability === null) return capability;
      return new Proxy(capability, {
        get(cap, method) {
          const v = Reflect.get(cap, method, cap) as unknown;
          if (typeof v !== "function") return v;
          return async (...args: unknown[]) =>
            f(await (v as (...a: unknown[]) => Promise<AnyResult>).apply(cap, args));
        },
      });
    },
  });
}

/** The synthetic platform, with Deprecation/Sunset headers on some endpoints. */
function retiring(calls: readonly string[]) {
  return (c: Connector): Connector =>
    mapResults(c, (r) =>
      r.upstream === undefined || !calls.includes(r.upstream.call)
        ? r
        : {
            ...r,
            upstream: { ...r.upstream, deprecation: "@1798761600", sunset: "Sat, 01 May 2027 00:00:00 GMT" },
          },
    );
}

describe('OSBP "Platform Metadata and Versioning"', () => {
  it("platform is the connector's identity; upstreamMeta is the metadata the last result carried, by reference", async () => {
    const seen: UpstreamMeta[] = [];
    const r = rig({
      wrap: (c) =>
        mapResults(c, (res) => {
          if (res.upstream !== undefined) seen.push(res.upstream);
          return res;
        }),
    });
    expect(r.adapter.platform).toEqual(SYNTHETIC_PLATFORM);
    expect(r.adapter.upstreamMeta).toBeUndefined();
    const found = await r.adapter.findAvailability({ service_id: "oil-change", date: MONDAY });
    const meta = r.adapter.upstreamMeta;
    // The catalog is read as the host starts; the core then asks once per technician.
    expect(seen.map((m) => m.call)).toEqual([
      "GET /v2/catalog",
      "POST /v2/availability/search",
      "POST /v2/availability/search",
      "POST /v2/availability/search",
    ]);
    expect(meta).toBe(seen[3]);
    expect(r.adapter.upstreamOf(found)).toBe(meta);
    expect(meta).toMatchObject({ call: "POST /v2/availability/search", status: 200 });
    expect(r.adapter.upstreamMeta).toBe(meta);
    // A tool answered from the cached catalog makes no call: the reference does not move.
    await r.adapter.describeService({ service_id: "oil-change" });
    expect(r.adapter.upstreamMeta).toBe(meta);
  });

  it("Deprecation/Sunset: one operator warning per endpoint, no Problem, output unchanged", async () => {
    const plain = rig();
    const r = rig({ wrap: retiring(["POST /v2/availability/search", "GET /v2/catalog"]) });
    const input = { service_id: "oil-change", date: MONDAY };
    const expected = valueOf(await plain.adapter.findAvailability(input));
    for (let i = 0; i < 3; i++) expect(valueOf(await r.adapter.findAvailability(input))).toEqual(expected);
    // The calls this adapter caused: the search, once. (The catalog is read by the gateway as
    // the host starts, outside any tool call.)
    expect(r.warnings).toHaveLength(1);
    const search = r.warnings.find((w) => w.includes("POST /v2/availability/search"));
    expect(search).toContain("Deprecation: @1798761600");
    expect(search).toContain("Sunset: Sat, 01 May 2027 00:00:00 GMT");
    expect(plain.warnings).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  it("a warning on the create endpoint does not disturb the booking", async () => {
    const r = rig({ wrap: retiring(["POST /v2/bookings"]) });
    const receipt = valueOf(await r.adapter.createBooking(await approve(r.adapter, createInput())));
    expect(receipt.text).toMatch(/^Booked Oil change/);
    expect(r.warnings).toHaveLength(1);
    expect(r.adapter.upstreamMeta?.deprecation).toBe("@1798761600");
  });
});

describe("the adapter boundary", () => {
  it("a calendar-kind connector: the host does not start, every method fails closed and nothing reaches it", async () => {
    const r = rig({ wrap: (c) => wrapConnector(c, { kind: "calendar" }) });
    const a = r.adapter;
    const results = [
      await a.describeService({}),
      await a.findAvailability({ date: MONDAY }),
      await a.explainPolicy({ service_id: "oil-change" }),
      await a.sendVerification({ customer: { phone: "+15555550100" }, purpose: "booking:maple-street-auto" }),
      await a.verifyCode({
        customer: { phone: "+15555550100" },
        purpose: "booking:maple-street-auto",
        code: "1",
      }),
      await a.createBooking(createInput()),
      await a.getBooking({ booking_id: "x" }),
    ];
    // The gateway refuses to start a host whose connector cannot serve it (booking/hosts/capabilities.ts).
    for (const result of results) expect(problemOf(result, "internal_adapter_error").retryable).toBe(false);
    expect(r.errors.join("\n")).toContain("calendar");
    expect(r.count()).toBe(0);
  });

  it("a catalog that could not be read as the host started: retryable upstream_unavailable until the gateway reads it", async () => {
    let failing = true;
    const r = rig({
      wrap: (c) =>
        wrapConnector(c, {
          catalog: () =>
            failing
              ? Promise.resolve({ ok: false, error: { code: "unavailable", message: "503" } })
              : c.catalog.read(),
        }),
    });
    expect(
      problemOf(await r.adapter.describeService({ service_id: "oil-change" }), "upstream_unavailable")
        .retryable,
    ).toBe(true);
    failing = false;
    await (await r.core).host(r.hostId)?.refreshCatalog?.();
    valueOf(await r.adapter.describeService({ service_id: "oil-change" }));
  });

  it("a throw in a read: internal_adapter_error with a generic message; the detail goes to the operator log", async () => {
    const r = rig({
      wrap: (c) =>
        wrapConnector(c, {
          catalog: () => Promise.reject(new Error("socket exploded for +15555550100")),
        }),
    });
    const p = problemOf(await r.adapter.describeService({}), "internal_adapter_error");
    expect(p.message).not.toContain("socket");
    expect(r.errors.join("\n")).toContain("socket exploded");
    problemOf(await r.adapter.describeService({}), "internal_adapter_error");
  });
});
