/**
 * The event list's reads: what its plan needs read first (the venues inside a geofence, the
 * custom field values' counts, a search's text index), then the plan (event-list-plan.ts, pure)
 * run by one of three executors: a page and its count, the first member of each series among
 * the matches, or a search through a text index. Every shape selects the same rows as the
 * memory backend's loop; storage-sql-parity.test.ts compares them.
 */
import type { EventListQuery, EventRecord, Page } from '../types.js'
import { Where, type Db } from './db.js'
import { columnText } from './driver.js'
import { firstOfEachSeries } from '../first-of-series.js'
import { eventMatches, listedClasses, startRange, windowedSearchCount } from './event-search.js'
import { wordMatch, wordMatches, wordRange, windowedWordCount } from './event-words.js'
import { EVENT_KEYS_TABLE, ftsExact, ftsQuery } from './search-index.js'
import { toInt, type Row } from './records.js'
import { runPage, type Source, type Statement } from './paging.js'
import { locatedVenues, selectOf, toPosts } from './read.js'
import { customFieldRefs } from './custom-values.js'
import {
  listWords,
  matchesStatement,
  planEventList,
  startFloorStatement,
  withStartFloor,
  type EventListPlan,
  type IndexedSearch,
  type PlanInputs,
  type TextIndex,
} from './event-list-plan.js'

export async function listEvents(db: Db, q: EventListQuery): Promise<Page<EventRecord>> {
  const inputs = await planInputs(db, q)
  if (!inputs) return { items: [], total: 0 }
  return runPlan(db, inputs.q, planEventList(db, inputs))
}

/** What the plan needs read first; null: some filter matches nothing, the list is empty. */
async function planInputs(db: Db, query: EventListQuery): Promise<PlanInputs | null> {
  const fenced = await fenceToVenues(db, query)
  if (!fenced) return null
  // custom_fields[key]=value: a key with no matching row empties the list; a rare one drives it.
  const custom = query.customFields?.length ? await customFieldRefs(db, query.customFields) : { refs: [], driving: false }
  if (!custom) return null
  const { wide } = fenced
  const q = await floored(db, fenced.q)
  const index = await textIndex(db, listWords(q), q)
  return wide ? { q, wide, custom, index } : { q, custom, index }
}

function runPlan(db: Db, q: EventListQuery, plan: EventListPlan): Promise<Page<EventRecord>> {
  switch (plan.kind) {
    case 'page':
      return pageOfPosts(db, plan, q.offset)
    case 'firstOfSeries':
      return firstOfSeriesPage(db, plan.matches, q)
    case 'search':
      return indexedSearchPage(db, q, plan.index, plan.search)
  }
}

async function pageOfPosts(db: Db, plan: { page: Statement; count: Statement | null }, offset: number): Promise<Page<EventRecord>> {
  const { rows, total } = await runPage(db, { read: plan.page, count: plan.count }, offset)
  return { items: (await toPosts(db, rows)) as EventRecord[], total }
}

/**
 * A page of a list with hide_subsequent_recurrences: every match's id, series and start in list
 * order (a narrow read), the first of each series kept (first-of-series.ts, as the memory
 * backend does), then the page's posts by primary key. It costs the matches of the other filters,
 * which the window bounds.
 */
async function firstOfSeriesPage(db: Db, matches: Statement, q: EventListQuery): Promise<Page<EventRecord>> {
  const rows = await db.query<{ id: unknown; series_id: unknown; start_date: unknown }>(matches.sql, matches.params)
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

/** The query with the lower bound on start_date its `ends_after` implies (see startFloorStatement). */
async function floored(db: Db, q: EventListQuery): Promise<EventListQuery> {
  const st = startFloorStatement(q)
  if (!st) return q
  const [row] = await db.query<Record<string, unknown>>(st.sql, st.params)
  return withStartFloor(
    q,
    Object.values(row ?? {}).map((d) => (d == null ? null : columnText(d))),
  )
}

/** The search's text index (PostgreSQL's event_words reads the words' tokens here), or null: each row is tested. */
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
  if (s.grouped) return firstOfSeriesPage(db, matchesStatement(matched, s.order), q)
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
