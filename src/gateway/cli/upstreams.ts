/**
 * `booking-gateway upstreams [--config FILE]`: each host's upstream — vendor, the
 * API version the gateway pins, its health — and every Deprecation (RFC 9745) or Sunset
 * (RFC 8594) notice the platform sent, so an operator learns of a retiring API before it
 * breaks. It reads every host's catalog once (a real upstream call), then prints what the
 * notice book holds: with REDIS_URL that includes what every `serve` process recorded;
 * without it, only what this run's catalog reads saw.
 */
import { buildGatewayRuntime } from "../runtime/runtime.js";
import { jsonLinesLogger } from "../runtime/support.js";
import type { CliIo } from "./io.js";
import { hostsFor } from "./config-file.js";
import { readServeEnv, upstreamPolicyOf } from "./serve-env.js";

export async function runUpstreams(configPath: string | undefined, io: CliIo): Promise<number> {
  const fail = (line: string) => io.err(`booking-gateway upstreams: ${line}`);
  const cwd = io.cwd ?? process.cwd();
  const settings = readServeEnv(io.env, cwd);
  if (!settings.ok) {
    fail(settings.error);
    return 2;
  }
  const loaded = await hostsFor(configPath, cwd, settings.value.dataDir);
  if (!loaded.ok) {
    fail(loaded.error);
    return 2;
  }
  const hosts = loaded.value;
  const built = await buildGatewayRuntime({
    hosts,
    publicOrigin: settings.value.publicOrigin ?? "http://127.0.0.1:8787",
    dataDir: settings.value.dataDir,
    logger: jsonLinesLogger((line) => io.err(line)),
    workers: false,
    originRate: false,
    upstreamPolicy: upstreamPolicyOf(settings.value),
    ...(settings.value.redisUrl !== undefined && { redisUrl: settings.value.redisUrl }),
    ...(settings.value.redisKeyPrefix !== undefined && { redisKeyPrefix: settings.value.redisKeyPrefix }),
  });
  if (!built.ok) {
    fail(built.error.message);
    return 2;
  }
  const runtime = built.value;
  try {
    let total = 0;
    for (const host of runtime.hosts.list()) {
      const { vendor, api_version } = host.connector.platform;
      const health = host.health?.status().health ?? "ok";
      io.out(`${host.config.id}: ${vendor} (pinned API version ${api_version}), health ${health}`);
      const notices = (await runtime.upstreams?.notices(host.config.id)) ?? [];
      total += notices.length;
      if (notices.length === 0) io.out("  no Deprecation or Sunset notices");
      for (const n of notices) {
        const said = [
          n.deprecation !== undefined ? `Deprecation: ${n.deprecation}` : undefined,
          n.sunset !== undefined ? `Sunset: ${n.sunset}` : undefined,
        ].filter((x) => x !== undefined);
        io.out(
          `  RETIRING ${n.vendor} ${n.call} — ${said.join("; ")} (first seen ${n.first_seen}, last seen ${n.last_seen})`,
        );
      }
    }
    io.out(
      settings.value.redisUrl === undefined
        ? `${total} notice(s) seen by this run's catalog reads (set REDIS_URL to include what serve processes recorded)`
        : `${total} notice(s) recorded by every gateway process on this Redis`,
    );
    return 0;
  } finally {
    await runtime.close();
  }
}
