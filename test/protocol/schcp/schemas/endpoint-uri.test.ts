import { describe, expect, it } from "vitest";
import { validateSchcp } from "../../../../src/protocol/schcp/validate.js";

const operatorDoc = (discovery: string) => ({
  schcp: "0.4",
  operator: { name: "Gateway", domain: "gateway.example" },
  hosts: [{ id: "maple-street-auto", discovery, host_domain: null }],
});

describe("endpoint URIs (SchCP §3.1: HTTPS; plain http only on the same machine)", () => {
  it.each([
    "https://gateway.example/hosts/maple-street-auto/scheduling.json",
    "http://127.0.0.1:8787/hosts/maple-street-auto/scheduling.json",
    "http://localhost:8787/x",
    "http://[::1]:8787/x",
  ])("accepts %s", (uri) => {
    expect(validateSchcp("OperatorDocument", operatorDoc(uri)).ok).toBe(true);
  });

  it.each([
    "http://gateway.example/x",
    "http://127.0.0.1.evil.example/x",
    "http://10.0.0.1/x",
    "ftp://127.0.0.1/x",
  ])("refuses %s", (uri) => {
    expect(validateSchcp("OperatorDocument", operatorDoc(uri)).ok).toBe(false);
  });
});
