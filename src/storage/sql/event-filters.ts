/**
 * Event lists filtered by venue, organizer, category or tag, flat with the number of events.
 *
 * `event_filters` holds one row per listed event (not hidden) and distinct linked id, with the
 * event's language, status and dates copied in; its primary key (kind, ref_id, language,
 * status, start_date, event_id, end_date) is the list's order for one linked id and status, so
 * a page reads one index range and stops after `offset + limit` rows, and a count over it reads
 * the index alone. `event_filter_day_counts` keeps those rows counted per (kind, ref_id,
 * language, status, start day, end day), like event_day_counts for the unfiltered list: the
 * total of a list filtered by one linked id, over whole days, sums O(days) rows even for a
 * category on half of the events.
 *
 * The writes keep both in the writing transaction (`syncEventFilters`): only the rows that
 * change are touched, in key order (no lock-order cycles between concurrent transactions).
 */
import type { EventRecord, EventListQuery } from '../types.js'
import { Where, type Db } from './db.js'
import type { SqlParam } from './driver.js'
import type { MigrationStatement } from './dialect.js'
import { dayOf } from './records.js'

export const FILTER_KINDS = { venueIds: 'venue', organizerIds: 'organizer', categoryIds: 'category', tagIds: 'tag' } as const
type FilterList = keyof typeof FILTER_KINDS

const filtersTable = (options: string) => `CREATE TABLE IF NOT EXISTS event_filters (
    kind {text} NOT NULL,
    ref_id {int} NOT NULL,
    language {text} NOT NULL,
    status {text} NOT NULL,
    start_date {text} NOT NULL,
    event_id {int} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    end_date {text} NOT NULL,
    PRIMARY KEY (kind, ref_id, language, status, start_date, event_id, end_date)
  )${options}`

const countsTable = (options: string) => `CREATE TABLE IF NOT EXISTS event_filter_day_counts (
    kind {text} NOT NULL,
    ref_id {int} NOT NULL,
    language {text} NOT NULL,
    status {text} NOT NULL,
    start_day {text} NOT NULL,
    end_day {text} NOT NULL,
    n {int} NOT NULL,
    PRIMARY KEY (kind, ref_id, language, status, start_day, end_day)
  )${options}`

// A commit's cost on SQLite is mostly the b-tree pages it dirties: WITHOUT ROWID makes the
// primary key the table, one b-tree to write per row instead of a table and its key index.
export const EVENT_FILTERS_DDL: MigrationStatement[] = [
  { sqlite: filtersTable(' WITHOUT ROWID'), postgres: filtersTable('') },
  // Deleting a post cascades here; without this index each delete would scan the table.
  `CREATE INDEX IF NOT EXISTS event_filters_event ON event_filters (event_id)`,
  { sqlite: countsTable(' WITHOUT ROWID'), postgres: countsTable('') },
]

const fromLinks = (table: 'event_links' | 'event_terms', column: string) =>
  `SELECT DISTINCT x.kind, x.${column}, p.language, p.status, COALESCE(p.start_date, ''), p.id, COALESCE(p.end_date, '')
   FROM ${table} x JOIN posts p ON p.id = x.event_id WHERE p.type = 'event' AND p.hide_from_listings = FALSE`

/** Recomputed from scratch (see migration 3 for why not ON CONFLICT DO NOTHING). */
export const EVENT_FILTERS_BACKFILL = [
  `DELETE FROM event_filters`,
  `INSERT INTO event_filters (kind, ref_id, language, status, start_date, event_id, end_date)
   ${fromLinks('event_links', 'linked_id')} UNION ${fromLinks('event_terms', 'term_id')}`,
  `DELETE FROM event_filter_day_counts`,
  `INSERT INTO event_filter_day_counts (kind, ref_id, language, status, start_day, end_day, n)
   SELECT kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*) FROM event_filters
   GROUP BY kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10)`,
]

type Filtered = Pick<EventRecord, 'id' | 'language' | 'status' | 'startDate' | 'endDate' | 'hideFromListings' | FilterList>
type FilterRow = [kind: string, refId: number, language: string, status: string, startDate: string, eventId: number, endDate: string]

/** An event's rows, keyed by their JSON (the whole primary key). */
function rowsOf(e: Filtered | null): Map<string, FilterRow> {
  const rows = new Map<string, FilterRow>()
  if (!e || e.hideFromListings) return rows
  for (const [list, kind] of Object.entries(FILTER_KINDS) as [FilterList, string][]) {
    for (const ref of e[list] ?? []) {
      const row: FilterRow = [kind, ref, e.language, e.status, e.startDate, e.id, e.endDate]
      rows.set(JSON.stringify(row), row)
    }
  }
  return rows
}

const byKey = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0)

/** Moves an event's filter rows and counters from `before` (null: new) to `after` (null: gone). */
export async function syncEventFilters(db: Db, before: Filtered | null, after: Filtered | null): Promise<void> {
  const old = rowsOf(before)
  const next = rowsOf(after)
  const removed = [...old].filter(([k]) => !next.has(k)).sort(byKey)
  const added = [...next].filter(([k]) => !old.has(k)).sort(byKey)
  for (const [, row] of removed) {
    await db.run(
      'DELETE FROM event_filters WHERE kind = ? AND ref_id = ? AND language = ? AND status = ? AND start_date = ? AND event_id = ? AND end_date = ?',
      row,
    )
  }
  if (added.length) {
    const tuple = '(?, ?, ?, ?, ?, ?, ?)'
    await db.run(
      `INSERT INTO event_filters (kind, ref_id, language, status, start_date, event_id, end_date) VALUES ${added.map(() => tuple).join(', ')}`,
      added.flatMap(([, row]) => row),
    )
  }
  const deltas = new Map<string, { key: SqlParam[]; k: number }>()
  const count = (row: FilterRow, k: number) => {
    const key = [row[0], row[1], row[2], row[3], dayOf(row[4]), dayOf(row[6])]
    const id = JSON.stringify(key)
    const d = deltas.get(id) ?? { key, k: 0 }
    d.k += k
    deltas.set(id, d)
  }
  for (const [, row] of removed) count(row, -1)
  for (const [, row] of added) count(row, 1)
  // One upsert for all of them (keys distinct, so no row is hit twice), in key order.
  const changes = [...deltas].filter(([, d]) => d.k !== 0).sort(byKey)
  if (changes.length) {
    await db.run(
      `INSERT INTO event_filter_day_counts (kind, ref_id, language, status, start_day, end_day, n) VALUES ${changes.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (kind, ref_id, language, status, start_day, end_day) DO UPDATE SET n = event_filter_day_counts.n + excluded.n`,
      changes.flatMap(([, d]) => [...d.key, d.k]),
    )
  }
}

/**
 * syncEventFilters(db, null, e) for many new events at once (a recurring series): the same rows
 * and counters in a few statements per chunk instead of two per event.
 */
export async function insertEventFilters(db: Db, events: readonly Filtered[]): Promise<void> {
  const rows = events.flatMap((e) => [...rowsOf(e)].sort(byKey).map(([, row]) => row))
  await db.insertMany(
    'INSERT INTO event_filters (kind, ref_id, language, status, start_date, event_id, end_date)',
    ['text', 'int', 'text', 'text', 'text', 'int', 'text'],
    rows,
  )
  const deltas = new Map<string, { key: SqlParam[]; k: number }>()
  for (const row of rows) {
    const key = [row[0], row[1], row[2], row[3], dayOf(row[4]), dayOf(row[6])]
    const id = JSON.stringify(key)
    const d = deltas.get(id) ?? { key, k: 0 }
    d.k++
    deltas.set(id, d)
  }
  await db.insertMany(
    'INSERT INTO event_filter_day_counts (kind, ref_id, language, status, start_day, end_day, n)',
    ['text', 'int', 'text', 'text', 'text', 'text', 'int'],
    [...deltas].sort(byKey).map(([, d]) => [...d.key, d.k]),
    'ON CONFLICT (kind, ref_id, language, status, start_day, end_day) DO UPDATE SET n = event_filter_day_counts.n + excluded.n',
  )
}

/** A venue/organizer unlinked from every event, or a deleted term: its rows and counters go. */
export async function dropFilterRef(db: Db, kinds: readonly string[], refId: number): Promise<void> {
  for (const kind of kinds) {
    await db.run('DELETE FROM event_filters WHERE kind = ? AND ref_id = ?', [kind, refId])
    await db.run('DELETE FROM event_filter_day_counts WHERE kind = ? AND ref_id = ?', [kind, refId])
  }
}

const DAY_START = /^(\d{4}-\d{2}-\d{2}) 00:00:00$/
const DAY_END = /^(\d{4}-\d{2}-\d{2}) 23:59:59$/

export interface FilteredPlan {
  /** FROM clause and its parameters: the driving range joined to `posts p`. */
  from: string
  fromParams: SqlParam[]
  /** Conditions on the range and the other link filters (alias f), with their parameters. */
  where: Where
  order: string
  /**
   * Whether the range delivers the list's order (one status): then the page walks it and stops
   * early. With several statuses it would sort the whole range; the caller pages another way.
   */
  ordered: boolean
  /** The count, when it needs nothing from posts; null: count the joined rows. */
  count: { sql: string; params: SqlParam[] } | null
}

/**
 * The plan for an event list filtered by at least one linked id, or null when the query is not
 * a shape it serves exactly (no filter with exactly one id, or ordered by post date).
 * `postFilters`: whether the query filters on anything besides language, statuses, the date
 * bounds and the links (then the count must look at the posts).
 */
export function filteredPlan(db: Db, q: EventListQuery, postFilters: boolean): FilteredPlan | null {
  if (q.orderBy === 'date') return null
  const lists = (Object.keys(FILTER_KINDS) as FilterList[]).filter((l) => q[l] !== undefined)
  const driver = lists.find((l) => new Set(q[l]).size === 1)
  if (!driver) return null
  const d = db.dialect
  const f = new Where()
  f.add(`f.kind = '${FILTER_KINDS[driver]}'`)
    .add('f.ref_id = ?', q[driver]![0]!)
    .add('f.language = ?', q.language)
    .oneOf('f.status', q.statuses)
  f.dateBounds('f', q)
  // Every other link filter: the same event has a row for one of those ids. The probe names the
  // whole key prefix, so it is one index lookup per id.
  for (const other of lists.filter((l) => l !== driver)) {
    // One id (the usual case) as an equality: no list to expand for every probe.
    const ids = [...new Set(q[other]!)]
    const [ref, param] = ids.length === 1 ? ['g.ref_id = ?', ids[0]!] : [d.inList('g.ref_id', 'int'), d.list(ids)]
    f.add(
      `EXISTS (SELECT 1 FROM event_filters g WHERE g.kind = '${FILTER_KINDS[other]}' AND ${ref}
        AND g.language = f.language AND g.status = f.status AND g.start_date = f.start_date AND g.event_id = f.event_id)`,
      param,
    )
  }
  let count: FilteredPlan['count'] = null
  if (!postFilters) {
    const from = q.startGte === undefined ? undefined : DAY_START.exec(q.startGte)?.[1]
    const to = q.endLte === undefined ? undefined : DAY_END.exec(q.endLte)?.[1]
    const wholeDays =
      lists.length === 1 &&
      [q.startGt, q.startLt, q.endGt, q.endLt].every((v) => v === undefined) &&
      (q.startGte === undefined || from !== undefined) &&
      (q.endLte === undefined || to !== undefined)
    if (wholeDays) {
      const c = new Where()
        .add(`c.kind = '${FILTER_KINDS[driver]}'`)
        .add('c.ref_id = ?', q[driver]![0]!)
        .add('c.language = ?', q.language)
        .oneOf('c.status', q.statuses)
      if (from !== undefined) c.add('c.start_day >= ?', from)
      if (to !== undefined) c.add('c.end_day <= ?', to)
      count = { sql: `SELECT COALESCE(SUM(c.n), 0) AS n FROM event_filter_day_counts c WHERE ${c}`, params: c.params }
    } else count = { sql: `SELECT count(*) AS n FROM event_filters f WHERE ${f}`, params: f.params }
  }
  // CROSS JOIN: SQLite keeps this join order (the range first, then each post by primary key).
  const ordered = new Set(q.statuses).size === 1
  return { from: 'event_filters f CROSS JOIN posts p', fromParams: [], where: f, order: 'f.start_date, f.event_id', ordered, count }
}
