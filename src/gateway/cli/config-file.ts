/**
 * `--config FILE`: the hosts config file, checked by the booking core's parseHostsConfig,
 * whose errors name the bad field ("/hosts/1/policies/holds/max_ttl: …"). A `.json` file is
 * strict JSON; a `.jsonc` file may also carry comments and trailing commas (JSON with comments,
 * read by jsonc-parser), so an example can explain itself. Either way a duplicate member is
 * refused: it is as ambiguous in a config as in a signed payload.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { HostConfig } from "../../booking/api.js";
import {
  embeddedCalendarHost,
  embeddedDefaultHosts,
  parseHostsConfig,
  seedEmbeddedCalendar,
} from "../../booking/hosts/index.js";
import { systemClock } from "../../protocol/clock.js";
import { parseStrictJson } from "../../protocol/json/index.js";
import { parseJsonc } from "./jsonc.js";
import { err, ok } from "../../protocol/result.js";
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
      const at = json.error.field === "" ? "" : ` at ${json.error.field}`;
      return err(`${path}: not valid JSON${at}: ${json.error.message}`);
    }
    value = json.value;
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

/**
 * The hosts a command serves: the config file's, or without one the embedded default (three
 * synthetic hosts and a person's own calendar, whose local calendar is seeded in the data dir).
 */
export async function hostsFor(
  configPath: string | undefined,
  cwd: string,
  dataDir: string,
): Promise<Result<HostConfig[], string>> {
  if (configPath !== undefined) return loadHostsConfigFile(resolve(cwd, configPath));
  await seedEmbeddedCalendar(dataDir, systemClock.now());
  return ok([...embeddedDefaultHosts(), embeddedCalendarHost()]);
}
