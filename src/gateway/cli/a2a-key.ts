/**
 * `booking-gateway a2a-key --host ID [--config FILE]`: issue a host's A2A
 * organization API key (X-Org-Api-Key, for cancel_session and reschedule_session) and print it
 * once. Issuing rotates: the previous key stops working at once, in every serve process, since
 * they read the same store — Redis when REDIS_URL is set (under REDIS_KEY_PREFIX), else
 * <data dir>/a2a-keys.json. Only the key's hash is stored; lose it and issue another.
 *
 * The host must be one of the configured hosts (the config file's, or the embedded ones);
 * anything else is exit 2 and nothing is written.
 */
import { parseArgs } from "node:util";
import { DEFAULT_REDIS_KEY_PREFIX } from "../../redis/keys.js";
import { createA2aApiKeys, fileKeyHashStore, redisKeyHashStore } from "../../edges/a2a/api-keys.js";
import { connectClient, createClient } from "../../redis/connection.js";
import type { CliIo } from "./io.js";
import { hostsFor } from "./config-file.js";
import { readServeEnv, redactUrl } from "./serve-env.js";

export async function runA2aKey(argv: readonly string[], io: CliIo): Promise<number> {
  const fail = (line: string, code = 2) => {
    io.err(`booking-gateway a2a-key: ${line}`);
    return code;
  };
  let values: { host?: string | undefined; config?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { host: { type: "string" }, config: { type: "string" } },
      strict: true,
    }));
  } catch (e) {
    return fail((e as Error).message);
  }
  const hostId = values.host;
  if (hostId === undefined || hostId === "") return fail("--host ID is required");
  const cwd = io.cwd ?? process.cwd();
  const settings = readServeEnv(io.env, cwd);
  if (!settings.ok) return fail(settings.error);
  const { dataDir, redisUrl, redisKeyPrefix } = settings.value;
  const hosts = await hostsFor(values.config, cwd, dataDir);
  if (!hosts.ok) return fail(hosts.error);
  if (!hosts.value.some((h) => h.id === hostId)) return fail(`unknown host "${hostId}"`);

  if (redisUrl === undefined) {
    const key = await createA2aApiKeys(fileKeyHashStore(dataDir)).issue(hostId);
    io.out(key);
    io.err(
      `booking-gateway: new A2A key for ${hostId} (the previous one no longer works), kept hashed in ${dataDir}`,
    );
    return 0;
  }
  const client = createClient({ url: redisUrl });
  try {
    await connectClient(client, redisUrl);
    const key = await createA2aApiKeys(
      redisKeyHashStore(client, redisKeyPrefix ?? DEFAULT_REDIS_KEY_PREFIX),
    ).issue(hostId);
    io.out(key);
    io.err(
      `booking-gateway: new A2A key for ${hostId} (the previous one no longer works), kept hashed in Redis at ${redactUrl(redisUrl)}`,
    );
    return 0;
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e), 1);
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}
