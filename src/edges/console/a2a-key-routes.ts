/**
 * A host's Servicialo A2A API key from the console (generated and shown to the
 * operator, never valid for another host):
 *
 *   GET  /console/hosts/{hostId}/a2a-key   what a new key does, and the button
 *   POST /console/hosts/{hostId}/a2a-key   issues one (the previous key stops working) and
 *                                          shows it once; only its hash is kept (the A2A
 *                                          edge's key store, handed in as ConsoleA2aKeys)
 *
 * The operator may issue a key for any host, a business owner only for their own (the same
 * requireHostAccess as every console page; another owner's host is answered as unknown). The
 * answer carrying the key is never cached (its URL carries nothing secret).
 */
import type { Hono } from "hono";
import type { ConsoleA2aKeys, ConsoleAppDeps } from "./app-deps.js";
import { requireHostAccess } from "./accounts-access.js";
import { escapeHtml as e, page } from "../http/layout.js";
import { consoleHeader, csrfField, refusedPage } from "./pages.js";
import type { ConsoleKit } from "./kit.js";

export function mountA2aKeyRoutes(
  app: Hono,
  deps: ConsoleAppDeps,
  keys: ConsoleA2aKeys,
  kit: ConsoleKit,
): void {
  const notFound = () =>
    kit.html(404, refusedPage("Not found", "There is no such host here, or it is not yours to manage."));
  const path = (hostId: string) => `/console/hosts/${encodeURIComponent(hostId)}/a2a-key`;
  const endpoint = (hostId: string) => `${deps.publicOrigin}/api/servicialo/${encodeURIComponent(hostId)}`;

  app.get("/console/hosts/:hostId/a2a-key", async (c) => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    const hostId = c.req.param("hostId");
    const host = deps.hosts.get(hostId);
    if (host === undefined || !(await requireHostAccess(deps.managedHosts, s.viewer, hostId)))
      return notFound();
    return kit.html(
      200,
      page(
        `A2A API key · ${host.config.name}`,
        `<h1>A2A API key for ${e(host.config.name)}</h1>` +
          `<p>Agents speaking Servicialo A2A at <code>${e(endpoint(hostId))}</code> need this key ` +
          `(header <code>X-Org-Api-Key</code>) to cancel or reschedule a session; listing services, ` +
          `availability and booking stay public. A new key replaces the current one at once: ` +
          `give it to the agents that should have it.</p>` +
          `<form method="post" action="${e(path(hostId))}">${csrfField(s.session.csrf)}` +
          `<button type="submit">Issue a new key</button></form><p><a href="/">Back to Operate</a></p>`,
        { header: consoleHeader(s.session.csrf, s.viewer) },
      ),
    );
  });

  app.post("/console/hosts/:hostId/a2a-key", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    const hostId = c.req.param("hostId");
    const host = deps.hosts.get(hostId);
    if (host === undefined || !(await requireHostAccess(deps.managedHosts, a.value.viewer, hostId)))
      return notFound();
    const key = await keys.issue(hostId);
    deps.logger.info("a2a api key issued", {
      host_id: hostId,
      by: a.value.viewer.kind === "operator" ? "operator" : a.value.viewer.ownerId,
    });
    return kit.html(
      200,
      page(
        `A2A API key · ${host.config.name}`,
        `<h1>New A2A API key for ${e(host.config.name)}</h1>` +
          `<p role="status">This is the only time the key is shown; the previous key no longer works.</p>` +
          `<p><label for="key">API key</label> <input id="key" type="text" readonly value="${e(key)}" size="60"></p>` +
          `<p><a href="/">Back to Operate</a></p>`,
        { header: consoleHeader(a.value.session.csrf, a.value.viewer) },
      ),
      { "cache-control": "no-store" },
    );
  });
}
