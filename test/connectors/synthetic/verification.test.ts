/** Customer verification on the synthetic platform (OSBP requires_verification, verification.send / verify). */
import { describe, expect, it } from "vitest";
import type { UpstreamCreate } from "../../../src/connectors/port.js";
import {
  CODE_TTL_MS,
  fadesOnQueen,
  type SyntheticScenario,
} from "../../../src/connectors/synthetic/index.js";
import { connectorFor, failure, meta, MIN, t, value } from "./support.js";

const verified: SyntheticScenario = {
  ...fadesOnQueen,
  services: fadesOnQueen.services.map((s) => (s.id === "haircut" ? { ...s, requiresVerification: true } : s)),
};
const PHONE = "+14165550123";
const start = t("2026-10-20T11:00:00-04:00");
const haircut = (extra: Partial<UpstreamCreate> = {}): UpstreamCreate => ({
  idempotencyKey: "fades-on-queen:h_1",
  serviceId: "haircut",
  start,
  end: start + 30 * MIN,
  resourceIds: ["barber-marcus"],
  customer: { name: "Sam", phone: PHONE },
  tentative: false,
  ...extra,
});

describe("verification flow", () => {
  it("create → verification_required (sms) → send → create with the code → booked; the code is used up", async () => {
    const { connector } = connectorFor(verified);
    const required = failure(await connector.bookings.create(haircut()));
    expect(required).toMatchObject({ code: "verification_required", verificationMethod: "sms" });
    expect(required.upstream).toMatchObject({ call: "POST /v2/bookings", status: 428 });

    const sent = await connector.verification.send({ phone: PHONE }, "booking");
    expect(value(sent)).toEqual({ method: "sms" });
    expect(meta(sent)).toMatchObject({ call: "POST /v2/verifications", status: 201 });
    const code = await connector.lastCodeFor(PHONE);
    expect(code).toMatch(/^\d{6}$/);

    const wrong = code === "000000" ? "111111" : "000000";
    const failed = failure(await connector.bookings.create(haircut({ verificationCode: wrong })));
    expect(failed.code).toBe("verification_failed");
    expect(failed.upstream?.status).toBe(422);

    const booking = value(await connector.bookings.create(haircut({ verificationCode: code! })));
    expect(booking.status).toBe("confirmed");
    expect(await connector.lastCodeFor(PHONE)).toBeUndefined();
    // The retry of the same create is answered from the key, without a code.
    expect(value(await connector.bookings.create(haircut())).upstreamId).toBe(booking.upstreamId);
  });

  it("a service without the requirement books without a code", async () => {
    const { connector } = connectorFor(verified);
    value(await connector.bookings.create(haircut({ serviceId: "consultation" })));
  });

  it("verifyCode checks without consuming; a code expires after ten minutes", async () => {
    const { connector, clock } = connectorFor(verified);
    value(await connector.verification.send({ phone: PHONE }, "booking"));
    const code = (await connector.lastCodeFor(PHONE))!;
    const checked = await connector.verification.verify({ phone: PHONE }, "booking", code);
    expect(value(checked)).toEqual({ method: "sms" });
    expect(meta(checked)).toMatchObject({ call: "POST /v2/verifications/check", status: 200 });
    expect(failure(await connector.verification.verify({ phone: PHONE }, "booking", "12345")).code).toBe(
      "verification_failed",
    );
    expect(
      failure(await connector.verification.verify({ phone: "+14165550999" }, "booking", code)).code,
    ).toBe("verification_failed");
    clock.advance(CODE_TTL_MS);
    expect(failure(await connector.verification.verify({ phone: PHONE }, "booking", code)).code).toBe(
      "verification_failed",
    );
    expect(failure(await connector.bookings.create(haircut({ verificationCode: code }))).code).toBe(
      "verification_failed",
    );
  });

  it("a new send replaces the code, derived deterministically from the send time", async () => {
    const a = connectorFor(verified);
    const b = connectorFor(verified);
    value(await a.connector.verification.send({ phone: PHONE }, "booking"));
    value(await b.connector.verification.send({ phone: PHONE }, "booking"));
    const first = await a.connector.lastCodeFor(PHONE);
    expect(await b.connector.lastCodeFor(PHONE)).toBe(first);
    a.clock.advance(1000);
    value(await a.connector.verification.send({ phone: PHONE }, "booking"));
    expect(await a.connector.lastCodeFor(PHONE)).not.toBe(first);
  });

  it("refuses what cannot be verified", async () => {
    const { connector } = connectorFor(verified);
    expect(failure(await connector.verification.send({ email: "a@example.com" }, "booking")).code).toBe(
      "invalid_request",
    );
    expect(failure(await connector.verification.send({ phone: PHONE }, "")).code).toBe("invalid_request");
    expect(
      failure(await connector.bookings.create(haircut({ customer: {}, verificationCode: "123456" }))).code,
    ).toBe("invalid_request");
    const none = connectorFor({ ...fadesOnQueen, verificationMethod: "none" });
    const e = failure(await none.connector.verification.send({ phone: PHONE }, "booking"));
    expect(e.code).toBe("unsupported");
    expect(e.upstream?.status).toBe(501);
  });

  it("email platforms verify by email", async () => {
    const { connector } = connectorFor({ ...verified, verificationMethod: "email" });
    expect(failure(await connector.bookings.create(haircut())).verificationMethod).toBe("email");
    value(await connector.verification.send({ email: "sam@example.com" }, "booking"));
    const code = (await connector.lastCodeFor("sam@example.com"))!;
    value(
      await connector.bookings.create(
        haircut({ customer: { email: "sam@example.com" }, verificationCode: code }),
      ),
    );
  });
});
