/**
 * The money steps of OSBP "Mandate Enforcement": the price bullet (sixth) and the payment
 * requirement bullet (eighth). All comparisons are integer minor units of one currency; OSBP
 * never converts currencies, so any currency difference fails closed with currency_mismatch.
 * See validate-mandate.ts for the decisions on which price and which fee are checked.
 */
import { formatDecimalAmount, validateOsbpMoney, type OsbpMoney } from "../money/index.js";
import { err, ok, type Result } from "../result.js";
import { problem } from "./problems.js";
import type { BookingMandate, Policy, Problem, Service, Slot } from "./types.js";

/** An OsbpMoney whose amount is known: type fixed, amount_minor present. */
export type FixedMoney = OsbpMoney & { readonly amount_minor: number; readonly type: "fixed" };

const words = (m: FixedMoney): string => `${m.currency} ${formatDecimalAmount(m.amount_minor, m.currency)}`;
const isFixed = (m: OsbpMoney): m is FixedMoney => m.type === "fixed" && m.amount_minor !== undefined;
/** The fail-closed form: not retryable, no approval token (OSBP codes table). */
const failClosed = (message: string): Problem =>
  problem("requires_user_confirmation", message, { retryable: false });

function readMoney(value: OsbpMoney, field: string): Result<OsbpMoney, Problem> {
  const money = validateOsbpMoney(value, field);
  return money.ok
    ? money
    : err(
        failClosed(
          `A money value cannot be read (${money.error.field}: ${money.error.message}), so the booking cannot be bounded`,
        ),
      );
}

export function checkPrice(m: BookingMandate, slot: Slot, service: Service): Result<FixedMoney, Problem> {
  const present: [string, OsbpMoney][] = [];
  if (slot.price !== undefined) present.push(["/slot/price", slot.price]);
  if (service.price !== undefined) present.push(["/service/price", service.price]);
  const read: [string, OsbpMoney][] = [];
  for (const [field, value] of present) {
    const money = readMoney(value, field);
    if (!money.ok) return money;
    if (money.value.currency !== m.max_price.currency) {
      return err(
        problem(
          "currency_mismatch",
          `The ${field === "/slot/price" ? "slot" : "service"} price is in ${money.value.currency} but BookingMandate.max_price is in ${m.max_price.currency}; OSBP never converts currencies`,
        ),
      );
    }
    read.push([field, money.value]);
  }
  const selected = read[0];
  if (selected === undefined || !isFixed(selected[1])) {
    return err(
      failClosed(
        "The selected price has no fixed amount, so the BookingMandate cannot bound it; hand off instead of booking",
      ),
    );
  }
  const [, price] = selected;
  const cap = m.max_price as FixedMoney;
  if (price.amount_minor > cap.amount_minor) {
    return err(
      problem(
        "price_exceeds_mandate",
        `Selected service or slot price ${words(price)} exceeds BookingMandate.max_price ${words(cap)}`,
      ),
    );
  }
  return ok(price);
}

export function checkPayment(
  m: BookingMandate,
  policy: Policy,
  price: FixedMoney,
): Result<FixedMoney | undefined, Problem> {
  const requirement = policy.payment_requirement as unknown;
  if (requirement === "none") return ok(undefined);
  if (requirement !== "deposit" && requirement !== "full_prepay") {
    return err(
      failClosed(
        "The payment requirement (Policy.payment_requirement) is unknown, so the booking cannot be bounded; hand off instead of booking",
      ),
    );
  }
  const what = requirement === "deposit" ? "a deposit" : "full prepayment";
  if (m.allow_policy_fee !== true) {
    return err(
      problem(
        "requires_payment_handoff",
        `The merchant requires ${what}, which the BookingMandate does not allow (BookingMandate.allow_policy_fee is not true)`,
      ),
    );
  }
  let fee: OsbpMoney | undefined = price;
  if (policy.deposit !== undefined) {
    const deposit = readMoney(policy.deposit, "/policy/deposit");
    if (!deposit.ok) return deposit;
    fee = deposit.value;
  } else if (requirement === "deposit") {
    fee = undefined;
  }
  if (fee === undefined || !isFixed(fee)) {
    return err(
      problem(
        "requires_payment_handoff",
        `The merchant requires ${what} without a fixed amount (Policy.deposit); hand off to the merchant`,
      ),
    );
  }
  const capField = m.max_extra_fee === undefined ? "max_price" : "max_extra_fee";
  const cap = (m.max_extra_fee ?? m.max_price) as FixedMoney;
  if (fee.currency !== cap.currency) {
    return err(
      problem(
        "currency_mismatch",
        `The required payment is in ${fee.currency} but BookingMandate.${capField} is in ${cap.currency}; OSBP never converts currencies`,
      ),
    );
  }
  if (m.max_extra_fee !== undefined && fee.amount_minor > cap.amount_minor) {
    return err(
      problem(
        "policy_fee_exceeds_mandate",
        `The required payment ${words(fee)} exceeds BookingMandate.max_extra_fee ${words(cap)}`,
      ),
    );
  }
  return ok(fee);
}
