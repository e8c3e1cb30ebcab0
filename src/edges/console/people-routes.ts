/**
 * A person's own calendar in the console (SchCP §7.7), beside its week (host-routes.ts):
 *
 *   GET  /console/key                              the key app: the person's key, made in this browser
 *   GET  /console/key-app.js                       its script (key-app-script.ts)
 *   GET  /console/hosts/{hostId}/contacts          the contact list (§7.8)
 *   POST /console/hosts/{hostId}/contacts          add (principal + name), or rename
 *   POST /console/hosts/{hostId}/contacts/remove
 *   GET  /console/hosts/{hostId}/rules             the rules, and the form the key app signs (§7.9)
 *   POST /console/hosts/{hostId}/rules             a compact JWS the browser signed: kept if it verifies
 *   POST /console/hosts/{hostId}/rules/remove
 *
 * Only a person's calendar (host kind "person") has these pages, and only a viewer who may manage
 * it (accounts-access.ts) sees them; anyone else gets 404 as for an unknown host. Every POST is the
 * console's (same origin, CSRF token) and answers with a redirect to its page and a flash. The
 * rule is verified by the core (the operator API's addRule: verifyRule, the calendar's owner as
 * iss); the private key that signed it never reaches the server.
 */
import type { Context, Hono } from "hono";
import { jwkThumbprint } from "../../protocol/jose/jwk.js";
import { readableTime } from "../../protocol/time/index.js";
import type { HostRuntime, OperatorApi, UseCase } from "../../booking/api.js";
import type { ConsoleAppDeps, ConsoleContacts } from "./app-deps.js";
import type { ConsoleDeps, ConsoleKit } from "./kit.js";
import { mayManage, type ConsoleViewer } from "./managed-hosts.js";
import { consoleHeader, hostPath, refusedPage } from "./pages.js";
import type { Session } from "./sessions.js";
import { KEY_APP_SCRIPT } from "./key-app-script.js";
import { KEY_APP_CSP, KEY_APP_PATH, contactsPage, keyPage, rulesPage, type RuleRow } from "./people-pages.js";

/** A rule as the core keeps it (answers/rules.ts RuleView), the members these pages read. */
interface RuleShown {
  readonly claims: {
    readonly jti: string;
    readonly label: string;
    readonly exp: number;
    readonly services?: readonly string[];
    readonly weekdays?: readonly string[];
    readonly tz?: string;
    readonly organizers?: readonly string[];
  };
  readonly answerable: boolean;
}

/** The operator API's rule use cases (SchCP §7.9), present where the gateway keeps rules. */
interface RuleApi {
  addRule?(hostId: string, jws: unknown): UseCase<{ readonly rule: RuleShown; readonly replaced: boolean }>;
  listRules?(hostId: string): UseCase<readonly RuleShown[]>;
  removeRule?(hostId: string, jti: string): UseCase<true>;
}

/** A signed rule is a few hundred bytes; a long organizers list a few KB. */
const MAX_RULE_FORM_BYTES = 24_576;

const DAY_NAMES: Readonly<Record<string, string>> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun",
};

/** What a rule covers, in words: each field it states narrows it (§7.9). */
function coversText(r: RuleShown, serviceName: (id: string) => string): string {
  const c = r.claims;
  const parts = [
    c.services === undefined ? "every kind of meeting" : c.services.map(serviceName).join(", "),
    c.weekdays === undefined
      ? "any day"
      : `${c.weekdays.map((d) => DAY_NAMES[d] ?? d).join(", ")}${c.tz !== undefined ? ` (${c.tz})` : ""}`,
    c.organizers === undefined
      ? "from anyone who may book"
      : `from ${c.organizers.length} ${c.organizers.length === 1 ? "person" : "people"}`,
  ];
  return parts.join(" · ") + (r.answerable ? "" : " · not usable: signed for another agent key");
}

export function mountPeopleRoutes(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, kit: ConsoleKit): void {
  const rulesApi = deps.api as OperatorApi & RuleApi;
  const header = (s: { session: Session; viewer: ConsoleViewer }) => consoleHeader(s.session.csrf, s.viewer);
  const notFound = (s: { session: Session; viewer: ConsoleViewer }) =>
    kit.html(
      404,
      refusedPage("Not found", "There is no such calendar here, or it is not yours to manage.", header(s)),
    );

  /** The person's calendar a viewer may manage, or undefined (answered as not found). */
  const personHost = async (viewer: ConsoleViewer, hostId: string): Promise<HostRuntime | undefined> => {
    const record = await deps.managedHosts?.store.get(hostId);
    if (!mayManage(viewer, record)) return undefined;
    const host = deps.hosts.get(hostId);
    return host?.config.kind === "person" ? host : undefined;
  };

  const back = async (
    a: { id: string; session: Session },
    path: string,
    flash: { text: string; error?: boolean },
  ): Promise<Response> => {
    await con.sessions.flash(a.id, a.session, flash);
    return kit.redirect(path);
  };

  app.get(
    KEY_APP_PATH,
    () =>
      new Response(KEY_APP_SCRIPT, {
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "no-cache",
          "x-content-type-options": "nosniff",
        },
      }),
  );

  app.get("/console/key", async (c) => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    return kit.html(200, keyPage({ header: header(s) }), { "content-security-policy": KEY_APP_CSP });
  });

  // ---- contacts (§7.8) ----------------------------------------------------------------

  const contactsOf = (): ConsoleContacts | undefined => deps.contacts;

  const showContacts = async (
    c: Context,
    extra: { values?: { principal: string; name: string }; status?: number } = {},
  ): Promise<Response> => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    const host = await personHost(s.viewer, c.req.param("hostId") ?? "");
    const store = contactsOf();
    if (host === undefined || store === undefined) return notFound(s);
    const tz = host.config.timezone;
    const list = await store.list(host.config.id);
    const flash = s.session.flash;
    if (flash !== undefined) await con.sessions.flash(s.id, s.session, undefined);
    return kit.html(
      extra.status ?? 200,
      contactsPage({
        hostId: host.config.id,
        name: host.config.name,
        header: header(s),
        csrf: s.session.csrf,
        contactsOnly: host.config.policies.access === "contacts",
        contacts: list.map((x) => ({
          principal: x.principal,
          name: x.name,
          added: readableTime(x.addedAt, tz),
        })),
        ...(flash !== undefined && { flash }),
        ...(extra.values !== undefined && { values: extra.values }),
      }),
    );
  };

  app.get("/console/hosts/:hostId/contacts", (c) => showContacts(c));

  app.post("/console/hosts/:hostId/contacts", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    const host = await personHost(a.value.viewer, c.req.param("hostId"));
    const store = contactsOf();
    if (host === undefined || store === undefined) return notFound(a.value);
    const path = `${hostPath(host.config.id)}/contacts`;
    const principal = (a.value.form.get("principal") ?? "").trim();
    const name = (a.value.form.get("name") ?? "").replace(/\s+/g, " ").trim();
    const added = await store.add(host.config.id, { principal, name, addedAt: deps.clock.now() });
    if (added === "invalid")
      return back(a.value, path, {
        text:
          name === ""
            ? "Give the contact a name."
            : "That is not a principal: it starts with urn:schcp:principal:jwk-thumbprint: and is copied whole from their assistant. Names are at most 100 characters.",
        error: true,
      });
    if (added === "full")
      return back(a.value, path, {
        text: "The list is full (500 contacts). Remove someone first.",
        error: true,
      });
    deps.logger.info("console contact added", { host_id: host.config.id, updated: added === "updated" });
    return back(a.value, path, { text: added === "added" ? `Added ${name}.` : `Renamed to ${name}.` });
  });

  app.post("/console/hosts/:hostId/contacts/remove", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    const host = await personHost(a.value.viewer, c.req.param("hostId"));
    const store = contactsOf();
    if (host === undefined || store === undefined) return notFound(a.value);
    const path = `${hostPath(host.config.id)}/contacts`;
    const principal = a.value.form.get("principal") ?? "";
    const known = (await store.list(host.config.id)).find((x) => x.principal === principal);
    const removed = await store.remove(host.config.id, principal);
    return back(
      a.value,
      path,
      removed
        ? { text: `Removed ${known?.name ?? "the contact"}. They can no longer see your time or book it.` }
        : { text: "That contact was not on the list.", error: true },
    );
  });

  // ---- rules (§7.9) -------------------------------------------------------------------

  app.get("/console/hosts/:hostId/rules", async (c) => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    const host = await personHost(s.viewer, c.req.param("hostId"));
    const key = host?.keys[0];
    if (host === undefined || key === undefined || rulesApi.listRules === undefined) return notFound(s);
    const listed = await rulesApi.listRules(host.config.id);
    const tz = host.config.timezone;
    const services = host.catalog.services.map((x) => ({ id: x.id, name: x.name }));
    const serviceName = (id: string) => services.find((x) => x.id === id)?.name ?? id;
    const rules: RuleRow[] = (listed.ok ? listed.value : []).map((r) => ({
      jti: r.claims.jti,
      label: r.claims.label,
      covers: coversText(r, serviceName),
      until: readableTime(r.claims.exp * 1000, tz),
    }));
    const flash =
      s.session.flash ??
      (listed.ok ? undefined : { text: `Rules could not be read: ${listed.error.message}`, error: true });
    if (s.session.flash !== undefined) await con.sessions.flash(s.id, s.session, undefined);
    return kit.html(
      200,
      rulesPage({
        hostId: host.config.id,
        name: host.config.name,
        header: header(s),
        csrf: s.session.csrf,
        timezone: tz,
        owner: host.config.owner ?? "",
        // SchCP §7.9 cnf.jkt: the calendar's own signing key (the first, which signs, §2.1) answers.
        agentJkt: jwkThumbprint(key.publicJwk),
        services,
        rules,
        ...(flash !== undefined && { flash }),
      }),
      { "content-security-policy": KEY_APP_CSP },
    );
  });

  app.post("/console/hosts/:hostId/rules", async (c) => {
    const a = await kit.authorized(c, MAX_RULE_FORM_BYTES);
    if (!a.ok) return a.error;
    const host = await personHost(a.value.viewer, c.req.param("hostId"));
    if (host === undefined || rulesApi.addRule === undefined) return notFound(a.value);
    const path = `${hostPath(host.config.id)}/rules`;
    const jws = a.value.form.get("rule") ?? "";
    if (jws === "")
      return back(a.value, path, {
        text: "Nothing was signed: the key app signs the rule in your browser, which needs JavaScript.",
        error: true,
      });
    const added = await rulesApi.addRule(host.config.id, jws);
    if (!added.ok)
      return back(a.value, path, { text: `The rule was not kept: ${added.error.message}`, error: true });
    deps.logger.info("console rule added", { host_id: host.config.id, jti: added.value.rule.claims.jti });
    return back(a.value, path, { text: `Signed and kept: “${added.value.rule.claims.label}”.` });
  });

  app.post("/console/hosts/:hostId/rules/remove", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    const host = await personHost(a.value.viewer, c.req.param("hostId"));
    if (host === undefined || rulesApi.removeRule === undefined) return notFound(a.value);
    const path = `${hostPath(host.config.id)}/rules`;
    const removed = await rulesApi.removeRule(host.config.id, a.value.form.get("jti") ?? "");
    return back(
      a.value,
      path,
      removed.ok
        ? { text: "Removed the rule. Your calendar asks you again for what it covered." }
        : { text: "That rule was not kept here.", error: true },
    );
  });
}
