/** What every OAuth stand-in exposes to the tests. */
import type { IssuedGrant } from "./grants.js";
import type { Answer, ReceivedRequest } from "./loopback.js";

export interface OAuthStandin {
  readonly provider: "google" | "microsoft" | "square";
  /** The provider's real origins this stand-in answers for (see routing.ts). */
  readonly realOrigins: readonly string[];
  /** Where it listens: http://127.0.0.1:<port>. */
  readonly origin: string;
  /** Every request received, in order (authorization requests, consent posts, token calls). */
  readonly received: readonly ReceivedRequest[];
  /** Grants handed out by code exchanges. */
  readonly grants: readonly IssuedGrant[];
  /** The next token call gets this answer instead (e.g. a 500, or the provider's invalid_grant). */
  failNextToken(answer: Answer): void;
  close(): Promise<void>;
}
