/**
 * Rule expansion on civil dates. The supported rule parts choose days, never times (BYHOUR and
 * finer are refused), so an occurrence is a calendar day plus the series' wall-clock start time;
 * converting that wall-clock time to UTC in the event's zone happens per occurrence (zone.ts),
 * which is what keeps 19:00 at 19:00 across DST changes by construction, and moves a time that
 * does not exist that day forward exactly as every other write does.
 */
import { civilFromDays, daysFromCivil, daysInMonth, requireWallClock } from '../time/format.js'
import { localToUtc } from '../time/zone.js'
import type { ByDay, Rule } from './rule.js'

/** 0 = Monday … 6 = Sunday, for a day number (days since 1970-01-01, a Thursday). */
export const weekday = (days: number) => ((days % 7) + 7 + 3) % 7

export interface ExpandOptions {
  /** The event's zone: UNTIL in UTC is compared with each occurrence's UTC instant. */
  timezone: string
  /** Open-ended rules stop before the first occurrence starting after this wall-clock time. */
  horizon: string
  /** Stop once this many occurrences were found (callers pass cap + 1 to detect overflow). */
  max: number
}

/** Periods examined at most: a rule matching nothing (BYMONTH=2;BYMONTHDAY=30) must still end. */
const MAX_PERIODS = 100_000
/** Wall-clock strings have four-digit years. */
const LAST_DAY = daysFromCivil(9999, 12, 31)

const ymd = (days: number) => civilFromDays(days)
const dateOf = (days: number) => {
  const c = ymd(days)
  return `${String(c.year).padStart(4, '0')}-${String(c.month).padStart(2, '0')}-${String(c.day).padStart(2, '0')}`
}

/** Days of month (y, m) that BYMONTHDAY names; negative counts from the month's end. */
function monthDays(y: number, m: number, byMonthDay: number[]): number[] {
  const len = daysInMonth(y, m)
  const out: number[] = []
  for (const d of byMonthDay) {
    const day = d > 0 ? d : len + d + 1
    if (day >= 1 && day <= len) out.push(daysFromCivil(y, m, day))
  }
  return out
}

/** Days in [first, last] that BYDAY names, ordinals counted within that span. */
function spanDays(first: number, last: number, byDay: ByDay[]): number[] {
  const out: number[] = []
  for (const { n, wd } of byDay) {
    const firstOf = first + ((wd - weekday(first) + 7) % 7)
    if (n === 0) {
      for (let d = firstOf; d <= last; d += 7) out.push(d)
    } else if (n > 0) {
      const d = firstOf + (n - 1) * 7
      if (d <= last) out.push(d)
    } else {
      const lastOf = last - ((weekday(last) - wd + 7) % 7)
      const d = lastOf + (n + 1) * 7
      if (d >= first) out.push(d)
    }
  }
  return out
}

const monthSpan = (y: number, m: number): [number, number] => [daysFromCivil(y, m, 1), daysFromCivil(y, m, daysInMonth(y, m))]

/** The candidate days of one period, before BYSETPOS. */
function periodDays(rule: Rule, k: number, start: number): number[] {
  const s = ymd(start)
  const byMonth = rule.byMonth
  const inMonths = (d: number) => !byMonth || byMonth.includes(ymd(d).month)
  switch (rule.freq) {
    case 'DAILY': {
      const d = start + k * rule.interval
      const c = ymd(d)
      if (byMonth && !byMonth.includes(c.month)) return []
      if (rule.byMonthDay && !monthDays(c.year, c.month, rule.byMonthDay).includes(d)) return []
      if (rule.byDay && !rule.byDay.some((b) => b.wd === weekday(d))) return []
      return [d]
    }
    case 'WEEKLY': {
      const weekStart = start - ((weekday(start) - rule.wkst + 7) % 7) + 7 * k * rule.interval
      const wds = rule.byDay ? rule.byDay.map((b) => b.wd) : [weekday(start)]
      const out: number[] = []
      for (let i = 0; i < 7; i++) if (wds.includes(weekday(weekStart + i)) && inMonths(weekStart + i)) out.push(weekStart + i)
      return out
    }
    case 'MONTHLY': {
      const index = s.year * 12 + (s.month - 1) + k * rule.interval
      const y = Math.floor(index / 12)
      const m = index - y * 12 + 1
      if (byMonth && !byMonth.includes(m)) return []
      return monthCandidates(rule, y, m, s.day)
    }
    case 'YEARLY': {
      const y = s.year + k * rule.interval
      if (rule.byDay && !rule.byMonthDay && !byMonth) return spanDays(daysFromCivil(y, 1, 1), daysFromCivil(y, 12, 31), rule.byDay)
      if (!rule.byDay && !rule.byMonthDay && !byMonth) {
        return s.day <= daysInMonth(y, s.month) ? [daysFromCivil(y, s.month, s.day)] : []
      }
      const months = byMonth ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
      let out: number[] = []
      for (const m of months) out.push(...monthCandidates(rule, y, m, s.day))
      // BYDAY with BYMONTHDAY but no BYMONTH: ordinals count within the year.
      if (rule.byDay && rule.byMonthDay && !byMonth && rule.byDay.some((b) => b.n !== 0)) {
        const allowed = new Set(spanDays(daysFromCivil(y, 1, 1), daysFromCivil(y, 12, 31), rule.byDay))
        out = months.flatMap((m) => monthDays(y, m, rule.byMonthDay!)).filter((d) => allowed.has(d))
      }
      return out
    }
  }
}

/** Days of one month for MONTHLY, or YEARLY with month scope: BYMONTHDAY ∩ BYDAY, or the start's day. */
function monthCandidates(rule: Rule, y: number, m: number, startDay: number): number[] {
  const [first, last] = monthSpan(y, m)
  if (rule.byMonthDay && rule.byDay) {
    const allowed = new Set(spanDays(first, last, rule.byDay))
    return monthDays(y, m, rule.byMonthDay).filter((d) => allowed.has(d))
  }
  if (rule.byMonthDay) return monthDays(y, m, rule.byMonthDay)
  if (rule.byDay) return spanDays(first, last, rule.byDay)
  return startDay <= daysInMonth(y, m) ? [daysFromCivil(y, m, startDay)] : []
}

function setPos(days: number[], positions: number[]): number[] {
  const out: number[] = []
  for (const p of positions) {
    const d = p > 0 ? days[p - 1] : days[days.length + p]
    if (d !== undefined) out.push(d)
  }
  return [...new Set(out)].sort((a, b) => a - b)
}

/**
 * Wall-clock starts of the rule's occurrences, first one on or after `start` (the series'
 * first occurrence is the first day the rule produces, so every RFC 5545 reader agrees on it),
 * in order, at most `opts.max`. The time of day is the start's.
 */
export function expandRule(rule: Rule, start: string, opts: ExpandOptions): string[] {
  const p = requireWallClock(start)
  const startDay = daysFromCivil(p.year, p.month, p.day)
  const time = start.slice(11)
  const limitDay = rule.count === undefined && rule.until === undefined ? dayNumber(opts.horizon) : Number.POSITIVE_INFINITY
  // A UTC UNTIL may fall on the next local day; the exact instant is checked per occurrence.
  const untilDay = rule.until ? dayNumber(rule.until.date) + (rule.until.time ? 1 : 0) : Number.POSITIVE_INFINITY
  const out: string[] = []
  for (let k = 0; k < MAX_PERIODS; k++) {
    let days = periodDays(rule, k, startDay).sort((a, b) => a - b)
    days = [...new Set(days)]
    if (rule.bySetPos) days = setPos(days, rule.bySetPos)
    for (const d of days) {
      if (d < startDay) continue
      if (d > untilDay || d > limitDay) return out
      const wall = `${dateOf(d)} ${time}`
      if (rule.until?.time !== undefined) {
        const at = rule.until.utc ? localToUtc(wall, opts.timezone) : wall
        if (at > `${rule.until.date} ${rule.until.time}`) return out
      }
      out.push(wall)
      if (out.length >= opts.max || (rule.count !== undefined && out.length >= rule.count)) return out
    }
    // Periods that produce nothing still move on; stop once a period starts past every bound.
    const next = periodStart(rule, k + 1, startDay)
    if (next > Math.min(untilDay, limitDay, LAST_DAY)) return out
  }
  return out
}

function periodStart(rule: Rule, k: number, startDay: number): number {
  const s = ymd(startDay)
  switch (rule.freq) {
    case 'DAILY':
      return startDay + k * rule.interval
    case 'WEEKLY':
      return startDay + 7 * k * rule.interval - 7
    case 'MONTHLY': {
      const index = s.year * 12 + (s.month - 1) + k * rule.interval
      return daysFromCivil(Math.floor(index / 12), (index % 12) + 1, 1)
    }
    case 'YEARLY':
      return daysFromCivil(s.year + k * rule.interval, 1, 1)
  }
}

function dayNumber(wallOrDate: string): number {
  const p = requireWallClock(wallOrDate.length === 10 ? `${wallOrDate} 00:00:00` : wallOrDate)
  return daysFromCivil(p.year, p.month, p.day)
}
