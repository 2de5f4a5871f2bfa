/**
 * Event cost as shown: stored as the submitted entries (parsed by resources/cost-input.ts); shown
 * as TEC does (min–max of the numeric values, 0 as "Free", the currency symbol applied) with
 * `cost_details` listing the values.
 */

export interface CostInput {
  cost: string[]
  currencySymbol: string
  currencyPosition: '' | 'prefix' | 'postfix'
}

const NUMBER = /\d+(?:[.,]\d+)?/g
/** The site's default currency, applied to numeric costs that carry no symbol of their own. */
const DEFAULT_SYMBOL = '$'

const toNumber = (s: string) => Number(s.replace(',', '.'))

/** `cost_details.values`: numeric values ascending as strings, non-numeric entries lower-cased. */
export function costValues(entries: string[]): string[] {
  const numbers = new Set<string>()
  const words = new Set<string>()
  for (const e of entries) {
    const found = e.match(NUMBER)
    if (found) for (const n of found) numbers.add(String(toNumber(n)))
    else words.add(e.toLowerCase())
  }
  return [...[...numbers].sort((a, b) => Number(a) - Number(b)), ...words]
}

export function formatCost(c: CostInput): string {
  if (!c.cost.length) return ''
  const values = costValues(c.cost).filter((x) => /^\d/.test(x))
  if (!values.length) return c.cost[0] as string
  const symbol = c.currencySymbol || DEFAULT_SYMBOL
  const position = c.currencySymbol ? c.currencyPosition : 'prefix'
  const show = (v: string) => (Number(v) === 0 ? 'Free' : position === 'postfix' ? `${v}${symbol}` : `${symbol}${v}`)
  const min = values[0] as string
  const max = values[values.length - 1] as string
  return min === max ? show(min) : `${show(min)} \u2013 ${show(max)}`
}
