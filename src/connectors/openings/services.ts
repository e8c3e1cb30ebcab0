/** Service ids: "svc" or "svc:option" (a service option is offered as its own catalog service). */
import type { Salon } from "./salon.js";

export const SEP = ":";

export const splitService = (id: string): { serviceId: string; optionId?: string } => {
  const at = id.indexOf(SEP);
  return at === -1 ? { serviceId: id } : { serviceId: id.slice(0, at), optionId: id.slice(at + 1) };
};

/** The service's (or option's) duration at the salon's location, in ms. */
export function durationOf(salon: Salon, id: string): number | undefined {
  const { serviceId, optionId } = splitService(id);
  const s = salon.location.services.find((x) => x.id === serviceId);
  if (s === undefined) return undefined;
  if (optionId === undefined) return s.durationMinutes * 60_000;
  const o = s.options.find((x) => x.id === optionId);
  return o === undefined ? undefined : o.durationMinutes * 60_000;
}
