/**
 * The substring index behind `search`. The rule stays the memory backend's: every lower-cased
 * word is a substring of the lower-cased text (events: title, description and excerpt, HTML
 * included; venues and organizers: one of their searched fields holds every fragment). The text
 * is `posts.search_text`, lower-cased by JavaScript when written; the index only narrows the
 * candidates, and the exact substring test (`instr`/`strpos`/`LIKE` with every metacharacter
 * escaped) still decides, so no search term is ever interpreted.
 *
 * - SQLite: an FTS5 table with the trigram tokenizer over `posts.search_text` (external content,
 *   kept by triggers in the writing transaction). Since migration 12 it holds venues and
 *   organizers only; events have a table of their own keyed for windowed counts (event-search.ts). Case-sensitive trigrams: both sides are
 *   already lower-cased by JavaScript, so SQLite's own case folding never gets a say. A word of
 *   three characters or more becomes a quoted FTS5 phrase (a phrase of trigrams is exactly "the
 *   text contains this substring"); inside quotes FTS5 reads no syntax, `"` is doubled. Shorter
 *   words have no trigram: they are tested on the rows the other filters leave.
 * - PostgreSQL: a pg_trgm GIN index on `posts.search_text`, which serves `LIKE '%word%'`. Words
 *   of three characters or more are written as such a LIKE (`\`, `%` and `_` escaped); shorter
 *   ones as `strpos`, which never tempts the planner into a full index scan.
 * Either index may be absent (an SQLite without FTS5 or trigram, a role that may not create the
 * extension): the migration says so once through the storage's `log` and the search scans.
 */
import type { Db, Where } from './db.js'
import type { SqlDriver } from './driver.js'
import { firstLine } from './errors.js'

/** Words shorter than this (in characters) have no trigram and cannot use either index. */
const TRIGRAM = 3
const indexable = (word: string) => [...word].length >= TRIGRAM

export const FTS_TABLE = 'post_fts'
export const PG_TRGM_INDEX = 'posts_search_trgm'

/**
 * SQLite: the columns a search count filters on, one narrow row per listed event (not hidden),
 * keyed by the post id. The FTS matches come in id order and each needs those columns; from a
 * rowid table of ~40-byte rows that costs about half of what the same lookup costs in an index
 * of `posts` (measured at 1M events: a 33k-match count 101 -> 49 ms under load, 58 -> 41 ms on
 * a later run). Kept by triggers in the writing transaction, like the FTS table.
 */
export const EVENT_KEYS_TABLE = 'event_keys'
const keysRow = (r: 'new' | 'posts') => `${r}.id, ${r}.language, ${r}.status, COALESCE(${r}.start_date, ''), COALESCE(${r}.end_date, '')`
const listed = (r: 'new' | 'posts') => `${r}.type = 'event' AND ${r}.hide_from_listings = FALSE`
export const SQLITE_EVENT_KEYS_DDL = [
  `CREATE TABLE IF NOT EXISTS ${EVENT_KEYS_TABLE} (
     id INTEGER PRIMARY KEY,
     language TEXT NOT NULL,
     status TEXT NOT NULL,
     start_date TEXT NOT NULL,
     end_date TEXT NOT NULL
   )`,
  `CREATE TRIGGER IF NOT EXISTS posts_event_keys_insert AFTER INSERT ON posts WHEN ${listed('new')} BEGIN
     INSERT INTO ${EVENT_KEYS_TABLE} (id, language, status, start_date, end_date) VALUES (${keysRow('new')});
   END`,
  `CREATE TRIGGER IF NOT EXISTS posts_event_keys_delete AFTER DELETE ON posts WHEN old.type = 'event' BEGIN
     DELETE FROM ${EVENT_KEYS_TABLE} WHERE id = old.id;
   END`,
  `CREATE TRIGGER IF NOT EXISTS posts_event_keys_update AFTER UPDATE OF type, language, status, hide_from_listings, start_date, end_date ON posts BEGIN
     DELETE FROM ${EVENT_KEYS_TABLE} WHERE id = old.id;
     INSERT INTO ${EVENT_KEYS_TABLE} (id, language, status, start_date, end_date) SELECT ${keysRow('new')} WHERE ${listed('new')};
   END`,
  // Its predecessor, an index of posts with the same columns (migration 5).
  `DROP INDEX IF EXISTS posts_event_keys`,
]
/** Fills the table for the events already there (in the migration's transaction; safe to rerun). */
export const SQLITE_EVENT_KEYS_BACKFILL = [
  `DELETE FROM ${EVENT_KEYS_TABLE}`,
  `INSERT INTO ${EVENT_KEYS_TABLE} (id, language, status, start_date, end_date) SELECT ${keysRow('posts')} FROM posts WHERE ${listed('posts')}`,
]
/** Migration 5 created this index; migration 10 replaced it with EVENT_KEYS_TABLE. */
export const SQLITE_EVENT_KEYS_INDEX_DDL = `CREATE INDEX IF NOT EXISTS posts_event_keys ON posts (id, type, language, status, hide_from_listings, start_date, end_date)`

/**
 * Whether the FTS phrase alone decides that the text contains `word`: three characters or more
 * (shorter ones have no trigram) and no NUL (which could cut the query string short).
 */
export const ftsExact = (word: string) => indexable(word) && !word.includes('\u0000')

/** The SQLite objects: the FTS5 table and the triggers that keep it in the writing transaction. */
export const SQLITE_SEARCH_DDL = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS ${FTS_TABLE} USING fts5(search_text, content='posts', content_rowid='id', tokenize='trigram case_sensitive 1')`,
  `CREATE TRIGGER IF NOT EXISTS posts_fts_insert AFTER INSERT ON posts WHEN new.search_text IS NOT NULL BEGIN
     INSERT INTO ${FTS_TABLE} (rowid, search_text) VALUES (new.id, new.search_text);
   END`,
  // External content: FTS5 removes a row's trigrams given the text it indexed, so the old value.
  `CREATE TRIGGER IF NOT EXISTS posts_fts_delete AFTER DELETE ON posts WHEN old.search_text IS NOT NULL BEGIN
     INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rowid, search_text) VALUES ('delete', old.id, old.search_text);
   END`,
  `CREATE TRIGGER IF NOT EXISTS posts_fts_update AFTER UPDATE OF search_text ON posts BEGIN
     INSERT INTO ${FTS_TABLE} (${FTS_TABLE}, rowid, search_text) SELECT 'delete', old.id, old.search_text WHERE old.search_text IS NOT NULL;
     INSERT INTO ${FTS_TABLE} (rowid, search_text) SELECT new.id, new.search_text WHERE new.search_text IS NOT NULL;
   END`,
]

/** Builds the index for the rows already there (idempotent: 'rebuild' starts from scratch). */
export const SQLITE_SEARCH_BACKFILL = `INSERT INTO ${FTS_TABLE} (${FTS_TABLE}) VALUES ('rebuild')`

/**
 * Creates the engine's search index. Never fails the migration: without the index the search
 * scans (as before), and `log` gets one line saying why.
 */
export async function createSearchIndex(driver: SqlDriver, log: (line: string) => void): Promise<void> {
  if (driver.dialect === 'sqlite') {
    try {
      for (const statement of SQLITE_SEARCH_DDL) await driver.execute(statement)
      await driver.transaction((c) => c.run(SQLITE_SEARCH_BACKFILL))
    } catch (err) {
      // Undo a half-made index: triggers on a table that does not exist would fail every write.
      for (const name of ['posts_fts_insert', 'posts_fts_delete', 'posts_fts_update'])
        await driver.execute(`DROP TRIGGER IF EXISTS ${name}`).catch(() => undefined)
      await driver.execute(`DROP TABLE IF EXISTS ${FTS_TABLE}`).catch(() => undefined)
      log(
        `calendar storage: this SQLite has no FTS5 trigram tokenizer (${firstLine(err)}); search scans the events the other filters select`,
      )
    }
    return
  }
  try {
    await driver.execute('CREATE EXTENSION IF NOT EXISTS pg_trgm')
  } catch (err) {
    // Not installed, or the role may not create extensions; maybe a DBA installed it already.
    const found = await extensionSchema(driver).catch(() => null)
    if (found === null) {
      log(
        `calendar storage: the pg_trgm extension is not available (${firstLine(err)}); search scans the events the other filters select. ` +
          `To index it, run as a superuser: CREATE EXTENSION pg_trgm; then CREATE INDEX ${PG_TRGM_INDEX} ON posts USING gin (search_text gin_trgm_ops)`,
      )
      return
    }
  }
  try {
    const opclass = (await trigramOpclass(driver)) ?? 'gin_trgm_ops'
    await driver.execute(`CREATE INDEX IF NOT EXISTS ${PG_TRGM_INDEX} ON posts USING gin (search_text ${opclass})`)
  } catch (err) {
    // Another instance migrating at the same moment may have created it first.
    const exists = await driver
      .read((c) => c.query<{ ok: unknown }>(`SELECT to_regclass('${PG_TRGM_INDEX}') IS NOT NULL AS ok`))
      .then((rows) => rows[0]?.ok === true)
      .catch(() => false)
    if (!exists)
      log(
        `calendar storage: could not create the trigram index ${PG_TRGM_INDEX} (${firstLine(err)}); search scans the events the other filters select`,
      )
  }
}

/**
 * pg_trgm's GIN operator class, qualified by the schema the extension lives in (which need not be
 * on our search_path); unqualified where the catalog names no schema (CockroachDB); null when the
 * extension is not installed.
 */
export async function trigramOpclass(driver: SqlDriver): Promise<string | null> {
  const schema = await extensionSchema(driver)
  return schema === null ? null : schema ? `"${schema.replace(/"/g, '""')}".gin_trgm_ops` : 'gin_trgm_ops'
}

/** The schema pg_trgm is installed in, '' when the catalog has no pg_extension (CockroachDB), null when not installed. */
async function extensionSchema(driver: SqlDriver): Promise<string | null> {
  const rows = await driver.read((c) =>
    c.query<{ schema: string }>(
      `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
    ),
  )
  return rows[0]?.schema ?? null
}

/**
 * An FTS5 query for rows containing every word of three characters or more as a substring, one
 * quoted phrase each (inside quotes FTS5 reads no syntax; `"` is doubled); null when no word is
 * that long.
 */
export function ftsQuery(words: readonly string[]): string | null {
  const long = words.filter(indexable)
  return long.length ? long.map((w) => `"${w.replace(/"/g, '""')}"`).join(' AND ') : null
}

/** A LIKE pattern for "contains `word`", every metacharacter escaped with `\`. */
export const likeContains = (word: string) => `%${word.replace(/[\\%_]/g, '\\$&')}%`

/**
 * Adds the exact test "`p.search_text` contains every word" to `w`. On PostgreSQL the words of
 * three characters or more are written as LIKE, which the trigram index serves; on SQLite the
 * caller adds the FTS match where it helps (`ftsQuery`), this is the test on each candidate.
 */
export function addSearch(db: Pick<Db, 'dialect'>, w: Where, words: readonly string[]): void {
  const d = db.dialect
  for (const word of words) {
    if (d.name === 'postgres' && indexable(word)) w.add(`p.search_text LIKE ? ESCAPE '\\'`, likeContains(word))
    else w.add(d.contains('p.search_text'), word)
  }
}

/**
 * For venues and organizers, whose exact test is per field (post_search): narrows the posts to
 * those whose search_text holds every fragment, through the index, when one serves.
 */
export function addSearchPrefilter(db: Db, w: Where, fragments: readonly string[]): void {
  if (db.dialect.name === 'sqlite') {
    const match = db.fts ? ftsQuery(fragments) : null
    if (match !== null) w.add(`p.id IN (SELECT rowid FROM ${FTS_TABLE} WHERE ${FTS_TABLE} MATCH ?)`, match)
    return
  }
  for (const word of fragments.filter(indexable)) w.add(`p.search_text LIKE ? ESCAPE '\\'`, likeContains(word))
}
