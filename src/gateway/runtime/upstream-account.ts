/**
 * Which upstream account a host's calls count against, for Retry-After pacing
 * (connectors/http/pacing.ts): hosts that share a credential share the platform's limit, so they
 * share one "not before" time. The key names the credential without holding it: a token file by
 * its path, a token or API key by a short hash, an organisation by its base URL and slug;
 * otherwise (a vault grant, which is the host's own) the host itself.
 */
import { createHash } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import type { HostConfig } from "../../booking/api.js";

const digest = (secret: string): string => createHash("sha256").update(secret).digest("hex").slice(0, 24);

export function upstreamAccountOf(config: HostConfig, dataDir: string): string {
  const s = config.connector.settings;
  const text = (name: string): string | undefined => {
    const v = s[name];
    return typeof v === "string" && v !== "" ? v : undefined;
  };
  const tokenFile = text("accessTokenFile");
  if (tokenFile !== undefined)
    return `file:${isAbsolute(tokenFile) ? tokenFile : resolve(dataDir, tokenFile)}`;
  const token = text("accessToken") ?? text("apiKey");
  if (token !== undefined) return `key:${digest(token)}`;
  const base = text("baseUrl");
  const org = text("orgSlug") ?? text("businessId") ?? text("locationId");
  if (base !== undefined && org !== undefined) return `org:${digest(`${base} ${org}`)}`;
  return `host:${config.id}`;
}
