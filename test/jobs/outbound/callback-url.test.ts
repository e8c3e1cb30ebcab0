/** The callback URL's text, judged once for the edge (at the request) and the transport (§5.8). */
import { describe, expect, it } from "vitest";
import { checkCallbackUrl } from "../../../src/jobs/outbound/callback-url.js";

const refusal = (url: string, allowPrivateForTests = false) => {
  const r = checkCallbackUrl(url, { allowPrivateForTests });
  return r.ok ? "ok" : r.error.code;
};

describe("checkCallbackUrl", () => {
  it.each([
    ["not a URL", "agent.example/hooks", "invalid_url"],
    ["http", "http://agent.example/hooks", "scheme_not_allowed"],
    ["ftp", "ftp://agent.example/hooks", "scheme_not_allowed"],
    ["credentials", "https://u:p@agent.example/hooks", "credentials_in_url"],
    ["a user name alone", "https://u@agent.example/hooks", "credentials_in_url"],
    ["loopback", "https://127.0.0.1/", "non_public_address"],
    ["IPv6 loopback", "https://[::1]/", "non_public_address"],
    ["IPv4-mapped private", "https://[::ffff:10.0.0.1]/", "non_public_address"],
    ["link-local", "https://169.254.169.254/", "non_public_address"],
    ["CGNAT", "https://100.64.0.1/", "non_public_address"],
    ["unspecified", "https://0.0.0.0/", "non_public_address"],
    ["a host name", "https://agent.example/hooks", "ok"],
    ["a public literal", "https://[2606:4700::1111]/hooks", "ok"],
  ])("%s: %s -> %s", (_why, url, expected) => {
    expect(refusal(url)).toBe(expected);
  });

  it("names the refused address and its class", () => {
    const r = checkCallbackUrl("https://192.168.1.10/x");
    expect(r.ok ? undefined : r.error).toMatchObject({ address: "192.168.1.10", addressClass: "private" });
  });

  it("lets tests use loopback and http, but never credentials", () => {
    expect(refusal("http://127.0.0.1:8080/", true)).toBe("ok");
    expect(refusal("https://u:p@127.0.0.1/", true)).toBe("credentials_in_url");
  });
});
