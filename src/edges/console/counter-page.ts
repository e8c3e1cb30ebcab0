/**
 * "Suggest another time or place" (SchCP §5.11): the page where an owner or the operator
 * answers a booking waiting for approval with other terms instead of yes or no. The booking as
 * the approver sees it (who, what, when, where, answer by), then one form: a new date and time on
 * the host's clock (the zone named), and, for a service at the guest's address or elsewhere,
 * another place. Server-rendered, no script; a refused suggestion comes back on the same page
 * with what was typed and why, in plain words (pages.ts conventions: labels, landmarks, CSRF).
 */
import { escapeHtml as e, page } from "../http/layout.js";
import type { Place } from "../../protocol/place.js";
import { CONSOLE_TITLE, csrfField } from "./pages.js";
import { counterPath } from "./counter-path.js";

export interface CounterPageView {
  readonly hostId: string;
  readonly hostName: string;
  readonly bookingId: string;
  readonly service: string;
  /** The booking's time as it stands, on the host's clock. */
  readonly when: string;
  readonly guest?: string;
  readonly place?: string;
  readonly answerBy?: string;
  /** The host's IANA zone: the form's date and time are read on its clock. */
  readonly timeZone: string;
  /** Where the service happens (§5.2): another place can be suggested unless "host". */
  readonly location: "host" | "guest" | "elsewhere";
  /** The counter already sent and still open, in words: sending again replaces it. */
  readonly openCounter?: string;
}

/** What the form holds: as typed, so a refused suggestion shows it again. */
export interface CounterForm {
  /** "YYYY-MM-DDTHH:MM" (datetime-local), on the host's clock. */
  readonly start?: string;
  readonly place?: Place;
}

const PLACE_FIELDS: ReadonlyArray<{ key: keyof Place; label: string; hint?: string; short?: boolean }> = [
  { key: "name", label: "Name of the place", hint: "A park, a café, a meeting room" },
  { key: "street", label: "Street address" },
  { key: "locality", label: "City or town" },
  { key: "region", label: "Province, state or region", short: true },
  { key: "postal_code", label: "Postal code", short: true },
  { key: "country", label: "Country", hint: "Two letters, such as CA or US", short: true },
];

function placeFieldset(v: CounterPageView, form: CounterForm): string {
  if (v.location === "host") return "";
  const needs =
    v.location === "guest"
      ? "The service comes to the guest: give at least the postal code and country."
      : "The service happens where you both meet: give at least the place's name.";
  return (
    `<fieldset><legend>Another place</legend>` +
    `<p class="note">Leave empty to keep ${v.place === undefined ? "the place the guest gave" : `the place: ${e(v.place)}`}. ${e(needs)}</p>` +
    PLACE_FIELDS.map((f) => {
      const id = `place-${f.key.replace("_", "-")}`;
      const value = form.place?.[f.key];
      return (
        `<label for="${id}">${e(f.label)}</label>` +
        (f.hint !== undefined ? `<p class="note" id="${id}-hint">${e(f.hint)}</p>` : "") +
        `<input id="${id}" name="place_${f.key}" type="text" maxlength="200"` +
        (f.short === true ? ` class="short"` : "") +
        (f.hint !== undefined ? ` aria-describedby="${id}-hint"` : "") +
        (f.key === "country" ? ` autocapitalize="characters" pattern="[A-Za-z]{2}"` : "") +
        (value !== undefined ? ` value="${e(value)}"` : "") +
        `>`
      );
    }).join("") +
    `</fieldset>`
  );
}

function details(v: CounterPageView): string {
  const rows: Array<[string, string | undefined]> = [
    ["Guest", v.guest ?? "No name was given"],
    ["Service", v.service],
    ["Asked for", v.when],
    ["Where", v.place],
    ["Answer by", v.answerBy],
    ["Booking", v.bookingId],
  ];
  return (
    `<dl>` +
    rows
      .filter((r): r is [string, string] => r[1] !== undefined)
      .map(([k, x]) => `<dt>${e(k)}</dt><dd>${e(x)}</dd>`)
      .join("") +
    `</dl>`
  );
}

export function counterPage(
  v: CounterPageView,
  csrf: string,
  header: string,
  form: CounterForm = {},
  error?: string,
): string {
  const what = v.location === "host" ? "another time" : "another time or place";
  return page(
    `Suggest ${what} · ${CONSOLE_TITLE}`,
    `<h1>Suggest ${e(what)}</h1>` +
      `<p>${e(v.hostName)}: instead of approving or declining, offer the guest other terms. ` +
      `The booking keeps waiting for your answer; if the guest accepts, it is confirmed at your terms.</p>` +
      details(v) +
      (v.openCounter !== undefined
        ? `<p class="flash info" role="status">You already suggested ${e(v.openCounter)}. Sending a new suggestion replaces it.</p>`
        : "") +
      (error !== undefined ? `<p class="flash error" role="alert">${e(error)}</p>` : "") +
      `<form method="post" action="${e(counterPath(v.hostId, v.bookingId))}">${csrfField(csrf)}` +
      `<label for="start">New date and time</label>` +
      `<p class="note" id="start-hint">On ${e(v.hostName)}'s clock (${e(v.timeZone)}). ` +
      `${v.location === "host" ? "" : "Leave empty to keep the time and suggest only a place. "}</p>` +
      `<input id="start" name="start" type="datetime-local" step="60" aria-describedby="start-hint"` +
      (form.start !== undefined ? ` value="${e(form.start)}"` : "") +
      (v.location === "host" ? " required" : "") +
      `>` +
      placeFieldset(v, form) +
      `<p class="note">The guest has until ${e(v.answerBy ?? "the booking's start")} to answer; the suggested time is kept for them until then.</p>` +
      `<div class="actions"><button class="approve" type="submit">Send the suggestion</button>` +
      `<a href="/">Back to the console</a></div></form>`,
    { header },
  );
}
