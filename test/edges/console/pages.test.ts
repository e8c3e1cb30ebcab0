/**
 * The Operate page shows what an operator needs: health with its
 * since and last error, calendar sync and outcome, upstream Deprecation/Sunset notices; every
 * value escaped; the shared stylesheet's hash in the CSP is the hash of the stylesheet sent.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PAGE_CSP, STYLE } from "../../../src/edges/http/layout.js";
import type { OperateView } from "../../../src/edges/console/operate-view.js";
import { consoleHeader, operatePage } from "../../../src/edges/console/pages.js";
import { approvalRefusedPage } from "../../../src/edges/approval/approval-page.js";

const view: OperateView = {
  hosts: [
    {
      hostId: "sq",
      name: "Square <Shop>",
      health: "needs_reconnection",
      since: "Thu 9:00",
      lastError: { code: "auth", message: "invalid_grant", at: "Thu 9:00" },
    },
    { hostId: "cal", name: "Ana", health: "degraded", since: "Thu 8:00" },
    {
      hostId: "big",
      name: "Bo",
      health: "degraded",
      since: "Thu 7:00",
      lastError: {
        code: "unavailable",
        reason: "expansion_bound",
        message: "calendar local: 1 series have more occurrences than the sync expands",
        at: "Thu 7:00",
      },
    },
  ],
  syncs: [
    {
      hostName: "Ana",
      calendarId: "primary",
      at: "Thu 8:59",
      kind: "incremental",
      outcome: "incomplete",
      error: "rate_limited: slow down",
    },
    { hostName: "Bea" },
  ],
  notices: [
    {
      hostName: "Square <Shop>",
      vendor: "square",
      call: "GET /v2/locations",
      sunset: "Wed, 01 Jul 2027 00:00:00 GMT",
      lastSeen: "2026-12-03T09:00:00.000Z",
    },
  ],
  pending: [],
  upcoming: [],
  unlisted: [],
  connect: [
    {
      hostId: "sq",
      name: "Square <Shop>",
      provider: "square",
      grant: "present",
      href: "/connect/square/start?host=sq",
    },
    { hostId: "cal", name: "Ana", provider: "microsoft", grant: "absent" },
  ],
};

describe("Operate page", () => {
  it("styles every kind of input alike, not only passwords and e-mail, and radios beside their labels", () => {
    // One rule for every input but radios, checkboxes and hidden ones, and for select and textarea.
    expect(STYLE).toContain(
      "input:not([type=radio]):not([type=checkbox]):not([type=hidden]),select,textarea{font:inherit;",
    );
    expect(STYLE).toContain(".choice label{display:inline;");
    // Tables become one card per row on a phone, each cell named.
    expect(STYLE).toMatch(
      /@media \(max-width:40rem\)\{.*table\.stack td\[data-label\]::before\{content:attr\(data-label\)/,
    );
  });

  it("lists vault hosts under Connect: a link when the provider is configured, the grant's presence only", () => {
    const html = operatePage(view, "t");
    expect(html).toContain('<h2 id="connect-h">Connect</h2>');
    expect(html).toContain('href="/connect/square/start?host=sq"');
    expect(html).toContain('<td data-label="Grant" class="ok">connected</td>');
    expect(html).toContain('<td data-label="Grant" class="degraded">not connected</td>');
    expect(html).toContain("no OAuth client configured for Microsoft 365");
    expect(html).not.toContain("/connect/microsoft/start");
    expect(operatePage({ ...view, connect: [] }, "t")).not.toContain("connect-h");
  });

  it("shows health, sync outcome and notices, escaped", () => {
    const html = operatePage(view, 'tok"en');
    expect(html).toContain('<td data-label="Health" class="needs_reconnection">needs reconnection</td>');
    expect(html).toContain("auth: invalid_grant (Thu 9:00)");
    // A degraded host says why: the reason, not only the code.
    expect(html).toContain(
      "expansion_bound: calendar local: 1 series have more occurrences than the sync expands (Thu 7:00)",
    );
    expect(html).toContain('<td data-label="Health" class="degraded">degraded</td>');
    expect(html).toContain("rate_limited: slow down");
    expect(html).toContain("incomplete");
    expect(html).toContain("not synced yet");
    expect(html).toContain("Wed, 01 Jul 2027 00:00:00 GMT");
    expect(html).toContain("Square &lt;Shop&gt;");
    expect(html).not.toContain("<Shop>");
    expect(html).toContain('value="tok&quot;en"');
    expect(html).toMatch(/<header>.*<nav aria-label="Account">/);
    // Each host's name leads to its own page (its week).
    expect(html).toContain('<a href="/console/hosts/sq">Square &lt;Shop&gt;</a>');
    expect(html).toContain("<main>");
    expect(html).toContain('<th scope="col">Health</th>');
  });

  it("says which hosts have more bookings than it reads, and where the rest is listed", () => {
    expect(operatePage(view, "t")).not.toContain("More bookings than this page reads");
    const html = operatePage({ ...view, more: ["cal<1>"] }, "t");
    expect(html).toContain("More bookings than this page reads for: cal&lt;1&gt;.");
    expect(html).toContain("?cursor=");
  });

  it("an owner's empty home page shows the way forward; drafts can be continued or deleted", () => {
    const owner = { kind: "owner" as const, ownerId: "o1", email: "ana@example.com" };
    const empty: OperateView = { ...view, hosts: [], syncs: [], notices: [], connect: [] };
    const html = operatePage(empty, "t", undefined, owner);
    expect(html).toContain('<h2 id="start-h">Get started</h2>');
    expect(html).toContain('<a class="button approve" href="/console/hosts/new">Add your first business</a>');
    expect(html).toContain("You have no business here yet.");
    expect(html).not.toContain("<table");
    // An owner is not shown the operator's notices section when nothing was announced.
    expect(html).not.toContain("notices-h");

    const withDraft = operatePage(empty, "t", undefined, owner, [
      { id: "cleo", name: "Cleo <Studio>", next: "/console/hosts/cleo/caldav" },
    ]);
    expect(withDraft).not.toContain("start-h");
    expect(withDraft).toContain(
      'href="/console/hosts/cleo/caldav" aria-label="Continue setup of Cleo &lt;Studio&gt;"',
    );
    expect(withDraft).toContain('href="/console/hosts/cleo/delete" aria-label="Delete Cleo &lt;Studio&gt;"');
  });

  it("the banner names who is signed in and marks the page it is on", () => {
    const owner = { kind: "owner" as const, ownerId: "o1", email: "ana@example.com" };
    const header = consoleHeader("t", owner, "new");
    expect(header).toContain('<a href="/console/hosts/new" aria-current="page">Add a business</a>');
    expect(header).toContain("Signed in as ana@example.com");
    expect(header).not.toContain("/console/owners");
    expect(consoleHeader("t")).toContain('href="/console/owners"');
  });

  it("the CSP allows exactly the stylesheet the pages carry (the approval page too)", () => {
    const hash = createHash("sha256").update(STYLE, "utf8").digest("base64");
    expect(PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(PAGE_CSP).not.toContain("unsafe-inline");
    expect(operatePage(view, "t")).toContain(`<style>${STYLE}</style>`);
    expect(approvalRefusedPage("used")).toContain(`<style>${STYLE}</style>`);
  });
});
