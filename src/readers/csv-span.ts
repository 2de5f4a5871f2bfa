/**
 * A CSV row's start and end as the sheet meant them (issue 39, finding 11). The router reads a
 * time that does not exist (the spring-forward gap) as the time the gap moves it to, and an end
 * before the start as the start: both silently. Here, before the router sees them, a start in the
 * gap moves its end by as much so the event keeps the length the sheet gave it, and an end before
 * the start is reported. Cells the router's date input cannot read are left to the router, which
 * reports them.
 */
import { epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from '../time/format.js'
import { parseDateInput } from '../time/parse.js'
import { isRegularWallClock, isValidTimezone } from '../time/zone.js'

const seconds = (wall: string) => partsToEpochSeconds(requireWallClock(wall))
/** `wall` moved by as much as `from` to `to`, on the wall clock as written (no zone). */
const shifted = (wall: string, from: string, to: string) =>
  formatWallClock(epochSecondsToParts(seconds(wall) + seconds(to) - seconds(from)))

export interface Span {
  start: string
  end: string
  warnings: string[]
}

/**
 * @example
 * timedSpan('2027-03-28 02:30', '2027-03-28 03:30', 'Europe/Berlin', now)
 * // { start: '2027-03-28 03:30:00', end: '2027-03-28 04:30:00', warnings: ['the start … keeps its length'] }
 */
export function timedSpan(start: string, end: string, zone: string | undefined, now: Date): Span {
  // UTC has no gap: the wall clocks as written, to compare and measure.
  const asWritten = (s: string) => parseDateInput(s, 'UTC', now)
  const from = asWritten(start)
  const to = asWritten(end)
  if (!from || !to) return { start, end, warnings: [] }
  if (to < from) return { start, end: start, warnings: [`the end ${to} is before the start ${from}: it ends when it starts`] }
  // Cells the sheet wrote are handed on as written unless something is to be said about them
  // (one with an offset, "18:00 +02:00", is not in the gap: its wall clock here is in UTC).
  const unchanged = { start, end, warnings: [] }
  if (!zone || !isValidTimezone(zone) || isRegularWallClock(from, zone)) return unchanged
  const moved = parseDateInput(from, zone, now)
  if (!moved || moved <= from) return unchanged
  return {
    start: moved,
    end: shifted(to, from, moved),
    warnings: [`the start ${from} does not exist in ${zone} (the clocks go forward): it starts at ${moved.slice(11)} and keeps its length`],
  }
}
