/**
 * The eight OSBP tools (OSBP "Naming"): dotted protocol names, and the flattened names an
 * MCP server registers them under, because MCP tool names cannot carry dots portably.
 */

export const TOOL_NAMES = [
  "service.describe",
  "availability.find",
  "policy.explain",
  "verification.send",
  "verification.verify",
  "booking.create",
  "booking.status",
  "handoff.request",
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

/** "booking.create" -> "osbp_booking_create". */
export type McpToolName = `osbp_${ToolName extends `${infer A}.${infer B}` ? `${A}_${B}` : never}`;

export const MCP_TOOL_NAMES: Readonly<Record<ToolName, McpToolName>> = {
  "service.describe": "osbp_service_describe",
  "availability.find": "osbp_availability_find",
  "policy.explain": "osbp_policy_explain",
  "verification.send": "osbp_verification_send",
  "verification.verify": "osbp_verification_verify",
  "booking.create": "osbp_booking_create",
  "booking.status": "osbp_booking_status",
  "handoff.request": "osbp_handoff_request",
};

const BY_MCP_NAME: ReadonlyMap<string, ToolName> = new Map(
  TOOL_NAMES.map((name): [string, ToolName] => [MCP_TOOL_NAMES[name], name]),
);

export function isToolName(value: unknown): value is ToolName {
  return typeof value === "string" && (TOOL_NAMES as readonly string[]).includes(value);
}

export function mcpToolName(name: ToolName): McpToolName {
  return MCP_TOOL_NAMES[name];
}

/** The dotted name behind a flattened MCP name, or undefined for a name OSBP does not define. */
export function toolNameFromMcp(mcpName: string): ToolName | undefined {
  return BY_MCP_NAME.get(mcpName);
}
