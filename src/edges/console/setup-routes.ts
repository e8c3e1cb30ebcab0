/**
 * Adding and setting up a business from the console, through the ManagedHosts port:
 *
 *   GET|POST /console/hosts/new               "Add a business": a draft record, then Connect
 *   GET|POST /console/hosts/{id}/caldav       a CalDAV account, checked live before it is kept
 *   GET|POST /console/hosts/{id}/setup        the draft's calendars/services/hours → activate
 *   GET|POST /console/hosts/{id}/settings     the same form for an active host, prefilled
 *
 * Every route needs a live console session; a host the viewer may not manage (mayManage) is
 * answered 404, exactly as a host that does not exist, so other owners' hosts are not revealed.
 * POSTs go through the console's own guard (same origin, session, CSRF token), as routes.ts does.
 */
import type { Context, Hono } from "hono";
import { AUTHORIZATION_ORIGINS } from "./connect/providers.js";
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
  type SetupValues,
} from "./setup/setup-form.js";
import type { ConsoleViewer } from "./managed-hosts.js";
import { PAGE_CSP } from "../http/layout.js";
import { refusedPage } from "./pages.js";
import type { ConsoleDeps } from "./kit.js";
import type { Session } from "./sessions.js";
import { caldavPage, newHostPage, setupPage } from "./setup-pages.js";
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

export function mountSetup(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, h: ConsoleHelpers): void {
  const notFound = () =>
    h.htmlResponse(
      404,
      refusedPage("Not found", "There is no such host here, or it is not yours to manage."),
    );
  const offered = (): ManagedHostSource[] =>
    SOURCES.filter(
      (s) => s === "caldav" || (deps.connect?.providers as readonly string[] | undefined)?.includes(s),
    );

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
    if (deps.managedHosts === undefined) return notFound();
    const sources = offered();
    return h.htmlResponse(200, newHostPage(s.session.csrf, sources), newHostHeaders(sources));
  });

  app.post("/console/hosts/new", async (c) => {
    const a = await h.authorized(c);
    if (!a.ok) return a.error;
    const managed = deps.managedHosts;
    if (managed === undefined) return notFound();
    const { values, errors } = parseNewHost(a.value.form, offered());
    if (Object.keys(errors).length === 0 && !(await managed.idAvailable(values.hostId)))
      errors.host_id = `The host id "${values.hostId}" is taken: choose another.`;
    if (Object.keys(errors).length > 0)
      return h.htmlResponse(
        400,
        newHostPage(a.value.session.csrf, offered(), values, errors),
        newHostHeaders(offered()),
      );
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
      return h.htmlResponse(
        409,
        newHostPage(
          a.value.session.csrf,
          offered(),
          values,
          {},
          created === "too_many_drafts"
            ? `You have ${caps.drafts} businesses not yet set up, the most one owner may have at once. Finish setting one up (its Set up link on the console's home page) before adding another.`
            : `You have ${caps.hosts} businesses, the most one owner may have here. Ask the gateway's operator if you need more.`,
        ),
        newHostHeaders(offered()),
      );
    if (created !== "ok")
      return h.htmlResponse(
        400,
        newHostPage(a.value.session.csrf, offered(), values, {
          host_id: `The host id "${values.hostId}" is taken: choose another.`,
        }),
        newHostHeaders(offered()),
      );
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
    if (deps.managedHosts === undefined) return notFound();
    const record = await recordFor(deps.managedHosts, s.viewer, c.req.param("hostId"));
    if (record === undefined || record.source !== "caldav") return notFound();
    return h.htmlResponse(200, caldavPage(record.id, nameOf(record), s.session.csrf));
  });

  app.post("/console/hosts/:hostId/caldav", async (c) => {
    const a = await h.authorized(c);
    if (!a.ok) return a.error;
    if (deps.managedHosts === undefined) return notFound();
    const record = await recordFor(deps.managedHosts, a.value.viewer, c.req.param("hostId"));
    if (record === undefined || record.source !== "caldav") return notFound();
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
    const page = (status: number, errs: FormErrors, general?: string) =>
      h.htmlResponse(status, caldavPage(record.id, name, a.value.session.csrf, req, errs, general));
    if (Object.keys(errors).length > 0) return page(400, errors);
    if (con.setupChoices === undefined) return page(503, {}, "This gateway cannot keep CalDAV passwords.");
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
    csrf: string,
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
      csrf,
      values,
      ...loaded,
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
      if (deps.managedHosts === undefined) return notFound();
      const record = await recordFor(deps.managedHosts, s.viewer, c.req.param("hostId"));
      if (record === undefined) return notFound();
      if (!fits(action, record))
        return redirect(
          `/console/hosts/${encodeURIComponent(record.id)}/${action === "setup" ? "settings" : "setup"}`,
        );
      const values = action === "settings" ? valuesFromEntry(record.config) : DEFAULT_VALUES;
      return h.htmlResponse(200, formPage(action, record, s.session.csrf, values, await loadChoices(record)));
    });

    app.post(`/console/hosts/:hostId/${action}`, async (c) => {
      const a = await h.authorized(c, MAX_SETUP_FORM_BYTES);
      if (!a.ok) return a.error;
      const managed = deps.managedHosts;
      if (managed === undefined) return notFound();
      const record = await recordFor(managed, a.value.viewer, c.req.param("hostId"));
      if (record === undefined) return notFound();
      if (!fits(action, record)) return notFound();
      const values = readSetupForm(a.value.form);
      const loaded = await loadChoices(record);
      const again = (errors: FormErrors, general?: string) =>
        h.htmlResponse(400, formPage(action, record, a.value.session.csrf, values, loaded, errors, general));
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
}

/** The drafts this viewer may continue setting up (the Operate page lists them). */
export async function draftsFor(
  deps: ConsoleAppDeps,
  viewer: ConsoleViewer,
): Promise<Array<{ id: string; name: string }>> {
  const store = deps.managedHosts?.store;
  if (store === undefined) return [];
  // An owner's own records only, through the store's per-owner index.
  const records = viewer.kind === "owner" ? await store.listOwnedBy(viewer.ownerId) : await store.list();
  return records
    .filter((r) => r.state === "draft" && mayManage(viewer, r))
    .map((r) => ({ id: r.id, name: nameOf(r) }));
}
