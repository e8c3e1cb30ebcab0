import { describe, expect, it } from "vitest";
import { checkClosedMandatePolicy } from "../../../../src/protocol/schcp/mandate/index.js";
import { childContext, expectRefusal, issueChild, issueRoot, verifiedChain } from "./helpers.js";

const HASH = "Of".padEnd(42, "f") + "w";
const OTHER = "Ot".padEnd(42, "t") + "g";

describe("checkClosedMandatePolicy (§5.3 policies.closed_mandate)", () => {
  it('"always" with the offer\'s hash on the root passes', async () => {
    const chain = await verifiedChain(await issueRoot({ constraints: { offer_sha256: HASH } }));
    expect(checkClosedMandatePolicy(chain, HASH, "always").ok).toBe(true);
  });

  it('"always" with the hash on the root under a child passes', async () => {
    const root = await issueRoot({ constraints: { offer_sha256: HASH } });
    const chain = await verifiedChain(await issueChild({}, root), childContext());
    expect(checkClosedMandatePolicy(chain, HASH, "always").ok).toBe(true);
  });

  it('"always" with the hash on the child only is refused: an agent-signed child does not count', async () => {
    const chain = await verifiedChain(
      await issueChild({ constraints: { offer_sha256: HASH } }),
      childContext(),
    );
    const refusal = expectRefusal(
      checkClosedMandatePolicy(chain, HASH, "always"),
      "OFFER_APPROVAL_REQUIRED",
      "closed_approval_required",
    );
    expect(refusal.details).toEqual({ offer_sha256: HASH });
  });

  it('"always" with an open root is refused, details naming the offer', async () => {
    const chain = await verifiedChain(await issueRoot());
    const refusal = expectRefusal(
      checkClosedMandatePolicy(chain, HASH, "always"),
      "OFFER_APPROVAL_REQUIRED",
      "closed_approval_required",
    );
    expect(refusal.details).toEqual({ offer_sha256: HASH });
  });

  it('"always" with another offer\'s hash on the root is refused', async () => {
    const chain = await verifiedChain(await issueRoot({ constraints: { offer_sha256: OTHER } }));
    expectRefusal(
      checkClosedMandatePolicy(chain, HASH, "always"),
      "OFFER_APPROVAL_REQUIRED",
      "closed_approval_required",
    );
  });

  it('"never": an open mandate is enough', async () => {
    const chain = await verifiedChain(await issueRoot());
    expect(checkClosedMandatePolicy(chain, HASH, "never").ok).toBe(true);
  });
});
