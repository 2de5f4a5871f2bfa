/**
 * SQLite: the events' substring index, an FTS5 trigram table of its own (`event_fts`) whose
 * rowid is not the post id alone but a composite key that sorts the matches by what an event
 * list filters on:
 *
 *   rowid = class x 2^55 + (start day + DAY_OFFSET) x 2^33 + post id
 *
 * where `class` numbers a (language, status, hidden) triple (`event_search_classes`, a handful of
 * rows) and the start day counts days since 1970-01-01. The matches of one status in a date
 * window are then one rowid range, which FTS5 counts without reading any other table (a search
 * count used to look each match up in event_keys: ~1 us per match). The post id is
 * `rowid & ID_MASK`.
 *
 * Contentless (`content=''`, `contentless_delete=1`, SQLite 3.43 or later): the text stays in
 * posts.search_text, and a row is deleted by its rowid, which the triggers compute from the old
 * values. Events moved here from post_fts, which keeps venues and organizers only, so an event
 * write still costs one FTS row. Where the table cannot be created (an older SQLite), events
 * stay in post_fts as before and the migration says so through `log`.
 */
import { columnText, type SqlDriver, type SqlParam } from './driver.js'
import { firstLine } from './errors.js'
import { NO_WORD_INDEX, type WordIndexView } from './db.js'
import { EVENT_KEYS_TABLE, FTS_TABLE } from './search-index.js'

export interface SearchIndexes {
  posts: boolean
  events: boolean
  words: WordIndexView
}

export const EVENT_FTS_TABLE = 'event_fts'
export const EVENT_CLASSES_TABLE = 'event_search_classes'

/** Bits of the post id in the rowid; ids of 2^33 (8.6 billion) and above are never assigned here. */
export const ID_MASK = 2 ** 33 - 1
const DAY_UNIT = 2 ** 33
// A bigint: 2 ** 55 as a number would print as 36028797018963970.
const CLASS_UNIT = 2n ** 55n
/** Days since 1970 plus this are positive for every 4-digit year and below 2^22. */
const DAY_OFFSET = 800_000
/** class x 2^55 must stay below 2^63: a class numbered beyond this gets class 0, which no count reads. */
const MAX_CLASS = 255
/** Segments of one level FTS5 lets pile up before merging them (its default is 4; see TABLES). */
const AUTOMERGE = 16

type Row = 'new' | 'old' | 'p'

const hidden = (r: Row) => `(CASE WHEN ${r}.hide_from_listings THEN 1 ELSE 0 END)`
const startDay = (r: Row) => `COALESCE(CAST(julianday(substr(${r}.start_date, 1, 10)) - 2440587.5 AS INTEGER), -${DAY_OFFSET})`
const classOf = (r: Row) =>
  `(SELECT CASE WHEN c.id <= ${MAX_CLASS} THEN c.id ELSE 0 END FROM ${EVENT_CLASSES_TABLE} c
    WHERE c.language = ${r}.language AND c.status = ${r}.status AND c.hidden = ${hidden(r)})`
/** The composite rowid of an event row (its class must exist). */
export const eventRowid = (r: Row) => `(${classOf(r)} * ${CLASS_UNIT} + (${startDay(r)} + ${DAY_OFFSET}) * ${DAY_UNIT} + ${r}.id)`
const indexed = (r: Row) => `${r}.type = 'event' AND ${r}.search_text IS NOT NULL`
const missingClass = (r: Row) =>
  `${indexed(r)} AND NOT EXISTS (SELECT 1 FROM ${EVENT_CLASSES_TABLE} c
     WHERE c.language = ${r}.language AND c.status = ${r}.status AND c.hidden = ${hidden(r)})`
/**
 * Numbers a new (language, status, hidden) before the row is written, so the AFTER triggers
 * find it (a BEFORE trigger whose WHEN rarely holds: cheaper per row than an INSERT ... WHERE
 * NOT EXISTS in the AFTER trigger). No conflict is possible, so an outer OR REPLACE cannot
 * renumber a class.
 */
const addClass = (r: Row) =>
  `INSERT INTO ${EVENT_CLASSES_TABLE} (language, status, hidden) VALUES (${r}.language, ${r}.status, ${hidden(r)})`

const TABLES = [
  `CREATE TABLE IF NOT EXISTS ${EVENT_CLASSES_TABLE} (
     id INTEGER PRIMARY KEY,
     language TEXT NOT NULL,
     status TEXT NOT NULL,
     hidden INTEGER NOT NULL,
     UNIQUE (language, status, hidden)
   )`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS ${EVENT_FTS_TABLE} USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
  // FTS5 merges its segments a little on every commit, in proportion to the pages the commit
  // wrote. A series writes rowids days apart (2.5x the pages of consecutive ones), and with the
  // default of merging every 4 segments of a level a 500-occurrence series at 1M events took
  // 158-164 ms against 115-144 ms with 16 (docs/storage.md). More segments cost searches a
  // little: the common fragment at 1M counted in 9.8 ms over 7 segments, 16.7 ms over 17.
  `INSERT INTO ${EVENT_FTS_TABLE} (${EVENT_FTS_TABLE}, rank) VALUES ('automerge', ${AUTOMERGE})`,
]

const EVENT_TRIGGERS = [
  'posts_event_class_insert',
  'posts_event_class_update',
  'posts_event_fts_insert',
  'posts_event_fts_delete',
  'posts_event_fts_update',
]
const POST_TRIGGERS = ['posts_fts_insert', 'posts_fts_delete', 'posts_fts_update']

/** Run in one transaction: events out of post_fts, into event_fts, and the triggers that keep them apart. */
const SWITCH = [
  ...[...EVENT_TRIGGERS, ...POST_TRIGGERS].map((name) => `DROP TRIGGER IF EXISTS ${name}`),
  `CREATE TRIGGER posts_event_class_insert BEFORE INSERT ON posts WHEN ${missingClass('new')} BEGIN
     ${addClass('new')};
   END`,
  `CREATE TRIGGER posts_event_class_update BEFORE UPDATE OF type, language, status, hide_from_listings, search_text ON posts
   WHEN ${missingClass('new')} BEGIN
     ${addClass('new')};
   END`,
  `CREATE TRIGGER posts_event_fts_insert AFTER INSERT ON posts WHEN ${indexed('new')} BEGIN
     INSERT INTO ${EVENT_FTS_TABLE} (rowid, search_text) VALUES (${eventRowid('new')}, new.search_text);
   END`,
  `CREATE TRIGGER posts_event_fts_delete AFTER DELETE ON posts WHEN ${indexed('old')} BEGIN
     DELETE FROM ${EVENT_FTS_TABLE} WHERE rowid = ${eventRowid('old')};
   END`,
  // Only when a part of the key or the text changed (an update names every column it may set).
  `CREATE TRIGGER posts_event_fts_update AFTER UPDATE OF type, language, status, hide_from_listings, start_date, search_text ON posts
   WHEN (old.type = 'event' OR new.type = 'event') AND (old.type IS NOT new.type OR old.language IS NOT new.language
     OR old.status IS NOT new.status OR old.hide_from_listings IS NOT new.hide_from_listings
     OR substr(old.start_date, 1, 10) IS NOT substr(new.start_date, 1, 10) OR old.search_text IS NOT new.search_text) BEGIN
     DELETE FROM ${EVENT_FTS_TABLE} WHERE rowid = (SELECT ${eventRowid('old')} WHERE ${indexed('old')});
     INSERT INTO ${EVENT_FTS_TABLE} (rowid, search_text) SELECT ${eventRowid('new')}, new.search_text WHERE ${indexed('new')};
   END`,
  `INSERT INTO ${EVENT_CLASSES_TABLE} (language, status, hidden)
   SELECT DISTINCT p.language, p.status, ${hidden('p')} FROM posts p WHERE ${indexed('p')} AND NOT EXISTS (SELECT 1 FROM ${EVENT_CLASSES_TABLE} c
     WHERE c.language = p.language AND c.status = p.status AND c.hidden = ${hidden('p')})`,
  `INSERT INTO ${EVENT_FTS_TABLE} (${EVENT_FTS_TABLE}) VALUES ('delete-all')`,
  // In rowid order: FTS5 writes its pending rows out whenever a rowid comes lower than the last.
  `INSERT INTO ${EVENT_FTS_TABLE} (rowid, search_text) SELECT ${eventRowid('p')} AS k, p.search_text FROM posts p WHERE ${indexed('p')} ORDER BY k`,
]

/** post_fts (external content on posts) narrowed to venues and organizers. */
const POSTS_ONLY = [
  `CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts WHEN new.type <> 'event' AND new.search_text IS NOT NULL BEGIN
     INSERT INTO ${FTS_TABLE} (rowid, search_text) VALUES (new.id, new.search_text);
   END`,
  `CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts WHEN old.type <> 'event' AND old.search_text IS NOT NULL BEGIN
     INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rowid, search_text) VALUES ('delete', old.id, old.search_text);
   END`,
  `CREATE TRIGGER posts_fts_update AFTER UPDATE OF type, search_text ON posts BEGIN
     INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rowid, search_text) SELECT 'delete', old.id, old.search_text
       WHERE old.type <> 'event' AND old.search_text IS NOT NULL;
     INSERT INTO ${FTS_TABLE} (rowid, search_text) SELECT new.id, new.search_text WHERE new.type <> 'event' AND new.search_text IS NOT NULL;
   END`,
  // Emptied and refilled without the events: cheaper than deleting each event's trigrams.
  `INSERT INTO ${FTS_TABLE} (${FTS_TABLE}) VALUES ('delete-all')`,
  `INSERT INTO ${FTS_TABLE} (rowid, search_text) SELECT id, search_text FROM posts WHERE type <> 'event' AND search_text IS NOT NULL`,
]

/**
 * Migration 12 (SQLite): creates event_fts and moves the events into it. Never fails the
 * migration: without it events stay in post_fts (one log line when post_fts is there; without
 * FTS5 at all, migration 5 already said that search scans). Safe to run again.
 */
export async function createEventSearchIndex(driver: SqlDriver, log: (line: string) => void): Promise<void> {
  if (driver.dialect !== 'sqlite') return
  try {
    for (const statement of TABLES) await driver.execute(statement)
  } catch (err) {
    await driver.execute(`DROP TABLE IF EXISTS ${EVENT_FTS_TABLE}`).catch(() => undefined)
    const rows = await driver
      .read((c) => c.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = '${FTS_TABLE}'`))
      .catch(() => [])
    if (rows.length)
      log(
        `calendar storage: this SQLite cannot create a contentless FTS5 table (${firstLine(err)}); event search counts look each match up`,
      )
    return
  }
  const posts = await driver.read((c) => c.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = '${FTS_TABLE}'`))
  await driver.transaction(async (c) => {
    for (const statement of SWITCH) await c.run(statement)
    if (posts.length) for (const statement of POSTS_ONLY) await c.run(statement)
  })
}

/**
 * Which SQLite search tables reads may use: post_fts (venues, organizers, and events without
 * event_fts) and event_fts. (`words` is PostgreSQL's: see hasEventWords in event-words.ts.)
 */
export async function searchIndexes(driver: SqlDriver): Promise<SearchIndexes> {
  if (driver.dialect !== 'sqlite') return { posts: false, events: false, words: NO_WORD_INDEX }
  const rows = await driver.read((c) =>
    c.query<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('${FTS_TABLE}', '${EVENT_KEYS_TABLE}', '${EVENT_FTS_TABLE}', '${EVENT_CLASSES_TABLE}')`,
    ),
  )
  const has = new Set(rows.map((r) => String(r.name)))
  return {
    posts: has.has(FTS_TABLE) && has.has(EVENT_KEYS_TABLE),
    events: has.has(EVENT_FTS_TABLE) && has.has(EVENT_CLASSES_TABLE) && has.has(EVENT_KEYS_TABLE),
    words: NO_WORD_INDEX,
  }
}

/** A rowid range of event_fts, as `rowid BETWEEN ... AND ...` with its parameters. */
export interface RowidRange {
  sql: string
  params: number[]
}
const between = (column: string) =>
  `${column} BETWEEN ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} AND ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} + ${ID_MASK}`

/**
 * The ids of the events matching an FTS5 query, as `(...) m` with `m.id` (event_fts, or post_fts
 * where event_fts is missing). From event_fts: only those of `range` when given, and in id
 * order, because the lookups that follow are much cheaper in key order (measured at 100k
 * events: a 13k-match count with a category probe 33-49 ms in rowid order, 27-30 ms sorted).
 * LIMIT -1 keeps SQLite from dropping the subquery's ORDER BY.
 */
export const eventMatches = (eventFts: boolean, range: RowidRange | null = null) =>
  eventFts
    ? `(SELECT rowid & ${ID_MASK} AS id FROM ${EVENT_FTS_TABLE} WHERE ${EVENT_FTS_TABLE} MATCH ?${range ? ` AND ${range.sql}` : ''}
        ORDER BY 1 LIMIT -1) m`
    : `(SELECT rowid AS id FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH ?) m`

/**
 * The rowid range of event_fts holding every event of `classes` (see listedClasses) that
 * starts within the list's start bounds (the end bounds are left to the filters: an event may
 * be stored ending before its start). A superset of the list's matches, so the list's own
 * filters still decide; null when it cannot be bounded (no class yet, or one beyond the rowid's
 * room).
 */
export function startRange(classes: readonly number[], q: { startGte?: string; startGt?: string; startLt?: string }): RowidRange | null {
  if (!classes.length || classes.some((id) => id > MAX_CLASS)) return null
  const days = (d: string | undefined) => (d === undefined ? null : (dayNumber(d)?.day ?? null))
  const lows = [days(q.startGte), days(q.startGt)].filter((d): d is number => d !== null)
  const high = days(q.startLt)
  const from = lows.length ? Math.max(...lows) + DAY_OFFSET : 0
  const to = high === null ? 2 ** 22 - 1 : high + DAY_OFFSET
  return { sql: between('rowid'), params: [Math.min(...classes), from, Math.max(...classes), to] }
}

/** The class numbers of the listed events of `language` with one of `statuses` (read once per search). */
export async function listedClasses(db: Query, language: string, statuses: readonly string[]): Promise<number[]> {
  const unique = [...new Set(statuses)]
  if (!unique.length) return []
  const rows = await db.query<{ id: unknown }>(
    `SELECT id FROM ${EVENT_CLASSES_TABLE} WHERE language = ? AND hidden = 0 AND status IN (${unique.map(() => '?').join(', ')})`,
    [language, ...unique],
  )
  return rows.map((r) => Number(r.id))
}

const DAY = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2})$/

/** Days since 1970-01-01 of a stored date's day, as SQLite's julianday reads it; null when not that shape. */
function dayNumber(date: string): { day: number; time: string } | null {
  const m = DAY.exec(date)
  if (!m) return null
  const [, y, mo, d, time] = m
  if (Number(y) < 1000) return null
  return { day: Date.UTC(Number(y), Number(mo) - 1, Number(d)) / 86_400_000, time: time! }
}

/** What the fast count may be given: the list's language, statuses and date window, and the FTS5 query. */
export interface WindowedSearch {
  language: string
  statuses: readonly string[]
  startGte: string
  endLte: string
  match: string
}

/**
 * The total, and the matches as `(...) m` with `m.id`: those of the statuses' rowid ranges (one
 * range from the first class's to the last's: the rows between are tested by the caller's
 * filters anyway).
 */
export interface WindowedCount {
  total: number
  matches: { sql: string; params: SqlParam[] } | null
}
const NONE: WindowedCount = { total: 0, matches: null }

interface Query {
  query<R extends object>(sql: string, params?: readonly (string | number | null)[]): Promise<R[]>
}

/**
 * What a windowed count needs of event_day_counts for the window [startGte, endLte]: the earliest
 * start day of an event of the window's days crossing endLte (its matches from that day on are
 * looked up), and whether some event starting after endLte's day ends by it (it ends before its
 * start: the day ranges cannot answer).
 */
export async function windowEdge(
  db: Query,
  s: Omit<WindowedSearch, 'match'>,
  statuses: readonly string[],
): Promise<{ first: string | null; inverted: boolean }> {
  const marks = statuses.map(() => '?').join(', ')
  const fromDay = s.startGte.slice(0, 10)
  const toDay = s.endLte.slice(0, 10)
  const endsOnDay = s.endLte.endsWith(' 23:59:59')
  const [edge] = await db.query<{ first: unknown; inverted: unknown }>(
    `SELECT
       (SELECT min(start_day) FROM event_day_counts WHERE language = ? AND status IN (${marks})
          AND start_day >= ? AND start_day <= ? AND end_day ${endsOnDay ? '>' : '>='} ?) AS first,
       EXISTS (SELECT 1 FROM event_day_counts WHERE language = ? AND status IN (${marks}) AND start_day > ? AND end_day <= ?) AS inverted`,
    [s.language, ...statuses, fromDay, toDay, toDay, s.language, ...statuses, toDay, toDay],
  )
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
  return {
    first: edge?.first == null ? null : columnText(edge.first),
    inverted: Number(edge?.inverted ?? 0) === 1 || edge?.inverted === true,
  }
}

/**
 * The count of a search list whose only other filters are language, statuses and the window
 * start_date >= startGte AND end_date <= endLte (the FTS phrase deciding every word), without
 * reading any row per match:
 * - per status, the matches whose start day lies in [day of startGte, day of endLte]: one rowid
 *   range of event_fts. With D the day of endLte, an event ending by endLte starts by D (when
 *   start <= end; otherwise null, see below).
 * - less the matches in that range that fail the window, looked up in event_keys: those on the
 *   first day starting before startGte (only when startGte is not a day's start) and those
 *   ending after endLte, which start no earlier than the earliest start day of an event
 *   crossing endLte (event_day_counts says which day that is: usually near D).
 * null when it cannot answer exactly: a class number beyond the rowid's room, or some event
 * that ends before its day of start is after D (event_day_counts says so).
 */
export async function windowedSearchCount(db: Query, s: WindowedSearch, ids: readonly number[]): Promise<WindowedCount | null> {
  const from = dayNumber(s.startGte)
  const to = dayNumber(s.endLte)
  if (!from || !to) return null
  const statuses = [...new Set(s.statuses)]
  if (!statuses.length) return NONE
  if (ids.some((id) => id > MAX_CLASS)) return null
  if (!ids.length) return NONE
  const edge = await windowEdge(db, s, statuses)
  if (edge.inverted) return null
  // An event of the window starts on or after X's day and (none ending before its start) by D.
  if (from.day > to.day) return NONE
  const firstCrossing = edge.first === null ? null : dayNumber(`${edge.first} 00:00:00`)
  // Day intervals whose matches are looked up, disjoint.
  const edges: [number, number][] = []
  if (from.time !== '00:00:00') edges.push([from.day, from.day])
  if (firstCrossing) {
    const lo = Math.max(firstCrossing.day, from.day)
    if (edges.length && lo <= edges[0]![1] + 1) edges[0]![1] = to.day
    else edges.push([lo, to.day])
  }
  const t = EVENT_FTS_TABLE
  // One pass over each class's range: FTS5 seeks to a range's start term by term, so a second
  // query for the edges would cost about as much again. A match on an edge day is looked up.
  const day = `((${t}.rowid >> 33) & ${2 ** 22 - 1})`
  const onEdge = edges.map(() => `${day} BETWEEN ? AND ?`).join(' OR ')
  const failing = `EXISTS (SELECT 1 FROM ${EVENT_KEYS_TABLE} k WHERE k.id = ${t}.rowid & ${ID_MASK} AND NOT (k.start_date >= ? AND k.end_date <= ?))`
  const counted = edges.length ? `count(*) - count(CASE WHEN (${onEdge}) AND ${failing} THEN 1 END)` : 'count(*)'
  const edgeParams = [...edges.flatMap(([lo, hi]) => [lo + DAY_OFFSET, hi + DAY_OFFSET]), s.startGte, s.endLte]
  const counts: string[] = []
  const params: (string | number)[] = []
  for (const c of ids) {
    counts.push(
      `+ (SELECT ${counted} FROM ${t} WHERE ${t} MATCH ?
          AND ${t}.rowid BETWEEN ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} AND ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} + ${ID_MASK})`,
    )
    params.push(...(edges.length ? edgeParams : []), s.match, c, from.day + DAY_OFFSET, c, to.day + DAY_OFFSET)
  }
  const [row] = await db.query<{ n: unknown }>(`SELECT 0 ${counts.join(' ')} AS n`, params)
  const first = Math.min(...ids)
  const last = Math.max(...ids)
  return {
    total: Number(row?.n ?? 0),
    matches: {
      sql: `(SELECT rowid & ${ID_MASK} AS id FROM ${t} WHERE ${t} MATCH ?
              AND rowid BETWEEN ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} AND ? * ${CLASS_UNIT} + ? * ${DAY_UNIT} + ${ID_MASK}) m`,
      params: [s.match, first, from.day + DAY_OFFSET, last, to.day + DAY_OFFSET],
    },
  }
}
