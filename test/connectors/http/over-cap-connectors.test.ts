/**
 * Openings, Servicialo and Microsoft Graph answers over the JSON cap (connectors/http/limits.ts,
 * 8 MiB by default) are refused while they stream, with reason `upstream_too_large`: each
 * connector is given a fetch whose 200 answers 300 MB of JSON, produced lazily and never held.
 */
import { describe, expect, it } from "vitest";
import { createMicrosoftCalendarConnector } from "../../../src/connectors/microsoft/index.js";
import { createOpeningsConnector } from "../../../src/connectors/openings/connector.js";
import { createServicialoConnector } from "../../../src/connectors/servicialo/connector.js";
import { BASE as OPENINGS, SLUG } from "../openings/fake-openings.js";
import { API_KEY, BASE as SERVICIALO, ORG, PROVIDERS, TZ } from "../servicialo/fake-servicialo.js";

const MiB = 1024 * 1024;

/** A fetch whose every answer is 200 with 300 MB of a JSON array, and how much it produced. */
function hugeFetch(): { fetch: typeof fetch; produced: () => number } {
  let produced = 0;
  const chunk = new TextEncoder().encode('{"id":"x"},'.repeat(6000));
  const fetchHuge: typeof fetch = (_input, init) => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode('{"data":[')),
      pull(c) {
        if (sent >= 300 * MiB) return c.close();
        sent += chunk.byteLength;
        produced += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    if (init?.signal?.aborted) return Promise.reject(init.signal.reason as Error);
    return Promise.resolve(
      new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
    );
  };
  return { fetch: fetchHuge, produced: () => produced };
}

const tooLarge = { ok: false, error: { code: "unavailable", reason: "upstream_too_large" } };

describe("JSON upstreams over the cap", () => {
  it("Openings", async () => {
    const huge = hugeFetch();
    const c = createOpeningsConnector(
      { baseUrl: OPENINGS, businessSlug: SLUG, currency: "USD", timeoutMs: 10_000 },
      { fetch: huge.fetch, logger: { warn: () => undefined } },
    );
    expect(await c.catalog.read()).toMatchObject(tooLarge);
    expect(huge.produced()).toBeLessThan(16 * MiB);
  });

  it("Servicialo", async () => {
    const huge = hugeFetch();
    const c = createServicialoConnector(
      {
        baseUrl: SERVICIALO,
        orgSlug: ORG,
        apiKey: API_KEY,
        timezone: TZ,
        providers: PROVIDERS,
        fallbackClientEmail: "reservas@clinica-demo.example",
        timeoutMs: 10_000,
      },
      { fetch: huge.fetch, logger: { warn: () => undefined } },
    );
    expect(await c.catalog.read()).toMatchObject(tooLarge);
    expect(huge.produced()).toBeLessThan(16 * MiB);
  });

  it("Microsoft Graph (calendar sync)", async () => {
    const huge = hugeFetch();
    const c = createMicrosoftCalendarConnector(
      {},
      { accessToken: () => Promise.resolve("graph-token"), fetch: huge.fetch },
    );
    const window = { start: Date.parse("2026-12-07T00:00:00Z"), end: Date.parse("2027-01-07T00:00:00Z") };
    expect(await c.calendar.sync({ calendarId: "primary", window })).toMatchObject(tooLarge);
    expect(huge.produced()).toBeLessThan(16 * MiB);
  });
});
