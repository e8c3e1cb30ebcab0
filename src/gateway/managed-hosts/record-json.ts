/** A stored record read back: anything that is not a well-formed record is skipped, not thrown. */
import { HOST_ID_PATTERN } from "../../booking/hosts/index.js";
import type { ManagedHostRecord } from "../../edges/console/managed-hosts.js";

const HOST_ID = new RegExp(HOST_ID_PATTERN);
const STATES = new Set(["draft", "active", "disconnected"]);

export const isHostId = (id: string): boolean => HOST_ID.test(id);

export function parseRecord(text: string): ManagedHostRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const r = v as Record<string, unknown>;
  const ok =
    typeof r.id === "string" &&
    isHostId(r.id) &&
    typeof r.owner === "string" &&
    typeof r.source === "string" &&
    typeof r.state === "string" &&
    STATES.has(r.state) &&
    typeof r.config === "object" &&
    r.config !== null &&
    typeof r.createdAt === "number" &&
    typeof r.updatedAt === "number";
  return ok ? (r as unknown as ManagedHostRecord) : undefined;
}
