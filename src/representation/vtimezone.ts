/**
 * VTIMEZONE components for the zones of recurring series. A series is written in its own zone
 * (DTSTART;TZID=…) so that calendar apps expand its rule in wall-clock time; RFC 5545 then
 * wants the zone's definition in the calendar. We write the observances that apply over the
 * span the series covers, one per offset change, found from the runtime's zone data (the same
 * data every date of this project comes from), so reader and writer agree on every instant.
 */
import { epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from '../time/format.js'
import { offsetMinutes } from '../time/zone.js'
import type { IcalText } from './ical.js'

const DAY = 86_400
const offsetAt = (tz: string, epoch: number) => offsetMinutes(tz, new Date(epoch * 1000))

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(Math.round(minutes))
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`
}

const localStamp = (epoch: number, offset: number) =>
  formatWallClock(epochSecondsToParts(epoch + offset * 60))
    .replace(/[-:]/g, '')
    .replace(' ', 'T')

/** Instants (epoch seconds) at which `tz` changes its offset within [from, to], with the offsets around them. */
export function transitions(tz: string, from: number, to: number): Array<{ at: number; before: number; after: number }> {
  const out: Array<{ at: number; before: number; after: number }> = []
  let t = from
  let offset = offsetAt(tz, t)
  while (t < to) {
    const next = Math.min(t + DAY, to)
    const o = offsetAt(tz, next)
    if (o !== offset) {
      // The change lies in (t, next]: narrow it to the second.
      let lo = t
      let hi = next
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2)
        if (offsetAt(tz, mid) === offset) lo = mid
        else hi = mid
      }
      out.push({ at: hi, before: offset, after: o })
      offset = o
    }
    t = next
  }
  return out
}

/** Writes the VTIMEZONE of `tz` for wall-clock times between `fromWall` and `toWall` (a year added each side). */
export function writeVtimezone(out: IcalText, tz: string, fromWall: string, toWall: string): void {
  const from = partsToEpochSeconds(requireWallClock(fromWall)) - 366 * DAY
  const to = partsToEpochSeconds(requireWallClock(toWall)) + 366 * DAY
  const initial = offsetAt(tz, from)
  out.line('BEGIN:VTIMEZONE').line(`TZID:${tz}`)
  out
    .line('BEGIN:STANDARD')
    .line(`DTSTART:${localStamp(from, initial)}`)
    .line(`TZOFFSETFROM:${offsetText(initial)}`)
    .line(`TZOFFSETTO:${offsetText(initial)}`)
    .line('END:STANDARD')
  for (const t of transitions(tz, from, to)) {
    const kind = t.after > t.before ? 'DAYLIGHT' : 'STANDARD'
    out
      .line(`BEGIN:${kind}`)
      // An observance's DTSTART is the local time it begins, read with the offset before it.
      .line(`DTSTART:${localStamp(t.at, t.before)}`)
      .line(`TZOFFSETFROM:${offsetText(t.before)}`)
      .line(`TZOFFSETTO:${offsetText(t.after)}`)
      .line(`END:${kind}`)
  }
  out.line('END:VTIMEZONE')
}
