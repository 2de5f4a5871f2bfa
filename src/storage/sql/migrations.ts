/**
 * Versioned schema migrations. Each migration is a list of single DDL statements, each
 * idempotent (`IF NOT EXISTS`); a migration's version is recorded in `calendar_migrations` once
 * all of its statements ran, so an interrupted run simply repeats them. A run holds the driver's
 * migration lock (see runMigrations) and is one transaction (both engines' DDL is
 * transactional): an advisory lock on PostgreSQL, the write lock on SQLite. Append new migrations; never edit a released one.
 *
 * Types are written as {id} {int} {text} {bool} {real} and filled in by the dialect. Dates are
 * text 'YYYY-MM-DD HH:MM:SS' (they sort as text on both engines, byte-wise); image and cost are
 * JSON text. Link tables reference their event with ON DELETE CASCADE; the linked venue,
 * organizer or term id carries no foreign key because the storage contract stores link ids as
 * given (the resource layer validates them), exactly like the memory backend.
 */
import type { Dialect, MigrationStatement } from './dialect.js'
import { ID_BLOCK, ID_BLOCK_START } from '../types.js'
import type { SqlConnection, SqlDriver } from './driver.js'
import { classify, translate, RetryTransaction } from './errors.js'
import { DAY_OF_END, DAY_OF_START, liveTermCount } from './records.js'
import { CUSTOM_FILTERS_BACKFILL, EVENT_FILTERS_BACKFILL, EVENT_FILTERS_DDL, linksBackfill } from './event-filters.js'
import { createEventSearchIndex } from './event-search.js'
import { EVENT_WORDS_DDL, canIndexWords, eventWordsBackfill, finishTokenIndex } from './event-words.js'
import { JOURNAL_COUNTS_DDL, JOURNAL_DATA, JOURNAL_DDL, JOURNAL_NAMES_DDL } from './journal.js'
import { WEBHOOK_DDL, WEBHOOK_QUEUE_DDL, WEBHOOK_REPLAY_DDL } from './webhooks.js'
import { IMPORT_LINKS_DDL, IMPORT_RESUME_DDL } from './import-links.js'
import { CUSTOM_VALUES_DDL } from './custom-values.js'
import { SQLITE_EVENT_KEYS_BACKFILL, SQLITE_EVENT_KEYS_DDL, SQLITE_EVENT_KEYS_INDEX_DDL, createSearchIndex } from './search-index.js'

export type { MigrationStatement }

export interface Migration {
  version: number
  name: string
  statements: MigrationStatement[]
  /**
   * Runs after `statements`, for work that depends on what the engine offers (optional
   * indexes), through the driver it is given (with a migration lock, that one runs inside the
   * run's transaction, a `transaction()` there being a savepoint). Must be safe to run again;
   * reports through `log`.
   */
  run?: (driver: SqlDriver, log: (line: string) => void) => Promise<void>
  /**
   * Data statements run after `statements`, together in one write transaction (SERIALIZABLE on
   * PostgreSQL, so a concurrent writer either sees their result or conflicts and is retried).
   * Each must be safe to run again.
   */
  data?: MigrationStatement[]
  /**
   * Whether the engine can have what this migration creates (checked first). When not, it says
   * why through `log` and the migration is recorded without running anything: what it would
   * serve keeps working the way it did before.
   */
  applies?: (driver: SqlDriver, log: (line: string) => void) => Promise<boolean>
  /**
   * Runs last, once the run recorded every version and released the migration lock, outside any
   * transaction: upkeep of what `data` filled (VACUUM, ANALYZE, an index built once the rows are
   * there). Must be safe to run again; a process stopped before it leaves the upkeep undone.
   */
  finish?: (driver: SqlDriver, log: (line: string) => void) => Promise<void>
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'posts, terms, links, search',
    statements: [
      // Events, venues and organizers in one table: they share one id space.
      `CREATE TABLE IF NOT EXISTS posts (
        id {id},
        type {text} NOT NULL,
        language {text} NOT NULL,
        translation_group {int} NOT NULL,
        author {int} NOT NULL,
        status {text} NOT NULL,
        slug {text} NOT NULL,
        title {text} NOT NULL,
        description {text} NOT NULL,
        excerpt {text} NOT NULL,
        post_date {text} NOT NULL,
        post_date_utc {text} NOT NULL,
        modified {text} NOT NULL,
        modified_utc {text} NOT NULL,
        image {text},
        search_text {text},
        start_date {text},
        end_date {text},
        start_date_utc {text},
        end_date_utc {text},
        timezone_name {text},
        all_day {bool},
        cost {text},
        currency_symbol {text},
        currency_position {text},
        currency_code {text},
        website {text},
        show_map {bool},
        show_map_link {bool},
        hide_from_listings {bool} NOT NULL DEFAULT FALSE,
        sticky {bool},
        featured {bool},
        parent_id {int},
        address {text},
        city {text},
        country {text},
        province {text},
        state {text},
        zip {text},
        phone {text},
        stateprovince {text},
        email {text},
        geo_lat {real},
        geo_lng {real}
      )`,
      `CREATE UNIQUE INDEX IF NOT EXISTS posts_slug ON posts (type, language, slug)`,
      // The default event list: equality on type/language/status/visibility, range and order on start.
      `CREATE INDEX IF NOT EXISTS posts_event_start ON posts (type, language, status, hide_from_listings, start_date, id)`,
      // featured=true lists walk only the (few) featured events; the query spells the same literal.
      // All the equality columns again, so planners prefer it without statistics.
      `CREATE INDEX IF NOT EXISTS posts_event_featured ON posts (type, language, status, hide_from_listings, featured, start_date, id) WHERE featured = TRUE`,
      // Venue and organizer lists: newest first.
      `CREATE INDEX IF NOT EXISTS posts_linked_date ON posts (type, language, post_date_utc DESC, id DESC)`,
      `CREATE INDEX IF NOT EXISTS posts_parent ON posts (parent_id)`,
      `CREATE INDEX IF NOT EXISTS posts_translation ON posts (translation_group)`,
      `CREATE TABLE IF NOT EXISTS terms (
        id {id},
        taxonomy {text} NOT NULL,
        language {text} NOT NULL,
        translation_group {int} NOT NULL,
        name {text} NOT NULL,
        name_lower {text} NOT NULL,
        slug {text} NOT NULL,
        description {text} NOT NULL,
        parent {int} NOT NULL
      )`,
      `CREATE UNIQUE INDEX IF NOT EXISTS terms_slug ON terms (taxonomy, language, slug)`,
      `CREATE INDEX IF NOT EXISTS terms_name ON terms (taxonomy, language, name_lower)`,
      `CREATE INDEX IF NOT EXISTS terms_parent ON terms (parent)`,
      `CREATE INDEX IF NOT EXISTS terms_translation ON terms (translation_group)`,
      // Event -> venue/organizer, in link order (seq).
      `CREATE TABLE IF NOT EXISTS event_links (
        event_id {int} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
        kind {text} NOT NULL,
        seq {int} NOT NULL,
        linked_id {int} NOT NULL,
        PRIMARY KEY (event_id, kind, seq)
      )`,
      `CREATE INDEX IF NOT EXISTS event_links_linked ON event_links (linked_id, kind, event_id)`,
      // Event -> category/tag, in list order (seq).
      `CREATE TABLE IF NOT EXISTS event_terms (
        event_id {int} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
        kind {text} NOT NULL,
        seq {int} NOT NULL,
        term_id {int} NOT NULL,
        PRIMARY KEY (event_id, kind, seq)
      )`,
      `CREATE INDEX IF NOT EXISTS event_terms_term ON event_terms (term_id, event_id)`,
      // Lower-cased searchable fields of venues and organizers, one row per non-empty field:
      // "one field contains every fragment" is then one EXISTS over a post's rows.
      `CREATE TABLE IF NOT EXISTS post_search (
        post_id {int} NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
        field {text} NOT NULL,
        value {text} NOT NULL,
        PRIMARY KEY (post_id, field)
      )`,
    ],
  },
  {
    version: 2,
    name: 'maintained term counts',
    statements: [
      // A term's count (published events of its language carrying it) is embedded in every event
      // representation; counted live it costs O(events with the term) per term, seconds per page
      // at 1M events. The writes keep it here instead (write.ts), in the same transaction.
      `CREATE TABLE IF NOT EXISTS term_counts (
        term_id {int} PRIMARY KEY,
        n {int} NOT NULL
      )`,
      // end_date joins the default event index (after id, so it still delivers start_date, id
      // order): the count of a date window then reads the index alone instead of one table row
      // per event in the window (about 30x faster on SQLite at 1M events). Same name, so a rerun
      // after an interruption ends in the same state.
      `DROP INDEX IF EXISTS posts_event_start`,
      `CREATE INDEX IF NOT EXISTS posts_event_start ON posts (type, language, status, hide_from_listings, start_date, id, end_date)`,
    ],
    data: [
      // WHERE TRUE: SQLite needs it to parse ON CONFLICT after INSERT ... SELECT.
      `INSERT INTO term_counts (term_id, n) SELECT t.id, ${liveTermCount('t.id', 't.language')} FROM terms t WHERE TRUE
       ON CONFLICT (term_id) DO NOTHING`,
    ],
  },
  {
    version: 3,
    name: 'maintained event day counts',
    statements: [
      // The total of the common event list (language, statuses, whole-day date window) counted
      // live costs O(events in the window): 76 ms on SQLite at 1M events. The writes keep the
      // listed events (hide_from_listings = FALSE) counted per language, status, start day and
      // end day here (write.ts), in the same transaction; the list sums O(days) rows (read.ts).
      // The primary key serves that sum: equality on language and status, range on start_day.
      `CREATE TABLE IF NOT EXISTS event_day_counts (
        language {text} NOT NULL,
        status {text} NOT NULL,
        start_day {text} NOT NULL,
        end_day {text} NOT NULL,
        n {int} NOT NULL,
        PRIMARY KEY (language, status, start_day, end_day)
      )`,
    ],
    data: [
      // Recomputed from scratch (not ON CONFLICT DO NOTHING): a writer that already kept the new
      // table between the CREATE and this fill would otherwise leave its partial row in place.
      `DELETE FROM event_day_counts`,
      `INSERT INTO event_day_counts (language, status, start_day, end_day, n)
       SELECT language, status, ${DAY_OF_START}, ${DAY_OF_END}, count(*) FROM posts
       WHERE type = 'event' AND hide_from_listings = FALSE
       GROUP BY language, status, ${DAY_OF_START}, ${DAY_OF_END}`,
    ],
  },
  {
    version: 4,
    name: 'venue coordinates index',
    statements: [
      // Geofence filters read the venues of a circle's bounding box from here (a range on
      // latitude, longitude checked in the index), then test exact distance on those rows only
      // (read.ts). Partial: only venues with both coordinates, however many other posts there
      // are; status and author make it covering for the visibility test. `type` leads although
      // it is constant: a planner without statistics (SQLite) then sees equality plus a range
      // here, more than posts_linked_date's equality alone, and picks this one.
      `CREATE INDEX IF NOT EXISTS posts_venue_geo ON posts (type, geo_lat, geo_lng, status, author)
       WHERE type = 'venue' AND geo_lat IS NOT NULL AND geo_lng IS NOT NULL`,
    ],
  },
  {
    version: 5,
    name: 'substring search index',
    statements: [{ sqlite: SQLITE_EVENT_KEYS_INDEX_DDL }],
    // The FTS5 trigram table (SQLite) or pg_trgm GIN index (PostgreSQL), built over the rows
    // already there; optional, see search-index.ts.
    run: createSearchIndex,
    data: [
      // Venues and organizers get search_text too (their searched fields, one per line), so the
      // same index narrows their search; their exact per-field test stays on post_search.
      {
        sqlite: `UPDATE posts SET search_text = COALESCE((SELECT group_concat(s.value, char(10)) FROM post_search s WHERE s.post_id = posts.id), '')
                 WHERE type <> 'event'`,
        postgres: `UPDATE posts SET search_text = COALESCE((SELECT string_agg(s.value, E'\\n') FROM post_search s WHERE s.post_id = posts.id), '')
                   WHERE type <> 'event'`,
      },
    ],
  },
  {
    version: 6,
    name: 'event filter ranges and counters',
    // Lists filtered by venue, organizer, category or tag read one range and count from an
    // index or the counters (event-filters.ts); the writes keep both (write.ts).
    statements: EVENT_FILTERS_DDL,
    data: EVENT_FILTERS_BACKFILL,
  },
  {
    version: 7,
    name: 'iCalendar sequence',
    statements: [
      // Grows whenever a field a calendar shows changes (storage/sequence.ts). Existing events
      // start at 0, as new ones do. No IF NOT EXISTS (SQLite has none for columns): a rerun's
      // "duplicate column" is taken as already done (executeDdl).
      `ALTER TABLE posts ADD COLUMN ical_sequence {int} NOT NULL DEFAULT 0`,
    ],
  },
  {
    version: 8,
    name: 'recurring series',
    statements: [
      // series_id: the series' first occurrence (0: a lone event), for `post_parent`-independent
      // series reads; series: the member's place (JSON).
      `ALTER TABLE posts ADD COLUMN series_id {int} NOT NULL DEFAULT 0`,
      `ALTER TABLE posts ADD COLUMN series {text}`,
      `CREATE INDEX IF NOT EXISTS posts_series ON posts (series_id, start_date, id)`,
    ],
  },
  {
    version: 9,
    name: 'record revision',
    // Grows on every change of the row: the key of a record's cached representation.
    statements: [`ALTER TABLE posts ADD COLUMN revision {int} NOT NULL DEFAULT 0`],
  },
  {
    version: 10,
    name: 'narrow event keys for search counts',
    // SQLite: a search's count looks up each FTS match's list columns in a small rowid table
    // instead of an index of posts (search-index.ts); PostgreSQL has nothing to do here.
    statements: SQLITE_EVENT_KEYS_DDL.map((sqlite) => ({ sqlite })),
    data: SQLITE_EVENT_KEYS_BACKFILL.map((sqlite) => ({ sqlite })),
  },
  {
    version: 11,
    name: 'event filter rows without a foreign key',
    // event_filters is derived from the link tables and written only next to them, deletes
    // included (write.ts): PostgreSQL's per-row key check cost a recurring series of 500 about
    // 8 ms of its creation and protected nothing the writes do not. SQLite keeps it (its check
    // is a primary-key probe, and dropping it would mean rebuilding the table).
    statements: [{ postgres: 'ALTER TABLE event_filters DROP CONSTRAINT IF EXISTS event_filters_event_id_fkey' }],
  },
  {
    version: 12,
    name: 'event search index keyed by status and start day',
    // SQLite: events move from post_fts to event_fts, whose rowid orders the matches by
    // (language, status, hidden) and start day, so a windowed search count is a rowid range
    // (event-search.ts); optional, like the index of migration 5. PostgreSQL: nothing to do.
    statements: [],
    run: createEventSearchIndex,
  },
  {
    version: 13,
    name: 'event links on each event filter row',
    // A list filtered by two links walks the first one's range and tests the second in the row's
    // `links` instead of probing its rows (event-filters.ts). Rewrites every row of event_filters
    // once (PostgreSQL: every row gets a new version).
    statements: [`ALTER TABLE event_filters ADD COLUMN links {text} NOT NULL DEFAULT ''`],
    data: [{ sqlite: linksBackfill('sqlite'), postgres: linksBackfill('postgres') }],
  },
  {
    version: 14,
    name: 'event token index',
    // PostgreSQL: an inverted index of the events' whitespace-separated tokens, keyed like a
    // list (event-words.ts), so a search count reads index keys instead of testing each trigram
    // candidate's row. Reads use it once this migration is recorded, that is after the backfill.
    // Optional (an engine without sha256() or this regular expression syntax keeps the trigram
    // index of posts).
    applies: canIndexWords,
    statements: EVENT_WORDS_DDL.map((postgres) => ({ postgres })),
    // A getter: the statements embed JavaScript's whitespace class, built by testing every code
    // point (26 ms), which only a PostgreSQL database lacking this migration needs.
    get data() {
      return eventWordsBackfill().map((postgres) => ({ postgres }))
    },
    finish: finishTokenIndex,
  },
  {
    version: 15,
    name: 'term revisions',
    // A term row's revision grows on every change (write.ts), so the record cache can hold
    // decoded terms as it holds posts: a list's terms are then read as ids, revisions and counts.
    statements: [`ALTER TABLE terms ADD COLUMN revision {int} NOT NULL DEFAULT 0`],
  },
  {
    version: 16,
    name: 'change journal',
    // Triggers on posts and terms write an entry for every record a transaction changes, in that
    // transaction (journal.ts). PostgreSQL 14 or later (xid8, CREATE OR REPLACE TRIGGER).
    statements: JOURNAL_DDL,
    data: JOURNAL_DATA,
  },
  {
    version: 17,
    name: 'change journal: term counts',
    // A term's live count is part of what it shows (journal.ts).
    statements: JOURNAL_COUNTS_DDL,
  },
  {
    version: 18,
    name: 'webhooks',
    // Endpoints, deliveries and the dispatcher's journal cursor (webhooks.ts).
    statements: WEBHOOK_DDL,
  },
  {
    version: 19,
    name: 'event status and attendance',
    // TEC's Event Status and online attendance (fields.ts); events stored before are scheduled
    // and offline. No IF NOT EXISTS for columns on SQLite: a rerun's duplicate column is taken as done.
    statements: [
      `ALTER TABLE posts ADD COLUMN event_status {text} NOT NULL DEFAULT 'scheduled'`,
      `ALTER TABLE posts ADD COLUMN event_status_reason {text} NOT NULL DEFAULT ''`,
      `ALTER TABLE posts ADD COLUMN previous_start_date {text}`,
      `ALTER TABLE posts ADD COLUMN attendance_mode {text} NOT NULL DEFAULT 'offline'`,
      `ALTER TABLE posts ADD COLUMN virtual_url {text}`,
    ],
  },
  {
    version: 20,
    name: 'webhook queue indexes',
    // A claim reads the held deliveries and the head of the queue, not the whole queue (webhooks.ts).
    statements: WEBHOOK_QUEUE_DDL,
  },
  {
    version: 21,
    name: 'custom fields',
    // The host's custom field values as JSON on every post, and their filter rows
    // (custom-values.ts). Posts stored before have none: nothing to fill.
    statements: [`ALTER TABLE posts ADD COLUMN custom_fields {text} NOT NULL DEFAULT '{}'`, ...CUSTOM_VALUES_DDL],
  },
  {
    version: 22,
    name: 'import links',
    // Imported records and their sources, the validators of each source's last fetch (import-links.ts).
    statements: IMPORT_LINKS_DDL,
  },
  {
    version: 23,
    name: 'import resume point',
    // Where an interrupted TEC import goes on (import-links.ts); sources stored before have none.
    statements: IMPORT_RESUME_DDL,
  },
  {
    version: 24,
    name: 'custom field values in event filters',
    // A list filtered by a common custom field value pages one range of event_filters and counts
    // its day counters, like a category (event-filters.ts), instead of counting every match in
    // the window (1.2 s for 300k matches at 1M events). The rows come from event_custom_values.
    statements: [],
    data: CUSTOM_FILTERS_BACKFILL,
  },
  {
    version: 25,
    name: 'reserved id blocks',
    // Blocks of post ids for the occurrences of open-ended series (StorageTx.reserveIds),
    // from 2^32 up: below 2^33, the event ids the PostgreSQL word index packs (event-words.ts).
    statements: [
      `CREATE TABLE IF NOT EXISTS post_id_blocks (first_id {int} PRIMARY KEY, head_id {int} NOT NULL)`,
      {
        postgres: `CREATE SEQUENCE IF NOT EXISTS post_id_block_seq START ${ID_BLOCK_START} INCREMENT ${ID_BLOCK} MINVALUE ${ID_BLOCK_START} MAXVALUE ${2 * ID_BLOCK_START - ID_BLOCK}`,
      },
    ],
  },
  {
    version: 26,
    name: 'webhook replays',
    // Which delivery a replay sends again (webhooks.ts); deliveries stored before are originals.
    statements: WEBHOOK_REPLAY_DDL,
  },
  {
    version: 27,
    name: 'journal names',
    // An event's entries keep its caldav name and prior status (journal.ts); entries written
    // before have none (a CalDAV sync names those events {id}@{host}.ics).
    statements: JOURNAL_NAMES_DDL,
  },
]

export function renderDdl(dialect: Dialect, statement: string): string {
  return statement.replace(/\{(id|int|text|bool|real)\}/g, (_, t: keyof Dialect['types']) => dialect.types[t])
}

/**
 * Two processes creating the same object at once: PostgreSQL can report a duplicate catalog
 * entry (23505 on pg_type, 42P07, 42710) even with IF NOT EXISTS. The other process won; running
 * the statement again finds the object and does nothing.
 */
async function executeDdl(driver: SqlDriver, sql: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await driver.execute(sql)
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code
      // A column added by an earlier, interrupted run: PostgreSQL 42701, SQLite by message.
      if (code === '42701' || /duplicate column name/i.test(String((err as Error | null)?.message))) return
      const duplicate = classify(err) === 'unique' || code === '42P07' || code === '42710'
      if (!duplicate || attempt >= 5) throw err
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt))
    }
  }
}

/**
 * One write transaction of the migration runner. Two processes migrating at once may conflict
 * (PostgreSQL's SERIALIZABLE reports 40001 even for ON CONFLICT DO NOTHING on a row the other
 * just inserted): run it again, it is idempotent.
 */
async function retried(driver: SqlDriver, fn: (c: SqlConnection) => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await driver.transaction(fn)
      return
    } catch (err) {
      if (!(translate(err) instanceof RetryTransaction) || attempt >= 8) throw err
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}

/** The statement's text for this engine, or null when it does not apply there. */
function forDialect(dialect: Dialect, statement: MigrationStatement): string | null {
  return typeof statement === 'string' ? statement : (statement[dialect.name] ?? null)
}

/**
 * Applies the migrations the database lacks, in order; returns their versions. Safe to run
 * concurrently and repeatedly: where the driver has a migration lock (SQLite's write lock,
 * PostgreSQL's advisory lock), a run holds it from reading the applied versions to recording the
 * last one, so a second process starting at the same moment waits, then finds them applied and
 * runs nothing. Without one, each step is still safe to repeat (see above).
 */
export async function runMigrations(
  driver: SqlDriver,
  dialect: Dialect,
  migrations: Migration[] = MIGRATIONS,
  log: (line: string) => void = (line) => console.warn(line),
): Promise<number[]> {
  const run = (locked: SqlDriver) => applyMissing(locked, dialect, migrations, log)
  const { applied, upkeep } = await (driver.migrationLock ? driver.migrationLock(run) : run(driver))
  // Upkeep once the lock is released, through the driver itself: VACUUM cannot run inside the
  // run's transaction, and a process that stops before this leaves only slower statistics.
  for (const m of upkeep) await m.finish?.(driver, log)
  return applied
}

/** The versions applied, and the migrations among them that ran and have a `finish` step. */
async function applyMissing(
  driver: SqlDriver,
  dialect: Dialect,
  migrations: Migration[],
  log: (line: string) => void,
): Promise<{ applied: number[]; upkeep: Migration[] }> {
  await executeDdl(
    driver,
    renderDdl(dialect, `CREATE TABLE IF NOT EXISTS calendar_migrations (version {int} PRIMARY KEY, applied_at {text} NOT NULL)`),
  )
  const rows = await driver.read((c) => c.query<{ version: unknown }>('SELECT version FROM calendar_migrations'))
  const done = new Set(rows.map((r) => Number(r.version)))
  const applied: number[] = []
  const upkeep: Migration[] = []
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue
    if ((await applyOne(driver, dialect, m, log)) && m.finish) upkeep.push(m)
    applied.push(m.version)
  }
  return { applied, upkeep }
}

/** One migration's steps, then its version recorded; whether it applied to this engine. */
async function applyOne(driver: SqlDriver, dialect: Dialect, m: Migration, log: (line: string) => void): Promise<boolean> {
  const applies = m.applies ? await m.applies(driver, log) : true
  for (const statement of applies ? m.statements : []) {
    const text = forDialect(dialect, statement)
    if (text !== null) await executeDdl(driver, renderDdl(dialect, text))
  }
  if (applies) await m.run?.(driver, log)
  // Data statements together in one transaction (SERIALIZABLE on PostgreSQL, so a concurrent
  // writer either sees their result or conflicts and is retried).
  const data = applies ? (m.data ?? []).flatMap((statement) => forDialect(dialect, statement) ?? []) : []
  if (data.length)
    await retried(driver, async (c) => {
      for (const statement of data) await c.run(dialect.sql(statement))
    })
  await retried(driver, (c) =>
    c.run(dialect.sql('INSERT INTO calendar_migrations (version, applied_at) VALUES (?, ?) ON CONFLICT (version) DO NOTHING'), [
      m.version,
      new Date().toISOString(),
    ]),
  )
  return applies
}
