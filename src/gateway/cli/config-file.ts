/**
 * `--config FILE`: the hosts config file, checked by the booking core's parseHostsConfig,
 * whose errors name the bad field ("/hosts/1/policies/holds/max_ttl: …") and, for a misspelt
 * setting, the known one nearest it. A `.json` file is strict JSON; a `.jsonc` file may also
 * carry comments and trailing commas (JSON with comments, read by jsonc-parser), so an example
 * can explain itself, and a `.json` file that has them is told to take that extension. Either
 * way a duplicate member is refused: it is as ambiguous in a config as in a signed payload.
 * A value still reading `"<…>"`, as the examples in examples/config/ mark what to fill in, is
 * refused as a placeholder before anything starts.
 */
import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { HostConfig } from "../../booking/api.js";
import {
  embeddedBranchHost,
  embeddedCalendarHost,
  embeddedDefaultHosts,
  embeddedMeetingHosts,
  parseHostsConfig,
  seedEmbeddedCalendar,
  seedEmbeddedMeetingCalendars,
} from "../../booking/hosts/index.js";
import { systemClock } from "../../protocol/clock.js";
import { loadOrCreateTryItAttester, trustingAttester } from "../runtime/attester-key-file.js";
import { loadOrCreateTryItPeople, ownersOf } from "../runtime/people-key-files.js";
import { parseStrictJson } from "../../protocol/json/index.js";
import { jsoncOnly, parseJsonc } from "./jsonc.js";
import { childPointer, err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";

/** The error is one line for the operator, naming the file and the field. */
export async function loadHostsConfigFile(path: string): Promise<Result<HostConfig[], string>> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as { code?: string }).code;
    return err(`${path}: cannot read the config file${code === undefined ? "" : ` (${code})`}`);
  }
  let value: unknown;
  if (path.endsWith(".jsonc")) {
    const jsonc = parseJsonc(new TextDecoder().decode(bytes));
    if (!jsonc.ok) return err(`${path}:${jsonc.error}`);
    value = jsonc.value;
  } else {
    const json = parseStrictJson(bytes);
    if (!json.ok) {
      const jsonc = jsoncOnly(new TextDecoder().decode(bytes));
      if (jsonc !== undefined) {
        const renamed = `${basename(path).replace(/\.json$/, "")}.jsonc`;
        return err(
          `${path}:${jsonc.at}: ${jsonc.what}, which a .json file cannot carry (it is strict JSON): rename the file to ${renamed}, JSON with comments, as the examples in examples/config/ are`,
        );
      }
      const at = json.error.field === "" ? "" : ` at ${json.error.field}`;
      return err(`${path}: not valid JSON${at}: ${json.error.message}`);
    }
    value = json.value;
  }
  const placeholders = placeholdersIn(value, "");
  const [first] = placeholders;
  if (first !== undefined) {
    const others = placeholders.slice(1).map((p) => p.field);
    return err(
      `${path}: ${first.field}: ${JSON.stringify(first.value)} is a placeholder: the examples in examples/config/ write "<…>" where your own value goes; replace it` +
        (others.length === 0 ? "" : ` (placeholders also at ${others.join(", ")})`),
    );
  }
  const hosts = parseHostsConfig(value);
  if (!hosts.ok) {
    // parseHostsConfig's messages start with the field; add it when one does not.
    const { field, message } = hosts.error;
    return err(`${path}: ${field !== "" && !message.includes(field) ? `${field}: ` : ""}${message}`);
  }
  if (hosts.value.length === 0) return err(`${path}: /hosts: lists no host; there would be nothing to serve`);
  return hosts;
}

/** An example's "fill this in" mark: a whole string value in angle brackets. */
const PLACEHOLDER = /^<[^<>]+>$/;

/** Every string value still holding a placeholder, with its JSON pointer, in file order. */
function placeholdersIn(value: unknown, field: string): Array<{ field: string; value: string }> {
  if (typeof value === "string") return PLACEHOLDER.test(value.trim()) ? [{ field, value }] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholdersIn(v, childPointer(field, i)));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => placeholdersIn(v, childPointer(field, k)));
  return [];
}

/**
 * The hosts a command serves: the config file's, or without one the embedded default (three
 * synthetic hosts, maple-street-auto's second location, a person's own calendar, and the
 * meeting's three people and café (embedded-meeting.ts), whose local calendars are seeded in the
 * data dir and whose owners are the data dir's try-it people), each trusting the data dir's
 * try-it attester.
 */
export async function hostsFor(
  configPath: string | undefined,
  cwd: string,
  dataDir: string,
): Promise<Result<HostConfig[], string>> {
  if (configPath !== undefined) return loadHostsConfigFile(resolve(cwd, configPath));
  await seedEmbeddedCalendar(dataDir, systemClock.now());
  // §7.5: the embedded hosts trust a try-it attester whose key the data dir holds.
  const { attester } = await loadOrCreateTryItAttester(dataDir);
  // SchCP §5.12, §7.7: the meeting's people, each owned by a try-it key the data dir holds.
  await seedEmbeddedMeetingCalendars(dataDir, systemClock.now());
  const people = await loadOrCreateTryItPeople(dataDir);
  return ok(
    trustingAttester(
      [
        ...embeddedDefaultHosts(),
        embeddedBranchHost(),
        embeddedCalendarHost(),
        ...embeddedMeetingHosts(ownersOf(people)),
      ],
      attester,
    ),
  );
}
