/**
 * Free-text intent detection for `message/send` (A2A §Transport: "free text (natural-language
 * intent detection)"), deterministic and without a language model: keywords in Spanish and
 * English, the host's service names, dates, times, email and phone. What it cannot resolve it
 * names as missing, so the reply can ask for exactly that (A2A §Response).
 *
 * Dates are read in the host's timezone ("hoy" is the host's today), and a chosen time becomes
 * scheduledAt with the host's UTC offset (Conversation Contract: never without an offset).
 */
import type { A2aClientContact, A2aIntent } from "../port.js";
import {
  addDays,
  formatInstant,
  instantToWallClock,
  isoWeekday,
  wallClockToInstant,
} from "../../../protocol/time/index.js";
import type { LocalDate } from "../../../protocol/time/index.js";

export type Language = "es" | "en";
export type Missing = "intent" | "service" | "date" | "time" | "email" | "session_id" | "api_key";

export interface DetectionContext {
  /** Epoch ms: what "today" means. */
  readonly now: number;
  readonly timeZone: string;
  readonly services: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  /** Whether the request carried X-Org-Api-Key (cancel and reschedule need it). */
  readonly hasApiKey: boolean;
}

export type Detection =
  | {
      readonly kind: "call";
      readonly lang: Language;
      readonly intent: A2aIntent;
      readonly params: Readonly<Record<string, unknown>>;
      readonly client?: A2aClientContact;
    }
  | {
      readonly kind: "ask";
      readonly lang: Language;
      readonly intent?: A2aIntent;
      readonly missing: readonly Missing[];
      /** Service names to choose from when `service` is missing. */
      readonly candidates: readonly string[];
    };

/** Lowercase, without accents: "Kinesiología" and "kinesiologia" are the same word. */
function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

const EN_WORDS = new Set(
  "the i my me want would like book cancel reschedule move change availability available services service what which when today tomorrow this next week at for please show list appointment session is are do you have can slot slots time times".split(
    " ",
  ),
);
const ES_WORDS = new Set(
  "el la los las mi mis quiero quisiera una un hora horas reservar agendar cancelar reprogramar cambiar disponibilidad servicios servicio que cuales cuando hoy manana esta semana proxima a de para por favor tienen hay sesion reserva cita nombre hijo hija".split(
    " ",
  ),
);

/** English when more of its words are English than Spanish; Spanish otherwise (the default). */
export function detectLanguage(text: string): Language {
  let en = 0;
  let es = 0;
  for (const word of fold(text).split(/[^a-z0-9]+/)) {
    if (EN_WORDS.has(word)) en++;
    if (ES_WORDS.has(word)) es++;
  }
  return en > es ? "en" : "es";
}

// Checked in this order: "cancelar mi reserva" is a cancellation, not a booking.
const INTENT_KEYWORDS: ReadonlyArray<readonly [A2aIntent, RegExp]> = [
  ["cancel_session", /\b(cancelar|cancela|cancelo|anular|anula|cancel|cancell?ation)\b/],
  [
    "reschedule_session",
    /\b(reprogramar|reprograma|reagendar|reagenda|cambiar|cambia|mover|mueve|reschedule|move|change)\b/,
  ],
  ["book_session", /\b(reservar|reserva|reservame|reservo|agendar|agenda|agendame|book|booking)\b/],
  [
    "check_availability",
    /\b(disponibilidad|disponible|disponibles|hora|horas|horario|horarios|cuando|availability|available|slot|slots|times|when|opening|openings)\b/,
  ],
  [
    "list_services",
    /\b(servicio|servicios|catalogo|ofrecen|precio|precios|services?|catalog|catalogue|offer|prices?)\b/,
  ],
];

// Words too common in requests to identify a service by themselves.
const SERVICE_STOPWORDS = new Set(
  "sesion session hora horas para with consulta servicio service cita appointment semana week".split(" "),
);

interface ServiceMatch {
  readonly chosen?: { readonly id: string; readonly name: string };
  readonly candidates: readonly string[];
}

/**
 * The service the text names: the full name when it appears, else the services sharing the
 * most significant words with it (a text word of 5+ letters may abbreviate a name word:
 * "kinesio" for "kinesiologia"). Several equally good ones are a question, not a guess.
 */
export function matchService(text: string, services: DetectionContext["services"]): ServiceMatch {
  const folded = fold(text);
  const exact = services.filter((s) => folded.includes(fold(s.name)));
  if (exact.length === 1) return { chosen: exact[0], candidates: [] };
  const words = folded.split(/[^a-z0-9]+/).filter((w) => w.length >= 4 && !SERVICE_STOPWORDS.has(w));
  let best = 0;
  let matched: Array<{ id: string; name: string }> = [];
  for (const s of services) {
    const nameWords = fold(s.name)
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 4 && !SERVICE_STOPWORDS.has(w));
    const score = nameWords.filter((n) =>
      words.some((w) => w === n || (w.length >= 5 && n.startsWith(w)) || (n.length >= 5 && w.startsWith(n))),
    ).length;
    if (score > best) {
      best = score;
      matched = [s];
    } else if (score === best && score > 0) matched.push(s);
  }
  if (matched.length === 1) return { chosen: matched[0], candidates: [] };
  return { candidates: (matched.length > 0 ? matched : services).map((s) => s.name) };
}

/** The folded text with every service's whole name blanked, longest names first. */
function withoutServiceNames(folded: string, services: DetectionContext["services"]): string {
  let rest = folded;
  const names = services.map((s) => fold(s.name)).filter((n) => n.trim() !== "");
  for (const name of names.sort((a, b) => b.length - a.length)) rest = rest.split(name).join(" ");
  return rest;
}

type DateSpec =
  | { readonly kind: "day"; readonly date: LocalDate }
  | { readonly kind: "range"; readonly from: LocalDate; readonly days: number };

const WEEKDAYS: ReadonlyArray<readonly [RegExp, number]> = [
  [/\b(lunes|monday)\b/, 1],
  [/\b(martes|tuesday)\b/, 2],
  [/\b(miercoles|wednesday)\b/, 3],
  [/\b(jueves|thursday)\b/, 4],
  [/\b(viernes|friday)\b/, 5],
  [/\b(sabado|saturday)\b/, 6],
  [/\b(domingo|sunday)\b/, 7],
];

const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;

/**
 * An RFC 3339 instant as `check_availability` returns it ("2026-12-08T10:00:00-05:00"), or a
 * date and time without an offset (read as the host's wall clock). Case-insensitive: the text
 * is folded to lower case before it is read.
 */
const ISO_INSTANT =
  /\b(\d{4})-(\d{2})-(\d{2})[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(z|[+-]\d{2}:?\d{2})?(?![\d:])/i;

/** The host-local date and time an ISO instant in the text names, when it names one. */
function parseInstant(
  text: string,
  timeZone: string,
):
  | { readonly date: LocalDate; readonly time: { readonly hour: number; readonly minute: number } }
  | undefined {
  const m = ISO_INSTANT.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "0"].map(
    Number,
  ) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const offset = m[7];
  if (offset === undefined) return { date: { year, month, day }, time: { hour, minute } };
  // With an offset it is an instant: the host's wall clock at that instant is what the rest of
  // detection works in (a time read in another zone would book another hour).
  const sign = offset.toLowerCase() === "z" ? 0 : offset.startsWith("-") ? -1 : 1;
  const digits = offset.replace(/[^0-9]/g, "");
  const offsetMin = sign === 0 ? 0 : sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  const at = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMin * 60_000;
  if (!Number.isFinite(at)) return undefined;
  const w = instantToWallClock(at, timeZone);
  return { date: { year: w.year, month: w.month, day: w.day }, time: { hour: w.hour, minute: w.minute } };
}

/** The text without ISO instants, so their digits are not read as a phone, an id or a time. */
function withoutInstants(text: string): string {
  return text.replace(new RegExp(ISO_INSTANT.source, "gi"), " ");
}

/** The date the folded text names, relative to `today` in the host's zone. */
function parseDate(folded: string, today: LocalDate): DateSpec | undefined {
  const iso = ISO_DATE.exec(folded);
  if (iso !== null)
    return { kind: "day", date: { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) } };
  if (/\bpasado manana\b|\bday after tomorrow\b/.test(folded))
    return { kind: "day", date: addDays(today, 2) };
  if (/\b(hoy|today)\b/.test(folded)) return { kind: "day", date: today };
  if (/\b(manana|tomorrow)\b/.test(folded)) return { kind: "day", date: addDays(today, 1) };
  if (/\b(proxima semana|semana que viene|next week)\b/.test(folded))
    return { kind: "range", from: addDays(today, 8 - isoWeekday(today)), days: 7 };
  for (const [pattern, weekday] of WEEKDAYS) {
    if (pattern.test(folded))
      return { kind: "day", date: addDays(today, (weekday - isoWeekday(today) + 7) % 7) };
  }
  // The rest of this week, today through Sunday.
  if (/\b(esta semana|this week)\b/.test(folded))
    return { kind: "range", from: today, days: 8 - isoWeekday(today) };
  return undefined;
}

/** "a las 10", "at 3pm", "10:30", "10am", "15 h" → hour and minute. */
export function parseTime(folded: string): { readonly hour: number; readonly minute: number } | undefined {
  const text = withoutInstants(folded).replace(ISO_DATE, " ");
  const patterns: RegExp[] = [
    /\b(\d{1,2}):(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?/,
    /\b(\d{1,2})()\s*(am|pm|a\.m\.|p\.m\.)/,
    /\b(?:a las|a la|at)\s+(\d{1,2})()(?:\s*(?:hrs?|h)\b)?(?:\s*(de la tarde|de la manana|in the afternoon|in the morning))?/,
    /\b(\d{1,2})()\s*(?:hrs?|h)\b/,
  ];
  for (const p of patterns) {
    const m = p.exec(text);
    if (m === null) continue;
    let hour = Number(m[1]);
    const minute = m[2] === undefined || m[2] === "" ? 0 : Number(m[2]);
    const suffix = m[3] ?? "";
    if (/^p|tarde|afternoon/.test(suffix) && hour < 12) hour += 12;
    if (/^a/.test(suffix) && hour === 12) hour = 0;
    if (hour < 24 && minute < 60) return { hour, minute };
  }
  return undefined;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;

function parseEmail(text: string): string | undefined {
  return EMAIL.exec(text)?.[0];
}

/** A phone number: 8 or more digits, optionally with +, spaces, dashes or parentheses. */
export function parsePhone(text: string): string | undefined {
  const rest = withoutInstants(text)
    .replace(EMAIL, " ")
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, " ");
  for (const m of rest.matchAll(/\+?\d[\d\s().-]{6,}\d/g)) {
    const digits = m[0].replace(/\D/g, "");
    if (digits.length >= 8 && digits.length <= 15) return (m[0].trim().startsWith("+") ? "+" : "") + digits;
  }
  return undefined;
}

/**
 * The session id a cancel or reschedule names: the token after "sesión"/"session"/"reserva"/
 * "booking"/"id", or else any long token mixing letters and digits (CUID-like). Session ids
 * are opaque, so a token without a digit is not taken ("cancel my session tomorrow").
 */
function parseSessionId(text: string): string | undefined {
  const rest = withoutInstants(text).replace(EMAIL, " ");
  const labelled =
    /\b(?:sesi[oó]n|session|reserva|booking|cita|appointment|id)\b(?:\s+id\b)?\s*[:#]?\s*([A-Za-z0-9][A-Za-z0-9_-]{5,})/giu;
  for (const m of rest.matchAll(labelled)) if (m[1] !== undefined && /\d/.test(m[1])) return m[1];
  for (const m of rest.matchAll(/\b[A-Za-z0-9_-]{10,}\b/g)) {
    if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0]) && !ISO_DATE.test(m[0])) return m[0];
  }
  return undefined;
}

/** "a nombre de (mi hijo) Joaquín López", "name is Ann Lee", "for Ann Lee": first and last name. */
function parseName(text: string): { readonly name: string; readonly lastName?: string } | undefined {
  const m =
    /\b(?:a nombre de|nombre(?: es)?|my name is|name is|name:|for)\s+(?:(?:mi|my)\s+(?:hij[oa]|son|daughter|esposa|esposo|wife|husband)\s+)?(\p{Lu}[\p{L}'-]+)(?:\s+(\p{Lu}[\p{L}'-]+))?/u.exec(
      text,
    );
  if (m?.[1] === undefined) return undefined;
  return m[2] === undefined ? { name: m[1] } : { name: m[1], lastName: m[2] };
}

function todayIn(now: number, timeZone: string): LocalDate {
  const w = instantToWallClock(now, timeZone);
  return { year: w.year, month: w.month, day: w.day };
}

const pad = (n: number) => String(n).padStart(2, "0");
const isoDate = (d: LocalDate) => `${d.year}-${pad(d.month)}-${pad(d.day)}`;

/** The host-local wall time as RFC 3339 with the host's offset, or undefined when it does not exist. */
function scheduledAt(
  date: LocalDate,
  time: { hour: number; minute: number },
  timeZone: string,
): string | undefined {
  const at = wallClockToInstant({ ...date, ...time, second: 0, millisecond: 0 }, timeZone);
  return at.ok ? formatInstant(at.value, timeZone) : undefined;
}

export function detectIntent(text: string, ctx: DetectionContext): Detection {
  const lang = detectLanguage(text);
  const folded = fold(text);
  // A service's whole name is read before any intent keyword: "availability for Oil change" asks
  // for availability of the service "Oil change", it does not ask to change a booking.
  const keywordText = withoutServiceNames(folded, ctx.services);
  // A message naming only a service ("La musculoesquelética", the spec's Turn 2) asks for its times;
  // one giving a time and an email without a verb (the spec's Turn 3: "El miércoles a las 10, a
  // nombre de ..., email ...") is a booking, so the reply asks for what it lacks, not the intent.
  const intent =
    INTENT_KEYWORDS.find(([, p]) => p.test(keywordText))?.[0] ??
    (parseTime(folded) !== undefined && parseEmail(text) !== undefined
      ? "book_session"
      : matchService(text, ctx.services).chosen !== undefined
        ? "check_availability"
        : undefined);
  if (intent === undefined) return { kind: "ask", lang, missing: ["intent"], candidates: [] };
  const today = todayIn(ctx.now, ctx.timeZone);
  // An exact instant (as check_availability answers it) names both the day and the time.
  const instant = parseInstant(folded, ctx.timeZone);
  const date: DateSpec | undefined =
    instant !== undefined ? { kind: "day", date: instant.date } : parseDate(folded, today);
  const time = instant?.time ?? parseTime(folded);
  const missing: Missing[] = [];
  const ask = (candidates: readonly string[] = []): Detection => ({
    kind: "ask",
    lang,
    intent,
    missing,
    candidates,
  });

  switch (intent) {
    case "list_services":
      return { kind: "call", lang, intent, params: {} };
    case "check_availability": {
      const service = matchService(text, ctx.services);
      if (service.chosen === undefined) {
        missing.push("service");
        return ask(service.candidates);
      }
      const mode =
        date === undefined
          ? { next: 5 }
          : date.kind === "day"
            ? { date: isoDate(date.date) }
            : { from: isoDate(date.from), days: date.days };
      return { kind: "call", lang, intent, params: { serviceId: service.chosen.id, ...mode } };
    }
    case "book_session": {
      const service = matchService(text, ctx.services);
      const email = parseEmail(text);
      if (service.chosen === undefined) missing.push("service");
      if (date?.kind !== "day") missing.push("date");
      if (time === undefined) missing.push("time");
      if (email === undefined) missing.push("email");
      if (service.chosen === undefined || date?.kind !== "day" || time === undefined || email === undefined)
        return ask(service.chosen === undefined ? service.candidates : []);
      const at = scheduledAt(date.date, time, ctx.timeZone);
      if (at === undefined) {
        missing.push("time");
        return ask();
      }
      const phone = parsePhone(text);
      const name = parseName(text);
      const client: A2aClientContact = {
        email,
        ...(phone !== undefined && { phone }),
        ...(name !== undefined && { name: name.name }),
        ...(name?.lastName !== undefined && { lastName: name.lastName }),
      };
      return {
        kind: "call",
        lang,
        intent,
        params: { serviceId: service.chosen.id, scheduledAt: at },
        client,
      };
    }
    case "cancel_session": {
      const sessionId = parseSessionId(text);
      if (sessionId === undefined) missing.push("session_id");
      if (!ctx.hasApiKey) missing.push("api_key");
      if (sessionId === undefined || !ctx.hasApiKey) return ask();
      return { kind: "call", lang, intent, params: { sessionId, cancelledBy: "client" } };
    }
    case "reschedule_session": {
      const sessionId = parseSessionId(text);
      if (sessionId === undefined) missing.push("session_id");
      if (date?.kind !== "day") missing.push("date");
      if (time === undefined) missing.push("time");
      if (!ctx.hasApiKey) missing.push("api_key");
      if (sessionId === undefined || date?.kind !== "day" || time === undefined || !ctx.hasApiKey)
        return ask();
      const at = scheduledAt(date.date, time, ctx.timeZone);
      if (at === undefined) {
        missing.push("time");
        return ask();
      }
      return { kind: "call", lang, intent, params: { sessionId, scheduledAt: at } };
    }
  }
}
