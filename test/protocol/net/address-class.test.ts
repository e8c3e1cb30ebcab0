import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyAddress, isPublicAddress } from "../../../src/protocol/net/address-class.js";
import type { AddressClass } from "../../../src/protocol/net/address-class.js";

// SchCP §5.8: refuse private, loopback, link-local, CGNAT, multicast and reserved addresses
// (IPv4 and IPv6, including IPv4-mapped).
const TABLE: ReadonlyArray<[string, AddressClass]> = [
  // loopback
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["::1", "loopback"],
  // private (RFC 1918), edges included
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.1", "private"],
  ["192.168.255.255", "private"],
  // link-local
  ["169.254.169.254", "link_local"],
  ["169.254.0.1", "link_local"],
  ["fe80::1", "link_local"],
  ["febf::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  // CGNAT 100.64/10
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  // multicast
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  // unspecified / reserved
  ["0.0.0.0", "unspecified"],
  ["::", "unspecified"],
  ["0.1.2.3", "reserved"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["192.0.0.8", "reserved"],
  ["198.18.0.1", "reserved"],
  ["198.19.255.255", "reserved"],
  ["2001::1", "reserved"], // Teredo
  ["2002:7f00:1::", "reserved"], // 6to4 of 127.0.0.1
  ["64:ff9b::7f00:1", "reserved"], // NAT64 of 127.0.0.1
  ["::7f00:1", "reserved"], // IPv4-compatible (deprecated)
  ["100::1", "reserved"], // discard-only
  ["4000::1", "reserved"], // outside global unicast 2000::/3
  ["fec0::1", "reserved"], // deprecated site-local
  // unique-local fc00::/7
  ["fc00::1", "unique_local"],
  ["fd12:3456:789a::1", "unique_local"],
  // documentation
  ["192.0.2.10", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.200", "documentation"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  // IPv4-mapped IPv6 of those (the mapped address is judged as its IPv4 address)
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:169.254.169.254", "link_local"],
  ["::ffff:100.64.0.1", "cgnat"],
  ["::ffff:192.168.1.1", "private"],
  ["::ffff:224.0.0.1", "multicast"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["::ffff:203.0.113.1", "documentation"],
  // public
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["100.63.255.255", "public"], // just below CGNAT
  ["100.128.0.0", "public"], // just above CGNAT
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["169.253.255.255", "public"],
  ["223.255.255.255", "public"],
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001::1", "public"],
  ["::ffff:8.8.8.8", "public"],
  // not addresses
  ["", "invalid"],
  ["localhost", "invalid"],
  ["999.1.1.1", "invalid"],
  ["127.1", "invalid"], // a URL parser normalises this; the classifier takes literal addresses only
];

describe("classifyAddress (SchCP §5.8 connect-time address policy)", () => {
  it.each(TABLE)("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isPublicAddress(address)).toBe(expected === "public");
  });

  it("judges every IPv4 address and its IPv4-mapped IPv6 form alike (property)", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        expect(classifyAddress(`::ffff:${v4}`)).toBe(classifyAddress(v4));
      }),
    );
  });

  it("never calls a private 10/8, 172.16/12 or 192.168/16 address public (property)", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, octet, fc.integer({ min: 16, max: 31 }), (a, b, c, second) => {
        expect(isPublicAddress(`10.${a}.${b}.${c}`)).toBe(false);
        expect(isPublicAddress(`172.${second}.${b}.${c}`)).toBe(false);
        expect(isPublicAddress(`192.168.${b}.${c}`)).toBe(false);
      }),
    );
  });
});
