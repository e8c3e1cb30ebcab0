/**
 * A self-signed certificate for "localhost" (openssl, P-256, one day), for loopback https
 * servers in tests: a key app's status URLs are https only (SchCP §3.3, MandateClaims schema).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LocalTls {
  readonly key: string;
  readonly cert: string;
}

export function localhostCertificate(): LocalTls {
  const dir = mkdtempSync(join(tmpdir(), "local-tls-"));
  try {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    const r = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
      ],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`openssl: ${r.stderr}`);
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
