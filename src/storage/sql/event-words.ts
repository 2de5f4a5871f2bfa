/**
 * PostgreSQL: the events' search index, an inverted index of whitespace-separated tokens.
 *
 * Why tokens answer a substring search exactly: a search word holds no whitespace (the query is
 * split on `\s+`), so wherever it occurs in an event's text it lies inside one maximal run of
 * non-whitespace characters, a token. "The text contains the word" is therefore "some token of
 * the text contains the word": the word's tokens are found in the vocabulary (`search_words`, a
 * few hundred thousand short strings even for a large site, with its own trigram index), and the
 * events holding them in the postings (`event_words`).
 *
 * Why not the trigram index of posts alone: it finds candidates, but each must be read from the
 * table to test the substring and the list's filters (about 3-5 us per candidate; 62-103 ms for
 * the 33,000 of a common fragment at 1M events). A posting carries what a list filters on, so a
 * count reads the postings' primary key alone:
 *
 *   event_words (word_id, cls, k)   k = start day (YYYYMMDD) x 2^33 + event id
 *
 * where `cls` numbers the event's (language, status) (`event_word_classes`, a handful of rows).
 * The postings of a word in a date window are one key range per class; the exact start and end
 * bounds are settled like SQLite's event_fts ranges (event-search.ts): only matches on the
 * window's edge days are looked up.
 *
 * Only listed events (not hidden) have postings, like event_filters. The writes keep them in the
 * writing transaction (write.ts calls syncEventWords), tokenized by JavaScript's own `\s+`; reads
 * use them once migration 14 has filled them (before that, the trigram index of posts). The
 * migration's backfill tokenizes in SQL with a character class built from that very regular
 * expression, so both agree on every code point. Tokens are keyed by their SHA-256 (a token may
 * be longer than a b-tree entry allows); vocabulary rows are never deleted (an unused token
 * costs one row and matches no event).
 */
import type { CustomValues } from '../custom-values.js'
import { NO_WORD_INDEX, type Db, type WordIndexView } from './db.js'
import type { SqlDriver, SqlParam } from './driver.js'
import { firstLine } from './errors.js'
import { eventSearchText, toInt } from './records.js'
import { likeContains, trigramOpclass } from './search-index.js'
import { windowEdge, type WindowedCount, type WindowedSearch } from './event-search.js'

export const EVENT_WORDS_TABLE = 'event_words'
export const SEARCH_WORDS_TABLE = 'search_words'
export const WORD_CLASSES_TABLE = 'event_word_classes'
const SEARCH_WORDS_TRGM = 'search_words_trgm'

/** Bits of the event id in `k`; ids of 2^33 (8.6 billion) and above are never assigned by PostgreSQL's sequence here. */
const ID_BITS = 33
const ID_MASK = 2 ** ID_BITS - 1
/** Above every YYYYMMDD day. */
const LAST_DAY = 99_999_999
/**
 * A word matching more vocabulary tokens than this (a letter or two of a large vocabulary) is
 * searched through the trigram index of posts (or, below three characters, by testing the rows
 * the list's other filters select): the union of that many tokens' postings would cost more.
 */
const MAX_TOKENS_PER_WORD = 2000

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The tokens of a search text: what `\s+` separates, each once, with a lone surrogate as U+FFFD
 * (what the text becomes on its way to the server, so the tokens match the stored text's).
 */
export const tokensOf = (text: string): string[] => [...new Set(text.replace(LONE_SURROGATE, '\ufffd').split(/\s+/))].filter(Boolean)

/** JavaScript's `\s` as a PostgreSQL bracket expression, built from the regular expression itself. */
let whitespace: string | null = null
function whitespaceClass(): string {
  if (whitespace !== null) return whitespace
  const ranges: [number, number][] = []
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue
    if (!/\s/.test(String.fromCodePoint(c))) continue
    const last = ranges[ranges.length - 1]
    if (last && last[1] === c - 1) last[1] = c
    else ranges.push([c, c])
  }
  const esc = (c: number) => (c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`)
  return (whitespace = `[${ranges.map(([a, b]) => (a === b ? esc(a) : `${esc(a)}-${esc(b)}`)).join('')}]+`)
}

/** A stored date's day as YYYYMMDD; 0 when it is not that shape (it then sorts first, as '' does). */
export function dayKey(date: string | undefined | null): number {
  const m = date ? /^(\d{4})-(\d{2})-(\d{2})/.exec(date) : null
  return m ? Number(m[1]! + m[2]! + m[3]!) : 0
}
const DAY_SQL = (r: string) =>
  `(CASE WHEN ${r}.start_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
     THEN (substr(${r}.start_date, 1, 4) || substr(${r}.start_date, 6, 2) || substr(${r}.start_date, 9, 2))::bigint ELSE 0 END)`
const HASH = (token: string) => `sha256(convert_to(${token}, 'UTF8'))`

const TABLES = [
  `CREATE TABLE IF NOT EXISTS ${SEARCH_WORDS_TABLE} (
     id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
     hash bytea NOT NULL UNIQUE,
     token text COLLATE "C" NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS ${WORD_CLASSES_TABLE} (
     id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
     language text COLLATE "C" NOT NULL,
     status text COLLATE "C" NOT NULL,
     UNIQUE (language, status)
   )`,
  `CREATE TABLE IF NOT EXISTS ${EVENT_WORDS_TABLE} (
     word_id integer NOT NULL,
     cls integer NOT NULL,
     k bigint NOT NULL,
     PRIMARY KEY (word_id, cls, k)
   )`,
]

const listed = `p.type = 'event' AND p.hide_from_listings = FALSE AND p.search_text IS NOT NULL`

/**
 * Fills the index from the events already there (migration 14, in one transaction; and the
 * bench's bulk seeding for the events `BETWEEN ? AND ?` when `range`). Safe to run again.
 */
export function eventWordsBackfill(range = false): string[] {
  const where = `${listed}${range ? ' AND p.id BETWEEN ? AND ?' : ''}`
  const split = `CROSS JOIN LATERAL regexp_split_to_table(p.search_text, '${whitespaceClass()}') AS t(token)`
  return [
    `INSERT INTO ${WORD_CLASSES_TABLE} (language, status) SELECT DISTINCT p.language, p.status FROM posts p WHERE ${where}
     ON CONFLICT (language, status) DO NOTHING`,
    `INSERT INTO ${SEARCH_WORDS_TABLE} (hash, token)
     SELECT ${HASH('x.token')}, x.token FROM (SELECT DISTINCT t.token FROM posts p ${split} WHERE ${where} AND t.token <> '') x
     ON CONFLICT (hash) DO NOTHING`,
    `INSERT INTO ${EVENT_WORDS_TABLE} (word_id, cls, k)
     SELECT DISTINCT w.id, c.id, ${DAY_SQL('p')} * ${2 ** ID_BITS} + p.id
     FROM posts p JOIN ${WORD_CLASSES_TABLE} c ON c.language = p.language AND c.status = p.status ${split}
     JOIN ${SEARCH_WORDS_TABLE} w ON w.hash = ${HASH('t.token')}
     WHERE ${where} AND t.token <> ''
     ON CONFLICT DO NOTHING`,
  ]
}

/** Migration 14 (PostgreSQL): the tables. */
export const EVENT_WORDS_DDL = TABLES

/**
 * Migration 14's check: PostgreSQL proper has what the index needs (sha256, the regular
 * expression class); another engine speaking its protocol (CockroachDB) may not, and keeps
 * searching the trigram index of posts.
 */
export async function canIndexWords(driver: SqlDriver, log: (line: string) => void): Promise<boolean> {
  if (driver.dialect !== 'postgres') return false
  try {
    const rows = await driver.read((c) =>
      c.query<{ n: unknown; h: unknown }>(
        `SELECT (SELECT count(*) FROM regexp_split_to_table(E'a\\u00a0b\\u0085c', '${whitespaceClass()}') t) AS n,
                length(${HASH(`'a'`)}) AS h`,
      ),
    )
    if (toInt(rows[0]?.n) === 2 && toInt(rows[0]?.h) === 32) return true
  } catch (err) {
    log(
      `calendar storage: this server cannot build the event token index (${firstLine(err)}); event search reads the trigram index of posts`,
    )
    return false
  }
  log('calendar storage: this server splits text unlike JavaScript; event search reads the trigram index of posts')
  return false
}

/**
 * Migration 14's last step, once the postings are filled: VACUUM ANALYZE of the new tables (a
 * count reads the postings' index alone only where the visibility map says their pages are
 * all-visible, and several words choose their path from the statistics: autovacuum would get
 * there, minutes later), and the vocabulary's own trigram index where pg_trgm is installed
 * (without it a word's tokens are found by a scan of the vocabulary, which is still far smaller
 * than the events).
 */
export async function finishTokenIndex(driver: SqlDriver, log: (line: string) => void): Promise<void> {
  for (const table of [EVENT_WORDS_TABLE, SEARCH_WORDS_TABLE, WORD_CLASSES_TABLE])
    await driver
      .execute(`VACUUM ANALYZE ${table}`)
      .catch((err: unknown) => log(`calendar storage: VACUUM ANALYZE ${table} failed (${firstLine(err)})`))
  await createTokenTrigramIndex(driver, log)
}

async function createTokenTrigramIndex(driver: SqlDriver, log: (line: string) => void): Promise<void> {
  try {
    // Migration 5 installs pg_trgm where the role may (and says so when it cannot).
    const opclass = await trigramOpclass(driver)
    if (opclass !== null)
      await driver.execute(`CREATE INDEX IF NOT EXISTS ${SEARCH_WORDS_TRGM} ON ${SEARCH_WORDS_TABLE} USING gin (token ${opclass})`)
  } catch (err) {
    log(`calendar storage: could not index the search vocabulary (${firstLine(err)}); it is scanned`)
  }
}

/**
 * The token index of one storage: its state, 'off' (no tables: this engine cannot have it),
 * 'kept' (writes keep it; migration 14 has not filled it yet) or 'read' (filled: reads use it
 * too), and the planner's statistics of its postings, which choose how several words are
 * searched (see MANY_POSTINGS).
 */
export class WordIndex implements WordIndexView {
  private stats: { at: number; rows: Promise<{ rows: number; freq: Map<number, number> }> } | null = null

  constructor(readonly state: 'off' | 'kept' | 'read') {}

  /**
   * About how many postings these tokens have (every class and day), from pg_stats' most
   * common values of event_words.word_id (re-read once a minute; ANALYZE keeps them). A token
   * outside that list counts as rare (0).
   */
  async postings(db: Db, ids: readonly number[]): Promise<number> {
    if (!this.stats || Date.now() - this.stats.at > 60_000) this.stats = { at: Date.now(), rows: readStats(db) }
    const { rows, freq } = await this.stats.rows.catch(() => ({ rows: 0, freq: new Map<number, number>() }))
    return ids.reduce((sum, id) => sum + (freq.get(id) ?? 0) * rows, 0)
  }
}

async function readStats(db: Db): Promise<{ rows: number; freq: Map<number, number> }> {
  const [row] = await db.query<{ vals: unknown; freqs: unknown; rows: unknown }>(
    `SELECT s.most_common_vals::text::integer[] AS vals, s.most_common_freqs AS freqs, c.reltuples AS rows
     FROM pg_stats s JOIN pg_class c ON c.oid = to_regclass('${EVENT_WORDS_TABLE}')
     WHERE s.schemaname = current_schema() AND s.tablename = '${EVENT_WORDS_TABLE}' AND s.attname = 'word_id'`,
  )
  const vals = ((row?.vals as unknown[] | null) ?? []).map(toInt)
  const freqs = ((row?.freqs as unknown[] | null) ?? []).map(Number)
  return { rows: Math.max(0, Number(row?.rows ?? 0)), freq: new Map(vals.map((v, i) => [v, freqs[i] ?? 0])) }
}

export async function wordIndexState(driver: SqlDriver): Promise<WordIndexView> {
  if (driver.dialect !== 'postgres') return NO_WORD_INDEX
  const rows = await driver.read((c) =>
    c.query<{ kept: unknown; filled: unknown }>(
      `SELECT to_regclass('${EVENT_WORDS_TABLE}') IS NOT NULL AND to_regclass('${SEARCH_WORDS_TABLE}') IS NOT NULL
                AND to_regclass('${WORD_CLASSES_TABLE}') IS NOT NULL AS kept,
              EXISTS (SELECT 1 FROM calendar_migrations WHERE version = 14) AS filled`,
    ),
  )
  return rows[0]?.kept !== true ? NO_WORD_INDEX : new WordIndex(rows[0]?.filled === true ? 'read' : 'kept')
}

/** What an event's postings depend on. */
export interface Worded {
  id: number
  type?: string
  language: string
  status: string
  startDate: string
  hideFromListings: boolean
  title: string
  description: string
  excerpt: string
  customFields: CustomValues
}

interface Postings {
  language: string
  status: string
  day: number
  id: number
  tokens: string[]
}

const postingsOf = (e: Worded | null): Postings | null =>
  !e || e.hideFromListings || (e.type !== undefined && e.type !== 'event')
    ? null
    : { language: e.language, status: e.status, day: dayKey(e.startDate), id: e.id, tokens: tokensOf(eventSearchText(e)) }

/** The class ids of (language, status) pairs; missing ones are created when `create`. */
async function classIds(db: Db, pairs: [string, string][], create: boolean): Promise<Map<string, number>> {
  const unique = [...new Map(pairs.map((p) => [JSON.stringify(p), p])).values()]
  const read = async () => {
    const rows = await db.query<{ id: unknown; language: string; status: string }>(
      `SELECT c.id, c.language, c.status FROM ${WORD_CLASSES_TABLE} c
       JOIN jsonb_to_recordset(?::jsonb) AS x(l text, s text) ON c.language = x.l AND c.status = x.s`,
      [JSON.stringify(unique.map(([l, s]) => ({ l, s })))],
    )
    return new Map(rows.map((r) => [JSON.stringify([r.language, r.status]), toInt(r.id)]))
  }
  let found = await read()
  const missing = unique.filter((p) => !found.has(JSON.stringify(p)))
  if (create && missing.length) {
    // In the writing transaction: a class another transaction creates at the same moment makes
    // one of the two retry (SERIALIZABLE), never two ids for one pair.
    await db.run(
      `INSERT INTO ${WORD_CLASSES_TABLE} (language, status) SELECT x.l, x.s FROM jsonb_to_recordset(?::jsonb) AS x(l text, s text)
       ON CONFLICT (language, status) DO NOTHING`,
      [JSON.stringify(missing.map(([l, s]) => ({ l, s })))],
    )
    found = await read()
  }
  return found
}

/**
 * The postings of `list` as two parameters: the distinct tokens, and one row [cls, day, id,
 * token number] per posting (jsonb; JSON numbers stay below 2^53, so the server computes k). A
 * series repeats a handful of tokens over hundreds of events: each is hashed and looked up once.
 */
function postingParams(list: Postings[], classes: Map<string, number>, tokens: (p: Postings) => string[]): [string, string[]] {
  const numbers = new Map<string, number>()
  const rows = list.flatMap((p) => {
    const cls = classes.get(JSON.stringify([p.language, p.status]))
    if (cls === undefined) return []
    return tokens(p).map((t) => {
      let i = numbers.get(t)
      if (i === undefined) numbers.set(t, (i = numbers.size + 1))
      return [cls, p.day, p.id, i]
    })
  })
  return [JSON.stringify(rows), [...numbers.keys()]]
}
/** (word_id, cls, k) of postingParams' two parameters. */
const POSTINGS = `SELECT v.id AS word_id, (r->>0)::integer AS cls, (r->>1)::bigint * ${2 ** ID_BITS} + (r->>2)::bigint AS k
  FROM jsonb_array_elements(?::jsonb) r
  JOIN (SELECT t.i, w.id FROM unnest(?::text[]) WITH ORDINALITY AS t(token, i) JOIN ${SEARCH_WORDS_TABLE} w ON w.hash = ${HASH('t.token')}) v
    ON v.i = (r->>3)::bigint`

/** The class ids of the postings' (language, status), created where missing when `create`. */
const classesOf = (db: Db, list: (Postings | null)[], create: boolean) =>
  classIds(
    db,
    list.flatMap((p) => (p ? [[p.language, p.status] as [string, string]] : [])),
    create,
  )

async function addPostings(db: Db, list: Postings[], classes: Map<string, number>, tokens: (p: Postings) => string[]): Promise<void> {
  const words = [...new Set(list.flatMap(tokens))]
  if (!words.length) return
  // New tokens only: an insert attempt on a token already there would still draw a sequence value.
  await db.run(
    `INSERT INTO ${SEARCH_WORDS_TABLE} (hash, token)
     SELECT x.hash, x.token FROM (SELECT ${HASH('t')} AS hash, t AS token FROM unnest(?::text[]) AS t) x
     WHERE NOT EXISTS (SELECT 1 FROM ${SEARCH_WORDS_TABLE} w WHERE w.hash = x.hash)
     ON CONFLICT (hash) DO NOTHING`,
    [words],
  )
  // In key order: the b-tree is written page by page rather than at random.
  await db.run(
    `INSERT INTO ${EVENT_WORDS_TABLE} (word_id, cls, k) SELECT * FROM (${POSTINGS}) x ORDER BY 1, 2, 3`,
    postingParams(list, classes, tokens),
  )
}

async function dropPostings(db: Db, list: Postings[], classes: Map<string, number>, tokens: (p: Postings) => string[]): Promise<void> {
  if (!list.some((p) => tokens(p).length)) return
  await db.run(
    `DELETE FROM ${EVENT_WORDS_TABLE} e USING (${POSTINGS}) x WHERE e.word_id = x.word_id AND e.cls = x.cls AND e.k = x.k`,
    postingParams(list, classes, tokens),
  )
}

/** Moves an event's postings from `before` (null: new) to `after` (null: gone), in the writing transaction. */
export async function syncEventWords(db: Db, before: Worded | null, after: Worded | null): Promise<void> {
  if (db.eventWords.state === 'off') return
  const old = postingsOf(before)
  const next = postingsOf(after)
  if (!old && !next) return
  // One lookup for both images' classes (the new one's created where missing).
  const classes = await classesOf(db, [old, next], next !== null)
  if (old && next && old.language === next.language && old.status === next.status && old.day === next.day) {
    // Same key: only the tokens that changed.
    const kept = new Set(next.tokens)
    const had = new Set(old.tokens)
    await dropPostings(db, [old], classes, (p) => p.tokens.filter((t) => !kept.has(t)))
    await addPostings(db, [next], classes, (p) => p.tokens.filter((t) => !had.has(t)))
    return
  }
  if (old) await dropPostings(db, [old], classes, (p) => p.tokens)
  if (next) await addPostings(db, [next], classes, (p) => p.tokens)
}

/** syncEventWords(db, null, e) for many new events at once (a recurring series). */
export async function insertEventWords(db: Db, events: readonly Worded[]): Promise<void> {
  if (db.eventWords.state === 'off') return
  const list = events.flatMap((e) => postingsOf(e) ?? [])
  if (!list.length) return
  const classes = await classesOf(db, list, true)
  for (let i = 0; i < list.length; i += 500) await addPostings(db, list.slice(i, i + 500), classes, (p) => p.tokens)
}

/**
 * Several words are searched through the postings only while their tokens have at most this
 * many postings in all (about 0.15 us each to read, and as much again to intersect); beyond, the
 * trigram index of posts intersects them without reading any (a 3% word and a 13% one at 1M
 * events: 30 ms through 107,000 postings, 20 ms through the trigrams).
 */
const MANY_POSTINGS = 50_000

export interface WordMatch {
  /** Per word, the vocabulary ids of the tokens containing it (empty: no event holds it). */
  ids: number[][]
  /** The classes of the list's language and statuses. */
  classes: number[]
}

/**
 * The tokens of each word and the list's classes, in one round trip; null when the postings
 * would not pay: a word matching more than MAX_TOKENS_PER_WORD tokens, or several words with
 * more than MANY_POSTINGS postings in all.
 */
export async function wordMatch(
  db: Db,
  words: readonly string[],
  language: string,
  statuses: readonly string[],
): Promise<WordMatch | null> {
  // LIKE for three characters or more (the vocabulary's trigram index serves it), strpos below.
  const columns = words.map(
    (w, i) =>
      `ARRAY(SELECT id FROM ${SEARCH_WORDS_TABLE} WHERE ${
        [...w].length >= 3 ? `token LIKE ? ESCAPE '\\'` : 'strpos(token, ?) > 0'
      } LIMIT ${MAX_TOKENS_PER_WORD + 1}) AS w${i}`,
  )
  const params: SqlParam[] = words.map((w) => ([...w].length >= 3 ? likeContains(w) : w))
  const [row] = await db.query<Record<string, unknown>>(
    `SELECT ${columns.join(', ')},
       ARRAY(SELECT id FROM ${WORD_CLASSES_TABLE} WHERE language = ? AND status = ANY(?::text[]) ORDER BY id) AS classes`,
    [...params, language, [...new Set(statuses)]],
  )
  const ids = words.map((_, i) => ((row?.[`w${i}`] as unknown[] | undefined) ?? []).map(toInt))
  if (ids.some((list) => list.length > MAX_TOKENS_PER_WORD)) return null
  if (ids.length > 1 && ids.every((list) => list.length)) {
    let postings = 0
    for (const list of ids) postings += await db.eventWords.postings(db, list)
    if (postings > MANY_POSTINGS) return null
  }
  return { ids, classes: ((row?.classes as unknown[] | undefined) ?? []).map(toInt) }
}

/** The `k` bounds of the events starting within the list's start bounds (a superset: the list's own filters decide). */
export function wordRange(q: { startGte?: string; startGt?: string; startLt?: string }): [number, number] {
  const lows = [q.startGte, q.startGt].filter((d): d is string => d !== undefined).map(dayKey)
  const from = lows.length ? Math.max(...lows) : 0
  const to = q.startLt === undefined ? LAST_DAY : dayKey(q.startLt)
  return [from, to]
}

/** `k BETWEEN` the days' first and last keys, as SQL numbers (they exceed 2^53). */
const kBetween = (from: number, to: number) =>
  `e.k BETWEEN ${from} * ${2 ** ID_BITS}::bigint AND ${to} * ${2 ** ID_BITS}::bigint + ${ID_MASK}`

/**
 * The keys of the events holding every word (one list of token ids per word) in `classes`
 * whose start day lies in [from, to], as `SELECT k`: each word's postings, intersected.
 */
function matchingKeys(
  ids: readonly number[][],
  classes: readonly number[],
  [from, to]: [number, number],
): { sql: string; params: SqlParam[] } {
  const one = `SELECT e.k FROM ${EVENT_WORDS_TABLE} e WHERE e.word_id = ANY(?::integer[]) AND e.cls = ANY(?::integer[]) AND ${kBetween(from, to)}`
  // An event has each token once; a word of several tokens may have several of them (DISTINCT).
  // INTERSECT keeps each key once.
  const sql = ids.length > 1 ? ids.map(() => one).join(' INTERSECT ') : ids[0]!.length > 1 ? `SELECT DISTINCT k FROM (${one}) d` : one
  return { sql, params: ids.flatMap((list) => [list as SqlParam, classes as SqlParam]) }
}

/** The matches as `(...) m` with `m.id`, for joining to posts. */
export function wordMatches(
  ids: readonly number[][],
  classes: readonly number[],
  range: [number, number],
): { sql: string; params: SqlParam[] } {
  const keys = matchingKeys(ids, classes, range)
  return { sql: `(SELECT k & ${ID_MASK} AS id FROM (${keys.sql}) x) m`, params: keys.params }
}

/**
 * The exact count of a search list whose only other filters are language, statuses and the
 * window start_date >= startGte AND end_date <= endLte, from the postings' keys: the matches
 * starting on the window's days, less those on its edge days that fail the exact bounds (looked
 * up in posts): the first day when startGte is not its start, and the days from the earliest
 * start of an event crossing endLte (event_day_counts says which). Null when it cannot answer
 * exactly (an event ending before its start day begins, after endLte's day).
 */
export async function windowedWordCount(
  db: Db,
  s: Omit<WindowedSearch, 'match'>,
  ids: readonly number[][],
  classes: readonly number[],
): Promise<WindowedCount | null> {
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(s.startGte) || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(s.endLte)) return null
  const statuses = [...new Set(s.statuses)]
  if (!statuses.length || !classes.length || ids.some((list) => !list.length)) return { total: 0, matches: null }
  const edge = await windowEdge(db, s, statuses)
  if (edge.inverted) return null
  const from = dayKey(s.startGte)
  const to = dayKey(s.endLte)
  if (from > to) return { total: 0, matches: null }
  const edges: [number, number][] = []
  if (!s.startGte.endsWith(' 00:00:00')) edges.push([from, from])
  if (edge.first !== null) edges.push([Math.max(dayKey(edge.first), from), to])
  const keys = matchingKeys(ids, classes, [from, to])
  const day = `(m.k >> ${ID_BITS})`
  const counted = edges.length
    ? `count(*) - count(CASE WHEN (${edges.map(() => `${day} BETWEEN ? AND ?`).join(' OR ')})
         AND EXISTS (SELECT 1 FROM posts p WHERE p.id = m.k & ${ID_MASK} AND NOT (p.start_date >= ? AND p.end_date <= ?)) THEN 1 END)`
    : 'count(*)'
  const edgeParams = edges.length ? [...edges.flat(), s.startGte, s.endLte] : []
  const [row] = await db.query<{ n: unknown }>(`SELECT ${counted} AS n FROM (${keys.sql}) m`, [...edgeParams, ...keys.params])
  return { total: toInt(row?.n ?? 0), matches: wordMatches(ids, classes, [from, to]) }
}
