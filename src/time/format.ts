/**
 * Wall-clock strings `YYYY-MM-DD HH:MM:SS` and calendar arithmetic on them.
 *
 * Nothing here knows about time zones: a wall-clock string is a civil date and time, and the
 * arithmetic is plain proleptic-Gregorian calendar arithmetic. Zone rules live in `zone.ts`.
 */

export interface WallClockParts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/** Zero-padded date and time pieces, as The Events Calendar sends them in `*_date_details`. */
export interface DateDetails {
  year: string
  month: string
  day: string
  hour: string
  minutes: string
  seconds: string
}

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/

const pad2 = (n: number): string => String(n).padStart(2, '0')

function padYear(year: number): string {
  return year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0')
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

export function isValidDate(year: number, month: number, day: number): boolean {
  return (
    Number.isInteger(year) &&
    Number.isInteger(month) &&
    Number.isInteger(day) &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month)
  )
}

export function isValidTime(hour: number, minute: number, second: number): boolean {
  return (
    Number.isInteger(hour) &&
    Number.isInteger(minute) &&
    Number.isInteger(second) &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59
  )
}

/**
 * Days since 1970-01-01 of a proleptic-Gregorian date (Howard Hinnant's `days_from_civil`).
 * Used instead of `Date.UTC`, which silently maps years 0..99 to 1900..1999.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

/** Seconds since the epoch if the wall clock were read in UTC: the common currency of zone maths. */
export function partsToEpochSeconds(p: WallClockParts): number {
  return daysFromCivil(p.year, p.month, p.day) * 86400 + p.hour * 3600 + p.minute * 60 + p.second
}

export function epochSecondsToParts(seconds: number): WallClockParts {
  const days = Math.floor(seconds / 86400)
  const rest = seconds - days * 86400
  return {
    ...civilFromDays(days),
    hour: Math.floor(rest / 3600),
    minute: Math.floor((rest % 3600) / 60),
    second: rest % 60,
  }
}

export function formatWallClock(parts: WallClockParts): string {
  return (
    `${padYear(parts.year)}-${pad2(parts.month)}-${pad2(parts.day)} ` + `${pad2(parts.hour)}:${pad2(parts.minute)}:${pad2(parts.second)}`
  )
}

export function parseWallClock(s: string): WallClockParts | null {
  if (typeof s !== 'string') return null
  const m = WALL_CLOCK.exec(s)
  if (!m) return null
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number]
  if (!isValidDate(year, month, day) || !isValidTime(hour, minute, second)) return null
  return { year, month, day, hour, minute, second }
}

/** Like `parseWallClock`, for values our own code produced: a bad one is a bug, not user input. */
export function requireWallClock(s: string): WallClockParts {
  const parts = parseWallClock(s)
  if (!parts) throw new RangeError(`not a 'YYYY-MM-DD HH:MM:SS' wall-clock time: ${JSON.stringify(s)}`)
  return parts
}

/** Throws a RangeError when `s` is not a valid wall-clock string. */
const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

export function dateDetails(s: string): DateDetails {
  // Stored values are already canonical: slicing is exact and keeps representations cheap.
  if (WALL.test(s) && isValidDate(+s.slice(0, 4), +s.slice(5, 7), +s.slice(8, 10)) && s.slice(11) <= '23:59:59') {
    return {
      year: s.slice(0, 4),
      month: s.slice(5, 7),
      day: s.slice(8, 10),
      hour: s.slice(11, 13),
      minutes: s.slice(14, 16),
      seconds: s.slice(17, 19),
    }
  }
  const p = requireWallClock(s)
  return {
    year: padYear(p.year),
    month: pad2(p.month),
    day: pad2(p.day),
    hour: pad2(p.hour),
    minutes: pad2(p.minute),
    seconds: pad2(p.second),
  }
}

/** Milliseconds are dropped (floored), as PHP's second-resolution timestamps do. */
/** The last second formatted: every request reads the clock, and most share their second. */
let lastUtc = { second: NaN, text: '' }

export function toUtcString(d: Date): string {
  const ms = d.getTime()
  if (Number.isNaN(ms)) throw new RangeError('Invalid Date')
  const second = Math.floor(ms / 1000)
  if (second !== lastUtc.second) lastUtc = { second, text: formatWallClock(epochSecondsToParts(second)) }
  return lastUtc.text
}

function requireInteger(n: number, what: string): void {
  if (!Number.isInteger(n)) throw new RangeError(`${what} must be an integer, got ${n}`)
}

/** Calendar days: the time of day is kept, whatever a zone's DST does in between. */
export function addDays(wall: string, days: number): string {
  requireInteger(days, 'days')
  const p = requireWallClock(wall)
  return formatWallClock({ ...p, ...civilFromDays(daysFromCivil(p.year, p.month, p.day) + days) })
}

/**
 * Calendar months, clamping the day to the target month's length: 2026-01-31 + 1 month is
 * 2026-02-28 (PHP would overflow to 2026-03-03, which surprises everyone who asks for "next
 * month"). Years are months × 12, so 2028-02-29 + 12 months is 2029-02-28.
 */
export function addMonths(wall: string, months: number): string {
  requireInteger(months, 'months')
  const p = requireWallClock(wall)
  const index = p.year * 12 + (p.month - 1) + months
  const year = Math.floor(index / 12)
  const month = index - year * 12 + 1
  return formatWallClock({ ...p, year, month, day: Math.min(p.day, daysInMonth(year, month)) })
}

export function dayStart(wall: string): string {
  return formatWallClock({ ...requireWallClock(wall), hour: 0, minute: 0, second: 0 })
}

export function dayEnd(wall: string): string {
  return formatWallClock({ ...requireWallClock(wall), hour: 23, minute: 59, second: 59 })
}
