/**
 * RFC 5545 recurrence rules: the subset this project supports, parsed into a value and written
 * back in one canonical spelling (what a series stores and a feed emits). Anything outside the
 * subset is refused with a reason the caller can show: a rule silently read differently from
 * what its author meant would put events on the wrong days.
 */

export type Freq = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'

/** Weekdays in RFC order of this module: 0 = Monday … 6 = Sunday. */
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const

export interface ByDay {
  /** 0: every such weekday of the period; ±n: the n-th (from the end when negative). */
  n: number
  wd: number
}

/** UNTIL as written: a date, a floating date-time, or a UTC date-time (`utc`). */
export interface Until {
  date: string
  time?: string
  utc: boolean
}

export interface Rule {
  freq: Freq
  interval: number
  count?: number
  until?: Until
  byDay?: ByDay[]
  byMonthDay?: number[]
  byMonth?: number[]
  bySetPos?: number[]
  wkst: number
}

export class RuleError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'RuleError'
  }
}

const FREQS: readonly string[] = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']
const UNSUPPORTED_FREQS: readonly string[] = ['HOURLY', 'MINUTELY', 'SECONDLY']
const UNSUPPORTED_PARTS: readonly string[] = ['BYSECOND', 'BYMINUTE', 'BYHOUR', 'BYWEEKNO', 'BYYEARDAY', 'RSCALE', 'SKIP']
const MAX_RULE_LENGTH = 500

function int(part: string, raw: string, min: number, max: number, allowZero = true): number {
  if (!/^[+-]?\d{1,6}$/.test(raw)) throw new RuleError(`${part} must be a whole number, got "${raw}".`)
  const n = Number(raw)
  if (n < min || n > max || (!allowZero && n === 0)) throw new RuleError(`${part} ${raw} is out of range.`)
  return n
}

function list(part: string, raw: string): string[] {
  const items = raw.split(',')
  if (items.some((i) => i === '')) throw new RuleError(`${part} has an empty item.`)
  if (items.length > 366) throw new RuleError(`${part} has too many items.`)
  return items
}

function parseUntil(raw: string): Until {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(raw)
  if (!m) throw new RuleError(`UNTIL must be YYYYMMDD or YYYYMMDDTHHMMSS[Z], got "${raw}".`)
  const [, y, mo, d, h, mi, s, z] = m
  const date = `${y}-${mo}-${d}`
  const probe = new Date(`${date}T00:00:00Z`)
  if (Number.isNaN(probe.getTime()) || probe.toISOString().slice(0, 10) !== date || Number(y) < 1)
    throw new RuleError(`UNTIL ${raw} is not a date.`)
  if (h === undefined) return { date, utc: false }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw new RuleError(`UNTIL ${raw} is not a time.`)
  return { date, time: `${h}:${mi}:${s}`, utc: z === 'Z' }
}

/** Parses a rule with or without the `RRULE:` prefix; throws RuleError naming what is wrong. */
export function parseRule(text: string): Rule {
  if (typeof text !== 'string') throw new RuleError('The rule must be a string.')
  let s = text.trim()
  if (s.length > MAX_RULE_LENGTH) throw new RuleError(`The rule is longer than ${MAX_RULE_LENGTH} characters.`)
  if (/^RRULE:/i.test(s)) s = s.slice(6)
  if (s === '') throw new RuleError('The rule is empty.')
  const seen = new Set<string>()
  const rule: Partial<Rule> & { wkst: number; interval: number } = { wkst: 0, interval: 1 }
  for (const piece of s.split(';')) {
    if (piece === '') continue
    const eq = piece.indexOf('=')
    if (eq <= 0) throw new RuleError(`"${piece}" is not NAME=VALUE.`)
    const name = piece.slice(0, eq).toUpperCase()
    const value = piece.slice(eq + 1).toUpperCase()
    if (seen.has(name)) throw new RuleError(`${name} is given twice.`)
    seen.add(name)
    if (value === '') throw new RuleError(`${name} has no value.`)
    switch (name) {
      case 'FREQ':
        if (UNSUPPORTED_FREQS.includes(value)) throw new RuleError(`FREQ=${value} is not supported (DAILY, WEEKLY, MONTHLY or YEARLY).`)
        if (!FREQS.includes(value)) throw new RuleError(`FREQ=${value} is not a frequency.`)
        rule.freq = value as Freq
        break
      case 'INTERVAL':
        rule.interval = int(name, value, 1, 1000)
        break
      case 'COUNT':
        rule.count = int(name, value, 1, 999_999)
        break
      case 'UNTIL':
        rule.until = parseUntil(value)
        break
      case 'BYDAY':
        rule.byDay = list(name, value).map((item) => {
          const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item)
          if (!m) throw new RuleError(`BYDAY item "${item}" is not a weekday such as MO, 2TU or -1FR.`)
          const n = m[1] === undefined ? 0 : int('BYDAY ordinal', m[1], -53, 53, false)
          return { n, wd: WEEKDAYS.indexOf(m[2] as (typeof WEEKDAYS)[number]) }
        })
        break
      case 'BYMONTHDAY':
        rule.byMonthDay = list(name, value).map((i) => int(name, i, -31, 31, false))
        break
      case 'BYMONTH':
        rule.byMonth = list(name, value).map((i) => int(name, i, 1, 12))
        break
      case 'BYSETPOS':
        rule.bySetPos = list(name, value).map((i) => int(name, i, -366, 366, false))
        break
      case 'WKST': {
        const wd = WEEKDAYS.indexOf(value as (typeof WEEKDAYS)[number])
        if (wd < 0) throw new RuleError(`WKST=${value} is not a weekday.`)
        rule.wkst = wd
        break
      }
      default:
        if (UNSUPPORTED_PARTS.includes(name)) throw new RuleError(`${name} is not supported.`)
        throw new RuleError(`${name} is not a rule part.`)
    }
  }
  if (!rule.freq) throw new RuleError('FREQ is required.')
  if (rule.count !== undefined && rule.until !== undefined) throw new RuleError('COUNT and UNTIL cannot both be given.')
  if (rule.byDay?.some((d) => d.n !== 0)) {
    if (rule.freq !== 'MONTHLY' && rule.freq !== 'YEARLY') throw new RuleError('BYDAY ordinals (such as -1FR) need FREQ=MONTHLY or YEARLY.')
    if (rule.freq === 'MONTHLY' && rule.byDay.some((d) => Math.abs(d.n) > 5))
      throw new RuleError('A monthly BYDAY ordinal must be between -5 and 5.')
    if (rule.freq === 'YEARLY' && rule.byMonth && rule.byDay.some((d) => Math.abs(d.n) > 5)) {
      throw new RuleError('A BYDAY ordinal within BYMONTH must be between -5 and 5.')
    }
  }
  if (rule.byMonthDay && rule.freq === 'WEEKLY') throw new RuleError('BYMONTHDAY cannot be used with FREQ=WEEKLY.')
  if (rule.bySetPos && !rule.byDay && !rule.byMonthDay && !rule.byMonth) throw new RuleError('BYSETPOS needs BYDAY, BYMONTHDAY or BYMONTH.')
  return rule as Rule
}

const join = (xs: readonly (string | number)[]) => xs.join(',')
const byDayText = (d: ByDay) => `${d.n === 0 ? '' : d.n}${WEEKDAYS[d.wd]}`

function untilText(u: Until): string {
  const date = u.date.replace(/-/g, '')
  return u.time === undefined ? date : `${date}T${u.time.replace(/:/g, '')}${u.utc ? 'Z' : ''}`
}

/** The canonical spelling: upper case, no prefix, parts in a fixed order, defaults left out. */
export function formatRule(r: Rule): string {
  const parts = [`FREQ=${r.freq}`]
  if (r.interval !== 1) parts.push(`INTERVAL=${r.interval}`)
  if (r.byMonth) parts.push(`BYMONTH=${join(r.byMonth)}`)
  if (r.byMonthDay) parts.push(`BYMONTHDAY=${join(r.byMonthDay)}`)
  if (r.byDay) parts.push(`BYDAY=${join(r.byDay.map(byDayText))}`)
  if (r.bySetPos) parts.push(`BYSETPOS=${join(r.bySetPos)}`)
  if (r.wkst !== 0) parts.push(`WKST=${WEEKDAYS[r.wkst]}`)
  if (r.count !== undefined) parts.push(`COUNT=${r.count}`)
  if (r.until) parts.push(`UNTIL=${untilText(r.until)}`)
  return parts.join(';')
}

/** True when the rule has an end of its own (COUNT or UNTIL). */
export const isBounded = (r: Rule) => r.count !== undefined || r.until !== undefined
