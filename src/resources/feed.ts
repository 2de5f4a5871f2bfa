/**
 * The iCalendar form of the events list. Calendar apps subscribe to one URL and cannot page, so
 * without `page`/`per_page` the feed holds every event of the requested window, up to the
 * `ical.maxEvents` cap (and says so when it stops there). Events are read and written out in
 * batches: at any time only one batch of records and its relations is held beside the text.
 */
import { listEventsShown } from './provisional.js'
import { ApiError } from '../http/errors.js'
import { negotiate } from '../http/accept.js'
import { calendarHead, calendarTail, IcalText, uidHost } from '../representation/ical.js'
import { SeriesFeed } from '../representation/ical-series.js'
import { loadRelations } from './embeds.js'
import type { EventListQuery } from '../storage/types.js'
import type { Context } from '../context.js'
import { totals, type Reply } from './respond.js'

/** Records per storage call: large enough to amortise round trips, small enough to stay light. */
const BATCH = 250

/** `?format=ics`, or an Accept header whose quality for text/calendar beats JSON's. */
export function wantsIcs(ctx: Context): boolean {
  const format = ctx.params.format
  if (format === 'ics') return true
  if (format === 'json') return false
  return negotiate(ctx.accept, ['application/json', 'text/calendar']) === 'text/calendar'
}

export const icsReply = (body: string, headers?: Record<string, string>): Reply => ({
  status: 200,
  body: null,
  headers: { ...headers, Vary: 'Accept' },
  text: { body, type: 'text/calendar; charset=UTF-8' },
})

export interface FeedPaging {
  /** `page` or `per_page` was given: one page, exactly as the JSON list would have it. */
  paged: boolean
  page: number
  perPage: number
}

const pageNotFound = () => new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist')

/** The events list as iCalendar; `query` is the list query the JSON form would run. */
export async function eventFeed(ctx: Context, query: EventListQuery, paging: FeedPaging): Promise<Reply> {
  const out = new IcalText()
  const host = uidHost(ctx)
  const name = ctx.options.ical.name

  if (paging.paged) {
    const result = await listEventsShown(ctx, query)
    if (paging.page > 1 && result.items.length === 0) throw pageNotFound()
    calendarHead(ctx, out, { name })
    const rel = await loadRelations(ctx, result.items, 'feed')
    const series = new SeriesFeed(ctx, out, host)
    for (const e of result.items) series.write(e, rel)
    await series.finish()
    return icsReply(calendarTail(out).toString(), totals(result.total, Math.ceil(result.total / paging.perPage)))
  }

  const cap = ctx.options.ical.maxEvents
  const first = await listEventsShown(ctx, { ...query, offset: 0, limit: Math.min(BATCH, cap) })
  const total = first.total
  const included = Math.min(total, cap)
  const truncated = total > cap
  calendarHead(ctx, out, truncated ? { name, truncated: { included, total } } : { name })

  // Offsets over separate reads: a write landing between two batches could shift a record into
  // the next batch twice; an id seen is never written again.
  const seen = new Set<number>()
  const series = new SeriesFeed(ctx, out, host)
  let batch = first.items
  let offset = 0
  for (;;) {
    const rel = await loadRelations(ctx, batch, 'feed')
    for (const e of batch) {
      if (seen.size >= cap || seen.has(e.id)) continue
      seen.add(e.id)
      series.write(e, rel)
    }
    offset += batch.length
    if (batch.length === 0 || seen.size >= cap || offset >= total) break
    batch = (await listEventsShown(ctx, { ...query, offset, limit: Math.min(BATCH, cap - seen.size) })).items
  }
  await series.finish()
  const headers: Record<string, string> = totals(total, total === 0 ? 0 : 1)
  if (truncated) headers['X-Calendar-Truncated'] = `${included} of ${total}`
  return icsReply(calendarTail(out).toString(), headers)
}
