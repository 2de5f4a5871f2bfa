/**
 * Free-form date input, read the way PHP's `strtotime` reads it (the REST API this library
 * mirrors accepts whatever strtotime accepts), restricted to the forms people actually send.
 *
 * The input is cut into tokens (a date, a time, relative offsets, weekday and "first/last day
 * of" adjustments) that may come in any order, and then evaluated in the fixed order PHP uses:
 * date and time, then months, first/last day, days, weekday, and finally hours/minutes/seconds
 * as elapsed time.
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
  /** today, tomorrow, weekday names...: time of day 00:00 unless a time is given. */
  resetTime: boolean
  months: number
  days: number
  /** Hours, minutes and seconds: elapsed time, so "+3 hours" across a DST change is 3 real hours. */
  seconds: number
  weekday?: { target: number; direction: -1 | 0 | 1 }
  dayOf?: 'first' | 'last'
}

type Rule = readonly [RegExp, (m: RegExpExecArray, st: State) => boolean]

const END = String.raw`(?=$|[\s,])`
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`
const WEEKDAY = String.raw`(monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri|saturday|sat|sunday|sun)`
const UNIT = String.raw`(secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?)`
const MERIDIEM = String.raw`(am|pm|a\.m\.|p\.m\.)`
// Numeric offsets only directly after the time: "16:00 +10 days" must stay a relative offset.
const ZONE = String.raw`(?:(z)|([+-])(\d{2})(?::?(\d{2}))?|\s+(utc|gmt))?`
const ORDINAL = '(?:st|nd|rd|th)?'

const MONTH_KEYS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const WEEKDAY_KEYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']

const rule = (source: string, apply: Rule[1]): Rule => [new RegExp(source + END, 'y'), apply]
const num = (m: RegExpExecArray, i: number): number => Number(m[i] ?? Number.NaN)
const optionalNum = (m: RegExpExecArray, i: number): number | undefined =>
  m[i] === undefined ? undefined : Number(m[i])
const monthOf = (word: string | undefined): number => MONTH_KEYS.indexOf((word ?? '').slice(0, 3)) + 1
const weekdayOf = (word: string | undefined): number => WEEKDAY_KEYS.indexOf((word ?? '').slice(0, 3))
const directionOf = (word: string | undefined): -1 | 0 | 1 => (word === 'next' ? 1 : word === 'this' ? 0 : -1)

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

function setZone(st: State, m: RegExpExecArray, first: number): boolean {
  const [z, sign, hours, minutes, word] = m.slice(first, first + 5)
  if (z !== undefined || word !== undefined) {
    st.zoneOffset = 0
  } else if (sign !== undefined) {
    const h = Number(hours)
    const mi = Number(minutes ?? 0)
    if (h > 23 || mi > 59) return false
    st.zoneOffset = (sign === '-' ? -1 : 1) * (h * 3600 + mi * 60)
  }
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
  else if (unit.startsWith('month')) st.months += amount
  else st.months += amount * 12
  return true
}

function setWeekday(st: State, word: string | undefined, direction: -1 | 0 | 1): boolean {
  if (st.weekday) return false
  st.weekday = { target: weekdayOf(word), direction }
  st.resetTime = true
  return true
}

const RULES: readonly Rule[] = [
  rule(String.raw`(first|last)\s+day\s+of`, (m, st) => {
    if (st.dayOf) return false
    st.dayOf = m[1] === 'first' ? 'first' : 'last'
    return true
  }),
  rule(String.raw`(next|last|previous|this)\s+` + WEEKDAY, (m, st) => setWeekday(st, m[2], directionOf(m[1]))),
  rule(String.raw`(next|last|previous|this)\s+` + UNIT, (m, st) => addRelative(st, directionOf(m[1]), m[2] ?? '')),
  rule(String.raw`(now|today|midnight|noon|tomorrow|yesterday|ago)`, (m, st) => {
    switch (m[1]) {
      case 'midnight':
        return setTime(st, 0, 0, 0)
      case 'noon':
        return setTime(st, 12, 0, 0)
      case 'ago':
        // PHP's "ago" negates every relative amount read so far: "2 days 3 hours ago".
        st.months = -st.months
        st.days = -st.days
        st.seconds = -st.seconds
        return true
      case 'today':
      case 'tomorrow':
      case 'yesterday':
        st.days += m[1] === 'tomorrow' ? 1 : m[1] === 'yesterday' ? -1 : 0
        st.resetTime = true
        return true
      default:
        return true
    }
  }),
  rule(String.raw`(\d{4})-(\d{1,2})-(\d{1,2})`, (m, st) => setDate(st, num(m, 1), num(m, 2), num(m, 3))),
  rule(String.raw`(\d{4})/(\d{1,2})/(\d{1,2})`, (m, st) => setDate(st, num(m, 1), num(m, 2), num(m, 3))),
  // Slashes with the year last are American month/day/year, as in PHP.
  rule(String.raw`(\d{1,2})/(\d{1,2})/(\d{4})`, (m, st) => setDate(st, num(m, 3), num(m, 1), num(m, 2))),
  rule(String.raw`(\d{1,2})${ORDINAL}[\s-]+${MONTH}(?:,?[\s-]+(\d{4}))?`, (m, st) =>
    setDate(st, optionalNum(m, 3), monthOf(m[2]), num(m, 1)),
  ),
  rule(String.raw`${MONTH}(?:\s+(\d{1,2})${ORDINAL})?(?:,?\s+(\d{4}))?`, (m, st) => {
    const day = optionalNum(m, 2)
    const year = optionalNum(m, 3)
    // A bare month name only makes sense after "first/last day of", which is read before it.
    if (day === undefined && year === undefined && !st.dayOf) return false
    return setDate(st, year, monthOf(m[1]), day)
  }),
  rule(String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:\s*${MERIDIEM})?${ZONE}`, (m, st) => {
    return setTime(st, num(m, 1), num(m, 2), optionalNum(m, 3) ?? 0, m[4]) && setZone(st, m, 5)
  }),
  rule(String.raw`(\d{1,2})\s*${MERIDIEM}`, (m, st) => setTime(st, num(m, 1), 0, 0, m[2])),
  rule(String.raw`([+-]?)\s*(\d+)\s*${UNIT}`, (m, st) =>
    addRelative(st, (m[1] === '-' ? -1 : 1) * num(m, 2), m[3] ?? ''),
  ),
  rule(WEEKDAY, (m, st) => setWeekday(st, m[1], 0)),
]

// "at" is filler, as in "tomorrow at 9am".
const SEPARATORS = /(?:[\s,]|at(?=[\s,]))*/y

function tokenize(text: string): State | null {
  const st: State = { resetTime: false, months: 0, days: 0, seconds: 0 }
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
  return tokens > 0 ? st : null
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

function resolveDate(date: State['date'], base: WallClockParts): Pick<WallClockParts, 'year' | 'month' | 'day'> | null {
  if (!date) return { year: base.year, month: base.month, day: base.day }
  const resolved = { year: date.year ?? base.year, month: date.month, day: date.day ?? 1 }
  return isValidDate(resolved.year, resolved.month, resolved.day) ? resolved : null
}

/** The wall clock the tokens name, before hours/minutes/seconds are added. */
function startingPoint(st: State, tz: string, nowEpoch: number): WallClockParts | null {
  if (st.zoneOffset !== undefined && st.time) {
    const date = resolveDate(st.date, epochSecondsToParts(nowEpoch + st.zoneOffset))
    return date && epochToWall(partsToEpochSeconds({ ...date, ...st.time }) - st.zoneOffset, tz)
  }
  const here = epochToWall(nowEpoch, tz)
  const date = here && resolveDate(st.date, here)
  if (!here || !date) return null
  const midnight = st.date !== undefined || st.resetTime
  const time = st.time ?? (midnight ? { hour: 0, minute: 0, second: 0 } : here)
  return { ...date, hour: time.hour, minute: time.minute, second: time.second }
}

function applyCalendar(st: State, start: WallClockParts): WallClockParts {
  // Months clamp to the month's end like `addMonths`: Jan 31 "+1 month" is Feb 28, not Mar 3.
  const index = start.year * 12 + (start.month - 1) + st.months
  const year = Math.floor(index / 12)
  const month = index - year * 12 + 1
  const last = daysInMonth(year, month)
  const day = st.dayOf === 'first' ? 1 : st.dayOf === 'last' ? last : Math.min(start.day, last)
  let days = daysFromCivil(year, month, day) + st.days
  if (st.weekday) {
    const { target, direction } = st.weekday
    const today = (((days + 4) % 7) + 7) % 7 // 1970-01-01 was a Thursday
    if (direction < 0) days -= (today - target + 7) % 7 || 7
    else days += (target - today + 7) % 7 || (direction > 0 ? 7 : 0)
  }
  return { ...start, ...civilFromDays(days) }
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
    st = { resetTime: false, months: 0, days: 0, seconds: 0 }
    setDate(st, Number(ymd[1]), Number(ymd[2]), Number(ymd[3]))
  } else if (timestamp) {
    return timestampToWall(Number(timestamp[1]), tz)
  } else {
    // ISO's "T" becomes a space so that date and time are read as two ordinary tokens.
    st = tokenize(text.replace(/(\d{4}-\d{1,2}-\d{1,2})t(?=\d)/, '$1 '))
  }
  if (!st) return null

  const start = startingPoint(st, tz, Math.floor(nowMs / 1000))
  if (!start) return null
  const utc = wallToUtc(applyCalendar(st, start), tz)
  const local = utc && epochToWall(partsToEpochSeconds(utc) + st.seconds, tz)
  return local && formatWallClock(local)
}

export function parseDateToUtc(input: unknown, tz: string, now?: Date): { local: string; utc: string } | null {
  const local = parseDateInput(input, tz, now)
  return local === null ? null : { local, utc: localToUtc(local, tz) }
}
