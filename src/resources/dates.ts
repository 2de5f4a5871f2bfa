/** Date inputs of event writes and list filters, resolved in the right zone. */
import { invalidParam } from '../http/errors.js'
import { dayEnd, dayStart } from '../time/format.js'
import { parseDateInput } from '../time/parse.js'
import { localToUtc, utcToLocal } from '../time/zone.js'
import type { Context } from '../context.js'

/** Wall-clock time in `tz` for a parameter value that validation already accepted. */
export function wallClock(ctx: Pick<Context, 'now'>, name: string, value: unknown, tz: string): string {
  const local = parseDateInput(value, tz, ctx.now)
  if (local === null) throw invalidParam(name)
  return local
}

/** `date`/`date_utc` of a write: either one derives the other. */
export function publicationDates(ctx: Context, date: unknown, dateUtc: unknown): { date: string; dateUtc: string } | null {
  const tz = ctx.options.timezone
  if (dateUtc !== undefined) {
    const utc = wallClock(ctx, 'date_utc', dateUtc, 'UTC')
    return { date: utcToLocal(utc, tz), dateUtc: utc }
  }
  if (date !== undefined) {
    const local = wallClock(ctx, 'date', date, tz)
    return { date: local, dateUtc: localToUtc(local, tz) }
  }
  return null
}

export interface Schedule {
  startDate: string
  endDate: string
  startDateUtc: string
  endDateUtc: string
}

/** Start/end in the event zone; all-day spans whole days; an end before the start becomes the start. */
export function schedule(start: string, end: string, allDay: boolean, tz: string): Schedule {
  let s = start
  let e = end
  if (allDay) {
    s = dayStart(s)
    e = dayEnd(e)
  }
  if (e < s) e = allDay ? dayEnd(s) : s
  return { startDate: s, endDate: e, startDateUtc: localToUtc(s, tz), endDateUtc: localToUtc(e, tz) }
}
