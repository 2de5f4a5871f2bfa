/**
 * The read queries, one function per StorageReader method, each the SQL twin of the memory
 * backend's loop (`src/storage/memory.ts`): same filters, same order including ties, same
 * paging. A list is one query for the page plus one count; an event page's link lists come
 * from one more query for the whole page.
 */
import { boundingBox, withinCircle, type GeoCircle } from '../geo.js'
import type {
  TranslationKind,
  EventListQuery,
  EventRecord,
  LinkedListQuery,
  Page,
  PostRecord,
  PostType,
  RecordOf,
  Taxonomy,
  TermListQuery,
  TermRecord,
  TermWithCount,
} from '../types.js'
import { Where, type Db } from './db.js'
import type { Dialect } from './dialect.js'
import type { SqlParam } from './driver.js'
import { firstOfEachSeries } from '../first-of-series.js'
import { filteredPlan, type FilteredPlan } from './event-filters.js'
import { eventMatches, listedClasses, startRange, windowedSearchCount, type WindowedCount, type WindowedSearch } from './event-search.js'
import { wordMatch, wordMatches, wordRange, windowedWordCount } from './event-words.js'
import type { RecordCache } from './record-cache.js'
import { EVENT_KEYS_TABLE, addSearch, addSearchPrefilter, ftsExact, ftsQuery } from './search-index.js'
import {
  POST_FIELDS,
  REF_LISTS,
  TERM_SELECT,
  postRecord,
  postSelect,
  readPostRows,
  rowToTerm,
  toInt,
  type RefList,
  type Row,
} from './records.js'

/**
 * A statement text that does not vary, built once per dialect rather than on every call (the
 * drivers look their prepared statements up by this text).
 */
function perDialect(build: (d: Dialect) => string): (d: Dialect) => string {
  const built = new Map<Dialect, string>()
  return (d) => {
    let sql = built.get(d)
    if (sql === undefined) built.set(d, (sql = build(d)))
    return sql
  }
}

const LINKS_OF_EVENTS = perDialect(
  (d) => `SELECT event_id, kind, seq, linked_id AS ref FROM event_links WHERE ${d.inList('event_id', 'int')}
       UNION ALL
       SELECT event_id, kind, seq, term_id AS ref FROM event_terms WHERE ${d.inList('event_id', 'int')}
       ORDER BY event_id, kind, seq`,
)
/**
 * What a read selects of each post: with the record cache, only the key (`id, revision`), and
 * `toPosts` completes the rows from the cache or by id; without it, every column.
 */
const KEY_SELECT = 'p.id, p.revision'
const selectOf = (db: Db) => (db.records ? KEY_SELECT : postSelect(db.dialect.name))
/**
 * A constant statement in both forms, each built once per dialect: the one `selectOf(db)` asks
 * for, and (`.full`) the one with every column, which completes key rows.
 */
const perSelect = (build: (select: string, d: Dialect) => string) => {
  const full = perDialect((d) => build(postSelect(d.name), d))
  const keys = perDialect((d) => build(KEY_SELECT, d))
  return Object.assign((db: Db) => (db.records ? keys : full)(db.dialect), { full })
}

const POSTS_BY_IDS = perSelect((select, d) => `SELECT ${select} FROM posts p WHERE ${d.inList('p.id', 'int')}`)
const POST_BY_ID = perSelect((select) => `SELECT ${select} FROM posts p WHERE p.id = ?`)
const POST_BY_SLUG = perSelect((select) => `SELECT ${select} FROM posts p WHERE p.type = ? AND p.language = ? AND p.slug = ?`)

/** The records of rows read with `selectOf(db)`, in their order. */
function toPosts(db: Db, selected: Row[]): Promise<PostRecord[]> {
  return db.records ? fromKeys(db, db.records, selected) : decodePosts(db, selected)
}

/** Records of key rows: those at a held revision from the cache, the others read by id (and kept). */
async function fromKeys(db: Db, cache: RecordCache, keys: Row[]): Promise<PostRecord[]> {
  const ids = keys.map((row) => toInt(row.id))
  const out = keys.map((row, i) => cache.get(ids[i]!, toInt(row.revision)))
  const missing = ids.filter((_, i) => !out[i])
  if (missing.length) {
    // Same snapshot as the keys: the rows read here are at the revisions the keys named.
    const d = db.dialect
    const read = await decodePosts(db, await db.query(POSTS_BY_IDS.full(d), [d.list(missing)]))
    const byId = new Map(read.map((p) => [p.id, p]))
    ids.forEach((id, i) => {
      if (out[i]) return
      const rec = byId.get(id)
      if (rec) cache.set(rec)
      out[i] = rec
    })
  }
  return out.filter((p): p is PostRecord => p !== undefined)
}

/** Attaches link lists to the events among `rows` (read with `postSelect`), with one query for all of them. */
async function decodePosts(db: Db, selected: Row[]): Promise<PostRecord[]> {
  const rows = readPostRows(selected)
  const eventIds = rows.filter((r) => r.type === 'event').map((r) => r.id)
  const refs = new Map<number, Partial<Record<RefList, number[]>>>()
  if (eventIds.length) {
    const d = db.dialect
    const list = d.list(eventIds)
    const refRows = await db.query<{ event_id: unknown; kind: string; ref: unknown }>(LINKS_OF_EVENTS(d), [list, list])
    for (const r of refRows) {
      const id = toInt(r.event_id)
      const entry = refs.get(id) ?? {}
      const key = REF_LISTS[r.kind]
      if (!key) continue
      ;(entry[key] ??= []).push(toInt(r.ref))
      refs.set(id, entry)
    }
  }
  return rows.map((r) => postRecord(r, refs.get(r.id)))
}

export async function getPosts(db: Db, ids: readonly number[]): Promise<PostRecord[]> {
  const unique = [...new Set(ids)]
  if (!unique.length) return []
  const d = db.dialect
  const rows = await db.query(POSTS_BY_IDS(db), [d.list(unique)])
  const byId = new Map((await toPosts(db, rows)).map((p) => [p.id, p]))
  return unique.flatMap((id) => byId.get(id) ?? [])
}

export async function getPost(db: Db, id: number): Promise<PostRecord | null> {
  const rows = await db.query(POST_BY_ID(db), [id])
  return (await toPosts(db, rows))[0] ?? null
}

export async function findPostBySlug<T extends PostType>(db: Db, type: T, language: string, slug: string): Promise<RecordOf<T> | null> {
  const rows = await db.query(POST_BY_SLUG(db), [type, language, slug])
  return ((await toPosts(db, rows))[0] as RecordOf<T> | undefined) ?? null
}

export async function slugsLike(db: Db, kind: PostType | Taxonomy, language: string, base: string): Promise<string[]> {
  const isTerm = kind === 'category' || kind === 'tag'
  // `base-...` is exactly the text range ['base-', 'base.') ('.' follows '-'): an index range
  // scan, and no pattern syntax, so LIKE metacharacters in `base` cannot widen the match. Two
  // branches, not `slug = ? OR (range)`: SQLite answers that OR by scanning every slug of the
  // type and language (O(n) per create).
  const table = isTerm ? 'terms' : 'posts'
  const scope = `SELECT slug FROM ${table} WHERE ${isTerm ? 'taxonomy' : 'type'} = ? AND language = ?`
  const rows = await db.query<{ slug: string }>(`${scope} AND slug = ? UNION ALL ${scope} AND slug >= ? AND slug < ?`, [
    kind,
    language,
    base,
    kind,
    language,
    `${base}-`,
    `${base}.`,
  ])
  return rows.map((r) => String(r.slug)).filter((slug) => slug === base || /^\d+$/.test(slug.slice(base.length + 1)))
}

/** What a list reads: a FROM clause (with the parameters it holds, if any) and a WHERE. */
interface Source {
  from: string
  fromParams?: readonly SqlParam[]
  where: Where
}

/** A ready count statement (its one row's `n` is the total; NULL counts as 0). */
interface CountQuery {
  sql: string
  params: readonly SqlParam[]
}

async function page(
  db: Db,
  select: string,
  source: Source,
  orderBy: string,
  offset: number,
  limit: number,
  extra: readonly SqlParam[] = [],
  counted: Source | CountQuery = source,
): Promise<{ rows: Row[]; total: number }> {
  // The page and the count select the same rows (`counted` may only be another way to write
  // `source`, or a statement that counts them another way); on PostgreSQL outside a
  // transaction they run on two pooled connections at once.
  const params = (s: Source) => [...(s.fromParams ?? []), ...s.where.params]
  const count: CountQuery =
    'sql' in counted ? counted : { sql: `SELECT count(*) AS n FROM ${counted.from} WHERE ${counted.where}`, params: params(counted) }
  const [rows, n] = await Promise.all([
    db.query(`SELECT ${select} FROM ${source.from} WHERE ${source.where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`, [
      ...params(source),
      ...extra,
      limit,
      offset,
    ]),
    db.query<{ n: unknown }>(count.sql, count.params),
  ])
  return { rows, total: toInt(n[0]?.n ?? 0) }
}

const DAY_START = /^(\d{4}-\d{2}-\d{2}) 00:00:00$/
const DAY_END = /^(\d{4}-\d{2}-\d{2}) 23:59:59$/

/**
 * The count of an event list from event_day_counts, when the query is a shape it answers
 * exactly: language, statuses (listed events only, which every event list is) and whole-day
 * bounds, nothing else. Stored dates are 'YYYY-MM-DD HH:MM:SS', so with D a day
 * start_date >= 'D 00:00:00' exactly when its day >= D, and end_date <= 'D 23:59:59' exactly
 * when its day <= D. O(days in the window) rows, read through the primary key. null: count the
 * rows instead.
 */
function dayCount(q: EventListQuery, words: readonly string[]): CountQuery | null {
  const other =
    words.length > 0 ||
    [
      q.categoryIds,
      q.tagIds,
      q.venueIds,
      q.organizerIds,
      q.featured,
      q.include,
      q.parentId,
      q.unpublishedAuthor,
      q.startGt,
      q.startLt,
      q.endGt,
      q.endLt,
      q.firstOfSeries,
    ].some((v) => v !== undefined)
  if (other) return null
  const from = q.startGte === undefined ? undefined : DAY_START.exec(q.startGte)?.[1]
  const to = q.endLte === undefined ? undefined : DAY_END.exec(q.endLte)?.[1]
  if ((q.startGte !== undefined && from === undefined) || (q.endLte !== undefined && to === undefined)) return null
  const w = new Where().add('c.language = ?', q.language).oneOf('c.status', q.statuses)
  if (from !== undefined) w.add('c.start_day >= ?', from)
  if (to !== undefined) w.add('c.end_day <= ?', to)
  return { sql: `SELECT COALESCE(SUM(c.n), 0) AS n FROM event_day_counts c WHERE ${w}`, params: w.params }
}

/**
 * hide_subsequent_recurrences when every filter is a column of posts: a series member passes when
 * no member of its series that the same filters select starts before it (then by id).
 */
/**
 * "An earlier member of p's series passes the same column filters" (p a series member): what
 * makes p a subsequent occurrence that hide_subsequent_recurrences hides.
 */
function earlierMember(q: EventListQuery): { sql: string; params: SqlParam[] } {
  const s = new Where()
    .add(`s.type = 'event'`)
    .add('s.language = p.language')
    .oneOf('s.status', q.statuses)
    .add('s.hide_from_listings = FALSE')
  if (q.unpublishedAuthor !== undefined) s.add(`(s.status = 'publish' OR s.author = ?)`, q.unpublishedAuthor)
  s.dateBounds('s', q)
  if (q.featured !== undefined) s.add(q.featured ? 's.featured = TRUE' : 's.featured = FALSE')
  if (q.parentId !== undefined) s.add('s.parent_id = ?', q.parentId)
  return {
    // "s.start_date <= p.start_date" on its own (not only inside the OR) bounds the index range of
    // posts_series (series_id, start_date): the probe reads the series' first rows in the window
    // and stops at the first that passes, instead of every member of the series.
    sql: `EXISTS (SELECT 1 FROM posts s WHERE s.series_id = p.series_id AND ${s}
      AND s.start_date <= p.start_date AND (s.start_date < p.start_date OR s.id < p.id))`,
    params: s.params,
  }
}

/**
 * The count of a column-filtered list with hide_subsequent_recurrences: the list's count without
 * it (the day counters when they apply) less its subsequent occurrences. A series with k members
 * in the list shows one of them, so the hidden ones number (members in the list) - (series with
 * a member in the list): one pass over the series members alone (posts_series), instead of
 * testing every event of the window (3.6 s at 1M events on SQLite) or joining each member to
 * the others (PostgreSQL hashed every event of the window for that: 165 ms at 100k).
 */
function countWithoutLaterMembers(db: Db, q: EventListQuery, unseries: Where): CountQuery {
  // No search words: seriesByColumns excludes a search.
  const base = dayCount({ ...q, firstOfSeries: undefined }, []) ?? {
    sql: `SELECT count(*) AS n FROM posts p WHERE ${unseries}`,
    params: unseries.params,
  }
  const members = db.dialect.name === 'sqlite' ? 'posts p INDEXED BY posts_series' : 'posts p'
  return {
    sql: `SELECT (${base.sql}) - (SELECT count(*) - count(DISTINCT p.series_id) FROM ${members} WHERE p.series_id > 0 AND ${unseries}) AS n`,
    params: [...base.params, ...unseries.params],
  }
}

/**
 * A page of a list with hide_subsequent_recurrences: every match's id, series and start in list
 * order (a narrow read), the first of each series kept (first-of-series.ts, as the memory
 * backend does), then the page's posts by primary key. It costs the matches of the other filters,
 * which the window bounds.
 */
async function firstOfSeriesPage(db: Db, s: Source, order: string, q: EventListQuery): Promise<Page<EventRecord>> {
  const rows = await db.query<{ id: unknown; series_id: unknown; start_date: unknown }>(
    `SELECT p.id, p.series_id, p.start_date FROM ${s.from} WHERE ${s.where} ORDER BY ${order}`,
    [...(s.fromParams ?? []), ...s.where.params],
  )
  const ids = firstOfEachSeries(rows, (r) => ({ id: toInt(r.id), seriesId: toInt(r.series_id), start: String(r.start_date) })).map((r) =>
    toInt(r.id),
  )
  const pageIds = ids.slice(q.offset, q.offset + q.limit)
  if (!pageIds.length) return { items: [], total: ids.length }
  const found = await db.query(`SELECT ${selectOf(db)} FROM posts p WHERE ${db.dialect.inList('p.id', 'int')}`, [db.dialect.list(pageIds)])
  const byId = new Map(((await toPosts(db, found)) as EventRecord[]).map((e) => [e.id, e]))
  return { items: pageIds.flatMap((id) => byId.get(id) ?? []), total: ids.length }
}

/** Venues with both coordinates, the `geo_lat IS NOT NULL ...` terms spelled as posts_venue_geo's predicate. */
const LOCATED = (t: string) => `${t}.type = 'venue' AND ${t}.geo_lat IS NOT NULL AND ${t}.geo_lng IS NOT NULL`

/**
 * Ids of the venues that have coordinates, lie within `near` when given and pass `readable`
 * (on the alias `g`). The circle's bounding box is an index range (posts_venue_geo); the exact
 * great-circle test runs here, on the box's rows only, in the same code every backend uses.
 */
async function locatedVenues(db: Db, near: GeoCircle | undefined, readable: Where): Promise<number[]> {
  const w = new Where().add(LOCATED('g'))
  if (near) {
    const box = boundingBox(near)
    w.add('g.geo_lat >= ?', box.latMin).add('g.geo_lat <= ?', box.latMax)
    const lng = box.lngRanges.map(() => '(g.geo_lng >= ? AND g.geo_lng <= ?)')
    w.add(lng.length === 1 ? lng[0]! : `(${lng.join(' OR ')})`, ...box.lngRanges.flat())
  }
  w.and(readable)
  const rows = await db.query<{ id: unknown; geo_lat: unknown; geo_lng: unknown }>(
    `SELECT g.id, g.geo_lat, g.geo_lng FROM posts g WHERE ${w}`,
    w.params,
  )
  return rows.filter((r) => !near || withinCircle(near, Number(r.geo_lat), Number(r.geo_lng))).map((r) => toInt(r.id))
}

/**
 * Up to this many venues found by a geo filter drive an event list (their events read through
 * event_links, then sorted); more (a wide radius, geoloc=true) are probed per row of the date
 * window instead, like a common category, so a page stops after `limit` matches.
 */
const DRIVING_VENUES = 200

/**
 * The venues in a geofence become a venue filter: the events of a few venues are read through
 * event_links (the driving filter of listEvents), never by walking the date window; a long list
 * (see DRIVING_VENUES) is returned as `wide`, to be probed per row. Null: no venue is inside.
 */
async function fenceToVenues(db: Db, q: EventListQuery): Promise<{ q: EventListQuery; wide?: number[] } | null> {
  if (!q.venueGeo) return { q }
  const g = q.venueGeo
  const readable = new Where().add(`g.status <> 'trash'`)
  if (g.unpublishedVenues === 'none') readable.add(`g.status = 'publish'`)
  else if (g.unpublishedVenues !== 'all') readable.add(`(g.status = 'publish' OR g.author = ?)`, g.unpublishedVenues)
  const located = new Set(await locatedVenues(db, g.near, readable))
  const venueIds = q.venueIds ? q.venueIds.filter((id) => located.has(id)) : [...located].sort((a, b) => a - b)
  if (!venueIds.length) return null
  if (q.venueIds || venueIds.length <= DRIVING_VENUES) return { q: { ...q, venueIds, venueGeo: undefined } }
  return { q: { ...q, venueGeo: undefined }, wide: venueIds }
}

export async function listEvents(db: Db, q: EventListQuery): Promise<Page<EventRecord>> {
  const d = db.dialect
  const fenced = await fenceToVenues(db, q)
  if (!fenced) return { items: [], total: 0 }
  const { wide } = fenced
  q = fenced.q
  // The filters on columns SQLite's event_keys also holds: a search count may test them there
  // instead of on each matching post (see below).
  const keyed = new Where().add('p.language = ?', q.language).oneOf('p.status', q.statuses)
  keyed.dateBounds('p', q)
  if (q.include) keyed.add(d.inList('p.id', 'int'), d.list(q.include))
  if (q.idAfter !== undefined) keyed.add('p.id > ?', q.idAfter)
  const w = new Where()
  // Literal 'event' and FALSE (not parameters) so the planners can match the partial index.
  w.add(`p.type = 'event'`).add('p.hide_from_listings = FALSE').and(keyed)
  if (q.unpublishedAuthor !== undefined) w.add(`(p.status = 'publish' OR p.author = ?)`, q.unpublishedAuthor)
  if (q.featured !== undefined) w.add(q.featured ? 'p.featured = TRUE' : 'p.featured = FALSE')
  if (q.parentId !== undefined) w.add('p.parent_id = ?', q.parentId)
  // hide_subsequent_recurrences with column filters only: each series' first is decided per row
  // (an index probe on posts_series), so a page still stops early; with link, term, search or
  // include filters the matches are read and grouped instead (firstOfSeriesPage).
  const seriesByColumns =
    q.firstOfSeries === true &&
    !wide &&
    [q.venueIds, q.organizerIds, q.categoryIds, q.tagIds, q.include].every((v) => v === undefined) &&
    !(q.search ?? '').trim()
  // The filters before that one: a count subtracts the hidden occurrences from their total.
  const unseries = seriesByColumns ? new Where().and(w) : null
  if (seriesByColumns) {
    const earlier = earlierMember(q)
    w.add(`(p.series_id = 0 OR NOT ${earlier.sql})`, ...earlier.params)
  }
  // Every word must be a substring of the lower-cased title + description + excerpt.
  const words = q.search ? [...new Set(q.search.toLowerCase().split(/\s+/).filter(Boolean))] : []
  addSearch(db, w, words)
  const order = q.orderBy === 'date' ? 'p.post_date_utc, p.id' : q.orderBy === 'id' ? 'p.id' : 'p.start_date, p.id'

  // Link filters, shaped for an engine that plans without statistics (SQLite); PostgreSQL plans
  // each form from its statistics either way. All forms select the same rows:
  // - A venue or organizer has a small share of the events: the first such filter drives the
  //   query (its DISTINCT event ids, then each post by primary key), so a rare venue costs as
  //   many lookups as it has events, not a walk through the whole date window.
  // - A category or tag may be on most events: probed per candidate row (EXISTS), so a page
  //   stops after `limit` matches instead of first collecting every event of the term; a count
  //   without a driving filter instead collects them once (IN), cheaper than probing every
  //   event of the window.
  type Ref = { list: SqlParam; sql: string; probeSql?: string }
  const refs = (table: 'event_terms' | 'event_links', column: string, kind: string, ids: number[] | undefined): Ref[] =>
    ids ? [{ list: d.list(ids), sql: `FROM ${table} x WHERE x.kind = '${kind}' AND ${d.inList(`x.${column}`, 'int')}` }] : []
  // Probing a long venue list per row: `+` keeps SQLite from walking the list through
  // event_links_linked for every row; it reads the event's own link (primary key) and looks its
  // venue up in the list, materialized once.
  const wideRef = (ids: number[] | undefined): Ref[] =>
    refs('event_links', 'linked_id', 'venue', ids).map((r) => ({
      ...r,
      probeSql: `FROM event_links x WHERE x.event_id = p.id AND x.kind = 'venue' AND ${d.inList('+x.linked_id', 'int')}`,
    }))
  const linked = [
    ...refs('event_links', 'linked_id', 'venue', q.venueIds),
    ...refs('event_links', 'linked_id', 'organizer', q.organizerIds),
  ]
  const terms = [
    ...refs('event_terms', 'term_id', 'category', q.categoryIds),
    ...refs('event_terms', 'term_id', 'tag', q.tagIds),
    ...wideRef(wide),
  ]
  const inList = (where: Where, r: Ref) => where.add(`p.id IN (SELECT x.event_id ${r.sql})`, r.list)
  const probe = (where: Where, r: Ref) =>
    where.add(r.probeSql ? `EXISTS (SELECT 1 ${r.probeSql})` : `EXISTS (SELECT 1 ${r.sql} AND x.event_id = p.id)`, r.list)
  const [driver, ...others] = linked
  const filters = (termFilter: typeof inList) => {
    const f = new Where().and(w)
    for (const r of others) inList(f, r)
    for (const r of terms) termFilter(f, r)
    return f
  }
  let source: Source
  let counted: Source | CountQuery
  let pageOrder = order
  // A long geofence venue list is not a link filter event_filters knows: it is probed on the
  // range's rows like a post filter, and the count must then look at them too.
  const postFilters = [q.unpublishedAuthor, q.featured, q.parentId, q.include, wide].some((v) => v !== undefined) || words.length > 0
  const plan = filteredPlan(db, q, postFilters)
  const joined = (p: FilteredPlan): Source => {
    const where = new Where().and(p.where).add('p.id = f.event_id').and(w)
    for (const r of wideRef(wide)) probe(where, r)
    return { from: p.from, fromParams: p.fromParams, where }
  }
  if (plan?.ordered) {
    // One index range of event_filters in list order, each post by primary key (event-filters.ts).
    source = joined(plan)
    counted = plan.count ?? source
    pageOrder = plan.order
  } else if (driver) {
    // CROSS JOIN: SQLite keeps this join order (the venue's events first); others plan freely.
    const from = `(SELECT DISTINCT x.event_id ${driver.sql}) v CROSS JOIN posts p`
    source = counted = { from, fromParams: [driver.list], where: new Where().add('p.id = v.event_id').and(filters(probe)) }
  } else {
    source = { from: 'posts p', where: filters(probe) }
    counted = (wide ? null : dayCount(q, words)) ?? { from: 'posts p', where: filters(inList) }
    if (unseries) counted = countWithoutLaterMembers(db, q, unseries)
  }
  if (plan && !plan.ordered) counted = plan.count ?? joined(plan)

  const index = await textIndex(db, words, q)
  if (index !== null) {
    // When the index alone decides every word and the other filters are columns of event_keys
    // (SQLite), the count may test them there.
    const keysOnly = index.exact && [q.unpublishedAuthor, q.featured, q.parentId].every((v) => v === undefined)
    // ... and when they are language, statuses and a plain window, the index's key ranges.
    const windowed =
      keysOnly &&
      index.windowed !== null &&
      !linked.length &&
      !terms.length &&
      q.startGte !== undefined &&
      q.endLte !== undefined &&
      [q.include, q.startGt, q.startLt, q.endGt, q.endLt, q.firstOfSeries].every((v) => v === undefined)
    return indexedSearchPage(db, q, index, {
      all: w,
      keyed: keysOnly && index.keys ? keyed : null,
      windowed: windowed ? { language: q.language, statuses: q.statuses, startGte: q.startGte!, endLte: q.endLte! } : null,
      probeLinks: (where) => {
        for (const r of [...linked, ...terms]) probe(where, r)
      },
      source,
      order,
      pageOrder,
      grouped: q.firstOfSeries === true && !seriesByColumns,
    })
  }
  if (q.firstOfSeries && !seriesByColumns) return firstOfSeriesPage(db, source, pageOrder, q)
  const { rows, total } = await page(db, selectOf(db), source, pageOrder, q.offset, q.limit, [], counted)
  return { items: (await toPosts(db, rows)) as EventRecord[], total }
}

/**
 * An index of the events' text that finds the matches of every search word: SQLite's event_fts
 * (or post_fts), PostgreSQL's event_words. Null from textIndex: the list tests each row instead.
 */
interface TextIndex {
  /** Whether the index alone decides every word (else the rows still test some). */
  exact: boolean
  /** SQLite: the narrow event_keys rows can stand in for posts in a count. */
  keys: boolean
  /** The classes (language, status) of the list's events, read once per search; null when the index has none. */
  classes(q: EventListQuery): Promise<number[] | null>
  /** The matches as `(...) m` with `m.id`, narrowed to the list's start bounds where it can. */
  matches(classes: number[] | null, q: EventListQuery): { sql: string; params: SqlParam[] }
  /** The exact count of a list filtered by language, statuses and a window only; null when it cannot answer. */
  windowed: ((s: Omit<WindowedSearch, 'match'>, classes: number[]) => Promise<WindowedCount | null>) | null
}

async function textIndex(db: Db, words: string[], q: EventListQuery): Promise<TextIndex | null> {
  if (!words.length) return null
  if (db.eventWords.state === 'read') {
    const found = await wordMatch(db, words, q.language, q.statuses)
    if (found === null) return null
    const { ids, classes } = found
    return {
      exact: true,
      keys: false,
      classes: () => Promise.resolve(classes),
      matches: (classes, q) => wordMatches(ids, classes ?? [], wordRange(q)),
      windowed: (s, classes) => windowedWordCount(db, s, ids, classes),
    }
  }
  const match = db.fts || db.eventFts ? ftsQuery(words) : null
  if (match === null) return null
  const range = (classes: number[] | null, q: EventListQuery) => (classes ? startRange(classes, q) : null)
  return {
    exact: words.every(ftsExact),
    keys: true,
    classes: (q) => (db.eventFts ? listedClasses(db, q.language, q.statuses) : Promise.resolve(null)),
    matches: (classes, q) => {
      const r = range(classes, q)
      return { sql: eventMatches(db.eventFts, r), params: [match, ...(r?.params ?? [])] }
    },
    windowed: db.eventFts ? (s, classes) => windowedSearchCount(db, { ...s, match }, classes) : null,
  }
}

/** What the indexed search path needs of the list listEvents builds. */
interface IndexedSearch {
  /** Every filter of the list (alias p), the exact substring test included. */
  all: Where
  /** The list's language, statuses, dates and include list, when they are all it filters on besides links; else null. */
  keyed: Where | null
  /** Adds the list's link and term filters as probes on `p.id`. */
  probeLinks: (where: Where) => void
  /** The list's own walk (date window or link range), for matches dense enough to stop early on it. */
  source: Source
  order: string
  pageOrder: string
  /** hide_subsequent_recurrences that needs the matches grouped by series. */
  grouped: boolean
  /** The list filters only on these besides the words: its count may come from the index's key ranges. */
  windowed: Omit<WindowedSearch, 'match'> | null
}

/**
 * A search page read through a text index: the matches drive the count (each matching post by
 * primary key, or its narrow event_keys row when that holds every filter: several times cheaper
 * per match, or the index's key ranges alone). A few matches also drive the page (sorted); many
 * are dense enough that walking the list's own order and testing each row stops sooner.
 */
async function indexedSearchPage(db: Db, q: EventListQuery, index: TextIndex, s: IndexedSearch): Promise<Page<EventRecord>> {
  const classes = await index.classes(q)
  const m = index.matches(classes, q)
  const fromMatches = (posts: string) => `${m.sql} CROSS JOIN ${posts}`
  const fromParams = m.params
  const all = new Where().add('p.id = m.id').and(s.all)
  s.probeLinks(all)
  const matched: Source = { from: fromMatches('posts p'), fromParams, where: all }
  if (s.grouped) return firstOfSeriesPage(db, matched, s.order, q)
  let keys: Source | undefined
  if (s.keyed) {
    const where = new Where().add('p.id = m.id').and(s.keyed)
    s.probeLinks(where)
    keys = { from: fromMatches(`${EVENT_KEYS_TABLE} p`), fromParams, where }
  }
  // The key ranges when the list allows (null: they cannot answer exactly), else a lookup per match.
  const fast = s.windowed && index.windowed && classes ? await index.windowed(s.windowed, classes) : null
  const total = fast?.total ?? (await countMatches(db, keys ?? matched))
  // A page of few matches sorted on event_keys reads only the window's rowid range, too.
  if (keys && fast?.matches)
    keys = { ...keys, from: `${fast.matches.sql} CROSS JOIN ${EVENT_KEYS_TABLE} p`, fromParams: fast.matches.params }
  if (q.offset >= total) return { items: [], total }
  const sparse = total <= FEW_MATCHES || q.offset + q.limit > total / DENSE_STRIDE
  const select = selectOf(db)
  let rows: Row[]
  if (sparse && keys && q.orderBy === 'start') {
    // The matches sorted on their narrow rows, then only the page's posts read.
    rows = await db.query(
      `SELECT ${select} FROM (SELECT p.id FROM ${keys.from} WHERE ${keys.where} ORDER BY ${s.order} LIMIT ? OFFSET ?) k
       CROSS JOIN posts p WHERE p.id = k.id ORDER BY ${s.order}`,
      [...(keys.fromParams ?? []), ...keys.where.params, q.limit, q.offset],
    )
  } else {
    const chosen = sparse ? matched : s.source
    rows = await db.query(
      `SELECT ${select} FROM ${chosen.from} WHERE ${chosen.where} ORDER BY ${sparse ? s.order : s.pageOrder} LIMIT ? OFFSET ?`,
      [...(chosen.fromParams ?? []), ...chosen.where.params, q.limit, q.offset],
    )
  }
  return { items: (await toPosts(db, rows)) as EventRecord[], total }
}

async function countMatches(db: Db, counting: Source): Promise<number> {
  const counted = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${counting.from} WHERE ${counting.where}`, [
    ...(counting.fromParams ?? []),
    ...counting.where.params,
  ])
  return toInt(counted[0]?.n ?? 0)
}

/**
 * How a search page is read once the count is known. Up to FEW_MATCHES matches, or for a page
 * deep into them, the matches are sorted (cost: the matches). Otherwise the page walks the
 * list's own order (date window, or a link range) testing each row, and stops at
 * `offset + limit` hits: it reads about (offset + limit) x rows / matches rows of the list, so
 * with `offset + limit <= matches / DENSE_STRIDE` at most 1/DENSE_STRIDE of them, and a handful
 * when matches are common.
 */
const FEW_MATCHES = 2000
const DENSE_STRIDE = 50

export async function listLinked<T extends 'venue' | 'organizer'>(db: Db, type: T, q: LinkedListQuery): Promise<Page<RecordOf<T>>> {
  const d = db.dialect
  const w = new Where()
  w.add('p.type = ?', type).add('p.language = ?', q.language).oneOf('p.status', q.statuses)
  if (q.unpublishedAuthor !== undefined) w.add(`(p.status = 'publish' OR p.author = ?)`, q.unpublishedAuthor)
  if (q.geo) {
    if (type !== 'venue') return { items: [], total: 0 }
    if (q.geo.near) {
      // Same visibility as the list itself, so the id list holds no more than the list can show.
      const readable = new Where().add('g.language = ?', q.language).oneOf('g.status', q.statuses)
      if (q.unpublishedAuthor !== undefined) readable.add(`(g.status = 'publish' OR g.author = ?)`, q.unpublishedAuthor)
      const ids = await locatedVenues(db, q.geo.near, readable)
      if (!ids.length) return { items: [], total: 0 }
      w.add(d.inList('p.id', 'int'), d.list(ids))
    } else w.add(LOCATED('p'))
  }
  // One searched field must contain every fragment. An empty fragment is in every string, so it
  // filters nothing (and a record has no rows for its empty fields).
  const fragments = [...new Set(q.searchFragments ?? [])].filter(Boolean)
  if (fragments.length) {
    // The index narrows to posts holding every fragment somewhere; post_search decides per field.
    addSearchPrefilter(db, w, fragments)
    w.add(
      `EXISTS (SELECT 1 FROM post_search s WHERE s.post_id = p.id AND ${fragments.map(() => d.contains('s.value')).join(' AND ')})`,
      ...fragments,
    )
  }
  if (q.include) w.add(d.inList('p.id', 'int'), d.list(q.include))
  if (q.idAfter !== undefined) w.add('p.id > ?', q.idAfter)
  if (q.eventId !== undefined) w.add('p.id IN (SELECT l.linked_id FROM event_links l WHERE l.event_id = ? AND l.kind = ?)', q.eventId, type)
  if (q.hasEvents !== undefined) {
    w.add(
      `${q.hasEvents ? '' : 'NOT '}EXISTS (SELECT 1 FROM event_links l JOIN posts e ON e.id = l.event_id
        WHERE l.linked_id = p.id AND l.kind = ? AND e.status <> 'draft' AND e.status <> 'pending')`,
      type,
    )
  }
  if (q.upcomingAfterUtc !== undefined) {
    const statuses = new Where().oneOf('e.status', q.upcomingStatuses ?? ['publish'])
    w.add(
      `EXISTS (SELECT 1 FROM event_links l JOIN posts e ON e.id = l.event_id
        WHERE l.linked_id = p.id AND l.kind = ? AND e.start_date_utc >= ? AND ${statuses} AND e.hide_from_listings = FALSE)`,
      type,
      q.upcomingAfterUtc,
      ...statuses.params,
    )
  }
  const order = q.idAfter !== undefined ? 'p.id' : 'p.post_date_utc DESC, p.id DESC'
  const { rows, total } = await page(db, selectOf(db), { from: 'posts p', where: w }, order, q.offset, q.limit)
  return { items: (await toPosts(db, rows)) as RecordOf<T>[], total }
}

export async function findLinkedDuplicate<T extends 'venue' | 'organizer'>(
  db: Db,
  type: T,
  language: string,
  fields: Partial<Record<string, string>>,
): Promise<RecordOf<T> | null> {
  const w = new Where()
  w.add('p.type = ?', type).add('p.language = ?', language).add(`p.status <> 'trash'`)
  // The memory backend compares `(record[key] ?? '') === (value ?? '')`: text fields compare as
  // text, a missing or null field equals '', and a number or boolean never equals a string.
  for (const [key, value] of Object.entries(fields)) {
    const want = value ?? ''
    const spec = POST_FIELDS[type].find((s) => s.field === key)
    if (key === 'type') {
      if (want !== type) return null
    } else if (!spec) {
      if (key === 'id' || want !== '') return null
    } else if (spec.codec === 'text' || spec.codec === 'nullableText') {
      w.add(`COALESCE(p.${spec.column}, '') = ?`, want)
    } else if (spec.codec === 'real' || spec.codec === 'json') {
      if (want !== '') return null
      w.add(`p.${spec.column} IS NULL`)
    } else return null
  }
  const rows = await db.query(`SELECT ${selectOf(db)} FROM posts p WHERE ${w} ORDER BY p.id LIMIT 1`, w.params)
  return ((await toPosts(db, rows))[0] as RecordOf<T> | undefined) ?? null
}

// By id: the order in which the memory backend lets a later record of the same language win.
const TRANSLATIONS = {
  posts: perDialect(
    (d) =>
      `SELECT id, language, translation_group FROM posts WHERE status <> 'trash' AND ${d.inList('translation_group', 'int')} ORDER BY id`,
  ),
  terms: perDialect((d) => `SELECT id, language, translation_group FROM terms WHERE ${d.inList('translation_group', 'int')} ORDER BY id`),
}

export async function getTranslations(
  db: Db,
  groups: readonly number[],
  of: TranslationKind,
): Promise<Map<number, Record<string, number>>> {
  const out = new Map<number, Record<string, number>>()
  const unique = [...new Set(groups)]
  if (!unique.length) return out
  const d = db.dialect
  const list = d.list(unique)
  const rows = await db.query<{ id: unknown; language: string; translation_group: unknown }>(TRANSLATIONS[of](d), [list])
  for (const r of rows) {
    const group = toInt(r.translation_group)
    const entry = out.get(group) ?? {}
    entry[String(r.language)] = toInt(r.id)
    out.set(group, entry)
  }
  return out
}

/**
 * A term's count: published events of the term's language carrying it (an event of another
 * language that lists the term does not count; an id listed twice counts twice, as in memory).
 * The writes keep it in term_counts (see `liveTermCount` for its definition): one primary-key
 * lookup, whatever the number of events.
 */
const TERM_COUNT = `COALESCE((SELECT c.n FROM term_counts c WHERE c.term_id = t.id), 0)`
const TERM_WITH_COUNT = `${TERM_SELECT}, ${TERM_COUNT} AS cnt`

const TERMS_BY_IDS = perDialect((d) => `SELECT ${TERM_WITH_COUNT} FROM terms t WHERE ${d.inList('t.id', 'int')}`)

const rowToTermWithCount = (r: Row): TermWithCount => ({ ...rowToTerm(r), count: toInt(r.cnt) })

/** With the record cache: ids, revisions and counts first, then the terms it does not hold. */
const TERM_KEYS_BY_IDS = perDialect((d) => `SELECT t.id, t.revision, ${TERM_COUNT} AS cnt FROM terms t WHERE ${d.inList('t.id', 'int')}`)
const TERM_ROWS_BY_IDS = perDialect((d) => `SELECT ${TERM_SELECT}, t.revision FROM terms t WHERE ${d.inList('t.id', 'int')}`)

export async function getTerms(db: Db, ids: readonly number[]): Promise<TermWithCount[]> {
  const unique = [...new Set(ids)]
  if (!unique.length) return []
  const d = db.dialect
  const cache = db.records
  if (!cache) {
    const rows = await db.query(TERMS_BY_IDS(d), [d.list(unique)])
    const byId = new Map(rows.map((r) => [toInt(r.id), rowToTermWithCount(r)]))
    return unique.flatMap((id) => byId.get(id) ?? [])
  }
  // Copying 18 terms' strings out of SQLite cost more than the rest of the statement.
  const keys = new Map<number, { revision: number; count: number }>()
  for (const r of await db.query(TERM_KEYS_BY_IDS(d), [d.list(unique)])) {
    keys.set(toInt(r.id), { revision: toInt(r.revision), count: toInt(r.cnt) })
  }
  const held = new Map<number, TermRecord>()
  const missing: number[] = []
  for (const [id, key] of keys) {
    const term = cache.term(id, key.revision)
    if (term) held.set(id, term)
    else missing.push(id)
  }
  if (missing.length) {
    // Same snapshot as the keys: these rows are at the revisions the keys named.
    for (const r of await db.query(TERM_ROWS_BY_IDS(d), [d.list(missing)])) {
      const term = rowToTerm(r)
      cache.setTerm(term, toInt(r.revision))
      held.set(term.id, term)
    }
  }
  return unique.flatMap((id) => {
    const term = held.get(id)
    return term ? [{ ...term, count: keys.get(id)!.count }] : []
  })
}

export async function getTerm(db: Db, id: number): Promise<TermWithCount | null> {
  const rows = await db.query(`SELECT ${TERM_WITH_COUNT} FROM terms t WHERE t.id = ?`, [id])
  return rows[0] ? rowToTermWithCount(rows[0]) : null
}

export async function getTermRecord(db: Db, id: number): Promise<TermRecord | null> {
  const rows = await db.query(`SELECT ${TERM_SELECT} FROM terms t WHERE t.id = ?`, [id])
  return rows[0] ? rowToTerm(rows[0]) : null
}

export async function findTerm(
  db: Db,
  taxonomy: Taxonomy,
  language: string,
  by: { slug?: string; name?: string; parent?: number },
): Promise<TermRecord | null> {
  const scope = `SELECT ${TERM_SELECT} FROM terms t WHERE t.taxonomy = ? AND t.language = ?`
  if (by.slug !== undefined) {
    const rows = await db.query(`${scope} AND t.slug = ? ORDER BY t.id LIMIT 1`, [taxonomy, language, by.slug])
    if (rows[0]) return rowToTerm(rows[0])
  }
  if (by.name !== undefined) {
    const parent = by.parent === undefined ? '' : ' AND t.parent = ?'
    const params = [taxonomy, language, by.name.toLowerCase(), ...(by.parent === undefined ? [] : [by.parent])]
    const rows = await db.query(`${scope} AND t.name_lower = ?${parent} ORDER BY t.id LIMIT 1`, params)
    if (rows[0]) return rowToTerm(rows[0])
  }
  return null
}

/** Breadth-first, one indexed query per level (no recursive CTE: not every PostgreSQL-compatible engine has them). */
export async function termDescendants(db: Db, ids: readonly number[]): Promise<number[]> {
  const d = db.dialect
  const start = new Set(ids)
  const found = new Set<number>()
  let frontier = [...start]
  while (frontier.length) {
    const rows = await db.query<{ id: unknown }>(`SELECT id FROM terms WHERE ${d.inList('parent', 'int')} ORDER BY id`, [d.list(frontier)])
    const next: number[] = []
    for (const r of rows) {
      const id = toInt(r.id)
      if (found.has(id) || start.has(id)) continue
      found.add(id)
      next.push(id)
    }
    frontier = next
  }
  return [...found]
}

export async function listTerms(db: Db, q: TermListQuery): Promise<Page<TermWithCount>> {
  const d = db.dialect
  const w = new Where()
  w.add('t.taxonomy = ?', q.taxonomy).add('t.language = ?', q.language)
  if (q.include) w.add(d.inList('t.id', 'int'), d.list(q.include))
  if (q.exclude) w.add(`NOT (${d.inList('t.id', 'int')})`, d.list(q.exclude))
  if (q.idAfter !== undefined) w.add('t.id > ?', q.idAfter)
  if (q.parent !== undefined) w.add('t.parent = ?', q.parent)
  if (q.slug !== undefined) w.add('t.slug = ?', q.slug)
  if (q.eventId !== undefined) w.add('t.id IN (SELECT et.term_id FROM event_terms et WHERE et.event_id = ?)', q.eventId)
  const search = q.search?.toLowerCase()
  if (search) w.add(`(${d.contains('t.name_lower')} OR ${d.contains('t.slug')})`, search, search)
  if (q.hideEmpty) w.add(`${TERM_COUNT} > 0`)
  const extra: SqlParam[] = []
  let key: string
  switch (q.orderBy) {
    case 'id':
    case 'none':
      key = 't.id'
      break
    case 'count':
      key = 'cnt'
      break
    case 'slug':
      key = 't.slug'
      break
    case 'description':
      key = 't.description'
      break
    case 'parent':
      key = 't.parent'
      break
    case 'include':
      if (q.include) {
        key = d.listIndex('t.id')
        extra.push(d.list(q.include))
      } else key = 't.id'
      break
    default:
      key = 't.name_lower'
  }
  const dir = q.order === 'desc' ? 'DESC' : 'ASC'
  const { rows, total } = await page(
    db,
    TERM_WITH_COUNT,
    { from: 'terms t', where: w },
    `${key} ${dir}, t.id ${dir}`,
    q.offset,
    q.limit,
    extra,
  )
  return { items: rows.map(rowToTermWithCount), total }
}

export async function trashedPosts(db: Db, modifiedBeforeUtc: string, limit: number): Promise<number[]> {
  const rows = await db.query<{ id: unknown }>(`SELECT id FROM posts WHERE status = 'trash' AND modified_utc < ? ORDER BY id LIMIT ?`, [
    modifiedBeforeUtc,
    limit,
  ])
  return rows.map((r) => toInt(r.id))
}

export async function seriesMembers(db: Db, seriesId: number): Promise<EventRecord[]> {
  if (seriesId <= 0) return []
  const rows = await db.query(
    `SELECT ${selectOf(db)} FROM posts p WHERE p.series_id = ? AND p.type = 'event' ORDER BY p.start_date, p.id`,
    [seriesId],
  )
  return (await toPosts(db, rows)) as EventRecord[]
}
