/**
 * The read queries, one function per StorageReader method, each the SQL twin of the memory
 * backend's loop (`src/storage/memory.ts`): same filters, same order including ties, same
 * paging. A list is one query for the page plus one count; an event page's link lists come
 * from one more query for the whole page. The event list, whose plan depends on its filters,
 * is in event-list.ts.
 */
import { boundingBox, withinCircle, type GeoCircle } from '../geo.js'
import type {
  TranslationKind,
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
import { page } from './paging.js'
import type { Dialect } from './dialect.js'
import type { SqlParam } from './driver.js'
import type { RecordCache } from './record-cache.js'
import { addSearchPrefilter } from './search-index.js'
import { ID_BLOCK, ID_BLOCK_START } from '../types.js'
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
export const selectOf = (db: Pick<Db, 'dialect' | 'records'>) => (db.records ? KEY_SELECT : postSelect(db.dialect.name))
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
export function toPosts(db: Db, selected: Row[]): Promise<PostRecord[]> {
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

/** The series head whose reserved block of ids holds `id` (StorageReader.reservedBy). */
export async function reservedBy(db: Db, id: number): Promise<number | null> {
  if (id < ID_BLOCK_START) return null
  const rows = await db.query<{ head: unknown }>('SELECT head_id AS head FROM post_id_blocks WHERE first_id = ?', [
    id - ((id - ID_BLOCK_START) % ID_BLOCK),
  ])
  return rows[0] ? toInt(rows[0].head) : null
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

/** Venues with both coordinates, the `geo_lat IS NOT NULL ...` terms spelled as posts_venue_geo's predicate. */
const LOCATED = (t: string) => `${t}.type = 'venue' AND ${t}.geo_lat IS NOT NULL AND ${t}.geo_lng IS NOT NULL`

/**
 * Ids of the venues that have coordinates, lie within `near` when given and pass `readable`
 * (on the alias `g`). The circle's bounding box is an index range (posts_venue_geo); the exact
 * great-circle test runs here, on the box's rows only, in the same code every backend uses.
 */
export async function locatedVenues(db: Db, near: GeoCircle | undefined, readable: Where): Promise<number[]> {
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
  const { rows, total } = await page(db, {
    select: selectOf(db),
    source: { from: 'posts p', where: w },
    orderBy: order,
    offset: q.offset,
    limit: q.limit,
  })
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
  const { rows, total } = await page(db, {
    select: TERM_WITH_COUNT,
    source: { from: 'terms t', where: w },
    orderBy: `${key} ${dir}, t.id ${dir}`,
    offset: q.offset,
    limit: q.limit,
    extra,
  })
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
