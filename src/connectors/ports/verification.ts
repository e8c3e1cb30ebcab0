/** The verification capability: OSBP customer verification passed through to the platform. */
import type { UpstreamCustomer } from "./bookings.js";
import type { ConnectorResult } from "./result.js";

export interface VerificationPort {
  send(
    customer: UpstreamCustomer,
    purpose: string,
  ): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>>;
  /**
   * An independent check of a code that must NOT consume it (the booking create still needs
   * it); a platform whose only verify consumes the code answers "unsupported".
   */
  verify(
    customer: UpstreamCustomer,
    purpose: string,
    code: string,
  ): Promise<ConnectorResult<{ readonly method: "sms" | "email" }>>;
}
