export { currencyExponent, isKnownCurrency } from "./iso4217.js";
export { formatDecimalAmount } from "./amount.js";
export { addMoney, parseSchcpMoney, sameMoney, toSchcpMoney, type Money } from "./money.js";
export { applyPercent, parsePercent } from "./percent.js";
export {
  OSBP_MONEY_TYPES,
  fromMajorUnits,
  toMajorUnitsString,
  validateOsbpMoney,
  type OsbpMoney,
} from "./osbp-money.js";
