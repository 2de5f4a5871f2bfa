/** A short English description of a rule, such as "Every Tuesday and Thursday, 12 times". */
import type { ByDay, Rule } from './rule.js'

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const UNITS = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' } as const
const ADVERBS = { DAILY: 'Daily', WEEKLY: 'Weekly', MONTHLY: 'Monthly', YEARLY: 'Yearly' } as const

function and(items: string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

function ordinal(n: number): string {
  if (n === -1) return 'last'
  if (n < 0) return `${ordinal(-n)} to last`
  const words = ['', 'first', 'second', 'third', 'fourth', 'fifth']
  return n < words.length ? words[n]! : numbered(n)
}

function numbered(n: number): string {
  const tens = n % 100
  return `${n}${tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`
}

const dayOfMonth = (d: number) => (d === -1 ? 'the last day' : d < 0 ? `the ${numbered(-d)} to last day` : `the ${numbered(d)}`)

const weekday = (b: ByDay) => (b.n === 0 ? DAY_NAMES[b.wd]! : `the ${ordinal(b.n)} ${DAY_NAMES[b.wd]}`)

function untilDate(r: Rule): string {
  const [y, m, d] = r.until!.date.split('-').map(Number) as [number, number, number]
  return `${MONTH_NAMES[m - 1]} ${d}, ${y}`
}

export function describeRule(r: Rule): string {
  const plainWeekdays = r.byDay !== undefined && r.byDay.every((b) => b.n === 0)
  let text: string
  if (r.freq === 'WEEKLY' && r.byDay && r.interval === 1) text = `Every ${and(r.byDay.map(weekday))}`
  else if (r.freq === 'DAILY' && plainWeekdays && r.interval === 1) text = `Every ${and(r.byDay!.map(weekday))}`
  else {
    text = r.interval === 1 ? ADVERBS[r.freq] : `Every ${r.interval} ${UNITS[r.freq]}s`
    if (r.byDay && !r.bySetPos) text += ` on ${and(r.byDay.map(weekday))}`
  }
  if (r.byMonthDay && !r.bySetPos) text += ` on ${and(r.byMonthDay.map(dayOfMonth))}`
  if (r.bySetPos) {
    const pool = [...(r.byDay ?? []).map(weekday), ...(r.byMonthDay ?? []).map(dayOfMonth)]
    text += ` on the ${and(r.bySetPos.map(ordinal))}${pool.length ? ` of ${and(pool)}` : ''}`
  }
  if (r.byMonth) text += ` in ${and(r.byMonth.map((m) => MONTH_NAMES[m - 1]!))}`
  if (r.count !== undefined) text += r.count === 1 ? ', once' : `, ${r.count} times`
  if (r.until) text += `, until ${untilDate(r)}`
  return text
}
