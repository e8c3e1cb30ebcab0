/**
 * The money rules of an offer (SchCP §5.2 "The all-in total", §2.1 Money, §8), which the
 * schema alone cannot say: which members come together, one currency, exact sums.
 *
 * - price ⇒ total and lines; total ⇒ lines; lines alone is invalid. A total without a
 *   price is only an extension of an unpriced booking (§5.8), so only a change offer.
 * - every amount is valid for its currency (no more decimals than its minor unit);
 * - price and every line are in the total's currency (§2.1: never added across currencies);
 * - the lines sum exactly, in integer minor units, to the total;
 * - no line is a cancellation, change or no-show fee (§5.2 "No fee terms"): the closed
 *   line kinds are the only ones accepted.
 * Amounts are never negative: the amount grammar has no sign (money/amount.ts).
 */
import { addMoney, parseSchcpMoney } from "../../money/money.js";
import type { Money } from "../../money/money.js";
import { childPointer, err, fieldError, ok } from "../../result.js";
import type { FieldError, Result } from "../../result.js";
import type { OfferClaims, OfferLine } from "../types.js";

/** The closed line kinds of OfferClaims (§5.2): what the person pays if things go as planned. */
const LINE_KINDS: ReadonlySet<string> = new Set<OfferLine["kind"]>(["service", "fee", "surcharge", "tax"]);

const invalid = (field: string, message: string): Result<never> =>
  err(fieldError("offer_invalid", field, message));

/** Field names are JSON pointers into the claims ("/lines/1/amount/currency"). */
export function checkOfferMoney(claims: OfferClaims): Result<{ total: Money | null }> {
  const { price, total, lines } = claims;
  if (total === undefined) {
    if (price !== undefined) return invalid("/total", "an offer with a price states its all-in total");
    if (lines !== undefined) return invalid("/lines", "lines come only with a total");
    return ok({ total: null });
  }
  if (lines === undefined) return invalid("/lines", "an offer with a total lists its lines");
  if (price === undefined && claims.kind !== "change") {
    return invalid("/price", "only an extension of an unpriced booking states a total without a price");
  }
  if (lines.length === 0) return invalid("/lines", "the lines must list what the total is made of");

  const totalMoney = parseSchcpMoney(total, "/total");
  if (!totalMoney.ok) return asOfferError(totalMoney.error);
  const currency = totalMoney.value.currency;

  if (price !== undefined) {
    const priceMoney = parseSchcpMoney(price, "/price");
    if (!priceMoney.ok) return asOfferError(priceMoney.error);
    if (priceMoney.value.currency !== currency) {
      return invalid(
        "/price/currency",
        `the price is in ${priceMoney.value.currency}, the total in ${currency}`,
      );
    }
  }

  let sum: Money = { minor: 0, currency };
  for (const [i, line] of lines.entries()) {
    const lineField = childPointer("/lines", i);
    if (!LINE_KINDS.has(line.kind)) {
      return invalid(
        childPointer(lineField, "kind"),
        "no line may be a fee for cancelling, changing or not showing",
      );
    }
    const amount = parseSchcpMoney(line.amount, childPointer(lineField, "amount"));
    if (!amount.ok) return asOfferError(amount.error);
    if (amount.value.currency !== currency) {
      return invalid(
        childPointer(childPointer(lineField, "amount"), "currency"),
        `a line in ${amount.value.currency} cannot be part of a total in ${currency}`,
      );
    }
    const added = addMoney(sum, amount.value, lineField);
    if (!added.ok) return asOfferError(added.error);
    sum = added.value;
  }
  if (sum.minor !== totalMoney.value.minor) {
    return invalid(
      "/total",
      `the lines sum to ${sum.minor} minor units, the total is ${totalMoney.value.minor}`,
    );
  }
  return ok({ total: totalMoney.value });
}

/** Money errors keep their field and message; the code becomes the offer's one refusal. */
function asOfferError(e: FieldError): Result<never> {
  return invalid(e.field, e.message);
}
