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
 * Each row also carries all of its event's links (`links`, e.g. `,c3,c17,o5,t9,v12,`: kind
 * letter and id), so a list filtered by two links walks the first one's range and tests the
 * other in the row it already read. Probing the other link's rows instead cost one index
 * lookup per row of the range (a venue's 12 months and a category at 1M events on PostgreSQL:
 * 32 ms against 6 ms).
 *
 * Custom field values ride the same tables (migration 24): a value is a row of kind
 * `custom:<key>=<value text>` and ref_id 0, so a list filtered by a common value pages one range
 * and counts O(days) counters, like a category. event_custom_values stays the index of values by
 * event (a rare value's ids, a probe of a second key). Declared keys hold no `=` (letters,
 * digits, `_`, `-`), so a kind names one key and one value. Custom rows carry the event's
 * `links` like the others but add no token to them: a link filter never asks for a custom value.
 *
 * The writes keep both in the writing transaction (`syncEventFilters`): only the rows that
 * change are touched, in key order (no lock-order cycles between concurrent transactions).
 */
import type { EventRecord, EventListQuery } from '../types.js'
import { customValueRows, type CustomFieldFilter } from '../custom-values.js'
import { Where, type Db } from './db.js'
import type { SqlParam } from './driver.js'
import type { MigrationStatement } from './dialect.js'
import { dayOf } from './records.js'

export const FILTER_KINDS = { venueIds: 'venue', organizerIds: 'organizer', categoryIds: 'category', tagIds: 'tag' } as const
type FilterList = keyof typeof FILTER_KINDS
/** A link in `links`: the kind's first letter and the id, between commas. */
const linkToken = (kind: string, id: number) => `,${kind[0]}${id},`
/** The kind of a custom value's rows: the key, then the value's index text (custom-values.ts). */
export const customKind = (key: string, text: string) => `custom:${key}=${text}`
/** Selects the link kinds' rows, not the custom values' (the literal prefix of customKind). */
const LINK_KIND = `kind IN ('category', 'organizer', 'tag', 'venue')`

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

/**
 * Migration 24: the custom value rows of every listed event, from event_custom_values (the values
 * as rowsOf turns them into kinds), each with its event's `links` (read from one of its link rows),
 * and their counters. Deletes what an interrupted run left first, so it may run again.
 */
export const CUSTOM_FILTERS_BACKFILL = [
  `DELETE FROM event_filter_day_counts WHERE kind LIKE 'custom:%'`,
  `DELETE FROM event_filters WHERE kind LIKE 'custom:%'`,
  `INSERT INTO event_filters (kind, ref_id, language, status, start_date, event_id, end_date, links)
   SELECT 'custom:' || v.field_key || '=' || v.field_value, 0, p.language, p.status, COALESCE(p.start_date, ''), p.id,
     COALESCE(p.end_date, ''), COALESCE((SELECT l.links FROM event_filters l WHERE l.event_id = p.id AND l.${LINK_KIND} LIMIT 1), '')
   FROM event_custom_values v JOIN posts p ON p.id = v.event_id WHERE p.type = 'event' AND p.hide_from_listings = FALSE`,
  `INSERT INTO event_filter_day_counts (kind, ref_id, language, status, start_day, end_day, n)
   SELECT kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10), count(*) FROM event_filters
   WHERE kind LIKE 'custom:%' GROUP BY kind, ref_id, language, status, substr(start_date, 1, 10), substr(end_date, 1, 10)`,
]

/**
 * Sets every row's `links` from its event's link rows (migration 13, and the bench's bulk seeding
 * for the events `BETWEEN ? AND ?` when `range`), in the order rowsOf writes: kind, then id. Rows
 * already right are left alone, so it may run again.
 */
export function linksBackfill(dialect: 'sqlite' | 'postgres', range = false): string {
  // Custom value rows carry links but are no link (before migration 24 there are none).
  const within = range ? 'event_id BETWEEN ? AND ?' : ''
  const and = (c: string) => (c ? `AND ${c}` : '')
  // SQLite keeps a subquery's ORDER BY for the aggregate above it (an aggregate outer query is
  // never flattened); its group_concat(... ORDER BY) needs 3.44.
  const perEvent =
    dialect === 'sqlite'
      ? `SELECT event_id, ',' || group_concat(l, ',') || ',' AS links
         FROM (SELECT event_id, substr(kind, 1, 1) || ref_id AS l FROM event_filters WHERE ${LINK_KIND} ${and(within)} ORDER BY event_id, kind, ref_id) GROUP BY event_id`
      : `SELECT event_id, ',' || string_agg(left(kind, 1) || ref_id, ',' ORDER BY kind, ref_id) || ',' AS links
         FROM event_filters WHERE ${LINK_KIND} ${and(within)} GROUP BY event_id`
  return `UPDATE event_filters SET links = x.links FROM (${perEvent}) x
          WHERE x.event_id = event_filters.event_id AND event_filters.links <> x.links`
}

type Filtered = Pick<EventRecord, 'id' | 'language' | 'status' | 'startDate' | 'endDate' | 'hideFromListings' | 'customFields' | FilterList>
type FilterRow = [
  kind: string,
  refId: number,
  language: string,
  status: string,
  startDate: string,
  eventId: number,
  endDate: string,
  links: string,
]
const FILTER_COLUMNS = '(kind, ref_id, language, status, start_date, event_id, end_date, links)'

/**
 * An event's rows, keyed by their JSON (the primary key and `links`: a row whose event changed
 * links is deleted and written again, its counters unchanged).
 */
function rowsOf(e: Filtered | null): Map<string, FilterRow> {
  const rows = new Map<string, FilterRow>()
  if (!e || e.hideFromListings) return rows
  const refs = (Object.entries(FILTER_KINDS) as [FilterList, string][])
    .flatMap(([list, kind]) => [...new Set(e[list] ?? [])].map((ref) => [kind, ref] as const))
    // The order of migration 13's backfill (kind, then id), so its rows are not rewritten later.
    .sort(([k1, r1], [k2, r2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : r1 - r2))
  const links = refs.length ? `,${refs.map(([kind, ref]) => `${kind[0]}${ref}`).join(',')},` : ''
  const kinds: Array<readonly [string, number]> = [
    ...refs,
    ...customValueRows(e.customFields).map(([key, text]) => [customKind(key, text), 0] as const),
  ]
  for (const [kind, ref] of kinds) {
    const row: FilterRow = [kind, ref, e.language, e.status, e.startDate, e.id, e.endDate, links]
    rows.set(JSON.stringify(row), row)
  }
  return rows
}

/** Keys per DELETE: 7 parameters each, well under any engine's limit. */
const DELETE_CHUNK = 50

const byKey = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0)

/** Moves an event's filter rows and counters from `before` (null: new) to `after` (null: gone). */
export async function syncEventFilters(db: Db, before: Filtered | null, after: Filtered | null): Promise<void> {
  const old = rowsOf(before)
  const next = rowsOf(after)
  const removed = [...old].filter(([k]) => !next.has(k)).sort(byKey)
  const added = [...next].filter(([k]) => !old.has(k)).sort(byKey)
  // One statement per chunk of keys, not per row: a changed value, status or date moves several
  // rows of an event, and each statement is a round trip on PostgreSQL.
  const key = '(kind = ? AND ref_id = ? AND language = ? AND status = ? AND start_date = ? AND event_id = ? AND end_date = ?)'
  for (let i = 0; i < removed.length; i += DELETE_CHUNK) {
    const part = removed.slice(i, i + DELETE_CHUNK)
    await db.run(
      `DELETE FROM event_filters WHERE ${part.map(() => key).join(' OR ')}`,
      part.flatMap(([, row]) => row.slice(0, 7)),
    )
  }
  if (added.length) {
    const tuple = '(?, ?, ?, ?, ?, ?, ?, ?)'
    await db.run(
      `INSERT INTO event_filters ${FILTER_COLUMNS} VALUES ${added.map(() => tuple).join(', ')}`,
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
  await db.insertMany(`INSERT INTO event_filters ${FILTER_COLUMNS}`, ['text', 'int', 'text', 'text', 'text', 'int', 'text', 'text'], rows)
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

/**
 * A venue/organizer unlinked from every event, or a deleted term: its rows and counters go, and
 * the other rows of its events no longer list it (a filter naming that id must not match them).
 */
export async function dropFilterRef(db: Db, kinds: readonly string[], refId: number): Promise<void> {
  for (const kind of kinds) {
    await db.run(
      `UPDATE event_filters SET links = replace(links, ?, ',')
       WHERE event_id IN (SELECT event_id FROM event_filters WHERE kind = ? AND ref_id = ?)`,
      [linkToken(kind, refId), kind, refId],
    )
    await db.run('DELETE FROM event_filters WHERE kind = ? AND ref_id = ?', [kind, refId])
    await db.run('DELETE FROM event_filter_day_counts WHERE kind = ? AND ref_id = ?', [kind, refId])
  }
}

/** Up to this many ids of another link filter are tested in `links`; more are probed. */
const MAX_TOKENS = 16

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
  /**
   * Not ordered (several statuses or values): the first `n` rows of each (kind, status) range,
   * each in list order, as `(...) f` with f.event_id and f.start_date. The first n rows of the
   * list are among them, so a page of a list filtering nothing else on the posts reads at most
   * ranges x n rows and sorts those, instead of every match of the window.
   */
  heads(n: number): { from: string; params: SqlParam[] }
}

/**
 * The plan for an event list filtered by at least one linked id or custom field value, or null
 * when the query is not a shape it serves exactly (neither a link filter with exactly one id nor
 * a custom field filter, or ordered by post date). A link with one id drives (the range of its
 * rows); else the first of `customs` (the list's custom field filters, the one to drive first:
 * listEvents puts the rarest there), one range per value. Every other link filter is tested in
 * the row's `links`, every other custom key probed in event_custom_values by event id, so the
 * plan carries all of them and its count reads nothing from posts.
 * `postFilters`: whether the query filters on anything besides language, statuses, the date
 * bounds, the links and the custom fields (then the count must look at the posts).
 */
export function filteredPlan(
  db: Pick<Db, 'dialect'>,
  q: EventListQuery,
  postFilters: boolean,
  customs: readonly CustomFieldFilter[] = q.customFields ?? [],
): FilteredPlan | null {
  if (q.orderBy !== 'start') return null
  const lists = (Object.keys(FILTER_KINDS) as FilterList[]).filter((l) => q[l] !== undefined)
  const driver = lists.find((l) => new Set(q[l]).size === 1)
  const drivingCustom = driver ? undefined : customs[0]
  const otherCustoms = driver ? customs : customs.slice(1)
  // The driving range: one link's kind and id, or one kind per value of a custom key (an event
  // has one value per key, so the values' rows are disjoint and their counters add up).
  const kinds = driver ? [FILTER_KINDS[driver]] : drivingCustom ? drivingCustom.values.map((v) => customKind(drivingCustom.key, v)) : null
  if (!kinds) return null
  const refId = driver ? q[driver]![0]! : 0
  const range = (alias: string) =>
    new Where()
      .oneOf(`${alias}.kind`, kinds)
      .add(`${alias}.ref_id = ?`, refId)
      .add(`${alias}.language = ?`, q.language)
      .oneOf(`${alias}.status`, q.statuses)
  const d = db.dialect
  // The conditions besides the range's key: dates, the other links, the other custom keys.
  const f = new Where()
  f.dateBounds('f', q)
  // Every other link filter: the event links one of those ids, as the row's `links` says.
  for (const other of lists.filter((l) => l !== driver)) {
    const kind = FILTER_KINDS[other]
    const ids = [...new Set(q[other])]
    if (ids.length <= MAX_TOKENS) {
      f.add(`(${ids.map(() => d.contains('f.links')).join(' OR ')})`, ...ids.map((id) => linkToken(kind, id)))
      continue
    }
    // A long list: one probe of the other link's rows per row of the range.
    f.add(
      `EXISTS (SELECT 1 FROM event_filters g WHERE g.kind = '${kind}' AND ${d.inList('g.ref_id', 'int')}
        AND g.language = f.language AND g.status = f.status AND g.start_date = f.start_date AND g.event_id = f.event_id)`,
      d.list(ids),
    )
  }
  // Every other custom key: one lookup of event_custom_values_key (all three columns) per row.
  for (const c of otherCustoms) {
    f.add(
      `EXISTS (SELECT 1 FROM event_custom_values x WHERE x.field_key = ? AND ${d.inList('x.field_value', 'text')} AND x.event_id = f.event_id)`,
      c.key,
      d.list([...new Set(c.values)]),
    )
  }
  const rest = f
  const where = range('f').and(rest)
  let count: FilteredPlan['count'] = null
  if (!postFilters) {
    const from = q.startGte === undefined ? undefined : DAY_START.exec(q.startGte)?.[1]
    const to = q.endLte === undefined ? undefined : DAY_END.exec(q.endLte)?.[1]
    const wholeDays =
      lists.length + customs.length === 1 &&
      [q.startGt, q.startLt, q.endGt, q.endLt].every((v) => v === undefined) &&
      (q.startGte === undefined || from !== undefined) &&
      (q.endLte === undefined || to !== undefined)
    if (wholeDays) {
      const c = range('c')
      if (from !== undefined) c.add('c.start_day >= ?', from)
      if (to !== undefined) c.add('c.end_day <= ?', to)
      count = { sql: `SELECT COALESCE(SUM(c.n), 0) AS n FROM event_filter_day_counts c WHERE ${c}`, params: c.params }
    } else count = { sql: `SELECT count(*) AS n FROM event_filters f WHERE ${where}`, params: where.params }
  }
  // CROSS JOIN: SQLite keeps this join order (the range first, then each post by primary key).
  // In list order only as one range: one kind and one status.
  const statuses = [...new Set(q.statuses)]
  const ordered = new Set(kinds).size === 1 && statuses.length === 1
  const heads = (n: number) => {
    const parts: string[] = []
    const params: SqlParam[] = []
    for (const kind of new Set(kinds))
      for (const status of statuses) {
        // A subquery each: SQLite takes ORDER BY and LIMIT only on a compound's last part.
        parts.push(`SELECT * FROM (SELECT f.event_id, f.start_date FROM event_filters f
          WHERE f.kind = ? AND f.ref_id = ? AND f.language = ? AND f.status = ? AND ${rest}
          ORDER BY f.start_date, f.event_id LIMIT ?) h${parts.length}`)
        params.push(kind, refId, q.language, status, ...rest.params, n)
      }
    return { from: `(${parts.join(' UNION ALL ')}) f`, params }
  }
  return { from: 'event_filters f CROSS JOIN posts p', fromParams: [], where, order: 'f.start_date, f.event_id', ordered, count, heads }
}
