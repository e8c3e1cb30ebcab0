/**
 * A host's own page in the console: its week (week-view.ts, week-page.ts).
 *
 *   GET /console/hosts/{hostId}[?week=YYYY-MM-DD]   the week holding that date (default: this
 *                                                   week, in the host's zone)
 *
 * Linked from every host's row on the home page. A viewer who may not manage the host gets 404,
 * as for a host that does not exist (accounts-access.ts); a business not set up yet goes on to
 * its setup form. Read-only: nothing here changes state.
 */
import type { Hono } from "hono";
import { pageCsp } from "../http/layout.js";
import type { ConsoleAppDeps } from "./app-deps.js";
import type { ConsoleDeps, ConsoleKit } from "./kit.js";
import { mayManage } from "./managed-hosts.js";
import { consoleHeader, hostPath, refusedPage } from "./pages.js";
import { WEEK_STYLE, weekPage } from "./week-page.js";
import { weekView } from "./week-view.js";

export function mountHostRoutes(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, kit: ConsoleKit): void {
  app.get("/console/hosts/:hostId", async (c, next) => {
    const hostId = c.req.param("hostId");
    // "Add a business" lives beside the hosts' pages (setup-routes.ts).
    if (hostId === "new") return next();
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    const header = consoleHeader(s.session.csrf, s.viewer);
    const notFound = () =>
      kit.html(
        404,
        refusedPage("Not found", "There is no such host here, or it is not yours to manage.", header),
      );
    // The one rule (accounts-access.ts): the operator every host, an owner their records' only.
    const record = await deps.managedHosts?.store.get(hostId);
    if (!mayManage(s.viewer, record)) return notFound();
    const host = deps.hosts.get(hostId);
    if (host === undefined)
      return record?.state === "draft" ? kit.redirect(`${hostPath(hostId)}/setup`) : notFound();
    const view = await weekView(deps, host, c.req.query("week"), con.calendarBusy);
    return kit.html(
      200,
      weekPage({
        view,
        header,
        path: hostPath(hostId),
        ...(record?.state === "active" && { settingsHref: `${hostPath(hostId)}/settings` }),
      }),
      { "content-security-policy": pageCsp([WEEK_STYLE]) },
    );
  });
}
