/**
 * Which calendars take part in meetings of several people (SchCP §2.1, §5.12), and whose
 * calendar a person's host is (§7.7: the host configuration names its owner).
 */
import type { HostConfig } from "../api.js";

/** §2.1: "every person's calendar does, and a business ... opts in" (policies.meetings). */
export const takesMeetings = (config: HostConfig): boolean =>
  config.kind === "person" || config.policies.meetings === true;

/**
 * §7.7: the person's own principal, named in the host configuration; undefined for a business
 * or a person's host whose configuration names none (it then cannot be a meeting member).
 */
export function hostOwner(config: HostConfig): string | undefined {
  return config.kind === "person" ? config.owner : undefined;
}
