/**
 * Event cost as shown: stored as the submitted entries (parsed by resources/cost-input.ts); shown
 * as TEC does (min–max of the numeric values, 0 as "Free", the currency symbol applied) with
 * `cost_details` listing the values.
 *
 * Numbers stay decimal text from end to end: a JS number would round a long run of digits (and
 * print it with an exponent), so they are normalised and ordered as strings.
 */

export interface CostInput {
  cost: string[]
  currencySymbol: string
  currencyPosition: '' | 'prefix' | 'postfix'
}

/**
 * A number in cost text, seen whole in whatever notation it is written, so that only a plain
 * decimal (`12`, `12.50`, `12,50`) counts as a price. Hexadecimal and binary (`0x1p1023`, `0b101`),
 * exponents (`1e400`) and digit separators (`1_000`) are matched too, to be left out: TEC's digit
 * pattern would read `0x1p1023` as 0, 1 and 1023 ("Free – $1023").
 */
const NUMBER = /0[xXbBoO][\da-fA-F_]*(?:\.[\da-fA-F_]*)?(?:[pP][+-]?\d+)?|\d[\d_]*(?:[.,]\d[\d_]*)?(?:[eE][+-]?\d+)?/g
const PLAIN = /^\d+(?:[.,]\d+)?$/
/** Words programs print for numbers that are none. */
const NOT_A_NUMBER = /^[+-]?(?:nan|inf|infinity)$/i
/** The site's currency (the `currency` option), applied to numeric costs that carry no symbol of their own. */
export interface DefaultCurrency {
  symbol: string
  position: 'prefix' | 'postfix'
}

/** TEC's default, for callers without a router's options. */
const DOLLAR: DefaultCurrency = { symbol: '$', position: 'prefix' }

/** `12,50` → `12.5`, `007` → `7`, `5.0` → `5`: the value as decimal text, every digit kept. */
function canonical(n: string): string {
  const [int = '', frac = ''] = n.split(/[.,]/)
  const whole = int.replace(/^0+/, '') || '0'
  const fraction = frac.replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}

/** Orders canonical decimals by value: a longer integer part is larger, then digit by digit. */
function compareDecimal(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.')
  const [bi = '', bf = ''] = b.split('.')
  if (ai.length !== bi.length) return ai.length - bi.length
  if (ai !== bi) return ai < bi ? -1 : 1
  return af === bf ? 0 : af < bf ? -1 : 1
}

/** Whether an entry holds a number in another notation than decimal (`0xFF`, `1e3`, `NaN`). */
export function otherNotation(entry: string): boolean {
  return NOT_A_NUMBER.test(entry.trim()) || [...entry.matchAll(NUMBER)].some(([m]) => !PLAIN.test(m))
}

/**
 * The entries' plain numbers (ascending, distinct) and the entries that hold none: lower-cased
 * as TEC does (`Free` → `free`), except a number in another notation (`NaN`, `0xFF`, `1E3`),
 * kept as given, since lower-casing it reads like a program's printout (`nan`).
 */
function readCosts(entries: string[]): { numbers: string[]; words: string[] } {
  const numbers = new Set<string>()
  const words = new Set<string>()
  for (const e of entries) {
    let plain = 0
    for (const [m] of e.matchAll(NUMBER)) {
      if (!PLAIN.test(m)) continue
      numbers.add(canonical(m))
      plain++
    }
    if (!plain) words.add(otherNotation(e) ? e : e.toLowerCase())
  }
  return { numbers: [...numbers].sort(compareDecimal), words: [...words] }
}

/** The numeric values of the entries, ascending, as decimal text. */
export function costNumbers(entries: string[]): string[] {
  return readCosts(entries).numbers
}

/** `cost_details.values`: numeric values ascending as strings, non-numeric entries lower-cased. */
export function costValues(entries: string[]): string[] {
  const { numbers, words } = readCosts(entries)
  return [...numbers, ...words]
}

export function formatCost(c: CostInput, site: DefaultCurrency = DOLLAR): string {
  if (!c.cost.length) return ''
  const values = costNumbers(c.cost)
  if (!values.length) return c.cost[0] as string
  const symbol = c.currencySymbol || site.symbol
  const position = c.currencySymbol ? c.currencyPosition : site.position
  const show = (v: string) => (v === '0' ? 'Free' : position === 'postfix' ? `${v}${symbol}` : `${symbol}${v}`)
  const min = values[0] as string
  const max = values[values.length - 1] as string
  return min === max ? show(min) : `${show(min)} \u2013 ${show(max)}`
}
