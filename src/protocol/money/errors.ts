import type { FieldError } from "../result.js";

/**
 * Why a money value was refused. Stable codes; the edges map them to SchCP INVALID_REQUEST
 * or an OSBP Problem.
 */
type MoneyErrorCode =
  | "invalid_type" // not the JSON type the field needs
  | "invalid_amount" // not a decimal of the expected grammar (sign, exponent, leading zeros…)
  | "too_many_decimals" // more decimals than the currency's minor unit (SchCP §2.1)
  | "amount_out_of_range" // the minor-unit count is not a safe integer
  | "unknown_currency" // not an ISO 4217 List One code with a minor unit
  | "missing_member"
  | "unknown_member" // a member the closed shape does not allow
  | "invalid_money_type" // OSBP Money.type outside its enum
  | "missing_amount" // OSBP fixed price without amount_minor
  | "unexpected_amount" // OSBP non-fixed price carrying amount_minor
  | "currency_mismatch"; // amounts in different currencies are never added or compared

export type MoneyError = FieldError<MoneyErrorCode>;
