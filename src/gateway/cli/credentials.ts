/**
 * `booking-gateway credentials ...` (before the console exists): put a host's
 * initial OAuth grant into the token vault, and re-encrypt every record under the newest key.
 *
 *   credentials set --host ID --from-json FILE   FILE: {provider, accessToken, refreshToken?,
 *                                                expiresAt?, scope?, tokenEndpoint?}
 *   credentials rotate                           re-encrypt every record under TOKEN_KEYS' first key
 *
 * The vault is the one serve uses: Redis when REDIS_URL is set (under REDIS_KEY_PREFIX), else
 * <data dir>/credentials/. Nothing printed carries a token; delete FILE after use.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { err, ok } from "../../protocol/result.js";
import type { Result } from "../../protocol/result.js";
import { BasicCredentialVault } from "../../edges/console/connect/basic-vault.js";
import { FileSealedStore } from "../credentials/file-store.js";
import { parseKeyRing, TOKEN_KEYS_VARIABLE } from "../credentials/key-ring.js";
import { parseTokenRecord } from "../credentials/record.js";
import { RedisSealedStore } from "../credentials/redis-store.js";
import { FileRefreshLock, RedisRefreshLock, type RefreshLock } from "../credentials/refresh-lock.js";
import { openRedis } from "../../redis/client.js";
import { redisKeys } from "../../redis/keys.js";
import { TokenVault } from "../credentials/vault.js";
import type { CliIo } from "./io.js";
import { readServeEnv, redactUrl } from "./serve-env.js";

export interface OpenVault {
  readonly vault: TokenVault;
  /** CalDAV hosts' passwords, under the same key ring (connect/basic-vault.ts). */
  readonly basic: BasicCredentialVault;
  /** One refresh of a host's grant at a time across the processes on this vault. */
  readonly refreshLock: RefreshLock;
  /** Where it lives, for printing (a redacted Redis URL or the directory). */
  readonly where: string;
  close(): Promise<void>;
}

/**
 * The vault from the environment; undefined when TOKEN_KEYS is not set (`required`: an error
 * instead). A bad TOKEN_KEYS is an error naming it, never quoting a key.
 */
export function openVaultFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  settings: { readonly dataDir: string; readonly redisUrl?: string; readonly redisKeyPrefix?: string },
  required = false,
): Result<OpenVault | undefined, string> {
  const raw = env[TOKEN_KEYS_VARIABLE];
  if ((raw === undefined || raw === "") && !required) return ok(undefined);
  const ring = parseKeyRing(raw);
  if (!ring.ok) return err(ring.error);
  if (settings.redisUrl !== undefined) {
    const redis = openRedis(settings.redisUrl, {
      redisOptions: { lazyConnect: false, maxRetriesPerRequest: 2 },
    });
    const keys = redisKeys(settings.redisKeyPrefix);
    return ok({
      vault: new TokenVault(ring.value, new RedisSealedStore(redis, keys.prefix)),
      basic: new BasicCredentialVault(ring.value, new RedisSealedStore(redis, keys.under("basic").prefix)),
      refreshLock: new RedisRefreshLock(redis, keys.prefix),
      where: `Redis at ${redactUrl(settings.redisUrl)}`,
      close: async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
    });
  }
  const store = new FileSealedStore(settings.dataDir);
  return ok({
    vault: new TokenVault(ring.value, store),
    basic: new BasicCredentialVault(ring.value, new FileSealedStore(join(settings.dataDir, "basic"))),
    refreshLock: new FileRefreshLock(settings.dataDir),
    where: store.dir,
    close: () => Promise.resolve(),
  });
}

export async function runCredentials(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  const fail = (line: string, code = 2) => {
    io.err(`booking-gateway credentials: ${line}`);
    return code;
  };
  const cwd = io.cwd ?? process.cwd();
  let values: { host?: string | undefined; "from-json"?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: { host: { type: "string" }, "from-json": { type: "string" } },
      strict: true,
    }));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (sub !== "set" && sub !== "rotate") return fail(`unknown subcommand "${sub ?? ""}" (set, rotate)`);

  let record: ReturnType<typeof parseTokenRecord> | undefined;
  if (sub === "set") {
    if (values.host === undefined || values.host === "") return fail("set needs --host ID");
    const file = values["from-json"];
    if (file === undefined || file === "") return fail("set needs --from-json FILE (the token record)");
    let text: string;
    try {
      text = await readFile(isAbsolute(file) ? file : resolve(cwd, file), "utf8");
    } catch (e) {
      return fail(`cannot read ${file}: ${(e as { code?: string }).code ?? "error"}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fail(`${file} is not JSON`);
    }
    record = parseTokenRecord(json);
    if (!record.ok) return fail(`${file}: ${record.error}`);
  }

  const settings = readServeEnv(io.env, cwd);
  if (!settings.ok) return fail(settings.error);
  const opened = openVaultFromEnv(io.env, settings.value, true);
  if (!opened.ok) return fail(opened.error);
  const open = opened.value;
  if (open === undefined) return fail(`${TOKEN_KEYS_VARIABLE} is not set`);
  try {
    if (sub === "set" && record?.ok === true && values.host !== undefined) {
      await open.vault.put(values.host, record.value);
      io.out(
        `booking-gateway: ${record.value.provider} grant of host ${values.host} sealed in ${open.where}`,
      );
    } else {
      const done = await open.vault.rotate();
      io.out(
        `booking-gateway: ${done.rewritten} record(s) re-encrypted under the first key of ${TOKEN_KEYS_VARIABLE}, ${done.current} already were (${open.where})`,
      );
    }
    return 0;
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e), 1);
  } finally {
    await open.close();
  }
}
