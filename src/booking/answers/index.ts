export type { AddRuleOutcome, RuleCheck, RuleStore, RuleTerms, RuleUse, StoredRule } from "./port.js";
export { MAX_RULES_PER_HOST } from "./port.js";
export { MemoryRuleStore } from "./memory-store.js";
export { RedisRuleStore } from "./redis-store.js";
export { answerAtOnce, answeringKey, coveringRule, hostAnswer } from "./decide.js";
export type { AnswerQuestion } from "./decide.js";
export { addRule, listRules, removeRule } from "./rules.js";
export type { RuleView } from "./rules.js";
