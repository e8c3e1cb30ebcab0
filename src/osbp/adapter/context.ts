/** What the adapter's methods share: the connector behind its metadata watch, the cached catalog, the stores. */
import type { Catalog, Connector, ConnectorResult, PlatformConnector } from "../../connectors/port.js";
import type { ApprovalGate, Problem } from "../../protocol/osbp/index.js";
import type { OsbpIdempotencyStore } from "../idempotency/port.js";
import type { ServiceDefaults } from "./catalog-facts.js";

export interface AdapterContext {
  readonly connector: Connector;
  readonly idempotency: OsbpIdempotencyStore;
  readonly clock: { now(): number };
  readonly gate: ApprovalGate;
  readonly defaults: ServiceDefaults;
  readonly logger: { warn(line: string): void; error(line: string): void };
  /** The platform catalog (cached briefly), or the Problem its read failed with. */
  catalog(): Promise<{ ok: true; value: Catalog } | { ok: false; problem: Problem }>;
  /**
   * Runs one connector call; every call goes through here so the metadata each result carries
   * (lifecycle headers) is seen. Only reached for a connector with the platform capabilities.
   */
  upstream<T>(
    run: (connector: PlatformConnector) => Promise<ConnectorResult<T>>,
  ): Promise<ConnectorResult<T>>;
}
