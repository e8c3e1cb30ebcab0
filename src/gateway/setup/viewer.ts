/**
 * Who a console session belongs to. Owner accounts (issue #13) put a `viewer` on the session at
 * sign-in; a session without one was opened with the operator credential. One reader, so every
 * page and route asks the same way (and mayManage decides what it may see).
 */
import type { ConsoleViewer } from "../managed-hosts/port.js";

export function viewerOf(session: object): ConsoleViewer {
  const v = (session as { readonly viewer?: unknown }).viewer;
  if (v === undefined) return { kind: "operator" };
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (o.kind === "owner" && typeof o.ownerId === "string" && typeof o.email === "string")
      return { kind: "owner", ownerId: o.ownerId, email: o.email };
  }
  // Unreadable: fail closed (an owner of nothing), never the operator.
  return { kind: "owner", ownerId: "", email: "" };
}
