/**
 * The class of an IP address, for the one outbound address policy (policy.ts). SchCP §5.8 names
 * what a callback may not reach ("private, loopback, link-local,
 * CGNAT, multicast and reserved addresses (IPv4 and IPv6, including IPv4-mapped)").
 *
 * Ranges come from the IANA IPv4 and IPv6 Special-Purpose Address Registries. Matching uses
 * node:net BlockList, which also matches an IPv4-mapped IPv6 address (::ffff:a.b.c.d) against
 * the IPv4 rules, so "::ffff:127.0.0.1" is loopback like "127.0.0.1". IPv6 is an allowlist:
 * only global unicast (2000::/3) can be public, then the special ranges inside it are refused.
 */
import { BlockList, isIP } from "node:net";

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "documentation"
  | "unique_local"
  | "reserved"
  | "invalid";

type Family = "ipv4" | "ipv6";
type Range = readonly [
  network: string,
  prefix: number,
  family: Family,
  kind: Exclude<AddressClass, "public">,
];

/** Most specific first where ranges nest, so the class names the narrower purpose. */
const RANGES: readonly Range[] = [
  // IPv4 (these also catch ::ffff:a.b.c.d)
  ["0.0.0.0", 32, "ipv4", "unspecified"],
  ["0.0.0.0", 8, "ipv4", "reserved"], // "this network"
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "cgnat"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link_local"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "ipv4", "documentation"], // TEST-NET-1
  ["192.88.99.0", 24, "ipv4", "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "reserved"], // benchmarking
  ["198.51.100.0", 24, "ipv4", "documentation"], // TEST-NET-2
  ["203.0.113.0", 24, "ipv4", "documentation"], // TEST-NET-3
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"], // incl. 255.255.255.255 broadcast
  // IPv6
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fe80::", 10, "ipv6", "link_local"],
  ["fc00::", 7, "ipv6", "unique_local"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["2001:db8::", 32, "ipv6", "documentation"],
  ["3fff::", 20, "ipv6", "documentation"], // RFC 9637
  ["2001::", 23, "ipv6", "reserved"], // IETF protocol assignments (Teredo, ORCHID, benchmarking…)
  // 6to4 and NAT64 embed an IPv4 address this policy would have to unpack to judge; a gateway
  // has no business calling either, so both are refused whole.
  ["2002::", 16, "ipv6", "reserved"],
  ["64:ff9b::", 96, "ipv6", "reserved"],
  ["64:ff9b:1::", 48, "ipv6", "reserved"],
];

const COMPILED = RANGES.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, kind };
});

const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");

/** The class of a literal IPv4 or IPv6 address ("invalid" for anything else). */
export function classifyAddress(address: string): AddressClass {
  const version = isIP(address);
  if (version === 0) return "invalid";
  const family: Family = version === 4 ? "ipv4" : "ipv6";
  for (const range of COMPILED) {
    // An IPv4 rule also judges an IPv6 address (BlockList maps ::ffff:a.b.c.d); never the reverse.
    if (range.family === "ipv6" && family === "ipv4") continue;
    if (range.list.check(address, family)) return range.kind;
  }
  if (family === "ipv4") return "public";
  if (isMappedIpv4(address)) return "public"; // a public IPv4 reached over IPv6
  return GLOBAL_UNICAST.check(address, "ipv6") ? "public" : "reserved";
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

const MAPPED = new BlockList();
MAPPED.addSubnet("::ffff:0:0", 96, "ipv6");

function isMappedIpv4(address: string): boolean {
  return MAPPED.check(address, "ipv6");
}
