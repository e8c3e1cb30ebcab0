import { describe, expect, it } from "vitest";
import { receiptConsent } from "../../../../src/protocol/schcp/mandate/index.js";
import { childContext, issueChild, issueRoot, verifiedChain } from "./helpers.js";

const HASH = "Of".padEnd(42, "f") + "w";
const OTHER = "Ot".padEnd(42, "t") + "g";

describe("receiptConsent (§5.3 'A receipt is evidence of the agreement')", () => {
  it('"offer" when the root carried that hash, with its jti and consent mode', async () => {
    const chain = await verifiedChain(
      await issueRoot({
        jti: "m-closed",
        constraints: { offer_sha256: HASH },
        consent: { mode: "human_present" },
      }),
    );
    expect(receiptConsent(chain, HASH)).toEqual({
      approved: "offer",
      mandate: "m-closed",
      mode: "human_present",
    });
  });

  it('"limits" when an open root covered it; no mode when the root states none', async () => {
    const chain = await verifiedChain(await issueRoot({ jti: "m-open" }));
    expect(receiptConsent(chain, HASH)).toEqual({ approved: "limits", mandate: "m-open" });
  });

  it('"limits" when the root names another offer', async () => {
    const chain = await verifiedChain(await issueRoot({ constraints: { offer_sha256: OTHER } }));
    expect(receiptConsent(chain, HASH).approved).toBe("limits");
  });

  it('a child carrying the hash does not make it "offer"; mandate and mode are the root\'s', async () => {
    const root = await issueRoot({ jti: "m-root", consent: { mode: "human_not_present" } });
    const child = await issueChild(
      { jti: "m-child", constraints: { offer_sha256: HASH }, consent: { mode: "human_present" } },
      root,
    );
    const chain = await verifiedChain(child, childContext());
    expect(receiptConsent(chain, HASH)).toEqual({
      approved: "limits",
      mandate: "m-root",
      mode: "human_not_present",
    });
  });

  it('"offer" under a child when the root it extends carried the hash', async () => {
    const root = await issueRoot({ jti: "m-root", constraints: { offer_sha256: HASH } });
    const chain = await verifiedChain(await issueChild({}, root), childContext());
    expect(receiptConsent(chain, HASH)).toEqual({ approved: "offer", mandate: "m-root" });
  });
});
