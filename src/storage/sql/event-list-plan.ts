/**
 * The event list's planner: for an EventListQuery, the shape of its page and count (a link range
 * of event_filters, a driving venue or id list, the text index of a search, a count of
 * event_day_counts for a plain window, series' first members...) as statements with their
 * parameters and what runs after them. Pure: it reads nothing. What a plan needs read first (the
 * venues inside a geofence, how common each custom field value is, a search's text index) is
 * read by event-list.ts and handed in as `PlanInputs`; event-list.ts also runs the plan. Every
 * shape selects the same rows as the memory backend's loop; storage-sql-parity.test.ts compares
 * them, test/unit/storage/event-list-plan.test.ts the plans themselves.
 */
import { searchWords } from '../search-fields.js'
import type { EventListQuery } from '../types.js'
import { Where, type Db } from './db.js'
import type { Dialect } from './dialect.js'
import type { SqlParam } from './driver.js'
import { filteredPlan, type FilteredPlan } from './event-filters.js'
import type { WindowedCount, WindowedSearch } from './event-search.js'
import { addSearch } from './search-index.js'
import { pageStatements, type CountQuery, type Source, type Statement } from './paging.js'
import { selectOf } from './read.js'
import type { CustomRef } from './custom-values.js'

/** What the planner looks at of a connection: its dialect and whether it reads through the record cache. */
export type PlanDb = Pick<Db, 'dialect' | 'records'>

/**
 * An index of the events' text that finds the matches of every search word: SQLite's event_fts
 * (or post_fts), PostgreSQL's event_words. Built by event-list.ts (finding PostgreSQL's tokens
 * reads them); a list without one tests each row instead.
 */
export interface TextIndex {
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

/** What the indexed search path needs of the list the planner builds. */
export interface IndexedSearch {
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

/** What was read before planning. */
export interface PlanInputs {
  /** The query, a geofence already turned into its venues (`venueIds`). */
  q: EventListQuery
  /** A geofence's venues when too many to drive the list: probed per row instead. */
  wide?: number[]
  /** The custom field filters, rarest first; `driving`: the first is rare enough to drive. */
  custom: { refs: CustomRef[]; driving: boolean }
  /** The search's text index, or null (no search words, or no index that can answer). */
  index: TextIndex | null
}

/** How the list is read, and what happens to the rows. */
export type EventListPlan =
  /** One page statement and its count (null: the caller needs none); the rows become records. */
  | { kind: 'page'; page: Statement; count: Statement | null }
  /**
   * hide_subsequent_recurrences over filters a row cannot decide alone: every match's id, series
   * and start in list order; then the first of each series kept, the page cut from them and its
   * posts read by id.
   */
  | { kind: 'firstOfSeries'; matches: Statement }
  /** A search through a text index: the index's matches drive the count, and the page when few. */
  | { kind: 'search'; index: TextIndex; search: IndexedSearch }

/** A search's words, each a substring every listed event's text must contain: lower-cased, unique. */
export function listWords(q: EventListQuery): string[] {
  return q.search ? searchWords(q.search) : []
}

export function planEventList(db: PlanDb, inputs: PlanInputs): EventListPlan {
  const { q, index } = inputs
  const words = listWords(q)
  const posts = postFilters(db, q, words, inputs.wide)
  const links = linkFilters(db.dialect, q, inputs.custom, inputs.wide)
  const shape = chooseShape(db, inputs, words, posts, links)
  if (index !== null) return { kind: 'search', index, search: searchOf(q, index, posts, links, shape) }
  if (q.firstOfSeries && !posts.unseries) return { kind: 'firstOfSeries', matches: matchesStatement(shape.source, shape.pageOrder) }
  const counted = q.uncounted ? null : shape.counted
  const { read, count } = pageStatements({
    select: selectOf(db),
    source: shape.source,
    orderBy: shape.pageOrder,
    offset: q.offset,
    limit: q.limit,
    counted,
  })
  return { kind: 'page', page: read, count }
}

/** Every match's id, series and start, in `order`: what the first of each series is chosen from. */
export function matchesStatement(s: Source, order: string): Statement {
  return {
    sql: `SELECT p.id, p.series_id, p.start_date FROM ${s.from} WHERE ${s.where} ORDER BY ${order}`,
    params: [...(s.fromParams ?? []), ...s.where.params],
  }
}

const listOrder = (q: EventListQuery) =>
  q.orderBy === 'date' ? 'p.post_date_utc, p.id' : q.orderBy === 'id' ? 'p.id' : 'p.start_date, p.id'

/** The list's filters on the post's own columns (alias p), in the forms the shapes need. */
interface PostFilters {
  /** Language, statuses, dates and `idAfter`: the filters SQLite's event_keys also holds. */
  unlisted: Where
  /** `unlisted` and the include list: what a search count may test on event_keys instead of posts. */
  keyed: Where
  /** Every filter on the post's columns and the search words. */
  all: Where
  /** `all` without the include list, for where that list drives (see `linkFilters`). */
  withoutIdList: () => Where
  /** hide_subsequent_recurrences decided per row: the filters before it (a count subtracts the hidden); else null. */
  unseries: Where | null
}

function postFilters(db: PlanDb, q: EventListQuery, words: string[], wide: number[] | undefined): PostFilters {
  const d = db.dialect
  const unlisted = new Where().add('p.language = ?', q.language).oneOf('p.status', q.statuses)
  unlisted.dateBounds('p', q)
  if (q.idAfter !== undefined) unlisted.add('p.id > ?', q.idAfter)
  const keyed = new Where().and(unlisted)
  if (q.include) keyed.add(d.inList('p.id', 'int'), d.list(q.include))
  const all = onPosts(q, keyed)
  // hide_subsequent_recurrences with column filters only: each series' first is decided per row
  // (an index probe on posts_series), so a page still stops early; with link, term, search or
  // include filters the matches are read and grouped instead (the firstOfSeries plan).
  const seriesByColumns =
    q.firstOfSeries === true &&
    !wide &&
    [q.venueIds, q.organizerIds, q.categoryIds, q.tagIds, q.include, q.customFields].every((v) => v === undefined) &&
    !(q.search ?? '').trim()
  const unseries = seriesByColumns ? new Where().and(all) : null
  if (seriesByColumns) {
    const earlier = earlierMember(q)
    all.add(`(p.series_id = 0 OR NOT ${earlier.sql})`, ...earlier.params)
  }
  addSearch(db, all, words)
  /**
   * Where the id list drives, testing each row against it again is waste; on PostgreSQL a
   * prepared statement's `= ANY(list)` is a scan of the list per row (1,000 ids: 5 ms of a sync page).
   */
  const withoutIdList = () => {
    const f = onPosts(q, unlisted)
    addSearch(db, f, words)
    return f
  }
  return { unlisted, keyed, all, withoutIdList, unseries }
}

/** The filters on the post's own columns, over `k` (the keyed ones). */
function onPosts(q: EventListQuery, k: Where): Where {
  // Literal 'event' and FALSE (not parameters) so the planners can match the partial index.
  const w = new Where().add(`p.type = 'event'`).add('p.hide_from_listings = FALSE').and(k)
  if (q.unpublishedAuthor !== undefined) w.add(`(p.status = 'publish' OR p.author = ?)`, q.unpublishedAuthor)
  if (q.featured !== undefined) w.add(q.featured ? 'p.featured = TRUE' : 'p.featured = FALSE')
  if (q.eventStatuses) w.oneOf('p.event_status', q.eventStatuses)
  if (q.parentId !== undefined) w.add('p.parent_id = ?', q.parentId)
  return w
}

/**
 * hide_subsequent_recurrences when every filter is a column of posts: "an earlier member of p's
 * series passes the same column filters" (p a series member) is what makes p a subsequent
 * occurrence, which the list hides.
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

/** A filter on the event's links, terms or values: the rows `x` (`x.event_id`) that satisfy it. */
type Ref = { params: SqlParam[]; sql: string; probeSql?: string }

/**
 * The link filters, shaped for an engine that plans without statistics (SQLite); PostgreSQL
 * plans each form from its statistics either way. All forms select the same rows:
 * - A venue or organizer has a small share of the events: the first such filter drives the
 *   query (its DISTINCT event ids, then each post by primary key), so a rare venue costs as
 *   many lookups as it has events, not a walk through the whole date window.
 * - A category or tag may be on most events: probed per candidate row (EXISTS), so a page stops
 *   after `limit` matches instead of first collecting every event of the term; a count without
 *   a driving filter instead collects them once (IN), cheaper than probing every event of the window.
 * - A custom field value (event_custom_values) may be either: counted first (custom-values.ts),
 *   the rarest key drives when it has few rows, the others are probed.
 */
interface LinkFilters {
  /** The include list as a driving filter, when there is one. */
  included: Ref | undefined
  /** Filters that may drive, the first of them driving. */
  linked: Ref[]
  /** Filters probed per row. */
  terms: Ref[]
  /** A geofence's long venue list, probed per row. */
  wide: Ref[]
}

function linkFilters(d: Dialect, q: EventListQuery, custom: PlanInputs['custom'], wide: number[] | undefined): LinkFilters {
  // The kinds are constants of this module, never input, so they may be written into the text.
  const refs = (table: 'event_terms' | 'event_links', column: string, kind: string, ids: number[] | undefined): Ref[] =>
    ids ? [{ params: [d.list(ids)], sql: `FROM ${table} x WHERE x.kind = '${kind}' AND ${d.inList(`x.${column}`, 'int')}` }] : []
  // Probing a long venue list per row: `+` keeps SQLite from walking the list through
  // event_links_linked for every row; it reads the event's own link (primary key) and looks its
  // venue up in the list, materialized once.
  const wideRefs = refs('event_links', 'linked_id', 'venue', wide).map((r) => ({
    ...r,
    probeSql: `FROM event_links x WHERE x.event_id = p.id AND x.kind = 'venue' AND ${d.inList('+x.linked_id', 'int')}`,
  }))
  const [rarest, ...commoner] = custom.refs
  // An id list (`include`; a sync's changed events) drives: each post by primary key, instead of
  // SQLite walking an index of the whole language and status for the few ids in the list.
  const idRows = d.name === 'sqlite' ? 'SELECT value AS event_id FROM json_each(?)' : 'SELECT i AS event_id FROM unnest(?::bigint[]) AS i'
  const included: Ref | undefined = q.include ? { params: [d.list(q.include)], sql: `FROM (${idRows}) x WHERE TRUE` } : undefined
  const linked = [
    ...(included ? [included] : []),
    ...(custom.driving ? [rarest!] : []),
    ...refs('event_links', 'linked_id', 'venue', q.venueIds),
    ...refs('event_links', 'linked_id', 'organizer', q.organizerIds),
  ]
  const terms = [
    ...refs('event_terms', 'term_id', 'category', q.categoryIds),
    ...refs('event_terms', 'term_id', 'tag', q.tagIds),
    ...wideRefs,
    ...(custom.driving ? commoner : custom.refs),
  ]
  return { included, linked, terms, wide: wideRefs }
}

const inList = (where: Where, r: Ref) => where.add(`p.id IN (SELECT x.event_id ${r.sql})`, ...r.params)
const probe = (where: Where, r: Ref) =>
  where.add(r.probeSql ? `EXISTS (SELECT 1 ${r.probeSql})` : `EXISTS (SELECT 1 ${r.sql} AND x.event_id = p.id)`, ...r.params)

/** `base` and every link filter but the driving one, the terms tested with `termFilter`. */
function withLinks(links: LinkFilters, termFilter: typeof inList, base: Where): Where {
  const f = new Where().and(base)
  for (const r of links.linked.slice(1)) inList(f, r)
  for (const r of links.terms) termFilter(f, r)
  return f
}

/** What the page walks, what counts it, and the page's order. */
interface Shape {
  source: Source
  counted: Source | CountQuery
  pageOrder: string
}

function chooseShape(db: PlanDb, inputs: PlanInputs, words: string[], posts: PostFilters, links: LinkFilters): Shape {
  const { q, custom, wide } = inputs
  // A long geofence venue list is not a link filter event_filters knows: it is probed on the
  // range's rows like a post filter, and the count must then look at them too.
  // Custom field values are no post filter: the plan carries them (event_filters' custom rows,
  // or a probe of event_custom_values by the range's event id).
  const hasPostFilters =
    [q.unpublishedAuthor, q.featured, q.eventStatuses, q.parentId, q.include, wide].some((v) => v !== undefined) || words.length > 0
  // A driving custom field value is rarer than a link's range is worth walking. A common one
  // drives event_filters' plan when no link with one id does (its range, its day counters).
  const plan = custom.driving
    ? null
    : filteredPlan(
        db,
        q,
        hasPostFilters,
        custom.refs.map((r) => r.filter),
      )
  const joined = (p: FilteredPlan): Source => {
    const where = new Where().and(p.where).add('p.id = f.event_id').and(posts.all)
    for (const r of links.wide) probe(where, r)
    return { from: p.from, fromParams: p.fromParams, where }
  }
  const shape = plan?.ordered ? orderedRangeShape(plan, joined(plan)) : unorderedShape(db, q, words, posts, links, wide)
  if (plan && !plan.ordered) {
    shape.counted = plan.count ?? joined(plan)
    // Several statuses (an editor's list) or values, and nothing else on the posts: the first
    // offset + limit rows of each status's range, merged, instead of sorting every match of the
    // window (PostgreSQL at 1M events, 5 statuses, a value on 30% of them: 420 ms).
    if (!hasPostFilters && !q.firstOfSeries) {
      const heads = plan.heads(q.offset + q.limit)
      const where = new Where().add('p.id = f.event_id').and(posts.all)
      shape.source = { from: `${heads.from} CROSS JOIN posts p`, fromParams: heads.params, where }
      shape.pageOrder = plan.order
    }
  }
  return shape
}

/** One index range of event_filters in list order, each post by primary key (event-filters.ts). */
function orderedRangeShape(plan: FilteredPlan, source: Source): Shape {
  return { source, counted: plan.count ?? source, pageOrder: plan.order }
}

/** A driving link filter's events, or the date window walked in list order. */
function unorderedShape(
  db: PlanDb,
  q: EventListQuery,
  words: string[],
  posts: PostFilters,
  links: LinkFilters,
  wide: number[] | undefined,
): Shape {
  const pageOrder = listOrder(q)
  const driver = links.linked[0]
  if (driver) {
    // CROSS JOIN: SQLite keeps this join order (the venue's events first); others plan freely.
    const from = `(SELECT DISTINCT x.event_id ${driver.sql}) v CROSS JOIN posts p`
    const base = driver === links.included ? posts.withoutIdList() : posts.all
    const source = { from, fromParams: driver.params, where: new Where().add('p.id = v.event_id').and(withLinks(links, probe, base)) }
    return { source, counted: source, pageOrder }
  }
  // In id order (a sync's pages, `idAfter`) SQLite walks the primary key from the cursor and
  // stops at the page's end: through posts_event_start it sorted every match for each page, so a
  // full sync of 100,000 events cost 1,000 sorts of 100,000 rows (14 ms a page). However few the
  // matches, the walk reads each row once over the whole sync.
  const walk = q.orderBy === 'id' && db.dialect.name === 'sqlite' ? 'posts p NOT INDEXED' : 'posts p'
  const source = { from: walk, where: withLinks(links, probe, posts.all) }
  let counted: Source | CountQuery = (wide ? null : dayCount(q, words)) ?? { from: 'posts p', where: withLinks(links, inList, posts.all) }
  if (posts.unseries) counted = countWithoutLaterMembers(db, q, posts.unseries)
  return { source, counted, pageOrder }
}

/** The indexed search's view of the list: its filters, its own walk, and when the index's key ranges may count it. */
function searchOf(q: EventListQuery, index: TextIndex, posts: PostFilters, links: LinkFilters, shape: Shape): IndexedSearch {
  // When the index alone decides every word and the other filters are columns of event_keys
  // (SQLite), the count may test them there.
  const keysOnly = index.exact && [q.unpublishedAuthor, q.featured, q.eventStatuses, q.parentId].every((v) => v === undefined)
  // (custom field filters are among `linked` and `terms`: probed like links, never windowed)
  // ... and when they are language, statuses and a plain window, the index's key ranges.
  const windowed =
    keysOnly &&
    index.windowed !== null &&
    !links.linked.length &&
    !links.terms.length &&
    q.startGte !== undefined &&
    q.endLte !== undefined &&
    [q.include, q.startGt, q.startLt, q.endGt, q.endLt, q.firstOfSeries].every((v) => v === undefined)
  return {
    all: posts.all,
    keyed: keysOnly && index.keys ? posts.keyed : null,
    windowed: windowed ? { language: q.language, statuses: q.statuses, startGte: q.startGte!, endLte: q.endLte! } : null,
    probeLinks: (where) => {
      for (const r of [...links.linked, ...links.terms]) probe(where, r)
    },
    source: shape.source,
    order: listOrder(q),
    pageOrder: shape.pageOrder,
    grouped: q.firstOfSeries === true && !posts.unseries,
  }
}

/**
 * An overlap window (`ends_after`: end_date > V, often with `starts_before`: start_date < X) has
 * no lower bound on start_date: the list walked posts_event_start from the first event ever
 * stored up to X, testing each row's end (about 2 s a page at 100k events on SQLite). An event
 * ending after V ends on V's day D or later, so it starts no earlier than the earliest start
 * day among the listed events that end on D or later, which event_day_counts holds: per status,
 * its first row by start day (the primary key's order) with end_day >= D and a live count. That
 * day, as `start_date >= 'day 00:00:00'`, adds a bound every listed row already satisfies, so
 * the answers and totals stay the same and the walk starts near the window. Null: no bound to
 * read (no `ends_after`, an id list, no statuses).
 */
export function startFloorStatement(q: EventListQuery): Statement | null {
  if (q.endGt === undefined || q.include !== undefined) return null
  const statuses = [...new Set(q.statuses)]
  if (!statuses.length) return null
  const day = q.endGt.slice(0, 10)
  // One scalar subquery per status, so each is one ordered probe of the primary key that stops
  // at its first match (a status IN list would be sorted instead).
  const first = `(SELECT c.start_day FROM event_day_counts c WHERE c.language = ? AND c.status = ? AND c.end_day >= ? AND c.n > 0
    ORDER BY c.start_day LIMIT 1)`
  return {
    sql: `SELECT ${statuses.map((_, i) => `${first} AS s${i}`).join(', ')}`,
    params: statuses.flatMap((status) => [q.language, status, day]),
  }
}

/**
 * The query with the floor read by startFloorStatement (its row's first start days, null where
 * a status has none) as a lower bound on start_date. An event without a start is counted on day
 * '' (sorts first): then no floor, so the list keeps it. No row at all: no listed event ends on
 * D or later, the list is empty whatever the bound, and V's own day keeps the walk short.
 */
export function withStartFloor(q: EventListQuery, firstDays: ReadonlyArray<string | null>): EventListQuery {
  if (q.endGt === undefined) return q
  const days = firstDays.filter((d): d is string => d !== null)
  if (days.includes('')) return q
  const floor = `${days.length ? days.reduce((a, b) => (b < a ? b : a)) : q.endGt.slice(0, 10)} 00:00:00`
  return q.startGte !== undefined && q.startGte >= floor ? q : { ...q, startGte: floor }
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
 * The count of a column-filtered list with hide_subsequent_recurrences: the list's count without
 * it (the day counters when they apply) less its subsequent occurrences. A series with k members
 * in the list shows one of them, so the hidden ones number (members in the list) - (series with
 * a member in the list): one pass over the series members alone (posts_series), instead of
 * testing every event of the window (3.6 s at 1M events on SQLite) or joining each member to
 * the others (PostgreSQL hashed every event of the window for that: 165 ms at 100k).
 */
function countWithoutLaterMembers(db: PlanDb, q: EventListQuery, unseries: Where): CountQuery {
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
