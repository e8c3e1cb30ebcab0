/**
 * Owner accounts in the console:
 *
 *   GET  /console/owners                          operator only: owners, and the invite form
 *   POST /console/owners                          operator only: email -> a one-time link, shown once
 *   POST /console/owners/{ownerId}/disable|enable operator only
 *   GET  /console/invite/{token}                  the owner chooses a password (looking uses nothing)
 *   POST /console/invite/{token}                  uses the link up, sets the password, signs in
 *
 * An owner asking for an operator page gets 403. The invitation forms carry no session token:
 * the link's own 256-bit token is the secret, and the same-origin check still applies.
 */
import type { Hono } from "hono";
import type { ConsoleAppDeps } from "./app-deps.js";
import { invitationPage, ownersPage } from "./accounts-pages.js";
import { passwordProblem } from "./accounts-password.js";
import { ownerViewer } from "./accounts.js";
import { localTime } from "./operate-view.js";
import { refusedPage } from "./pages.js";
import type { ConsoleDeps, ConsoleKit } from "./kit.js";

const OPERATOR_ONLY = "Only the operator manages owner accounts.";
const GONE = "This invitation link has been used or has expired. Ask the operator for a new one.";

export function mountAccountRoutes(app: Hono, deps: ConsoleAppDeps, con: ConsoleDeps, kit: ConsoleKit): void {
  const accounts = con.accounts;
  const gone = () => kit.html(410, refusedPage("Invitation no longer valid", GONE));

  app.get("/console/owners", async (c) => {
    const s = await kit.signedIn(c);
    if (s === undefined) return kit.redirect("/");
    if (s.viewer.kind !== "operator") return kit.forbidden(OPERATOR_ONLY);
    if (s.session.flash !== undefined) await con.sessions.flash(s.id, s.session, undefined);
    return kit.html(
      200,
      ownersPage(await accounts.list(), s.session.csrf, {
        ...(s.session.flash && { flash: s.session.flash }),
      }),
    );
  });

  app.post("/console/owners", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    if (a.value.viewer.kind !== "operator") return kit.forbidden(OPERATOR_ONLY);
    const made = await accounts.invite(a.value.form.get("email") ?? "");
    if (!made.ok) {
      const text =
        made.error === "disabled"
          ? "That owner's account is disabled; enable it before inviting again."
          : "That is not an email address.";
      return kit.html(
        400,
        ownersPage(await accounts.list(), a.value.session.csrf, { flash: { text, error: true } }),
      );
    }
    deps.logger.info("console owner invited", { owner_id: made.value.account.ownerId });
    // The answer itself shows the link: it is nowhere else to be read again.
    return kit.html(
      200,
      ownersPage(await accounts.list(), a.value.session.csrf, {
        invited: {
          email: made.value.account.email,
          link: `${deps.publicOrigin}/console/invite/${made.value.token}`,
          expires: localTime(made.value.expiresAt, "UTC"),
        },
      }),
    );
  });

  app.post("/console/owners/:ownerId/:action{disable|enable}", async (c) => {
    const a = await kit.authorized(c);
    if (!a.ok) return a.error;
    if (a.value.viewer.kind !== "operator") return kit.forbidden(OPERATOR_ONLY);
    const disable = c.req.param("action") === "disable";
    const ownerId = c.req.param("ownerId");
    const found = await accounts.setDisabled(ownerId, disable);
    deps.logger.info("console owner account", {
      owner_id: ownerId,
      action: c.req.param("action"),
      ok: found,
    });
    await con.sessions.flash(
      a.value.id,
      a.value.session,
      found
        ? { text: `The account ${ownerId} is ${disable ? "disabled: its sessions have ended" : "enabled"}.` }
        : { text: `No owner account ${ownerId}.`, error: true },
    );
    return kit.redirect("/console/owners");
  });

  app.get("/console/invite/:token", async (c) => {
    const inv = await accounts.invitation(c.req.param("token"));
    return inv === undefined ? gone() : kit.html(200, invitationPage(c.req.param("token"), inv.email));
  });

  app.post("/console/invite/:token", async (c) => {
    if (!kit.sameOrigin(c)) return kit.forbidden("This form was not sent from the console's own pages.");
    const token = c.req.param("token");
    const form = await kit.readForm(c);
    const inv = await accounts.invitation(token);
    if (inv === undefined) return gone();
    const password = form?.get("password") ?? "";
    const problem = passwordProblem(password, form?.get("confirm") ?? "");
    if (problem !== undefined) return kit.html(400, invitationPage(token, inv.email, problem));
    const account = await accounts.accept(token, password);
    // Taken by a concurrent request between the look and the take.
    if (account === undefined) return gone();
    deps.logger.info("console owner signed up", { owner_id: account.ownerId });
    return kit.startSession(c, ownerViewer(account));
  });
}
