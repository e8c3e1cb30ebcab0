export { ISO4217_CODES, ISO4217_SNAPSHOT, currencyExponent, isKnownCurrency } from "./iso4217.js";
export { formatDecimalAmount, parseDecimalAmount } from "./amount.js";
export {
  addMoney,
  compareMoney,
  parseSchcpMoney,
  sameCurrency,
  sameMoney,
  toSchcpMoney,
  type Money,
  type SchcpMoney,
} from "./money.js";
export { applyPercent, parsePercent } from "./percent.js";
export {
  OSBP_MONEY_TYPES,
  fromMajorUnits,
  toMajorUnitsString,
  validateOsbpMoney,
  type OsbpMoney,
  type OsbpMoneyType,
} from "./osbp-money.js";
export type { MoneyError, MoneyErrorCode } from "./errors.js";
