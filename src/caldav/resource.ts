/** One CalDAV object resource: a lone event or a whole series, as the calendar's listing holds it. */
export interface Resource {
  /** The event id, or the series id (its first occurrence) for a series. */
  key: number
  /** Every event of the resource: the event, or the series' occurrences in their series order. */
  ids: number[]
  /** The occurrences edited on their own (RECURRENCE-ID VEVENTs), by id. */
  edited: number[]
  /** Each event's UTC start and end (`YYYY-MM-DD HH:MM:SS`): what a time-range query compares. */
  spans: Array<[start: string, end: string]>
  uid: string
  /** The last path segment, `{name}.ics` (unescaped). */
  name: string
  /** Set when the UID is the feed's own (`{id}@{host}`): the feed's text needs no UID rewrite. */
  ownUid: boolean
  /** The series rule as REST shows it (the feed ends a series where its stored occurrences end). */
  rrule: string | null
  title: string
  /** The language of its events (the REST lists and feeds are per language). */
  language: string
}
