export { parseRule, formatRule, isBounded, RuleError, WEEKDAYS, type Rule, type ByDay, type Until, type Freq } from './rule.js'
export { expandRule, weekday, type ExpandOptions } from './expand.js'
export { describeRule } from './describe.js'
