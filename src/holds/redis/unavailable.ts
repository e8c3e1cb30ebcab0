/**
 * Every failure of the hold store's Redis round trip becomes the port's infrastructure error,
 * HoldStoreUnavailableError (src/holds/port.ts). The client itself, fail-fast, is
 * src/redis/connection.ts's.
 */
import { RedisConnectError } from "../../redis/connection.js";
import { HoldStoreUnavailableError } from "../port.js";

/**
 * The message says whether the command may have run: one in flight when the connection died
 * or timed out may have been executed (atomically, whole) and the caller cannot know;
 * one refused while disconnected never left the process. A client that could not connect
 * keeps its own message ("cannot connect to Redis at …").
 */
export function unavailable(operation: string, error: unknown): HoldStoreUnavailableError {
  if (error instanceof HoldStoreUnavailableError) return error;
  if (error instanceof RedisConnectError)
    return new HoldStoreUnavailableError(error.message, { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : "";
  let outcome = "";
  if (detail.includes("enableOfflineQueue")) outcome = " (not connected: it was not sent)";
  else if (name === "MaxRetriesPerRequestError" || /Connection is closed|timed out/i.test(detail)) {
    outcome = " (the connection failed with it in flight: it may have run)";
  }
  return new HoldStoreUnavailableError(`hold store ${operation} failed${outcome}: ${detail}`, {
    cause: error,
  });
}
