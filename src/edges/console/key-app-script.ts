/**
 * The console's key app (SchCP §7.9 "a key app in the console"), served as
 * GET /console/key-app.js to the two pages that carry it (people-pages.ts): the key page and a
 * person's Rules page. It is the console's only script.
 *
 * The person's key is made and kept in their browser: an Ed25519 key pair from WebCrypto with a
 * non-extractable private key (only the public half can be exported), kept in IndexedDB as the
 * CryptoKey objects themselves. The private key never leaves the browser; the server sees the
 * principal (urn:schcp:principal:jwk-thumbprint:<RFC 7638 thumbprint>) and the signed rules.
 *
 * Hand-written on purpose: WebCrypto already signs Ed25519, and what is left (base64url, an
 * RFC 7638 thumbprint of an OKP key, a compact JWS of typ schcp-rule+jwt) is a few lines that
 * a library would add a bundle and a supply chain for. No framework: the pages are
 * server-rendered; the script fills in the principal and, on the Rules page, turns the form's
 * fields into rule claims, signs them and submits the compact JWS in the form's hidden `rule`.
 *
 * It also signs a meeting member's acceptance (SchCP §5.12, by: "person", typ
 * schcp-acceptance+jwt) on the approval page of a meeting (src/edges/approval, same origin, so
 * the same key): the statement and the contract's hash come from the page, the key must be the
 * calendar's owner's, and the compact JWS goes in the form's hidden `acceptance`.
 */
export const KEY_APP_SCRIPT = `"use strict";
(() => {
  const DB = "schcp-console-key-app";
  const STORE = "keys";
  const ID = "principal";
  const $ = (id) => document.getElementById(id);
  const b64u = (bytes) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const utf8 = (s) => new TextEncoder().encode(s);
  const say = (text, error) => {
    const out = $("key-status");
    if (out === null) return;
    out.textContent = text;
    out.className = error ? "flash error" : "flash info";
  };

  function db() {
    return new Promise((resolve, reject) => {
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
  }
  async function run(mode, act) {
    const d = await db();
    return new Promise((resolve, reject) => {
      const t = d.transaction(STORE, mode);
      const r = act(t.objectStore(STORE));
      t.oncomplete = () => resolve(r.result);
      t.onerror = () => reject(t.error);
    });
  }

  /** The key pair of this browser, made on first use; the private half is not extractable. */
  async function keyPair() {
    const kept = await run("readonly", (s) => s.get(ID));
    if (kept) return kept;
    const made = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    await run("readwrite", (s) => s.put(made, ID));
    return made;
  }
  async function publicJwk(pair) {
    const j = await crypto.subtle.exportKey("jwk", pair.publicKey);
    return { kty: "OKP", crv: "Ed25519", x: j.x };
  }
  /** RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace. */
  async function principalOf(jwk) {
    const canonical = '{"crv":"Ed25519","kty":"OKP","x":"' + jwk.x + '"}';
    return "urn:schcp:principal:jwk-thumbprint:" + b64u(await crypto.subtle.digest("SHA-256", utf8(canonical)));
  }
  async function sign(pair, claims, typ = "schcp-rule+jwt") {
    const header = b64u(utf8(JSON.stringify({ alg: "EdDSA", typ })));
    const payload = b64u(utf8(JSON.stringify(claims)));
    const input = header + "." + payload;
    const sig = await crypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, utf8(input));
    return input + "." + b64u(sig);
  }
  const randomId = () => b64u(crypto.getRandomValues(new Uint8Array(12)));

  /**
   * 23:59:59 of a YYYY-MM-DD day in an IANA zone, epoch seconds: the zone's offset read at that
   * wall time as if it were UTC (Intl's longOffset, "GMT-05:00"), then taken off. Throws
   * RangeError for a zone the browser does not know.
   */
  function endOfDay(day, zone) {
    const asUtc = Date.parse(day + "T23:59:59Z");
    const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
      .formatToParts(new Date(asUtc))
      .find((part) => part.type === "timeZoneName").value;
    const m = /^GMT(?:([+-])(\\d{2}):(\\d{2}))?$/.exec(name);
    const offset = m === null || m[1] === undefined ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
    return Math.floor(asUtc / 1000) - offset * 60;
  }

  /** The rule's claims from the form (SchCP §7.9): an absent field does not narrow it. */
  function claimsFrom(form, jwk, principal) {
    const checked = (name) => [...form.querySelectorAll('input[name="' + name + '"]:checked')].map((i) => i.value);
    const label = form.elements.namedItem("label").value.replace(/\\s+/g, " ").trim();
    const services = checked("services");
    const weekdays = checked("weekdays");
    const tz = form.elements.namedItem("tz").value.trim();
    const organizers = form.elements
      .namedItem("organizers")
      .value.split(/\\s+/)
      .filter((s) => s !== "");
    const until = form.elements.namedItem("exp").value;
    const now = Math.floor(Date.now() / 1000);
    // Until the end of the chosen day in the rule's time zone; 90 days when none is chosen.
    const exp = until === "" ? now + 90 * 86400 : endOfDay(until, tz || form.dataset.tz);
    return {
      iss: principal,
      principal_jwk: jwk,
      iat: now,
      exp,
      jti: "r-" + randomId(),
      cnf: { jkt: form.dataset.jkt },
      label,
      ...(services.length > 0 && { services }),
      ...(weekdays.length > 0 && { weekdays, tz }),
      ...(organizers.length > 0 && { organizers: [...new Set(organizers)] }),
    };
  }

  async function start() {
    if (!window.crypto || !crypto.subtle || !window.indexedDB) {
      say("This browser cannot keep a key (it needs WebCrypto and IndexedDB).", true);
      return;
    }
    let pair;
    try {
      pair = await keyPair();
    } catch (e) {
      say("This browser could not make an Ed25519 key: " + (e && e.message ? e.message : String(e)), true);
      return;
    }
    const jwk = await publicJwk(pair);
    const principal = await principalOf(jwk);
    const shown = $("principal");
    if (shown !== null) shown.value = principal;
    const accept = $("accept-form");
    if (accept !== null) return acceptance(accept, pair, jwk, principal);
    const form = $("rule-form");
    const owner = form === null ? undefined : form.dataset.owner;
    if (form !== null && owner !== principal) {
      say("The key in this browser is not this calendar's owner, so it cannot sign rules for it. Use the browser where you made the key, or set this principal as the owner in Settings.", true);
      form.querySelector("button[type=submit]").disabled = true;
      return;
    }
    say(form === null ? "Your key is kept in this browser." : "Your key is ready to sign.", false);
    if (form === null) return;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      let claims;
      try {
        claims = claimsFrom(form, jwk, principal);
      } catch {
        say("This browser does not know that time zone: give an IANA name such as America/Toronto.", true);
        form.elements.namedItem("tz").focus();
        return;
      }
      if (claims.label === "") {
        say("Give the rule a label: what it says, in your own words.", true);
        form.elements.namedItem("label").focus();
        return;
      }
      form.elements.namedItem("rule").value = await sign(pair, claims);
      form.submit();
    });
  }
  /** §5.12: the member's own yes to the statement on the page, signed with this browser's key. */
  function acceptance(form, pair, jwk, principal) {
    const button = form.querySelector("button[type=submit]");
    if (form.dataset.owner !== principal) {
      say("The key in this browser is not this calendar's owner, so it cannot accept for them. Use the browser where you made the key.", true);
      button.disabled = true;
      return;
    }
    say("Your key is ready to sign your acceptance.", false);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const claims = {
        iss: principal,
        iat: Math.floor(Date.now() / 1000),
        terms_sha256: form.dataset.terms,
        meeting_id: form.dataset.meeting,
        by: "person",
        statement: form.dataset.statement,
        jwk,
      };
      form.elements.namedItem("acceptance").value = await sign(pair, claims, "schcp-acceptance+jwt");
      form.submit();
    });
  }

  start();
})();
`;
