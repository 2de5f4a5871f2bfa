/**
 * The UTC offset of one IANA zone at any instant, read from the runtime's `Intl` (no bundled
 * tzdata) and remembered. A read costs microseconds and a recurring series asks for thousands
 * (every occurrence's start and end, and the instants a day either side that find DST gaps and
 * overlaps), so two things keep it cheap:
 *
 * - `format` and a pattern instead of `formatToParts`, which builds an object per field and
 *   costs about four times as much. The pattern is checked against `formatToParts` on a few
 *   instants when the zone is first used; a runtime whose output has another shape keeps
 *   `formatToParts`, as does any single answer that does not match.
 * - Whole days. The zone maths already assumes that no zone changes its offset twice within a
 *   day (see `resolveWall` in zone.ts), so a UTC day whose two midnights have the same offset has
 *   that offset throughout: one read per midnight answers every instant of an ordinary day. Only
 *   a day holding a transition is read instant by instant.
 */
import { partsToEpochSeconds, type WallClockParts } from './format.js'

const DAY = 86400
// Bounds on what one zone remembers; past them it starts again (about 1 MiB at most).
const MAX_INSTANTS = 5_000
const MAX_DAYS = 20_000
// Date's own range ends at 8.64e12 seconds; a day's far midnight must stay inside it.
const LAST_WHOLE_DAY = 8.64e12 - 2 * DAY

// en-US, h23, with the era: `11/14/2023 AD, 23:13:20`.
const SHAPE = /^(\d+)\/(\d+)\/(\d+) (AD|BC), (\d+):(\d+):(\d+)$/
// Instants the pattern is checked on: before 1 AD, the distant past, the epoch, today's range.
const CHECKED = [-62_200_000_000, -2_000_000_000, 0, 1_700_000_000, 1_800_000_000]

export function zoneFormat(resolved: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: resolved,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  })
}

function byParts(format: Intl.DateTimeFormat, date: Date): number {
  const parts: WallClockParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  let bc = false
  for (const { type, value } of format.formatToParts(date)) {
    if (type === 'era') bc = value === 'BC'
    else if (type in parts) parts[type as keyof WallClockParts] = Number(value)
  }
  if (bc) parts.year = 1 - parts.year
  return partsToEpochSeconds(parts)
}

/** Wall seconds from `format`'s text, or null when the text is not the expected shape. */
function byPattern(format: Intl.DateTimeFormat, date: Date): number | null {
  const m = SHAPE.exec(format.format(date))
  if (!m) return null
  const year = Number(m[3])
  return partsToEpochSeconds({
    year: m[4] === 'BC' ? 1 - year : year,
    month: Number(m[1]),
    day: Number(m[2]),
    hour: Number(m[5]),
    minute: Number(m[6]),
    second: Number(m[7]),
  })
}

export class ZoneOffsets {
  private readonly instants = new Map<number, number>()
  // Offset of a UTC day (days since the epoch) when constant all day, NaN when it changes.
  private readonly days = new Map<number, number>()
  private readonly pattern: boolean

  constructor(private readonly format: Intl.DateTimeFormat) {
    this.pattern = CHECKED.every((s) => byPattern(format, new Date(s * 1000)) === byParts(format, new Date(s * 1000)))
  }

  /** Offset in seconds east of UTC at `epochSeconds`. */
  at(epochSeconds: number): number {
    if (Math.abs(epochSeconds) > LAST_WHOLE_DAY) return this.exact(epochSeconds)
    const day = Math.floor(epochSeconds / DAY)
    let offset = this.days.get(day)
    if (offset === undefined) {
      const start = this.exact(day * DAY)
      offset = start === this.exact((day + 1) * DAY) ? start : NaN
      if (this.days.size >= MAX_DAYS) this.days.clear()
      this.days.set(day, offset)
    }
    return Number.isNaN(offset) ? this.exact(epochSeconds) : offset
  }

  private exact(epochSeconds: number): number {
    let offset = this.instants.get(epochSeconds)
    if (offset === undefined) {
      const date = new Date(epochSeconds * 1000)
      const wall = (this.pattern ? byPattern(this.format, date) : null) ?? byParts(this.format, date)
      offset = wall - epochSeconds
      if (this.instants.size >= MAX_INSTANTS) this.instants.clear()
      this.instants.set(epochSeconds, offset)
    }
    return offset
  }
}
