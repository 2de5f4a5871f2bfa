/**
 * Free-form date input, read the way PHP 8.2's `strtotime` reads it (the REST API this library
 * mirrors hands such strings to strtotime), restricted to the forms people actually send, and
 * refusing the few that strtotime silently misreads (docs/dates.md lists every difference).
 *
 * The input is cut into tokens (a date, a time, relative offsets, a weekday, "first/last day
 * of", "first monday of", business days) that may come in any order, and then evaluated in the
 * fixed order PHP uses: date and time (holes filled from "now"), the "Nth weekday of" month,
 * the weekday, the relative offsets, "first/last day of", business days. All of it is wall-clock
 * arithmetic, as in PHP: "+24 hours" is the same clock time a day later, even across DST; only
 * the final wall clock is turned into an instant.
 */
import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  epochSecondsToParts,
  formatWallClock,
  isValidDate,
  isValidTime,
  parseWallClock,
  partsToEpochSeconds,
  type WallClockParts,
} from './format.js'
import { isValidTimezone, localToUtc, utcToLocal } from './zone.js'

interface Time {
  hour: number
  minute: number
  second: number
}

interface State {
  /** No year: the current one. No day: only with "first/last day of", or a year ("Nov 2026"). */
  date?: { year?: number; month: number; day?: number }
  time?: Time
  /** Seconds east of UTC, when the input names an instant (`Z`, `+02:00`, `UTC`). */
  zoneOffset?: number
  /** today, tomorrow, weekday names...: time of day 00:00 unless a time follows. */
  resetTime: boolean
  months: number
  days: number
  /** Hours, minutes and seconds, added to the wall clock like everything else. */
  seconds: number
  /** behavior 0: strictly after today ("next monday"); 1: today counts ("monday", "this monday"). */
  weekday?: { target: number; behavior: 0 | 1 }
  /** "next/last/this week": that ISO week's Monday, or its named weekday ("sunday next week"). */
  isoWeek: boolean
  dayOf?: 'first' | 'last'
  /** "first monday of", "last friday of": counted from the month's start or end. */
  weekdayOf?: 'first' | 'last'
  /** The N of "Nth monday of". */
  weekdayOfCount?: number
  /** "+N weekdays": business days, Monday to Friday. */
  businessDays?: number
  /** A year or month offset was written ("next year", "+2 months"), however small. */
  yearWord: boolean
  monthWord: boolean
}

const emptyState = (): State => ({ resetTime: false, months: 0, days: 0, seconds: 0, isoWeek: false, yearWord: false, monthWord: false })

type Rule = readonly [RegExp, (m: RegExpExecArray, st: State) => boolean]

const END = String.raw`(?=$|[\s,])`
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`
const WEEKDAY = String.raw`(monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri|saturday|sat|sunday|sun)`
const UNIT = String.raw`(secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?)`
const MERIDIEM = String.raw`(am|pm|a\.m\.|p\.m\.)`
// Right after the time: `Z`, `+02:00`, `-0500`; after a space only a four-digit offset not
// followed by a unit, so that "16:00 +10 days" and "16:00 +1000 seconds" stay relative.
const ZONE = String.raw`(z|[+-]\d{2}(?::?\d{2})?|\s+[+-]\d{2}:?\d{2}(?!\s*[a-z])|\s+(?:utc|gmt))?`
const ORDINAL = '(?:st|nd|rd|th)?'
const ORDINAL_WORDS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth']
const RELATIVE_WORD = `(${ORDINAL_WORDS.join('|')}|next|last|previous|this)`

const MONTH_KEYS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const WEEKDAY_KEYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']

const rule = (source: string, apply: Rule[1]): Rule => [new RegExp(source + END, 'y'), apply]
const num = (m: RegExpExecArray, i: number): number => Number(m[i] ?? Number.NaN)
const optionalNum = (m: RegExpExecArray, i: number): number | undefined => (m[i] === undefined ? undefined : Number(m[i]))
const monthOf = (word: string | undefined): number => MONTH_KEYS.indexOf((word ?? '').slice(0, 3)) + 1
const weekdayOf = (word: string | undefined): number => WEEKDAY_KEYS.indexOf((word ?? '').slice(0, 3))

/** PHP's amounts: next 1, last/previous -1, this 0, first 1, second 2... */
function amountOf(word: string | undefined): number {
  if (word === 'next') return 1
  if (word === 'last' || word === 'previous') return -1
  if (word === 'this') return 0
  return ORDINAL_WORDS.indexOf(word ?? '') + 1
}

function setDate(st: State, year: number | undefined, month: number, day: number | undefined): boolean {
  if (st.date) return false
  st.date = { year, month, day }
  return true
}

function setTime(st: State, hour: number, minute: number, second: number, meridiem?: string): boolean {
  if (st.time) return false
  let h = hour
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return false
    h = (hour % 12) + (meridiem.startsWith('p') ? 12 : 0)
  }
  if (!isValidTime(h, minute, second)) return false
  st.time = { hour: h, minute, second }
  return true
}

function setZone(st: State, spelled: string | undefined): boolean {
  if (spelled === undefined) return true
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(spelled.trim())
  if (!m) {
    st.zoneOffset = 0 // z, utc, gmt
    return true
  }
  const h = Number(m[2])
  const mi = Number(m[3] ?? 0)
  if (h > 23 || mi > 59) return false
  st.zoneOffset = (m[1] === '-' ? -1 : 1) * (h * 3600 + mi * 60)
  return true
}

/**
 * Day words and weekday names set the time of day to 00:00 in PHP, wiping a time written
 * before them: "7pm tomorrow" is tomorrow at midnight there. Refused rather than misread,
 * unless the earlier time was midnight anyway.
 */
function resetTime(st: State): boolean {
  if (st.time) {
    if (st.time.hour !== 0 || st.time.minute !== 0 || st.time.second !== 0) return false
    st.time = undefined
  }
  st.resetTime = true
  return true
}

function addRelative(st: State, amount: number, unit: string): boolean {
  if (!Number.isSafeInteger(amount)) return false
  if (unit.startsWith('sec')) st.seconds += amount
  else if (unit.startsWith('min')) st.seconds += amount * 60
  else if (unit.startsWith('hour')) st.seconds += amount * 3600
  else if (unit.startsWith('day')) st.days += amount
  else if (unit.startsWith('week')) st.days += amount * 7
  else if (unit.startsWith('fortnight')) st.days += amount * 14
  else if (unit.startsWith('month')) {
    st.months += amount
    st.monthWord = true
  } else {
    st.months += amount * 12
    st.yearWord = true
  }
  return true
}

/** A weekday `amount` weeks on: "next monday" 1, "last monday" -1, "second monday" 2. */
function setWeekday(st: State, word: string | undefined, amount: number, behavior: 0 | 1): boolean {
  if (st.weekday || !resetTime(st)) return false
  st.weekday = { target: weekdayOf(word), behavior }
  st.days += (amount > 0 ? amount - 1 : amount) * 7
  return true
}

const RULES: readonly Rule[] = [
  rule(String.raw`(first|last)\s+day\s+of`, (m, st) => {
    if (st.dayOf || st.weekdayOf) return false
    st.dayOf = m[1] === 'first' ? 'first' : 'last'
    return true
  }),
  rule(String.raw`(first|second|third|fourth|fifth|last)\s+${WEEKDAY}\s+of`, (m, st) => {
    if (st.dayOf || st.weekdayOf) return false
    const amount = amountOf(m[1])
    st.weekdayOf = amount > 0 ? 'first' : 'last'
    st.weekdayOfCount = amount
    // From the 1st (today counts), or back from the 1st of the next month (strictly before).
    return setWeekday(st, m[2], amount, amount > 0 ? 1 : 0)
  }),
  rule(String.raw`(next|last|previous|this)\s+week`, (m, st) => {
    if (st.isoWeek) return false
    st.isoWeek = true
    st.days += amountOf(m[1]) * 7
    return true
  }),
  rule(String.raw`${RELATIVE_WORD}\s+${WEEKDAY}`, (m, st) => setWeekday(st, m[2], amountOf(m[1]), m[1] === 'this' ? 1 : 0)),
  rule(String.raw`(next|last|previous|this)\s+` + UNIT, (m, st) => addRelative(st, amountOf(m[1]), m[2] ?? '')),
  rule(String.raw`(now|today|midnight|noon|tomorrow|yesterday|ago)`, (m, st) => {
    switch (m[1]) {
      case 'noon':
        return resetTime(st) && setTime(st, 12, 0, 0)
      case 'ago':
        // PHP's "ago" negates every relative amount read so far: "2 days 3 hours ago". With a
        // weekday it turns into something nobody means, so that is refused.
        if (st.weekday || st.isoWeek) return false
        st.months = -st.months
        st.days = -st.days
        st.seconds = -st.seconds
        if (st.businessDays !== undefined) st.businessDays = -st.businessDays
        return true
      case 'today':
      case 'midnight':
      case 'tomorrow':
      case 'yesterday':
        st.days += m[1] === 'tomorrow' ? 1 : m[1] === 'yesterday' ? -1 : 0
        return resetTime(st)
      default:
        return true
    }
  }),
  rule(String.raw`(\d{4})-(\d{1,2})-(\d{1,2})`, (m, st) => setDate(st, num(m, 1), num(m, 2), num(m, 3))),
  rule(String.raw`(\d{4})/(\d{1,2})/(\d{1,2})`, (m, st) => setDate(st, num(m, 1), num(m, 2), num(m, 3))),
  // Slashes with the year last are American month/day/year, as in PHP.
  rule(String.raw`(\d{1,2})/(\d{1,2})/(\d{4})`, (m, st) => setDate(st, num(m, 3), num(m, 1), num(m, 2))),
  // Dots or dashes with the year last are day.month.year, as in PHP.
  rule(String.raw`(\d{1,2})([.-])(\d{1,2})\2(\d{4})`, (m, st) => setDate(st, num(m, 4), num(m, 3), num(m, 1))),
  rule(String.raw`(\d{1,2})${ORDINAL}[\s-]+${MONTH}(?:,?[\s-]+(\d{4}))?`, (m, st) =>
    setDate(st, optionalNum(m, 3), monthOf(m[2]), num(m, 1)),
  ),
  rule(String.raw`${MONTH}(?:\s+(\d{1,2})${ORDINAL})?(?:,?\s+(\d{4}))?`, (m, st) => {
    const day = optionalNum(m, 2)
    const year = optionalNum(m, 3)
    // A bare month name only makes sense after "first/last day of" or "first monday of"; alone,
    // PHP reads "november" as today's day of the month in November.
    if (day === undefined && year === undefined && !st.dayOf && !st.weekdayOf) return false
    return setDate(st, year, monthOf(m[1]), day)
  }),
  rule(String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:\s*${MERIDIEM})?${ZONE}`, (m, st) => {
    return setTime(st, num(m, 1), num(m, 2), optionalNum(m, 3) ?? 0, m[4]) && setZone(st, m[5])
  }),
  rule(String.raw`(\d{1,2})\s*${MERIDIEM}`, (m, st) => setTime(st, num(m, 1), 0, 0, m[2])),
  rule(String.raw`([+-]?)\s*(\d+)\s*weekdays?`, (m, st) => {
    const amount = (m[1] === '-' ? -1 : 1) * num(m, 2)
    if (!Number.isSafeInteger(amount)) return false
    st.businessDays = (st.businessDays ?? 0) + amount
    return true
  }),
  rule(String.raw`([+-]?)\s*(\d+)\s*${UNIT}`, (m, st) => addRelative(st, (m[1] === '-' ? -1 : 1) * num(m, 2), m[3] ?? '')),
  rule(WEEKDAY, (m, st) => setWeekday(st, m[1], 0, 1)),
]

// "at" is filler, as in "tomorrow at 9am" (PHP refuses the word; see docs/dates.md).
const SEPARATORS = /(?:[\s,]|at(?=[\s,]))*/y

function tokenize(text: string): State | null {
  const st = emptyState()
  let tokens = 0
  let i = 0
  for (;;) {
    SEPARATORS.lastIndex = i
    i += SEPARATORS.exec(text)?.[0].length ?? 0
    if (i >= text.length) break
    let matched = false
    for (const [re, apply] of RULES) {
      re.lastIndex = i
      const m = re.exec(text)
      if (!m) continue
      if (!apply(m, st)) return null
      i += m[0].length
      matched = true
      break
    }
    if (!matched) return null
    tokens++
  }
  return tokens > 0 && !misread(st) ? st : null
}

/** Combinations PHP accepts and then reads as something nobody wrote. */
function misread(st: State): boolean {
  const ofMonth = st.dayOf !== undefined || st.weekdayOf !== undefined
  // "first day of next year" is the first day of this month, next year.
  if (ofMonth && st.yearWord && !st.monthWord && !st.date) return true
  // "first day of next month +3 days": the day is set after the days were added, losing them.
  return st.dayOf !== undefined && (st.days !== 0 || st.weekday !== undefined || st.isoWeek)
}

// Stored dates are four-digit-year strings, both in the event's zone and in UTC.
const inRange = (p: WallClockParts): boolean => p.year >= 1000 && p.year <= 9999

function wallToUtc(wall: WallClockParts, tz: string): WallClockParts | null {
  if (!inRange(wall)) return null
  const utc = parseWallClock(localToUtc(formatWallClock(wall), tz))
  return utc && inRange(utc) ? utc : null
}

function epochToWall(epochSeconds: number, tz: string): WallClockParts | null {
  const utc = epochSecondsToParts(epochSeconds)
  if (!inRange(utc)) return null
  const local = parseWallClock(utcToLocal(formatWallClock(utc), tz))
  return local && inRange(local) ? local : null
}

const dayOfWeek = (days: number): number => (((days + 4) % 7) + 7) % 7 // 1970-01-01 was a Thursday
const isWeekend = (days: number): boolean => dayOfWeek(days) === 0 || dayOfWeek(days) === 6

/** PHP's weekday step, taken before the relative offsets are added. */
function toWeekday(days: number, st: State): number {
  const today = dayOfWeek(days)
  if (st.isoWeek) {
    // Weeks run Monday to Sunday: Sunday belongs to the week before.
    let target = st.weekday?.target ?? 1
    if (today === 0 && target !== 0) target -= 7
    if (target === 0 && today !== 0) target = 7
    return days - today + target
  }
  if (!st.weekday) return days
  const { target, behavior } = st.weekday
  let difference = target - today
  if ((st.days < 0 && difference < 0) || (st.days >= 0 && difference <= -behavior)) difference += 7
  return days + difference
}

/** Counts Monday-to-Friday days; zero moves a weekend day on to Monday, as in PHP. */
function addBusinessDays(days: number, amount: number): number {
  let d = days
  if (amount === 0) {
    while (isWeekend(d)) d++
    return d
  }
  const step = Math.sign(amount)
  let left = Math.abs(amount)
  // Any seven days hold five weekdays: skip whole weeks, keeping at least one day to count.
  const weeks = Math.floor((left - 1) / 5)
  d += step * weeks * 7
  left -= weeks * 5
  while (left > 0) {
    d += step
    if (!isWeekend(d)) left--
  }
  return d
}

/** The wall clock the tokens name (in `tz`, or in the input's own offset when it has one). */
function wallClockOf(st: State, here: WallClockParts): WallClockParts | null {
  const year = st.date?.year ?? here.year
  let month = st.date?.month ?? here.month
  let day = st.date ? (st.date.day ?? 1) : here.day
  if (!isValidDate(year, month, day)) return null
  const time = st.time ?? (st.date || st.resetTime ? { hour: 0, minute: 0, second: 0 } : here)

  let months = st.months
  if (st.weekdayOf) {
    // "last friday of next month" steps back from the 1st of the month after.
    month += months + (st.weekdayOf === 'last' ? 1 : 0)
    months = 0
    day = 1
  }
  const start = civilFromDays(daysFromCivil(year + Math.floor((month - 1) / 12), ((((month - 1) % 12) + 12) % 12) + 1, day))
  const shifted = civilFromDays(toWeekday(daysFromCivil(start.year, start.month, start.day), st))
  // "fifth friday of february": PHP runs on into March; a month without one is refused.
  if (st.weekdayOf === 'first' && shifted.day + ((st.weekdayOfCount ?? 1) - 1) * 7 > daysInMonth(shifted.year, shifted.month)) {
    return null
  }

  // Months clamp to the month's end: Jan 31 "+1 month" is Feb 28 (PHP says March 3).
  const index = shifted.year * 12 + (shifted.month - 1) + months
  const y = Math.floor(index / 12)
  const m = index - y * 12 + 1
  const last = daysInMonth(y, m)
  const d = st.dayOf === 'first' ? 1 : st.dayOf === 'last' ? last : Math.min(shifted.day, last)
  let days = daysFromCivil(y, m, d) + st.days
  if (st.businessDays !== undefined) days = addBusinessDays(days, st.businessDays)
  const seconds = days * 86400 + time.hour * 3600 + time.minute * 60 + time.second + st.seconds
  return Number.isSafeInteger(seconds) ? epochSecondsToParts(seconds) : null
}

function timestampToWall(value: number, tz: string): string | null {
  if (!Number.isFinite(value) || Math.abs(value) > 1e13) return null
  const wall = epochToWall(Math.floor(value), tz)
  return wall && formatWallClock(wall)
}

/**
 * The wall clock in `tz` that `input` means, or null when it is not a date. Numbers and digit
 * strings are Unix timestamps (seconds), except 8-digit strings, which are `YYYYMMDD`. A time
 * that falls in a DST gap comes back moved forward by the gap, so the result always exists.
 * Both it and its UTC time must have years 1000..9999. Throws a RangeError for an unknown zone.
 */
export function parseDateInput(input: unknown, tz: string, now: Date = new Date()): string | null {
  if (!isValidTimezone(tz)) throw new RangeError(`unknown time zone: ${JSON.stringify(tz)}`)
  const nowMs = now.getTime()
  if (Number.isNaN(nowMs)) throw new RangeError('Invalid Date')
  if (typeof input === 'number') return timestampToWall(input, tz)
  // Not a JSON value, so no request can send one; callers holding an instant get the obvious.
  if (input instanceof Date) return timestampToWall(input.getTime() / 1000, tz)
  if (typeof input !== 'string') return null

  const text = input.trim().toLowerCase()
  const ymd = /^(\d{4})(\d{2})(\d{2})$/.exec(text)
  const timestamp = /^@?(-?\d+)$/.exec(text)
  let st: State | null
  if (ymd) {
    st = emptyState()
    setDate(st, Number(ymd[1]), Number(ymd[2]), Number(ymd[3]))
  } else if (timestamp) {
    return timestampToWall(Number(timestamp[1]), tz)
  } else {
    // ISO's "T" becomes a space so that date and time are read as two ordinary tokens.
    st = tokenize(text.replace(/(\d{4}-\d{1,2}-\d{1,2})t(?=\d)/, '$1 '))
  }
  if (!st) return null

  const here = epochToWall(Math.floor(nowMs / 1000), tz)
  const wall = here && wallClockOf(st, here)
  if (!wall || !inRange(wall)) return null
  let local: WallClockParts | null
  if (st.zoneOffset !== undefined) {
    local = epochToWall(partsToEpochSeconds(wall) - st.zoneOffset, tz)
  } else {
    // Through UTC and back, so that a time in a DST gap comes back moved forward by the gap.
    const utc = wallToUtc(wall, tz)
    local = utc && epochToWall(partsToEpochSeconds(utc), tz)
  }
  return local && formatWallClock(local)
}

export function parseDateToUtc(input: unknown, tz: string, now?: Date): { local: string; utc: string } | null {
  const local = parseDateInput(input, tz, now)
  return local === null ? null : { local, utc: localToUtc(local, tz) }
}
