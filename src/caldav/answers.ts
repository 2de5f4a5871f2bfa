/**
 * The REST answers the CalDAV face reads, read as `unknown` JSON and narrowed field by field:
 * nothing here trusts an answer's shape, so a change in the REST wire format shows up as a
 * missing value (or, for the sync pages the calendar is built from, an error) instead of a
 * TypeError deep in a report.
 */
import { at } from '../http/json-at.js'

export { at }

/** A string at `path`, or null. */
export const textAt = (json: unknown, ...path: string[]): string | null => {
  const v = at(json, ...path)
  return typeof v === 'string' ? v : null
}

/** A finite number at `path`, or null. */
export const numberAt = (json: unknown, ...path: string[]): number | null => {
  const v = at(json, ...path)
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** An array at `path`, or an empty one. */
export const listAt = (json: unknown, ...path: string[]): unknown[] => {
  const v = at(json, ...path)
  return Array.isArray(v) ? (v as unknown[]) : []
}

/** What the CalDAV face reads of a REST event: what groups it into a resource, and its own start. */
export interface EventFacts {
  id: number
  title: string
  /** The series' id (its first occurrence), or null for a lone event. */
  seriesId: number | null
  /** Its place in its series (0 for a lone event). */
  position: number
  /** An occurrence edited on its own (a RECURRENCE-ID VEVENT). */
  detached: boolean
  /** UTC start and end, `YYYY-MM-DD HH:MM:SS`, when the event has them. */
  utcStart: string | null
  utcEnd: string | null
  /** The local start, `YYYY-MM-DD HH:MM:SS` (an occurrence's original start in its series). */
  start: string | null
  rrule: string | null
  /** The UID and resource name a calendar app gave it (custom fields), or null. */
  caldavUid: string | null
  caldavName: string | null
}

/** A custom field's value when it is a non-empty string. */
const customText = (e: unknown, key: string): string | null => {
  const v = textAt(e, 'custom_fields', key, 'value')
  return v === '' ? null : v
}

/** An event of a REST answer as EventFacts; throws when it has no id (not an event). */
export function eventFacts(e: unknown): EventFacts {
  const id = numberAt(e, 'id')
  if (id === null) throw new Error('calendar-events-router: a REST event without an id')
  return {
    id,
    title: textAt(e, 'title') ?? '',
    seriesId: numberAt(e, 'series', 'id'),
    position: numberAt(e, 'series', 'position') ?? 0,
    detached: at(e, 'series', 'detached') === true,
    utcStart: textAt(e, 'utc_start_date'),
    utcEnd: textAt(e, 'utc_end_date'),
    start: textAt(e, 'start_date'),
    rrule: textAt(e, 'recurrence', 'rrule') || null,
    caldavUid: customText(e, 'caldav_uid'),
    caldavName: customText(e, 'caldav_name'),
  }
}

/** The resource an event belongs to: its series, or itself. */
export const keyOf = (e: EventFacts): number => e.seriesId ?? e.id

/** The events of a REST list or sync answer. */
export const eventsOf = (json: unknown): EventFacts[] => listAt(json, 'events').map(eventFacts)

/** One page of the REST sync (docs/sync.md). */
export interface SyncPage {
  events: EventFacts[]
  /** Ids removed since the token. */
  deleted: number[]
  /** The next page's link, or null on the last page. */
  next: string | null
  /** The token after this page (on the last page: after everything). */
  token: string
}

/** A REST sync answer as a SyncPage; throws when it is not one (the router's own answer). */
export function syncPage(json: unknown): SyncPage {
  if (!Array.isArray(at(json, 'events'))) throw new Error('calendar-events-router: the REST sync answer has no events')
  return {
    events: eventsOf(json),
    deleted: listAt(json, 'deleted').filter((id): id is number => typeof id === 'number'),
    next: textAt(json, 'next_rest_url') || null,
    token: textAt(json, 'sync_token') ?? '',
  }
}
