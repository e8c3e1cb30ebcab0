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
 * Plain and readable: system font, high-contrast text, a visible focus ring on every control
 * (keyboard users see where they are), tables with header cells, the approve button green.
 */
export const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}" +
  "body.wide{max-width:72rem}" +
  "header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:1rem;border-bottom:1px solid #ccc;margin-bottom:1rem}" +
  "header p{margin:.5rem 0;font-weight:600}" +
  "h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}" +
  "dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{color:#555}" +
  "table{border-collapse:collapse;width:100%;margin:.5rem 0}" +
  "th,td{text-align:left;vertical-align:top;padding:.4rem .6rem;border-bottom:1px solid #ddd}th{background:#f3f3f3}" +
  "form{display:inline-block;margin:1rem 1rem 0 0}td form{margin:0 .4rem .2rem 0}" +
  "label{display:block;font-weight:600;margin-bottom:.3rem}" +
  "input[type=password],input[type=email]{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;border:1px solid #888;border-radius:.4rem}" +
  "button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #888;background:#f7f7f7;color:#1b1b1b;cursor:pointer}" +
  "td button{padding:.3rem .9rem}" +
  "button.approve{background:#176b2c;color:#fff;border-color:#176b2c}" +
  ":focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}" +
  ".note{color:#555;font-size:.9rem}" +
  ".flash{padding:.6rem 1rem;border-radius:.4rem;background:#e8f4ea;border:1px solid #176b2c}" +
  ".flash.error{background:#fbeaea;border-color:#a51d2d}" +
  ".ok{color:#176b2c}.degraded{color:#8a5300}.needs_reconnection{color:#a51d2d;font-weight:600}";

const STYLE_HASH = `sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}`;

/** No script at all; the stylesheet by its hash; forms post only here; never framed. */
export const PAGE_CSP =
  `default-src 'none'; style-src '${STYLE_HASH}'; form-action 'self'; ` +
  "frame-ancestors 'none'; base-uri 'none'";

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
}

/** A whole document: `body` is trusted HTML (already escaped by its builder), put in <main>. */
export function page(title: string, body: string, opts: PageOptions = {}): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body${opts.wide === true ? ' class="wide"' : ""}>` +
    (opts.header !== undefined ? `<header>${opts.header}</header>` : "") +
    `<main>${body}</main></body></html>`
  );
}

export function htmlResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...PAGE_HEADERS, ...headers } });
}
