import { afterEach, describe, expect, it } from "vitest";
import { renderConsentText } from "../../../../src/protocol/schcp/consent/render.js";
import type { OfferClaims } from "../../../../src/protocol/schcp/types.js";
import { MAPLE_CHANGE, MAPLE_OFFER, PLAYDATE_OFFER, copy } from "../offer/support.js";

/** The offer behind the reference key app's text in SchCP §5.2. */
const HARBOURVIEW: OfferClaims = {
  v: "0.4",
  kind: "booking",
  iss: "harbourview-dental",
  hold_id: "h_hv",
  iat: 1792000000,
  exp: 1792000300,
  host: { name: "Harbourview Dental", tz: "America/Vancouver", domain: "harbourviewdental.example" },
  service: { id: "cleaning", name: "Cleaning and check-up" },
  slot: { start: "2026-10-15T08:00:00-07:00", end: "2026-10-15T09:00:00-07:00" },
  price: { amount: "180.00", currency: "CAD" },
  total: { amount: "180.00", currency: "CAD" },
  lines: [{ kind: "service", label: "Cleaning and check-up", amount: { amount: "180.00", currency: "CAD" } }],
  retention: "P365D",
};
const HV = { discoveredDomain: "harbourviewdental.example" };
const RETAIN_1Y = "Harbourview Dental keeps my booking details for 1 year after the booking.";

function hv(edit: (o: OfferClaims) => void): OfferClaims {
  const o = copy(HARBOURVIEW);
  edit(o);
  return o;
}

/** Only the terms sentence: the text before the sentences that follow it. */
function terms(o: OfferClaims, opts: { discoveredDomain?: string | null } = HV): string {
  const text = renderConsentText(o, opts);
  const name = o.host?.name ?? o.iss;
  const next = [" I must reconfirm", ` ${name} will answer`, ` ${name} keeps`, ` ${name} does not keep`]
    .map((s) => text.indexOf(s))
    .filter((i) => i >= 0);
  return text.slice(0, Math.min(...next));
}

describe("renderConsentText: the spec's example (SchCP §5.2)", () => {
  it("reproduces the reference key app's text exactly, then the retention sentence", () => {
    expect(renderConsentText(HARBOURVIEW, HV)).toBe(
      "Cleaning and check-up with Harbourview Dental (harbourviewdental.example), Thursday 15 October 2026, " +
        "8:00–9:00 a.m. Pacific time, CAD 180.00, paid to Harbourview Dental directly. " +
        RETAIN_1Y,
    );
  });

  it("states the TOTAL in canonical form, not the price (§5.2 all-in total)", () => {
    expect(terms(MAPLE_OFFER, { discoveredDomain: "maplestreetauto.example" })).toBe(
      "Synthetic oil change with Maple Street Auto (maplestreetauto.example), Thursday 15 October 2026, " +
        "1:00–1:45 p.m. Eastern time, CAD 89.27, paid to Maple Street Auto directly.",
    );
    expect(
      terms(
        hv((o) => {
          o.total!.amount = "180";
        }),
      ),
    ).toContain("CAD 180.00, paid to");
  });
});

describe("renderConsentText: host identity (SchCP §5.2, §5.3 consent trust boundary)", () => {
  it("shows the discovered domain, never a different one the offer claims", () => {
    expect(terms(HARBOURVIEW, { discoveredDomain: "harbourview-dental.example" })).toMatch(
      /^Cleaning and check-up with Harbourview Dental \(harbourview-dental\.example\), /,
    );
  });

  it.each([undefined, null, ""])(
    "labels the claimed identity unverified with no discovered domain (%j)",
    (d) => {
      const text = renderConsentText(HARBOURVIEW, { discoveredDomain: d });
      expect(text).toMatch(/^Cleaning and check-up with Harbourview Dental \(unverified\), /);
      expect(text).not.toContain("harbourviewdental.example");
    },
  );

  it("shows iss when the offer claims no domain (a person's calendar), still unverified", () => {
    expect(terms(PLAYDATE_OFFER, {})).toMatch(/^Playdate with Ellis Moreau \(ellis-moreau, unverified\), /);
  });

  it("falls back to iss and the slot's own UTC offset when host is absent", () => {
    const o = copy(MAPLE_OFFER);
    delete o.host;
    expect(terms(o, { discoveredDomain: "maplestreetauto.example" })).toBe(
      "Synthetic oil change with maple-street-auto (maplestreetauto.example), Thursday 15 October 2026, " +
        "1:00–1:45 p.m. UTC\u221204:00, CAD 89.27, paid to maple-street-auto directly.",
    );
    expect(renderConsentText(o, {})).toContain("maple-street-auto keeps my booking details for 1 year");
  });

  it("names a chosen resource: 'Haircut with Marcus at Fades on Queen' (§5.2)", () => {
    const o = hv((x) => {
      x.iss = "fades-on-queen";
      x.host = { name: "Fades on Queen", tz: "America/Toronto", domain: "fadesonqueen.example" };
      x.service = { id: "haircut", name: "Haircut" };
      x.resource = "barber-marcus";
      x.resource_name = "Marcus";
      x.slot = { start: "2026-10-15T16:00:00-04:00", end: "2026-10-15T16:30:00-04:00" };
    });
    expect(terms(o, { discoveredDomain: "fadesonqueen.example" })).toBe(
      "Haircut with Marcus at Fades on Queen (fadesonqueen.example), Thursday 15 October 2026, " +
        "4:00–4:30 p.m. Eastern time, CAD 180.00, paid to Fades on Queen directly.",
    );
  });
});

describe("renderConsentText: the terms (SchCP §4.2, §5.2, §8)", () => {
  it("renders an open-ended playdate at a place, with no money and the host's answer deadline", () => {
    expect(renderConsentText(PLAYDATE_OFFER, {})).toBe(
      "Playdate with Ellis Moreau (ellis-moreau, unverified), Saturday 17 October 2026 from 12:00 p.m. Eastern time, " +
        "open-ended, at Trinity Bellwoods Park playground, Toronto. " +
        "Ellis Moreau will answer by Tuesday 13 October 2026, 9:15 p.m. Eastern time. " +
        "Ellis Moreau keeps my booking details for 30 days after the booking.",
    );
  });

  it("renders every part of a place, in order", () => {
    const o = hv((x) => {
      x.place = {
        name: "Home",
        street: "12 Main St",
        locality: "Victoria",
        region: "BC",
        postal_code: "V8V 1A1",
        country: "CA",
      };
    });
    expect(terms(o)).toContain("Pacific time, at Home, 12 Main St, Victoria, BC, V8V 1A1, CA, CAD 180.00");
  });

  it("renders no money at all for an unpriced offer", () => {
    const o = hv((x) => {
      delete x.price;
      delete x.total;
      delete x.lines;
    });
    const text = renderConsentText(o, HV);
    expect(text).toBe(
      "Cleaning and check-up with Harbourview Dental (harbourviewdental.example), Thursday 15 October 2026, " +
        `8:00–9:00 a.m. Pacific time. ${RETAIN_1Y}`,
    );
    expect(text).not.toMatch(/CAD|paid/);
  });

  it("renders the total of an unpriced extension: an amount the person agrees to pay (§5.8)", () => {
    const o = hv((x) => {
      x.kind = "change";
      delete x.hold_id;
      x.booking_id = "b_hv";
      x.prev = null;
      delete x.price;
      x.total = { amount: "40.00", currency: "CAD" };
      x.lines = [{ kind: "fee", label: "Extra 30 minutes", amount: { amount: "40.00", currency: "CAD" } }];
    });
    expect(terms(o)).toContain("CAD 40.00, paid to Harbourview Dental directly.");
  });

  it("says the party size when more than one person comes", () => {
    expect(
      terms(
        hv((x) => {
          x.party_size = 4;
        }),
      ),
    ).toContain("Pacific time, for 4 people, CAD 180.00");
    expect(
      terms(
        hv((x) => {
          x.party_size = 1;
        }),
      ),
    ).not.toContain("people");
  });

  it("renders currencies with their own minor units", () => {
    const jpy = hv((x) => {
      x.price = { amount: "5000", currency: "JPY" };
      x.total = { amount: "5500", currency: "JPY" };
      x.lines = [{ kind: "service", label: "Cut", amount: { amount: "5500", currency: "JPY" } }];
    });
    expect(terms(jpy)).toContain("JPY 5500, paid to");
  });

  it("starts a change offer with 'Change my booking to:' (§5.7)", () => {
    expect(renderConsentText(MAPLE_CHANGE, { discoveredDomain: "maplestreetauto.example" })).toMatch(
      /^Change my booking to: Synthetic oil change with Maple Street Auto \(maplestreetauto\.example\), Thursday 15 October 2026, 2:00–2:45 p\.m\. Eastern time, /,
    );
  });
});

describe("renderConsentText: reconfirmation (SchCP §5.10) and retention (§2.1)", () => {
  it("states when reconfirmation is due and what silence does", () => {
    expect(
      renderConsentText(
        hv((x) => {
          x.reconfirm = { before: "PT24H", default: "release" };
        }),
        HV,
      ),
    ).toBe(
      "Cleaning and check-up with Harbourview Dental (harbourviewdental.example), Thursday 15 October 2026, " +
        "8:00–9:00 a.m. Pacific time, CAD 180.00, paid to Harbourview Dental directly. " +
        "I must reconfirm 24 hours before the start; if I don't, the booking is released. " +
        RETAIN_1Y,
    );
    expect(
      renderConsentText(
        hv((x) => {
          x.reconfirm = { before: "P2D", default: "keep" };
        }),
        HV,
      ),
    ).toContain("I must reconfirm 2 days before the start; if I don't, the booking stands.");
    expect(
      renderConsentText(
        hv((x) => {
          x.reconfirm = { before: "PT1H30M", default: "release" };
        }),
        HV,
      ),
    ).toContain("I must reconfirm 1 hour and 30 minutes before the start;");
  });

  it.each([
    ["P365D", "keeps my booking details for 1 year after the booking."],
    ["P52W1D", "keeps my booking details for 1 year after the booking."],
    ["P730D", "keeps my booking details for 2 years after the booking."],
    ["P30D", "keeps my booking details for 30 days after the booking."],
    ["P1D", "keeps my booking details for 1 day after the booking."],
    ["P2W", "keeps my booking details for 2 weeks after the booking."],
    ["P7D", "keeps my booking details for 1 week after the booking."],
    ["P0D", "does not keep my booking details after the booking."],
  ])("retention %s reads '… %s'", (retention, words) => {
    const text = renderConsentText(
      hv((x) => {
        x.retention = retention;
      }),
      HV,
    );
    expect(text.endsWith(` Harbourview Dental ${words}`)).toBe(true);
  });
});

describe("renderConsentText: times in words in host.tz", () => {
  const at = (start: string, end?: string) =>
    terms(
      hv((x) => {
        x.slot = end === undefined ? { start } : { start, end };
        if (end === undefined) x.open_end = true;
      }),
    );

  it("writes a shared meridiem once and a split one twice (a slot crossing noon)", () => {
    expect(at("2026-10-15T11:30:00-07:00", "2026-10-15T12:15:00-07:00")).toContain(
      "Thursday 15 October 2026, 11:30 a.m.–12:15 p.m. Pacific time,",
    );
    expect(at("2026-10-15T13:00:00-07:00", "2026-10-15T14:05:30-07:00")).toContain(
      "1:00–2:05:30 p.m. Pacific time,",
    );
  });

  it("writes noon as 12:00 p.m. and midnight as 12:00 a.m.", () => {
    expect(at("2026-10-15T12:00:00-07:00", "2026-10-15T12:30:00-07:00")).toContain(
      "12:00–12:30 p.m. Pacific time",
    );
    expect(at("2026-10-15T00:00:00-07:00", "2026-10-15T00:45:00-07:00")).toContain(
      "Thursday 15 October 2026, 12:00–12:45 a.m. Pacific time",
    );
    expect(at("2026-10-15T11:00:00-07:00", "2026-10-15T12:00:00-07:00")).toContain(
      "11:00 a.m.–12:00 p.m. Pacific time",
    );
    expect(at("2026-10-15T12:00:00-07:00")).toContain(
      "Thursday 15 October 2026 from 12:00 p.m. Pacific time, open-ended",
    );
  });

  it("names the day an end falls on when it is another day", () => {
    expect(at("2026-10-15T23:00:00-07:00", "2026-10-16T00:00:00-07:00")).toContain(
      "Thursday 15 October 2026, 11:00 p.m. – Friday 16 October 2026, 12:00 a.m. Pacific time,",
    );
  });

  it("reads a slot written in UTC in the host's zone", () => {
    expect(at("2026-10-15T15:00:00Z", "2026-10-15T16:00:00Z")).toContain(
      "Thursday 15 October 2026, 8:00–9:00 a.m. Pacific time",
    );
  });

  it("gets the wall clock right on a DST-boundary day (spring forward, 8 March 2026)", () => {
    expect(at("2026-03-08T10:00:00-07:00", "2026-03-08T11:00:00-07:00")).toContain(
      "Sunday 8 March 2026, 10:00–11:00 a.m. Pacific time,",
    );
    // The day before is still on standard time: same wall clock, other offset.
    expect(at("2026-03-07T10:00:00-08:00", "2026-03-07T11:00:00-08:00")).toContain(
      "Saturday 7 March 2026, 10:00–11:00 a.m.",
    );
  });

  it("gives each end its offset when a slot spans a DST change, so no hour hides", () => {
    // 1 November 2026: 1:30 a.m. happens twice in Vancouver; this slot is that one hour.
    expect(at("2026-11-01T01:30:00-07:00", "2026-11-01T01:30:00-08:00")).toContain(
      "Sunday 1 November 2026, 1:30 a.m. Pacific time (UTC\u221207:00) – 1:30 a.m. Pacific time (UTC\u221208:00),",
    );
    expect(at("2026-03-08T01:30:00-08:00", "2026-03-08T03:30:00-07:00")).toContain(
      "1:30 a.m. Pacific time (UTC\u221208:00) – 3:30 a.m. Pacific time (UTC\u221207:00)",
    );
  });

  it("uses a generic zone name in lower-case 'time', or the UTC offset when there is no good one", () => {
    const inZone = (tz: string) =>
      terms(
        hv((x) => {
          x.host!.tz = tz;
        }),
      );
    expect(inZone("America/Toronto")).toContain("11:00 a.m.–12:00 p.m. Eastern time");
    expect(inZone("Asia/Kolkata")).toContain("8:30–9:30 p.m. India standard time");
    expect(inZone("Etc/GMT+4")).toContain("11:00 a.m.–12:00 p.m. UTC\u221204:00");
    expect(inZone("UTC")).toContain("3:00–4:00 p.m. UTC,");
  });
});

describe("renderConsentText is deterministic (SchCP §5.3)", () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it("gives the same text under another process time zone", () => {
    const before = renderConsentText(HARBOURVIEW, HV);
    process.env.TZ = "Asia/Tokyo";
    // Proves the change took effect, so the assertion below can fail.
    expect(new Date(Date.UTC(2026, 9, 15, 15)).getHours()).toBe(0);
    expect(renderConsentText(HARBOURVIEW, HV)).toBe(before);
    process.env.TZ = "Pacific/Kiritimati";
    expect(renderConsentText(copy(HARBOURVIEW), HV)).toBe(before);
  });
});
