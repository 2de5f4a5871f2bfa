/**
 * The event list's planner: one page and its total for an EventListQuery, in the shape the
 * filters call for (a link range of event_filters, a driving venue, the text index of a search,
 * a count of event_day_counts for a plain window, series' first members...). Every shape selects
 * the same rows as the memory backend's loop; storage-sql-parity.test.ts compares them.
 */
import type { EventListQuery, EventRecord, Page } from '../types.js'
import { Where, type Db } from './db.js'
import type { SqlParam } from './driver.js'
import { firstOfEachSeries } from '../first-of-series.js'
import { filteredPlan, type FilteredPlan } from './event-filters.js'
import { eventMatches, listedClasses, startRange, windowedSearchCount, type WindowedCount, type WindowedSearch } from './event-search.js'
import { wordMatch, wordMatches, wordRange, windowedWordCount } from './event-words.js'
import { EVENT_KEYS_TABLE, addSearch, ftsExact, ftsQuery } from './search-index.js'
import { toInt, type Row } from './records.js'
import { page, type CountQuery, type Source } from './paging.js'
import { locatedVenues, selectOf, toPosts } from './read.js'
import { customFieldRefs } from './custom-values.js'
import { searchWords } from '../search-fields.js'

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
      q.customFields,
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
  if (q.eventStatuses) s.oneOf('s.event_status', q.eventStatuses)
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
  // custom_fields[key]=value: a key with no matching row empties the list; a rare one drives it.
  const custom = q.customFields?.length ? await customFieldRefs(db, q.customFields) : { refs: [], driving: false }
  if (!custom) return { items: [], total: 0 }
  const { wide } = fenced
  q = fenced.q
  // The filters on columns SQLite's event_keys also holds: a search count may test them there
  // instead of on each matching post (see below).
  const unlisted = new Where().add('p.language = ?', q.language).oneOf('p.status', q.statuses)
  unlisted.dateBounds('p', q)
  if (q.idAfter !== undefined) unlisted.add('p.id > ?', q.idAfter)
  const keyed = new Where().and(unlisted)
  if (q.include) keyed.add(d.inList('p.id', 'int'), d.list(q.include))
  /** The filters on the post's own columns, over `k` (the keyed ones). */
  const onPosts = (k: Where) => {
    // Literal 'event' and FALSE (not parameters) so the planners can match the partial index.
    const w = new Where().add(`p.type = 'event'`).add('p.hide_from_listings = FALSE').and(k)
    if (q.unpublishedAuthor !== undefined) w.add(`(p.status = 'publish' OR p.author = ?)`, q.unpublishedAuthor)
    if (q.featured !== undefined) w.add(q.featured ? 'p.featured = TRUE' : 'p.featured = FALSE')
    if (q.eventStatuses) w.oneOf('p.event_status', q.eventStatuses)
    if (q.parentId !== undefined) w.add('p.parent_id = ?', q.parentId)
    return w
  }
  const w = onPosts(keyed)
  // hide_subsequent_recurrences with column filters only: each series' first is decided per row
  // (an index probe on posts_series), so a page still stops early; with link, term, search or
  // include filters the matches are read and grouped instead (firstOfSeriesPage).
  const seriesByColumns =
    q.firstOfSeries === true &&
    !wide &&
    [q.venueIds, q.organizerIds, q.categoryIds, q.tagIds, q.include, q.customFields].every((v) => v === undefined) &&
    !(q.search ?? '').trim()
  // The filters before that one: a count subtracts the hidden occurrences from their total.
  const unseries = seriesByColumns ? new Where().and(w) : null
  if (seriesByColumns) {
    const earlier = earlierMember(q)
    w.add(`(p.series_id = 0 OR NOT ${earlier.sql})`, ...earlier.params)
  }
  // Every word must be a substring of the lower-cased title + description + excerpt.
  const words = q.search ? searchWords(q.search) : []
  addSearch(db, w, words)
  /**
   * `w` without the id list: where the list drives (below), testing each row against it again
   * is waste; on PostgreSQL a prepared statement's `= ANY(list)` is a scan of the list per row
   * (1,000 ids: 5 ms of a sync page).
   */
  const withoutIdList = () => {
    const f = onPosts(unlisted)
    addSearch(db, f, words)
    return f
  }
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
  // - A custom field value (event_custom_values) may be either: counted first (custom-values.ts),
  //   the rarest key drives when it has few rows, the others are probed.
  type Ref = { params: SqlParam[]; sql: string; probeSql?: string }
  const refs = (table: 'event_terms' | 'event_links', column: string, kind: string, ids: number[] | undefined): Ref[] =>
    ids ? [{ params: [d.list(ids)], sql: `FROM ${table} x WHERE x.kind = '${kind}' AND ${d.inList(`x.${column}`, 'int')}` }] : []
  // Probing a long venue list per row: `+` keeps SQLite from walking the list through
  // event_links_linked for every row; it reads the event's own link (primary key) and looks its
  // venue up in the list, materialized once.
  const wideRef = (ids: number[] | undefined): Ref[] =>
    refs('event_links', 'linked_id', 'venue', ids).map((r) => ({
      ...r,
      probeSql: `FROM event_links x WHERE x.event_id = p.id AND x.kind = 'venue' AND ${d.inList('+x.linked_id', 'int')}`,
    }))
  const [rarest, ...commoner] = custom.refs
  // An id list (`include`; a sync's changed events) drives: each post by primary key, instead of
  // SQLite walking an index of the whole language and status for the few ids in the list.
  const idRows = d.name === 'sqlite' ? 'SELECT value AS event_id FROM json_each(?)' : 'SELECT i AS event_id FROM unnest(?::bigint[]) AS i'
  const included: Ref[] = q.include ? [{ params: [d.list(q.include)], sql: `FROM (${idRows}) x WHERE TRUE` }] : []
  const linked = [
    ...included,
    ...(custom.driving ? [rarest!] : []),
    ...refs('event_links', 'linked_id', 'venue', q.venueIds),
    ...refs('event_links', 'linked_id', 'organizer', q.organizerIds),
  ]
  const terms = [
    ...refs('event_terms', 'term_id', 'category', q.categoryIds),
    ...refs('event_terms', 'term_id', 'tag', q.tagIds),
    ...wideRef(wide),
    ...(custom.driving ? commoner : custom.refs),
  ]
  const inList = (where: Where, r: Ref) => where.add(`p.id IN (SELECT x.event_id ${r.sql})`, ...r.params)
  const probe = (where: Where, r: Ref) =>
    where.add(r.probeSql ? `EXISTS (SELECT 1 ${r.probeSql})` : `EXISTS (SELECT 1 ${r.sql} AND x.event_id = p.id)`, ...r.params)
  const [driver, ...others] = linked
  const filters = (termFilter: typeof inList, base = w) => {
    const f = new Where().and(base)
    for (const r of others) inList(f, r)
    for (const r of terms) termFilter(f, r)
    return f
  }
  let source: Source
  let counted: Source | CountQuery
  let pageOrder = order
  // A long geofence venue list is not a link filter event_filters knows: it is probed on the
  // range's rows like a post filter, and the count must then look at them too.
  // Custom field values are no post filter: the plan carries them (event_filters' custom rows,
  // or a probe of event_custom_values by the range's event id).
  const postFilters =
    [q.unpublishedAuthor, q.featured, q.eventStatuses, q.parentId, q.include, wide].some((v) => v !== undefined) || words.length > 0
  // A driving custom field value is rarer than a link's range is worth walking. A common one
  // drives event_filters' plan when no link with one id does (its range, its day counters).
  const plan = custom.driving
    ? null
    : filteredPlan(
        db,
        q,
        postFilters,
        custom.refs.map((r) => r.filter),
      )
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
    const base = driver === included[0] ? withoutIdList() : w
    source = counted = { from, fromParams: driver.params, where: new Where().add('p.id = v.event_id').and(filters(probe, base)) }
  } else {
    source = { from: 'posts p', where: filters(probe) }
    counted = (wide ? null : dayCount(q, words)) ?? { from: 'posts p', where: filters(inList) }
    if (unseries) counted = countWithoutLaterMembers(db, q, unseries)
  }
  if (plan && !plan.ordered) {
    counted = plan.count ?? joined(plan)
    // Several statuses (an editor's list) or values, and nothing else on the posts: the first
    // offset + limit rows of each status's range, merged, instead of sorting every match of the
    // window (PostgreSQL at 1M events, 5 statuses, a value on 30% of them: 420 ms).
    if (!postFilters && !q.firstOfSeries) {
      const heads = plan.heads(q.offset + q.limit)
      source = { from: `${heads.from} CROSS JOIN posts p`, fromParams: heads.params, where: new Where().add('p.id = f.event_id').and(w) }
      pageOrder = plan.order
    }
  }

  const index = await textIndex(db, words, q)
  if (index !== null) {
    // When the index alone decides every word and the other filters are columns of event_keys
    // (SQLite), the count may test them there.
    const keysOnly = index.exact && [q.unpublishedAuthor, q.featured, q.eventStatuses, q.parentId].every((v) => v === undefined)
    // (custom field filters are among `linked` and `terms`: probed like links, never windowed)
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
  const { rows, total } = await page(db, selectOf(db), source, pageOrder, q.offset, q.limit, [], q.uncounted ? null : counted)
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
