/**
 * Brands (SchCP §2.4): "A brand claim proves nothing alone: anyone can name a famous brand. An
 * agent MUST treat a sibling as part of the brand only if the sibling's own discovery document,
 * fetched and authorized as in §2.2, names the same brand.id and lists this location back."
 *
 * verifyBrand takes a location (its discovery URL, discovered and authorized here, or a host
 * already discovered) and returns each sibling its brand names, with verified true only when
 * all of that holds. "Lists this location back" means a location entry with this host's id
 * AND the URL this location's document was fetched from: an id alone is anyone's to claim.
 *
 * Every fetch is bounded: a timeout for the whole exchange and a byte cap on each answer. The
 * sibling URLs come from a document someone else wrote; an agent running on a server SHOULD
 * pass a fetch that keeps to public addresses (src/protocol/net createPolicyFetch).
 */
import type { DiscoveryDocument } from "../protocol/schcp/types.js";
import { discoverHost } from "./discovery.js";
import type { DiscoveredHost, DiscoverHostOptions } from "./discovery.js";
import type { DiscoveryIo } from "./documents.js";
import { describeAgentError } from "./errors.js";
import type { AgentError } from "./errors.js";
import type { FetchLike } from "./http.js";
import { err, ok } from "../protocol/result.js";
import type { Result } from "../protocol/result.js";
import { MAX_RESPONSE_BYTES } from "./http.js";

export type BrandRefusalReason =
  /** The sibling's document could not be fetched, read or validated (network, status, schema, size, timeout). */
  | "unreachable"
  /** No rule of §2.2 authorizes the sibling's endpoint. */
  | "not_authorized"
  /** The document at the sibling's URL is another host's. */
  | "wrong_host"
  /** The sibling names no brand, or another brand.id. */
  | "different_brand"
  /** The sibling names the brand but does not list this location (its host id at this URL). */
  | "not_listed_back";

export interface BrandSibling {
  readonly hostId: string;
  readonly name?: string;
  /** The discovery URL this location's brand gives for the sibling. */
  readonly discovery: string;
  /** True only when §2.4's conditions hold. */
  readonly verified: boolean;
  /** Why not, when verified is false. */
  readonly reason?: BrandRefusalReason;
  readonly message?: string;
  /** The sibling as discovered and authorized, when it got that far. */
  readonly host?: DiscoveredHost;
}

export interface VerifiedBrand {
  /** This location's brand as it names it. */
  readonly brand: { readonly id: string; readonly name: string };
  /** Every location of the brand but this one. */
  readonly siblings: readonly BrandSibling[];
}

export interface VerifyBrandOptions extends DiscoverHostOptions {
  /** For the whole of one document's fetch (default 5 s). */
  readonly timeoutMs?: number;
  /** Per answer (default MAX_RESPONSE_BYTES). */
  readonly maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * The siblings of a location's brand, each verified or not (§2.4). An error only when this
 * location itself cannot be discovered (given as a URL) or names no brand.
 */
export async function verifyBrand(
  io: DiscoveryIo,
  location: string | Pick<DiscoveredHost, "url" | "document">,
  opts: VerifyBrandOptions = {},
): Promise<Result<VerifiedBrand, AgentError>> {
  const bounded: DiscoveryIo = {
    fetch: boundedFetch(io.fetch, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, opts.maxBytes ?? MAX_RESPONSE_BYTES),
    allowHttp: io.allowHttp,
  };
  const self = typeof location === "string" ? await discoverHost(bounded, location, opts) : ok(location);
  if (!self.ok) return self;
  const { url, document } = self.value;
  const brand = document.brand;
  if (brand === undefined) {
    return err({
      code: "invalid_discovery",
      message: `${document.host.id} names no brand (§2.4)`,
      field: "/brand",
    });
  }
  const others = (brand.locations ?? []).filter(
    (l) => !(l.host_id === document.host.id && sameUrl(l.discovery, url)),
  );
  const siblings = await Promise.all(
    others.map((l) => checkSibling(bounded, { id: brand.id, hostId: document.host.id, url }, l, opts)),
  );
  return ok({ brand: { id: brand.id, name: brand.name }, siblings });
}

type Location = NonNullable<NonNullable<DiscoveryDocument["brand"]>["locations"]>[number];

async function checkSibling(
  io: DiscoveryIo,
  self: { readonly id: string; readonly hostId: string; readonly url: string },
  l: Location,
  opts: DiscoverHostOptions,
): Promise<BrandSibling> {
  const base = { hostId: l.host_id, ...(l.name !== undefined && { name: l.name }), discovery: l.discovery };
  const no = (reason: BrandRefusalReason, message: string, host?: DiscoveredHost): BrandSibling => ({
    ...base,
    verified: false,
    reason,
    message,
    ...(host !== undefined && { host }),
  });
  const found = await discoverHost(io, l.discovery, opts);
  if (!found.ok) {
    const reason = found.error.code === "endpoint_not_authorized" ? "not_authorized" : "unreachable";
    return no(reason, describeAgentError(found.error));
  }
  const host = found.value;
  if (host.hostId !== l.host_id) {
    return no("wrong_host", `${l.discovery} is the document of ${host.hostId}, not ${l.host_id}`, host);
  }
  const theirs = host.document.brand;
  if (theirs?.id !== self.id) {
    const named = theirs === undefined ? "no brand" : `brand ${JSON.stringify(theirs.id)}`;
    return no("different_brand", `${l.host_id} names ${named}, not ${JSON.stringify(self.id)}`, host);
  }
  const back = (theirs.locations ?? []).some(
    (o) => o.host_id === self.hostId && sameUrl(o.discovery, self.url),
  );
  if (!back) {
    return no(
      "not_listed_back",
      `${l.host_id} does not list ${self.hostId} at ${self.url} among its locations`,
      host,
    );
  }
  return { ...base, verified: true, host };
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/**
 * A fetch that gives up after `timeoutMs` (the body included: the signal stays on the
 * response) and errors an answer past `maxBytes`, by its Content-Length or as it streams in.
 */
function boundedFetch(fetchFn: FetchLike, timeoutMs: number, maxBytes: number): FetchLike {
  return async (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const res = await fetchFn(url, { ...init, signal });
    const declared = Number(res.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel();
      throw new TypeError(`the answer is larger than ${maxBytes} bytes`);
    }
    if (res.body === null) return res;
    let seen = 0;
    const capped = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new TypeError(`the answer is larger than ${maxBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
