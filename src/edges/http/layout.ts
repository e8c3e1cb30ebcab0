/**
 * The one look of every page the gateway serves to a person (the operator console, a calendar
 * host's approval page): server-rendered HTML, no script, one stylesheet inlined and allowed by
 * its hash, so the Content-Security-Policy can forbid everything else — scripts, subresources,
 * framing, foreign form targets, <base>. Every value put into a page goes through escapeHtml.
 */
import { createHash } from "node:crypto";

export const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/**
 * Plain and readable at 390 px as at 1280 px: system font, high-contrast text, a visible focus
 * ring on every control (keyboard users see where they are), every kind of input (text, url,
 * e-mail, password, tel, time, number, select, textarea) drawn alike, radios and checkboxes with
 * their label beside them (`.choice`), the approve button green. Tables marked `stack` turn into
 * one card per row on a narrow screen, each cell named by its `data-label`, so no page scrolls
 * sideways; a `form` table (a grid of inputs) puts each row's inputs two abreast there. `.vh`
 * hides text visually but not from screen readers. Without script, a choice can still hide what
 * it makes moot: inside a `.toggle`, the `.dependent` parts are hidden while an input marked
 * `.hides` is checked (they are still sent, and ignored).
 */
export const STYLE =
  "*,*::before,*::after{box-sizing:border-box}" +
  "body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff;overflow-wrap:break-word}" +
  "main{max-width:36rem;margin:0 auto;padding:1rem 1rem 3rem}body.wide main{max-width:72rem}" +
  "header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem 1.5rem;" +
  "padding:.6rem 1rem;border-bottom:1px solid #ccc;background:#f6f6f6}" +
  "header .brand{font-weight:700;color:#1b1b1b;text-decoration:none;margin:0}" +
  "nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1.1rem}" +
  "nav a{padding:.3rem 0;display:inline-block}nav a[aria-current=page]{font-weight:700;color:#1b1b1b;" +
  "text-decoration:none;border-bottom:3px solid #1a5fb4}nav form{margin:0}nav button{padding:.3rem .9rem}nav .who{color:#444;font-size:.9rem}" +
  "h1{font-size:1.6rem;line-height:1.25;margin:.75rem 0 1rem}h2{font-size:1.25rem;margin:2rem 0 .6rem}" +
  "h3{font-size:1.05rem;margin:1.2rem 0 .4rem}a{color:#1a5fb4}" +
  "dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{color:#555}" +
  "table{border-collapse:collapse;width:100%;margin:.5rem 0}caption{text-align:left}" +
  "th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #ddd}th{background:#f3f3f3}" +
  "table.form{width:auto}table.form th,table.form td{padding:.25rem .5rem .25rem 0;border:0;background:none;vertical-align:middle}" +
  "table.form input{min-width:0}" +
  "form{margin:1rem 0}td form{display:inline-block;margin:0 .4rem .2rem 0}" +
  "label{display:block;font-weight:600;margin:.9rem 0 .3rem}" +
  "input:not([type=radio]):not([type=checkbox]):not([type=hidden]),select,textarea{font:inherit;color:inherit;" +
  "background:#fff;padding:.45rem .6rem;width:100%;max-width:100%;min-height:2.6rem;border:1px solid #767676;border-radius:.4rem}" +
  "textarea{min-height:5rem;resize:vertical}input[readonly]{background:#f3f3f3}" +
  "input[type=time],input[type=number],input.short,select.short{width:auto;min-width:7.5rem}" +
  "[aria-invalid=true]{border:2px solid #a51d2d!important}" +
  "fieldset{border:1px solid #ccc;border-radius:.5rem;margin:1rem 0;padding:.25rem 1rem 1rem;min-width:0}" +
  "legend{font-weight:600;padding:0 .3rem}fieldset>label:first-of-type{margin-top:.4rem}" +
  ".choice{display:flex;align-items:flex-start;gap:.55rem;margin:.5rem 0}" +
  ".choice input{width:1.2rem;height:1.2rem;margin:.15rem 0 0;flex:none;accent-color:#176b2c}" +
  ".choice label{display:inline;font-weight:400;margin:0}" +
  "button,a.button{display:inline-block;font:inherit;padding:.55rem 1.3rem;border-radius:.4rem;border:1px solid #767676;" +
  "background:#f7f7f7;color:#1b1b1b;cursor:pointer;text-decoration:none;line-height:1.5}" +
  "td button{padding:.3rem .9rem}" +
  "button.approve,a.button.approve{background:#176b2c;color:#fff;border-color:#176b2c}" +
  "button.danger{background:#a51d2d;color:#fff;border-color:#a51d2d}" +
  ".actions{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1rem;margin:1.5rem 0 0}.actions form{margin:0}" +
  ":focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}" +
  ".note{color:#555;font-size:.9rem;margin:.2rem 0 .4rem}p.error{color:#a51d2d;font-weight:600;margin:.3rem 0}" +
  ".flash{padding:.6rem 1rem;border-radius:.4rem;background:#e8f4ea;border:1px solid #176b2c}" +
  ".flash.error{background:#fbeaea;border-color:#a51d2d}.flash.info{background:#eef4fb;border-color:#1a5fb4}" +
  ".flash>:first-child{margin-top:0}.flash>:last-child{margin-bottom:0}" +
  ".ok{color:#176b2c}.degraded{color:#8a5300}.needs_reconnection{color:#a51d2d;font-weight:600}" +
  "details{margin:1rem 0;border:1px solid #ccc;border-radius:.5rem;padding:.5rem 1rem}" +
  "summary{cursor:pointer;font-weight:600}details[open]>summary{margin-bottom:.5rem}" +
  ".toggle:has(input.hides:checked) .dependent{display:none}" +
  ".row{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}.row>div{flex:1 1 9rem;min-width:0}" +
  ".row>.wide{flex:3 1 14rem}.row>.narrow{flex:0 1 7.5rem}" +
  "code{overflow-wrap:anywhere}.links a{display:inline-block;margin:0 .7rem .2rem 0}" +
  ".vh{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;" +
  "clip:rect(0 0 0 0);white-space:nowrap;border:0}" +
  "@media (max-width:40rem){h1{font-size:1.4rem}" +
  "table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}" +
  "table.stack,table.stack caption,table.stack tbody,table.stack tr,table.stack th,table.stack td{display:block;width:100%}" +
  "table.stack tr{border:1px solid #ccc;border-radius:.5rem;margin:.6rem 0;padding:.3rem .7rem}" +
  "table.stack th,table.stack td{border:0;padding:.2rem 0}table.stack th[scope=row]{background:none;font-size:1.05rem}" +
  'table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:#555}' +
  "table.form thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}" +
  "table.form,table.form tbody{display:block;width:100%}" +
  "table.form tr{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:0 .6rem;margin:0 0 .5rem}" +
  "table.form th[scope=row]{grid-column:1/-1;padding:0}table.form td{padding:0}table.form input{width:100%}" +
  "table.form td[data-label]::before{content:attr(data-label);display:block;font-size:.85rem;color:#555}}";

/** The CSP source of each stylesheet a page carries: the shared one, and any of its own. */
const styleSources = (extra: readonly string[]) =>
  [STYLE, ...extra]
    .map((css) => `'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'`)
    .join(" ");

/**
 * No script at all; the stylesheets by their hashes; forms post only here; never framed. A page
 * with a stylesheet of its own (PageOptions.style) is served with pageCsp([that stylesheet]).
 */
export function pageCsp(extraStyles: readonly string[] = []): string {
  return (
    `default-src 'none'; style-src ${styleSources(extraStyles)}; form-action 'self'; ` +
    "frame-ancestors 'none'; base-uri 'none'"
  );
}

export const PAGE_CSP = pageCsp();

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy": PAGE_CSP,
};

export interface PageOptions {
  /** The wide layout (tables of hosts and bookings); the narrow one reads better for a question. */
  readonly wide?: boolean;
  /** Trusted HTML for the banner above <main> (already escaped by its builder). */
  readonly header?: string;
  /** A stylesheet of the page's own after the shared one; serve the page with pageCsp([style]). */
  readonly style?: string;
}

/** A whole document: `body` is trusted HTML (already escaped by its builder), put in <main>. */
export function page(title: string, body: string, opts: PageOptions = {}): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style>${opts.style !== undefined ? `<style>${opts.style}</style>` : ""}</head><body${opts.wide === true ? ' class="wide"' : ""}>` +
    (opts.header !== undefined ? `<header>${opts.header}</header>` : "") +
    `<main>${body}</main></body></html>`
  );
}

export function htmlResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...PAGE_HEADERS, ...headers } });
}
