/**
 * A host's week as a page: seven day columns on a time grid at a desktop's width, one list per
 * day on a phone's. Server-rendered HTML and CSS only (the console's CSP allows no script): each
 * item is placed on its day's CSS grid by classes for its start row and length (a row is 15
 * minutes), in a stylesheet of this page's own (WEEK_STYLE, allowed by its hash: pageCsp).
 *
 * Every item says in words what it is (booked, waiting for approval, busy), not by colour alone,
 * and each day is a section with its heading and an ordered list, so a screen reader reads the
 * week day by day.
 */
import { escapeHtml as e, page } from "../http/layout.js";
import { CONSOLE_TITLE } from "./pages.js";
import type { WeekItem, WeekItemKind, WeekView } from "./week-view.js";

const SLOT_MINUTES = 15;
const MAX_ROWS = 1440 / SLOT_MINUTES;
/** Side-by-side lanes for items that overlap; more than this share the last one. */
const MAX_LANES = 4;

const rowRules = Array.from(
  { length: MAX_ROWS },
  (_, i) => `.t${i + 1}{grid-row-start:${i + 1}}.h${i + 1}{grid-row-end:span ${i + 1}}`,
).join("");

export const WEEK_STYLE =
  ".weeknav{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;margin:.5rem 0 1rem;padding:0;list-style:none}" +
  ".legend{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:0 0 1rem;padding:0;list-style:none;font-size:.9rem}" +
  ".swatch{display:inline-block;width:.9rem;height:.9rem;margin-right:.4rem;vertical-align:-.12rem;border:1px solid}" +
  ".k-booking{background:#dceafb;border-color:#1a5fb4}" +
  ".k-pending,.k-tentative{background:#fff1cc;border-color:#8a5300;border-style:dashed}" +
  ".k-busy{background:repeating-linear-gradient(45deg,#efefef 0 6px,#dedede 6px 12px);border-color:#767676}" +
  ".k-open{background:#e9f6ec;border-color:#176b2c}" +
  ".week{display:grid;grid-template-columns:3rem repeat(7,minmax(0,1fr));gap:0 .3rem;margin-top:.5rem}" +
  ".day{min-width:0}.dayhead{height:4.4rem;overflow:hidden}.dayhead h2{font-size:1rem;margin:0 0 .1rem}" +
  ".dayhead p{margin:0;font-size:.8rem;color:#555;line-height:1.35}" +
  ".slots,.hourcol{list-style:none;margin:0;padding:0;display:grid;grid-auto-rows:.9rem;grid-template-columns:minmax(0,1fr)}" +
  ".slots.l2{grid-template-columns:repeat(2,minmax(0,1fr))}.slots.l3{grid-template-columns:repeat(3,minmax(0,1fr))}" +
  ".slots.l4{grid-template-columns:repeat(4,minmax(0,1fr))}" +
  ".c1{grid-column-start:1}.c2{grid-column-start:2}.c3{grid-column-start:3}.c4{grid-column-start:4}" +
  ".fill{grid-column:1/-1;border:1px solid #d0d0d0;border-width:0 1px 1px;" +
  "background:repeating-linear-gradient(to bottom,#d0d0d0 0 1px,transparent 1px 3.6rem)}" +
  // Translucent, so the hour lines show through the open hours.
  ".band{grid-column:1/-1;background:rgba(23,107,44,.1);border:0}" +
  ".dayhead .none{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}" +
  ".item{position:relative;z-index:1;margin:1px 2px;padding:0 .3rem;border:1px solid;border-radius:.3rem;" +
  "font-size:.78rem;line-height:1.2;overflow:hidden}.item b{display:block;font-weight:600}" +
  ".hourcol{padding-top:4.4rem}.hourcol li{font-size:.75rem;color:#555;line-height:1;transform:translateY(-.4rem)}" +
  rowRules +
  "@media (max-width:48rem){.week{display:block}.hourcol,.fill,.band{display:none}" +
  ".day{border-top:1px solid #ccc;padding:.6rem 0}.dayhead{height:auto}.dayhead h2{font-size:1.1rem}" +
  ".dayhead .none{position:static;width:auto;height:auto;clip:auto}.slots{display:block}.item{margin:.35rem 0;padding:.35rem .6rem;font-size:.95rem}.item b{display:inline;margin-right:.4rem}}";

const KIND_WORDS: Readonly<Record<WeekItemKind, string>> = {
  booking: "booked",
  pending: "waiting for your approval",
  tentative: "waiting for the calendar or platform to confirm",
  busy: "busy",
};

const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

/** Rows on the day's grid: 1 is the range's first 15 minutes. */
function rows(from: number, to: number, range: readonly [number, number]): { start: number; span: number } {
  const lo = Math.max(from, range[0]);
  const hi = Math.min(Math.max(to, lo + 1), range[1]);
  const start = Math.floor((lo - range[0]) / SLOT_MINUTES) + 1;
  const span = Math.max(1, Math.ceil((hi - range[0]) / SLOT_MINUTES) + 1 - start);
  return { start, span };
}

/** Each item's lane: the first free one, so overlapping items stand side by side. */
function lanes(items: readonly WeekItem[]): { lane: number[]; count: number } {
  const ends: number[] = [];
  const lane = items.map((i) => {
    let at = ends.findIndex((end) => end <= i.from);
    if (at < 0 && ends.length < MAX_LANES) at = ends.push(i.to) - 1;
    else if (at < 0) at = ends.indexOf(Math.min(...ends));
    ends[at] = i.to;
    return at;
  });
  return { lane, count: Math.max(1, ends.length) };
}

function daySection(v: WeekView, d: WeekView["days"][number], i: number): string {
  const span = rows(v.range[0], v.range[1], v.range);
  const { lane, count } = lanes(d.items);
  const open =
    d.open.length === 0 ? "Closed" : `Open ${d.open.map(([a, b]) => `${hhmm(a)}–${hhmm(b)}`).join(", ")}`;
  const bands = d.open.map(([a, b]) => {
    const r = rows(a, b, v.range);
    return `<li class="band t${r.start} h${r.span}" aria-hidden="true"></li>`;
  });
  const items = d.items.map((item, n) => {
    const r = rows(item.from, item.to, v.range);
    const words = item.kind === "busy" ? "" : ` · ${KIND_WORDS[item.kind]}`;
    return (
      // The title shows the whole text where a short item's box cuts it.
      `<li class="item k-${item.kind} t${r.start} h${r.span} c${(lane[n] ?? 0) + 1}" title="${e(`${item.time} ${item.title}${words}`)}">` +
      `<b>${e(item.time)}</b> ${e(item.title)}${e(words)}</li>`
    );
  });
  return (
    `<section class="day" aria-labelledby="day-${i}"><div class="dayhead"><h2 id="day-${i}">${e(d.label)}</h2>` +
    `<p>${e(open)}</p>${d.items.length === 0 ? '<p class="none">Nothing booked or busy</p>' : ""}</div>` +
    `<ol class="slots l${count}"><li class="fill t1 h${span.span}" aria-hidden="true"></li>${bands.join("")}${items.join("")}</ol></section>`
  );
}

const swatch = (kind: WeekItemKind | "open", text: string) =>
  `<li><span class="swatch k-${kind}" aria-hidden="true"></span>${e(text)}</li>`;

export interface WeekPageInput {
  readonly view: WeekView;
  /** The console's banner (pages.ts consoleHeader). */
  readonly header: string;
  /** The host's settings page, when it was set up from the console. */
  readonly settingsHref?: string;
  /** Where the page lives (`?week=` is added for another week). */
  readonly path: string;
}

export function weekPage(p: WeekPageInput): string {
  const v = p.view;
  const hours: string[] = [];
  for (let m = v.range[0]; m < v.range[1]; m += 60) {
    const r = rows(m, m + 60, v.range);
    hours.push(`<li class="t${r.start} h${r.span}">${hhmm(m)}</li>`);
  }
  const link = (week: string, text: string) => `<a href="${e(`${p.path}?week=${week}`)}">${e(text)}</a>`;
  const pending = v.days.reduce((n, d) => n + d.items.filter((i) => i.kind === "pending").length, 0);
  return page(
    `${v.name}: week of ${v.weekOf} · ${CONSOLE_TITLE}`,
    `<h1>${e(v.name)}: week of ${e(v.weekOf)}</h1>` +
      `<p>Times in <strong>${e(v.zone)}</strong> (${e(v.zoneName)}), the business's own time zone.</p>` +
      `<nav aria-label="Weeks"><ul class="weeknav"><li>${link(v.previous, "← Previous week")}</li>` +
      `<li>${link(v.current, "This week")}</li><li>${link(v.next, "Next week →")}</li>` +
      (p.settingsHref !== undefined ? `<li><a href="${e(p.settingsHref)}">Settings</a></li>` : "") +
      `<li><a href="/">Back to the console</a></li></ul></nav>` +
      `<ul class="legend" aria-label="Key">${swatch("booking", "Booked")}${swatch("pending", "Waiting for approval")}` +
      (v.busyShown ? swatch("busy", "Busy in the calendar") : "") +
      `${swatch("open", "Open hours")}</ul>` +
      (v.busyShown
        ? ""
        : `<p class="note">This business's time comes from its platform, which keeps its own busy time: only the bookings made through this gateway are shown.</p>`) +
      (pending > 0
        ? `<p class="flash info">${pending} booking(s) this week wait for your approval: answer them on <a href="/">the console's home page</a>.</p>`
        : "") +
      (v.unlisted
        ? `<p class="flash error" role="alert">The bookings could not be listed just now: only busy time is shown. Reload to try again.</p>`
        : "") +
      (v.more
        ? `<p class="note" role="status">This week has more bookings than this page reads; the operator API lists every one.</p>`
        : "") +
      `<div class="week"><ol class="hourcol" aria-hidden="true">${hours.join("")}</ol>` +
      v.days.map((d, i) => daySection(v, d, i)).join("") +
      `</div>`,
    { wide: true, header: p.header, style: WEEK_STYLE },
  );
}
