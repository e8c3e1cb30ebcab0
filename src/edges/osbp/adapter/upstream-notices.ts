/**
 * OSBP "Platform Metadata and Versioning": "If a response carries Deprecation or Sunset, the
 * adapter MUST surface it loudly on the operator channel, at least once per endpoint per
 * process" and it "MUST NOT become a Problem and MUST NOT change agent-facing output". This
 * only writes to the operator logger; callers never see it.
 */
import type { UpstreamMeta } from "../../../booking/upstream.js";

export interface UpstreamNotices {
  /** Looks at the metadata a result carries; warns the first time per endpoint. */
  observe(meta: UpstreamMeta | undefined): void;
}

export function createUpstreamNotices(vendor: string, warn: (line: string) => void): UpstreamNotices {
  const warned = new Set<string>();
  return {
    observe(meta) {
      if (meta === undefined || (meta.deprecation === undefined && meta.sunset === undefined)) return;
      if (warned.has(meta.call)) return;
      warned.add(meta.call);
      const parts = [
        meta.deprecation === undefined ? undefined : `Deprecation: ${meta.deprecation}`,
        meta.sunset === undefined ? undefined : `Sunset: ${meta.sunset}`,
      ].filter((p): p is string => p !== undefined);
      warn(
        `OSBP upstream lifecycle notice: ${vendor} endpoint "${meta.call}" answered ${parts.join(", ")}; ` +
          "the platform is retiring it, update the connector before it stops working.",
      );
    },
  };
}
