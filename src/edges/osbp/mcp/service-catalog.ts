/**
 * OSBP service discovery for the MCP edge. OSBP v0.1.0 has no tool that lists services, and
 * service.describe / policy.explain need a service_id on a host with several services and no
 * default. So the host's services (id, name, duration, price) are read once at startup and
 * written where an agent reads before its first call: the server instructions (MCP
 * initialize) and osbp_service_describe's description. Input schemas stay as published.
 *
 * Service names are merchant text (OSBP "Known Limitations": untrusted display data): each is
 * written as a JSON string, so a name cannot break out of its line or pose as guidance.
 */
import { formatDecimalAmount } from "../../../protocol/money/index.js";
import type { OsbpMoney, Service } from "../../../protocol/osbp/index.js";
import { SERVER_INSTRUCTIONS, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";
import type { ToolName } from "../../../protocol/osbp/index.js";

/** What an agent needs to pick a service: service.describe's members without the flags. */
export type ServiceSummary = Pick<Service, "id" | "name" | "duration" | "price">;

/** A tools/list description or instructions text should stay readable: longer lists are cut. */
export const MAX_LISTED_SERVICES = 40;

function priceWords(price: OsbpMoney | undefined): string {
  if (price === undefined) return "price not listed";
  if (price.amount_minor !== undefined && (price.type ?? "fixed") === "fixed")
    return `${price.currency} ${formatDecimalAmount(price.amount_minor, price.currency)}`;
  return `price ${(price.type ?? "unknown").replaceAll("_", " ")} (${price.currency})`;
}

/** One line per service: `- service_id "oil-change": "Oil change", PT45M, USD 49.00`. */
export function serviceLines(services: readonly ServiceSummary[]): string {
  const shown = services.slice(0, MAX_LISTED_SERVICES).map((s) => {
    const parts = [JSON.stringify(s.name), s.duration ?? "open-ended", priceWords(s.price)];
    return `- service_id ${JSON.stringify(s.id)}: ${parts.join(", ")}`;
  });
  const more = services.length - shown.length;
  if (more > 0) shown.push(`- and ${more} more; ask the merchant for their ids`);
  return shown.join("\n");
}

/** The server instructions for a host: the canonical flow, then its services when known. */
export function instructionsFor(services: readonly ServiceSummary[] | undefined): string {
  if (services === undefined || services.length === 0) {
    return (
      `${SERVER_INSTRUCTIONS} This server could not read the merchant's service list at ` +
      "startup: call service.describe without service_id for the default service."
    );
  }
  return (
    `${SERVER_INSTRUCTIONS}\n\nThis merchant's bookable services (pass the service_id to ` +
    "service.describe, availability.find, policy.explain and booking.create):\n" +
    serviceLines(services)
  );
}

/** The eight tool descriptions, service.describe's naming the host's services when known. */
export function toolDescriptionsFor(
  services: readonly ServiceSummary[] | undefined,
): Readonly<Record<ToolName, string>> {
  if (services === undefined || services.length === 0) return TOOL_DESCRIPTIONS;
  return {
    ...TOOL_DESCRIPTIONS,
    "service.describe": `${TOOL_DESCRIPTIONS["service.describe"]} This merchant's services:\n${serviceLines(services)}`,
  };
}
