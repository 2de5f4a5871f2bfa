/**
 * Writing the occurrences of a recurring series: where an occurrence falls, what it copies of
 * the one it is made from, its dated slug. Shared by the series' request handlers (series.ts)
 * and the horizon's host task (series-horizon.ts), so both write an occurrence the same way.
 */
import type { Context } from '../context.js'
import { SlugConflictError, type EventRecord, type NewPost, type StorageTx } from '../storage/types.js'
import { epochSecondsToParts, formatWallClock, partsToEpochSeconds, requireWallClock } from '../time/format.js'
import { isRegularWallClock, localToUtc, utcToLocal } from '../time/zone.js'
import { schedule, type Schedule } from './dates.js'
import { withFreeSlug } from './slug.js'

export const seconds = (wall: string) => partsToEpochSeconds(requireWallClock(wall))
export const plusSeconds = (wall: string, s: number) => formatWallClock(epochSecondsToParts(seconds(wall) + s))

/**
 * The dates of an occurrence the rule places at wall-clock `start`, `length` seconds long. A
 * start that does not exist that day (a DST gap) moves forward as a lone event's does, and one
 * that exists twice (an overlap) is the first of the two instants; such an occurrence keeps its
 * length as elapsed time from that instant, which is how an iCalendar reader expands the exact
 * UTC date the feed writes for it. Any other occurrence keeps its wall-clock end, as the
 * reader's local expansion does.
 */
export function placeAt(start: string, length: number, allDay: boolean, tz: string): Schedule {
  if (allDay || isRegularWallClock(start, tz)) return schedule(start, plusSeconds(start, length), allDay, tz)
  const startUtc = localToUtc(start, tz)
  const endUtc = plusSeconds(startUtc, Math.max(0, length))
  return { startDate: utcToLocal(startUtc, tz), endDate: utcToLocal(endUtc, tz), startDateUtc: startUtc, endDateUtc: endUtc }
}

/** What an occurrence needs of the request: the clock its dates are stamped with. */
export type Clock = Pick<Context, 'nowLocal' | 'nowUtc'>

/** The fields an occurrence shares with the one it is copied from, moved to `start`. */
export function occurrenceOf(from: EventRecord, start: string, position: number, head: number, ctx: Clock): Omit<NewPost<'event'>, 'slug'> {
  const length = seconds(from.endDate) - seconds(from.startDate)
  const sched = placeAt(start, length, from.allDay, from.timezone)
  const { id: _id, sequence: _seq, translationGroup: _tg, slug: _slug, ...shared } = from
  return {
    ...shared,
    ...sched,
    date: ctx.nowLocal,
    dateUtc: ctx.nowUtc,
    modified: ctx.nowLocal,
    modifiedUtc: ctx.nowUtc,
    parentId: head,
    seriesId: head,
    series: { position, original: start },
  }
}

/** `{slug}-{YYYY-MM-DD}` of an occurrence, from the series' slug without its own date suffix. */
export function occurrenceSlug(head: EventRecord, start: string): string {
  const base = head.slug.replace(/-\d{4}-\d{2}-\d{2}(?:-\d+)?$/, '')
  return `${base}-${start.slice(0, 10)}`
}

/**
 * Writes the occurrence of `head`'s series at `start`, copied from `template` (the head, or an
 * edited head's new state), under its dated slug or, when that is taken, a free one after it.
 */
export async function insertOccurrence(
  ctx: Clock,
  tx: StorageTx,
  template: EventRecord,
  head: EventRecord,
  start: string,
  position: number,
  id?: number,
) {
  const record: NewPost<'event'> = {
    ...occurrenceOf(template, start, position, head.id, ctx),
    slug: '',
    ...(id !== undefined ? { id } : {}),
  }
  const slug = occurrenceSlug(head, start)
  // The dated slug is nearly always free: try it before looking for a suffix.
  try {
    return await tx.insertPost<'event'>({ ...record, slug })
  } catch (e) {
    if (!(e instanceof SlugConflictError)) throw e
  }
  return withFreeSlug(tx, 'event', head.language, slug, (free) => tx.insertPost<'event'>({ ...record, slug: free }))
}
