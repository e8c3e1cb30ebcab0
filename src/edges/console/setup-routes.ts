/**
 * Adding and setting up a business from the console, through the ManagedHosts port:
 *
 *   GET|POST /console/hosts/new               "Add a business": a draft record, then Connect
 *   GET|POST /console/hosts/{id}/caldav       a CalDAV account, checked live before it is kept
 *   GET|POST /console/hosts/{id}/setup        the draft's calendars/services/hours → activate
 *   GET|POST /console/hosts/{id}/settings     the same form for an active host, prefilled
 *   GET|POST /console/hosts/{id}/delete       a draft removed (with any credentials it holds)
 *
 * Every route needs a live console session; a host the viewer may not manage (mayManage) is
 * answered 404, exactly as a host that does not exist, so other owners' hosts are not revealed.
 * POSTs go through the console's own guard (same origin, session, CSRF token), as routes.ts does.
 *
 * A source this gateway cannot offer (no OAuth client for it, no token vault to keep a CalDAV
 * password in) is not offered; the page names it with the setting that turns it on, so no owner
 * starts a business that cannot be connected.
 */
import type { Context, Hono } from "hono";
import { AUTHORIZATION_ORIGINS } from "./connect/providers.js";
import type { Disconnect } from "./connect/disconnect.js";
import { ACCESS_PAGES } from "./connect/revoke.js";
import type { ConsoleAppDeps } from "./app-deps.js";
import {
  DEFAULT_OWNER_CAPS,
  mayManage,
  OPERATOR_OWNER,
  type ManagedHostRecord,
  type ManagedHostSource,
  type ManagedHosts,
} from "./managed-hosts.js";
import type { HostChoices } from "./setup/choices.js";
import { draftConfig, parseNewHost, SOURCES, type FormErrors } from "./setup/new-host.js";
import {
  buildHostEntry,
  checkHostEntry,
  DEFAULT_VALUES,
  inputForField,
  readSetupForm,
  valuesFromEntry,
  withChoiceDefaults,
  type SetupValues,
} from "./setup/setup-form.js";
import type { ConsoleViewer } from "./managed-hosts.js";
import { PAGE_CSP } from "../http/layout.js";
import { consoleHeader, refusedPage, type ConsolePlace, type DraftRow } from "./pages.js";
import type { ConsoleDeps } from "./kit.js";
import type { Session } from "./sessions.js";
import {
  caldavPage,
  deleteDraftPage,
  newHostPage,
  setupPage,
  type UnavailableSource,
} from "./setup-pages.js";
import type { Result } from "../../protocol/result.js";

/** What mountConsole lends these routes (its guard and response helpers). */
export interface ConsoleHelpers {
  readonly authorized: (
    c: Context,
    maxBytes?: number,
  ) => Promise<
    Result<{ id: string; session: Session; viewer: ConsoleViewer; form: URLSearchParams }, Response>
  >;
  /** The live session and its viewer (an owner disabled since sign-in has none). */
  readonly signedIn: (
    c: Context,
  ) => Promise<{ id: string; session: Session; viewer: ConsoleViewer } | undefined>;
  readonly htmlResponse: (status: number, body: string, headers?: Record<string, string>) => Response;
  readonly sessionId: (c: Context) => string | undefined;
  readonly forbidden: (text: string) => Response;
}

/** A setup form: a few dozen inputs and the calendar ids ticked; far below this. */
const MAX_SETUP_FORM_BYTES = 64 * 1024;

const nameOf = (r: ManagedHostRecord): string => (typeof r.config.name === "string" ? r.config.name : r.id);

const redirect = (location: string) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

/** The variables of each provider's OAuth client (cli/serve-env.ts reads them). */
const CLIENT_VARIABLES: Readonly<Record<Exclude<ManagedHostSource, "caldav">, string>> = {
  square: "SQUARE_CLIENT_ID and SQUARE_CLIENT_SECRET",
  google: "GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET",
  microsoft: "MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET",
};

/** What the operator sets for the vault (docs/connectors.md "OAuth tokens in the gateway's vault"). */
const VAULT_FIX =
  'TOKEN_KEYS (a key id and a 32-byte key, "k1:" followed by the output of openssl rand -base64 32)';

export function mountSetup(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, h: ConsoleHelpers): void {
  /** The banner for this viewer's session. */
  const header = (s: { session: Session; viewer: ConsoleViewer }, place?: ConsolePlace) =>
    consoleHeader(s.session.csrf, s.viewer, place);
  const notFound = (s?: { session: Session; viewer: ConsoleViewer }) =>
    h.htmlResponse(
      404,
      refusedPage(
        "Not found",
        "There is no such host here, or it is not yours to manage.",
        ...(s !== undefined ? [header(s)] : []),
      ),
    );
  /** A CalDAV password and an OAuth grant both need the token vault; setupChoices exists with it. */
  const hasVault = () => con.setupChoices !== undefined;
  const offered = (): ManagedHostSource[] =>
    SOURCES.filter((s) =>
      s === "caldav"
        ? hasVault()
        : (deps.connect?.providers as readonly string[] | undefined)?.includes(s) === true,
    );
  /** Every source not offered, with what the gateway's operator sets to offer it. */
  const unavailable = (): UnavailableSource[] =>
    SOURCES.filter((s) => !offered().includes(s)).map((source) => {
      const needs =
        source === "caldav"
          ? VAULT_FIX
          : hasVault()
            ? CLIENT_VARIABLES[source]
            : `${CLIENT_VARIABLES[source]}, and ${VAULT_FIX}`;
      return {
        source,
        why: `the gateway's operator turns it on by setting ${needs}, then restarting the gateway.`,
      };
    });
  /** Why a CalDAV account cannot be connected here; undefined when it can. */
  const caldavCannot = (): string | undefined =>
    hasVault()
      ? undefined
      : `This gateway cannot keep CalDAV passwords: it has no token vault. The gateway's operator turns it on by setting ${VAULT_FIX}, then restarting the gateway. Until then, delete this business or leave it for later.`;

  /** The form's POST redirects on to the provider's consent page: its CSP form-action allows it. */
  const newHostHeaders = (sources: readonly ManagedHostSource[]) => {
    const origins = sources.flatMap((s) => (s === "caldav" ? [] : AUTHORIZATION_ORIGINS[s]));
    return {
      "content-security-policy": PAGE_CSP.replace(
        "form-action 'self'",
        ["form-action 'self'", ...origins].join(" "),
      ),
    };
  };

  /** The GET's session, or the redirect to sign-in. */
  const signedIn = (c: Context) => h.signedIn(c);

  /** The record this viewer may manage, or undefined (answered 404). */
  const recordFor = async (managed: ManagedHosts, viewer: ConsoleViewer, hostId: string) => {
    const record = await managed.store.get(hostId);
    return record !== undefined && mayManage(viewer, record) ? record : undefined;
  };

  const loadChoices = async (record: ManagedHostRecord) => {
    if (con.setupChoices === undefined)
      return { choicesError: "this gateway cannot list them; type the ids." };
    const got = await con.setupChoices.load(record);
    return got.ok ? { choices: got.value } : { choicesError: got.error.message };
  };

  // ---- Add a business --------------------------------------------------------------------
  app.get("/console/hosts/new", async (c) => {
    const s = await signedIn(c);
    if (s === undefined) return redirect("/");
    if (deps.managedHosts === undefined) return notFound(s);
    const sources = offered();
    return h.htmlResponse(
      200,
      newHostPage({
        csrf: s.session.csrf,
        header: header(s, "new"),
        offered: sources,
        unavailable: unavailable(),
      }),
      newHostHeaders(sources),
    );
  });

  app.post("/console/hosts/new", async (c) => {
    const a = await h.authorized(c);
    if (!a.ok) return a.error;
    const managed = deps.managedHosts;
    if (managed === undefined) return notFound(a.value);
    const { values, errors } = parseNewHost(a.value.form, offered());
    if (Object.keys(errors).length === 0 && !(await managed.idAvailable(values.hostId)))
      errors.host_id = `The host id "${values.hostId}" is taken: choose another.`;
    const again = (status: number, errs: FormErrors, general?: string) =>
      h.htmlResponse(
        status,
        newHostPage({
          csrf: a.value.session.csrf,
          header: header(a.value, "new"),
          offered: offered(),
          unavailable: unavailable(),
          values,
          errors: errs,
          ...(general !== undefined && { general }),
        }),
        newHostHeaders(offered()),
      );
    if (Object.keys(errors).length > 0) return again(400, errors);
    const viewer = a.value.viewer;
    const at = deps.clock.now();
    const record: ManagedHostRecord = {
      id: values.hostId,
      owner: viewer.kind === "owner" ? viewer.ownerId : OPERATOR_OWNER,
      source: values.source as ManagedHostSource,
      state: "draft",
      config: draftConfig(values),
      createdAt: at,
      updatedAt: at,
    };
    // An owner's hosts are counted against their caps in the same step as the write.
    const caps = con.ownerCaps ?? DEFAULT_OWNER_CAPS;
    const created =
      viewer.kind === "owner" ? await managed.store.create(record, caps) : await managed.store.put(record);
    if (created === "too_many_drafts" || created === "too_many_hosts")
      return again(
        409,
        {},
        created === "too_many_drafts"
          ? `You have ${caps.drafts} businesses not yet set up, the most one owner may have at once. Finish setting one up, or delete one (both from the console's home page, under Not set up yet), before adding another.`
          : `You have ${caps.hosts} businesses, the most one owner may have here. Ask the gateway's operator if you need more.`,
      );
    if (created !== "ok")
      return again(400, { host_id: `The host id "${values.hostId}" is taken: choose another.` });
    deps.logger.info("console host added", { host_id: record.id, source: record.source });
    const id = encodeURIComponent(record.id);
    return redirect(
      record.source === "caldav"
        ? `/console/hosts/${id}/caldav`
        : `/connect/${record.source}/start?host=${id}`,
    );
  });

  // ---- CalDAV account ----------------------------------------------------------------------
  app.get("/console/hosts/:hostId/caldav", async (c) => {
    const s = await signedIn(c);
    if (s === undefined) return redirect("/");
    if (deps.managedHosts === undefined) return notFound(s);
    const record = await recordFor(deps.managedHosts, s.viewer, c.req.param("hostId"));
    if (record === undefined || record.source !== "caldav") return notFound(s);
    const cannot = caldavCannot();
    return h.htmlResponse(
      cannot === undefined ? 200 : 503,
      caldavPage({
        hostId: record.id,
        name: nameOf(record),
        csrf: s.session.csrf,
        header: header(s),
        ...(cannot !== undefined && { cannot }),
      }),
    );
  });

  app.post("/console/hosts/:hostId/caldav", async (c) => {
    const a = await h.authorized(c);
    if (!a.ok) return a.error;
    if (deps.managedHosts === undefined) return notFound(a.value);
    const record = await recordFor(deps.managedHosts, a.value.viewer, c.req.param("hostId"));
    if (record === undefined || record.source !== "caldav") return notFound(a.value);
    const name = nameOf(record);
    const req = {
      serverUrl: (a.value.form.get("server_url") ?? "").trim(),
      username: (a.value.form.get("username") ?? "").trim(),
      password: a.value.form.get("password") ?? "",
    };
    const errors: FormErrors = {};
    if (req.serverUrl === "") errors.server_url = "Give the CalDAV server's URL.";
    if (req.username === "") errors.username = "Give the username.";
    if (req.password === "") errors.password = "Give the password.";
    const page = (status: number, errs: FormErrors, general?: string, cannot?: string) =>
      h.htmlResponse(
        status,
        caldavPage({
          hostId: record.id,
          name,
          csrf: a.value.session.csrf,
          header: header(a.value),
          values: req,
          errors: errs,
          ...(general !== undefined && { general }),
          ...(cannot !== undefined && { cannot }),
        }),
      );
    if (con.setupChoices === undefined) return page(503, {}, undefined, caldavCannot());
    if (Object.keys(errors).length > 0) return page(400, errors);
    const done = await con.setupChoices.connectCaldav(record.id, req);
    if (!done.ok) {
      const field = done.error.kind === "unauthorized" ? "password" : "server_url";
      return page(done.error.kind === "unreachable" ? 502 : 400, { [field]: done.error.message });
    }
    const connector = (record.config.connector ?? {}) as Record<string, unknown>;
    const config = {
      ...record.config,
      connector: {
        ...connector,
        type: "caldav",
        // Username and password stay in the sealed Basic vault; the connector reads both from
        // there (runtime/connectors.ts refuses a username beside credentials "vault").
        settings: { serverUrl: new URL(req.serverUrl).href, credentials: "vault" },
      },
    };
    const put = await deps.managedHosts.store.put(
      { ...record, config, updatedAt: Math.max(deps.clock.now(), record.updatedAt + 1) },
      record.updatedAt,
    );
    if (put !== "ok")
      return page(409, {}, "This host was changed elsewhere meanwhile: reload and try again.");
    return redirect(`/console/hosts/${encodeURIComponent(record.id)}/setup`);
  });

  // ---- Set up / settings ---------------------------------------------------------------------
  const formPage = (
    action: "setup" | "settings",
    record: ManagedHostRecord,
    s: { session: Session; viewer: ConsoleViewer },
    values: SetupValues,
    loaded: { choices?: HostChoices; choicesError?: string },
    errors?: FormErrors,
    general?: string,
  ) =>
    setupPage({
      hostId: record.id,
      name: nameOf(record),
      source: record.source,
      action,
      csrf: s.session.csrf,
      header: header(s),
      ...(typeof record.config.timezone === "string" && { timezone: record.config.timezone }),
      values,
      ...loaded,
      ...(record.config.kind === "person" && { person: true }),
      ...(errors !== undefined && { errors }),
      ...(general !== undefined && { general }),
    });

  /** setup is for a draft, settings for a host that was set up (active or disconnected). */
  const fits = (action: "setup" | "settings", r: ManagedHostRecord) =>
    action === "setup" ? r.state === "draft" : r.state !== "draft";

  for (const action of ["setup", "settings"] as const) {
    app.get(`/console/hosts/:hostId/${action}`, async (c) => {
      const s = await signedIn(c);
      if (s === undefined) return redirect("/");
      if (deps.managedHosts === undefined) return notFound(s);
      const record = await recordFor(deps.managedHosts, s.viewer, c.req.param("hostId"));
      if (record === undefined) return notFound(s);
      if (!fits(action, record))
        return redirect(
          `/console/hosts/${encodeURIComponent(record.id)}/${action === "setup" ? "settings" : "setup"}`,
        );
      const loaded = await loadChoices(record);
      const values =
        action === "settings"
          ? valuesFromEntry(record.config)
          : withChoiceDefaults(
              // SchCP §7.7: "A person host is almost always contacts-only."
              record.config.kind === "person" ? { ...DEFAULT_VALUES, access: "contacts" } : DEFAULT_VALUES,
              loaded.choices,
            );
      return h.htmlResponse(200, formPage(action, record, s, values, loaded));
    });

    app.post(`/console/hosts/:hostId/${action}`, async (c) => {
      const a = await h.authorized(c, MAX_SETUP_FORM_BYTES);
      if (!a.ok) return a.error;
      const managed = deps.managedHosts;
      if (managed === undefined) return notFound(a.value);
      const record = await recordFor(managed, a.value.viewer, c.req.param("hostId"));
      if (record === undefined) return notFound(a.value);
      if (!fits(action, record)) return notFound(a.value);
      const values = readSetupForm(a.value.form);
      const loaded = await loadChoices(record);
      const again = (errors: FormErrors, general?: string) =>
        h.htmlResponse(400, formPage(action, record, a.value, values, loaded, errors, general));
      const built = buildHostEntry(record, values, loaded.choices);
      if (Object.keys(built.errors).length > 0) return again(built.errors);
      const problem = checkHostEntry(built.entry.config);
      const fieldProblem = (p: { field: string; message: string }) => {
        const inputName = inputForField(p.field, built.entry.inputs);
        return inputName === "" ? again({}, p.message) : again({ [inputName]: p.message });
      };
      if (problem !== undefined) return fieldProblem(problem);
      const next: ManagedHostRecord = {
        ...record,
        config: built.entry.config,
        updatedAt: Math.max(deps.clock.now(), record.updatedAt + 1),
      };
      const done = await managed.activate(next, record.updatedAt);
      if (!done.ok) return fieldProblem(done.error);
      deps.logger.info(`console host ${action === "setup" ? "activated" : "changed"}`, {
        host_id: record.id,
      });
      const discovery = `${deps.publicOrigin}/hosts/${encodeURIComponent(record.id)}/scheduling.json`;
      await con.sessions.flash(a.value.id, a.value.session, {
        text:
          action === "setup"
            ? `${String(next.config.name)} is taking bookings. Agents find it at ${discovery}`
            : `${String(next.config.name)}'s settings are saved. Agents find it at ${discovery}`,
      });
      return redirect("/");
    });
  }

  // ---- Delete a draft --------------------------------------------------------------------------
  /** The draft at the path, when this viewer may manage it (anything else is answered 404). */
  const draftFor = async (viewer: ConsoleViewer, hostId: string) => {
    const managed = deps.managedHosts;
    const record = managed === undefined ? undefined : await recordFor(managed, viewer, hostId);
    return record?.state === "draft" ? record : undefined;
  };

  app.get("/console/hosts/:hostId/delete", async (c) => {
    const s = await signedIn(c);
    if (s === undefined) return redirect("/");
    const record = await draftFor(s.viewer, c.req.param("hostId"));
    if (record === undefined) return notFound(s);
    return h.htmlResponse(
      200,
      deleteDraftPage({
        hostId: record.id,
        name: nameOf(record),
        source: record.source,
        csrf: s.session.csrf,
        header: header(s),
      }),
    );
  });

  app.post("/console/hosts/:hostId/delete", async (c) => {
    const a = await h.authorized(c);
    if (!a.ok) return a.error;
    const managed = deps.managedHosts;
    const record = await draftFor(a.value.viewer, c.req.param("hostId"));
    if (managed === undefined || record === undefined) return notFound(a.value);
    const name = nameOf(record);
    // Whatever the draft was granted goes with it: revoked where the provider allows, deleted
    // here (connect/disconnect.ts; it also marks the record disconnected, then it is deleted).
    const released =
      deps.connect === undefined
        ? undefined
        : await deps.connect.disconnect(deps.hosts, managed).disconnectHost(record.id);
    await managed.store.delete(record.id);
    deps.logger.info("console draft deleted", {
      host_id: record.id,
      source: record.source,
      ...(released !== undefined && {
        credentials: released.ok ? released.value.upstream : released.error.kind,
      }),
      ...(a.value.viewer.kind === "owner" && { owner_id: a.value.viewer.ownerId }),
    });
    await con.sessions.flash(a.value.id, a.value.session, deletedFlash(name, record.source, released));
    return redirect("/");
  });
}

/** What the owner is told once a draft is deleted, and what is left for them to do. */
function deletedFlash(
  name: string,
  source: ManagedHostSource,
  done: Awaited<ReturnType<Disconnect["disconnectHost"]>> | undefined,
): { text: string; error?: boolean } {
  if (done === undefined) return { text: `Deleted ${name}.` };
  if (!done.ok)
    return {
      text: `Deleted ${name}, but the credentials kept for it could not all be removed: ${done.error.message}`,
      error: true,
    };
  switch (done.value.upstream) {
    case "nothing_stored":
      return { text: `Deleted ${name}.` };
    case "revoked":
    case "already_revoked":
      return { text: `Deleted ${name}; the access it was granted was revoked.` };
    case "not_supported":
      return {
        text:
          source === "caldav"
            ? `Deleted ${name} and the CalDAV password saved for it. If it was an app password, you can revoke it at ${ACCESS_PAGES.caldav}.`
            : `Deleted ${name} and its grant; remove the access it was given at ${ACCESS_PAGES[source]}.`,
      };
    case "failed":
      return {
        text: `Deleted ${name} and its grant, but the provider did not confirm the revocation: remove the access at ${ACCESS_PAGES[source]}.`,
        error: true,
      };
  }
}

/** The drafts this viewer may continue setting up (the Operate page lists them), each with its next step. */
export async function draftsFor(deps: ConsoleAppDeps, viewer: ConsoleViewer): Promise<DraftRow[]> {
  const store = deps.managedHosts?.store;
  if (store === undefined) return [];
  // An owner's own records only, through the store's per-owner index.
  const records = viewer.kind === "owner" ? await store.listOwnedBy(viewer.ownerId) : await store.list();
  const drafts = records.filter((r) => r.state === "draft" && mayManage(viewer, r));
  return Promise.all(drafts.map(async (r) => ({ id: r.id, name: nameOf(r), next: await nextStep(deps, r) })));
}

/** Where a draft carries on: its account not connected yet → connecting it; else its setup form. */
async function nextStep(deps: ConsoleAppDeps, r: ManagedHostRecord): Promise<string> {
  const id = encodeURIComponent(r.id);
  const connector = r.config.connector as { settings?: Record<string, unknown> } | undefined;
  if (r.source === "caldav")
    return typeof connector?.settings?.serverUrl === "string"
      ? `/console/hosts/${id}/setup`
      : `/console/hosts/${id}/caldav`;
  const connect = deps.connect;
  if (connect === undefined || !connect.providers.includes(r.source)) return `/console/hosts/${id}/setup`;
  const granted = await connect.vault.get(r.id).then(
    (g) => g !== undefined,
    () => true,
  );
  return granted ? `/console/hosts/${id}/setup` : `/connect/${r.source}/start?host=${id}`;
}
