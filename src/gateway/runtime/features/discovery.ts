/** The SchCP discovery documents (src/edges/schcp/discovery) over the live directory. */
import type { HostDirectory } from "../../../booking/api.js";
import {
  cachedOperatorDocument,
  hostDiscoveryDocument,
  operatorDocument,
} from "../../../edges/schcp/discovery/index.js";
import type { DiscoveryDocuments } from "../../app/types.js";
import type { GatewayRuntimeOptions, RuntimeBasics } from "../options.js";

export function discoveryDocuments(
  opts: Pick<GatewayRuntimeOptions, "operatorName">,
  { publicOrigin }: Pick<RuntimeBasics, "publicOrigin">,
  directory: HostDirectory,
): DiscoveryDocuments {
  const operatorName = opts.operatorName ?? "Booking Gateway";
  return {
    operator: () => operatorDocument(directory.list(), { publicOrigin, operatorName }),
    operatorEntity: cachedOperatorDocument(() => directory.list(), { publicOrigin, operatorName }),
    host: (hostId) => {
      const host = directory.get(hostId);
      return host === undefined ? undefined : hostDiscoveryDocument(host, { publicOrigin, operatorName });
    },
  };
}
