/**
 * The change journal on SQL (storage/journal.ts): `calendar_journal`, filled by triggers on
 * `posts` and `terms`, so every statement that changes a record's revision, creates or deletes
 * one writes its entry in the same transaction, cascades and bulk writes included.
 *
 * Order. SQLite has one writer at a time (BEGIN IMMEDIATE), so the AUTOINCREMENT position is
 * commit order. PostgreSQL hands out identity values before commit, so a transaction that
 * began later may commit first: there each entry also carries its transaction id, and
 * readers take only entries of transactions older than the oldest one still running in this
 * database (HORIZON below), in (xid, position) order. Those are all finished, so nothing can
 * ever appear before a position a reader has passed (docs/storage.md, "The change journal").
 *
 * A transaction's own entries: SQLite reads them back (positions after the one it began at);
 * PostgreSQL's triggers also note them in a transaction-local setting, because reading the
 * journal table inside a SERIALIZABLE writer would make every pair of concurrent writers
 * conflict.
 *
 * Positions are `<epoch>.<n>` (SQLite) and `<epoch>.<xid>.<n>` (PostgreSQL); the epoch is a
 * random name of this database's journal, so a position from another database is refused.
 */
import {
  JournalPositionError,
  type JournalAction,
  type JournalEntry,
  type JournalKind,
  type JournalName,
  type JournalPage,
} from '../journal.js'
import type { MigrationStatement } from './dialect.js'
import type { Db } from './db.js'
import { toInt } from './records.js'
import { ReplicaBehind } from './replicas.js'
import { columnText } from './driver.js'

/**
 * The horizon of this database's journal, as a number: the oldest transaction still running that
 * could have written it, else the snapshot's next transaction id. Transaction ids (and the
 * snapshot's list of running ones) are the server's, shared by all its databases; a running
 * transaction known to belong to another database (a backend or a prepared transaction of
 * another database holds it) writes no entry here, so it does not hold this journal back. One
 * that could not be placed (it ended between the snapshot and the look-up) counts, which only
 * delays. Kept as bigint rather than xid8: ordering and comparing them must be numeric, and a
 * plain integer key is what every engine indexes the same way. The 32-bit ids the look-up
 * gives are matched modulo 2^32: running ids are never that far apart.
 */
const HORIZON = `(SELECT least(pg_snapshot_xmax(s.snap), (
    SELECT min(x) FROM pg_snapshot_xip(s.snap) AS x
    WHERE (x::text::bigint % 4294967296) NOT IN (
      SELECT a.backend_xid::text::bigint FROM pg_stat_get_activity(NULL) AS a
        WHERE a.backend_xid IS NOT NULL AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
      UNION ALL
      SELECT p.transaction::text::bigint FROM pg_prepared_xacts AS p WHERE p.database <> current_database())
  ))::text::bigint FROM (SELECT pg_current_snapshot() AS snap) AS s)`

const SQLITE_NOW = `strftime('%Y-%m-%d %H:%M:%S', 'now')`

function sqliteTriggers(table: 'posts' | 'terms', kind: 'type' | 'taxonomy'): string[] {
  const trashed = kind === 'type' ? `CASE WHEN OLD.status <> 'trash' AND NEW.status = 'trash' THEN 'trash' ELSE 'update' END` : `'update'`
  const entry = (row: 'NEW' | 'OLD', action: string) =>
    `INSERT INTO calendar_journal (kind, record_id, action, revision, language, at)
     VALUES (${row}.${kind}, ${row}.id, ${action}, ${row}.revision, ${row}.language, ${SQLITE_NOW});`
  return [
    `CREATE TRIGGER IF NOT EXISTS calendar_journal_${table}_insert AFTER INSERT ON ${table} BEGIN ${entry('NEW', `'create'`)} END`,
    `CREATE TRIGGER IF NOT EXISTS calendar_journal_${table}_update AFTER UPDATE ON ${table} WHEN NEW.revision <> OLD.revision BEGIN
       ${entry('NEW', trashed)}
     END`,
    `CREATE TRIGGER IF NOT EXISTS calendar_journal_${table}_delete AFTER DELETE ON ${table} BEGIN ${entry('OLD', `'delete'`)} END`,
  ]
}

/**
 * One function per table for its three statement-level triggers: the rows a statement changed
 * come as transition tables, so a series of 500 writes its 500 entries in one INSERT. The
 * function keeps the search_path it was created with: a write through a connection whose path
 * lacks the storage's schema (a qualified `UPDATE s.posts`) still finds `calendar_journal`.
 */
function postgresFunction(table: 'posts' | 'terms', kind: 'type' | 'taxonomy', named = false): string {
  const trashed = kind === 'type' ? `CASE WHEN o.status <> 'trash' AND n.status = 'trash' THEN 'trash' ELSE 'update' END` : `'update'`
  const noted = `SELECT string_agg(concat_ws(' ', position, kind, record_id, action, revision, language), E'\\n' ORDER BY position) INTO written FROM ins`
  const into = `INSERT INTO calendar_journal (kind, record_id, action, revision, language${named ? ', name, prior_status' : ''})`
  const back = `RETURNING position, kind, record_id, action, revision, language`
  // Migration 27 adds each post's name and its status before the statement (JOURNAL_NAMES_DDL).
  const also = (rows: string, prior: string) => (named ? `, ${PG_NAME(rows)}, ${prior}` : '')
  return `CREATE OR REPLACE FUNCTION calendar_journal_${table}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE written text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH ins AS (${into} SELECT ${kind}, id, 'create', revision, language${also('new_rows', 'status')} FROM new_rows ORDER BY id ${back}) ${noted};
  ELSIF TG_OP = 'UPDATE' THEN
    WITH ins AS (${into} SELECT n.${kind}, n.id, ${trashed}, n.revision, n.language${also('n', 'o.status')}
      FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.revision <> o.revision ORDER BY n.id ${back}) ${noted};
  ELSE
    WITH ins AS (${into} SELECT ${kind}, id, 'delete', revision, language${also('old_rows', 'status')} FROM old_rows ORDER BY id ${back}) ${noted};
  END IF;
  IF written IS NOT NULL THEN
    PERFORM set_config('calendar.journal', coalesce(nullif(current_setting('calendar.journal', true), '') || E'\\n', '') || written, true);
  END IF;
  RETURN NULL;
END $fn$`
}

function postgresTriggers(table: 'posts' | 'terms'): string[] {
  const fn = `EXECUTE FUNCTION calendar_journal_${table}()`
  return [
    `CREATE OR REPLACE TRIGGER calendar_journal_${table}_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT ${fn}`,
    `CREATE OR REPLACE TRIGGER calendar_journal_${table}_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT ${fn}`,
    `CREATE OR REPLACE TRIGGER calendar_journal_${table}_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT ${fn}`,
  ]
}

/** Migration 16's DDL. */
export const JOURNAL_DDL: MigrationStatement[] = [
  {
    sqlite: `CREATE TABLE IF NOT EXISTS calendar_journal (
      position INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, record_id INTEGER NOT NULL, action TEXT NOT NULL,
      revision INTEGER NOT NULL, language TEXT NOT NULL, at TEXT NOT NULL)`,
    postgres: `CREATE TABLE IF NOT EXISTS calendar_journal (
      position bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, xid bigint NOT NULL DEFAULT pg_current_xact_id()::text::bigint,
      kind text NOT NULL, record_id bigint NOT NULL, action text NOT NULL, revision bigint NOT NULL, language text NOT NULL,
      at text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))`,
  },
  { postgres: `CREATE INDEX IF NOT EXISTS calendar_journal_order ON calendar_journal (xid, position)` },
  // The journal's name (epoch) and the last position compaction removed (floor).
  `CREATE TABLE IF NOT EXISTS calendar_journal_floor (one {int} PRIMARY KEY, epoch {text} NOT NULL, position {text} NOT NULL)`,
  ...sqliteTriggers('posts', 'type').map((sqlite) => ({ sqlite })),
  ...sqliteTriggers('terms', 'taxonomy').map((sqlite) => ({ sqlite })),
  { postgres: postgresFunction('posts', 'type') },
  { postgres: postgresFunction('terms', 'taxonomy') },
  ...postgresTriggers('posts').map((postgres) => ({ postgres })),
  ...postgresTriggers('terms').map((postgres) => ({ postgres })),
]

/**
 * Migration 17: a term whose live count changes (term_counts.n, kept by the writes of events)
 * is a changed record too: its representation shows the count, and lists hide empty terms.
 */
export const JOURNAL_COUNTS_DDL: MigrationStatement[] = [
  {
    sqlite: `CREATE TRIGGER IF NOT EXISTS calendar_journal_term_counts AFTER UPDATE OF n ON term_counts WHEN NEW.n <> OLD.n BEGIN
      INSERT INTO calendar_journal (kind, record_id, action, revision, language, at)
      SELECT taxonomy, id, 'count', revision, language, ${SQLITE_NOW} FROM terms WHERE id = NEW.term_id;
    END`,
  },
  {
    postgres: `CREATE OR REPLACE FUNCTION calendar_journal_term_counts() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE written text;
BEGIN
  WITH ins AS (INSERT INTO calendar_journal (kind, record_id, action, revision, language)
    SELECT t.taxonomy, t.id, 'count', t.revision, t.language FROM new_rows n JOIN old_rows o ON o.term_id = n.term_id
    JOIN terms t ON t.id = n.term_id WHERE n.n <> o.n ORDER BY t.id
    RETURNING position, kind, record_id, action, revision, language)
  SELECT string_agg(concat_ws(' ', position, kind, record_id, action, revision, language), E'\n' ORDER BY position) INTO written FROM ins;
  IF written IS NOT NULL THEN
    PERFORM set_config('calendar.journal', coalesce(nullif(current_setting('calendar.journal', true), '') || E'\n', '') || written, true);
  END IF;
  RETURN NULL;
END $fn$`,
  },
  {
    postgres: `CREATE OR REPLACE TRIGGER calendar_journal_term_counts AFTER UPDATE ON term_counts
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calendar_journal_term_counts()`,
  },
]

/**
 * Migration 27: each entry of an event keeps its `caldav_name` custom value (the resource name a
 * calendar app gave it; of the row as changed, or as it was for a delete) and its status before
 * the change (as created, for a create), so a CalDAV sync in any process can name what was
 * removed by the href the app knows, and tell whether a caller who sees only published events
 * may be told that name (journalNames). The posts' triggers are made anew to fill them.
 */
const SQLITE_NAME = (row: 'NEW' | 'OLD') =>
  `CASE WHEN ${row}.type = 'event' AND json_type(${row}.custom_fields, '$.caldav_name') = 'text' THEN nullif(json_extract(${row}.custom_fields, '$.caldav_name'), '') END`
const PG_NAME = (row: string) =>
  `CASE WHEN ${row}.type = 'event' AND jsonb_typeof(${row}.custom_fields::jsonb -> 'caldav_name') = 'string' THEN nullif(${row}.custom_fields::jsonb ->> 'caldav_name', '') END`

function sqliteNamedPostTriggers(): string[] {
  const entry = (row: 'NEW' | 'OLD', action: string, prior: 'NEW' | 'OLD') =>
    `INSERT INTO calendar_journal (kind, record_id, action, revision, language, at, name, prior_status)
     VALUES (${row}.type, ${row}.id, ${action}, ${row}.revision, ${row}.language, ${SQLITE_NOW}, ${SQLITE_NAME(row)}, ${prior}.status);`
  const trashed = `CASE WHEN OLD.status <> 'trash' AND NEW.status = 'trash' THEN 'trash' ELSE 'update' END`
  return [
    ...['insert', 'update', 'delete'].map((op) => `DROP TRIGGER IF EXISTS calendar_journal_posts_${op}`),
    `CREATE TRIGGER calendar_journal_posts_insert AFTER INSERT ON posts BEGIN ${entry('NEW', `'create'`, 'NEW')} END`,
    `CREATE TRIGGER calendar_journal_posts_update AFTER UPDATE ON posts WHEN NEW.revision <> OLD.revision BEGIN
       ${entry('NEW', trashed, 'OLD')}
     END`,
    `CREATE TRIGGER calendar_journal_posts_delete AFTER DELETE ON posts BEGIN ${entry('OLD', `'delete'`, 'OLD')} END`,
  ]
}

export const JOURNAL_NAMES_DDL: MigrationStatement[] = [
  `ALTER TABLE calendar_journal ADD COLUMN name {text}`,
  `ALTER TABLE calendar_journal ADD COLUMN prior_status {text}`,
  // journalNames looks entries up by record; only entries with a name are indexed.
  `CREATE INDEX IF NOT EXISTS calendar_journal_names ON calendar_journal (record_id) WHERE name IS NOT NULL`,
  ...sqliteNamedPostTriggers().map((sqlite) => ({ sqlite })),
  { postgres: postgresFunction('posts', 'type', true) },
]

export const JOURNAL_DATA: MigrationStatement[] = [
  {
    sqlite: `INSERT INTO calendar_journal_floor (one, epoch, position) VALUES (1, lower(hex(randomblob(6))), '0') ON CONFLICT (one) DO NOTHING`,
    postgres: `INSERT INTO calendar_journal_floor (one, epoch, position)
      VALUES (1, substr(md5(random()::text || clock_timestamp()::text), 1, 12), '0.0') ON CONFLICT (one) DO NOTHING`,
  },
]

/** A position as its parts: [n] on SQLite, [xid, n] on PostgreSQL. */
type Parts = bigint[]

const compare = (a: Parts, b: Parts): number => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as bigint) < (b[i] as bigint) ? -1 : 1
  return 0
}

const DIGITS = /^(0|[1-9][0-9]{0,19})$/

interface Row {
  position: unknown
  xid?: unknown
  kind: unknown
  record_id: unknown
  action: unknown
  revision: unknown
  language: unknown
  at: unknown
}

/** The journal of one database, as seen through one storage. */
export class SqlJournal {
  private epoch: Promise<string> | null = null

  constructor(private readonly postgres: boolean) {}

  private name(db: Db): Promise<string> {
    this.epoch ??= db.query<{ epoch: unknown }>('SELECT epoch FROM calendar_journal_floor WHERE one = 1').then(
      (rows) => {
        if (!rows[0]) throw new Error('the change journal is not set up (migration 16)')
        return String(rows[0].epoch)
      },
      (err: unknown) => {
        this.epoch = null
        throw err
      },
    )
    return this.epoch
  }

  private format(epoch: string, parts: Parts): string {
    return [epoch, ...parts].join('.')
  }

  private parse(epoch: string, position: string): Parts {
    const [head, ...rest] = position.split('.')
    const parts = rest.length === (this.postgres ? 2 : 1) && rest.every((p) => DIGITS.test(p)) ? rest.map(BigInt) : null
    if (head !== epoch || !parts) throw new JournalPositionError(position, 'malformed')
    return parts
  }

  private entry(epoch: string, r: Row, time?: string): JournalEntry {
    const parts = this.postgres ? [String(r.xid), String(r.position)] : [String(r.position)]
    return {
      position: [epoch, ...parts].join('.'),
      kind: String(r.kind) as JournalKind,
      id: toInt(r.record_id),
      action: String(r.action) as JournalAction,
      revision: toInt(r.revision),
      language: String(r.language),
      time: time ?? String(r.at),
    }
  }

  /** Where a transaction starts, to find its own entries at the end (SQLite; nothing on PostgreSQL). */
  async begin(db: Db): Promise<number> {
    if (this.postgres) return 0
    const rows = await db.query<{ seq: unknown }>(`SELECT seq FROM sqlite_sequence WHERE name = 'calendar_journal'`)
    return rows[0] ? toInt(rows[0].seq) : 0
  }

  /** The entries the running transaction wrote, in order (several for a record it changed twice). */
  async own(db: Db, start: number, time: string): Promise<JournalEntry[]> {
    const epoch = await this.name(db)
    if (!this.postgres) {
      const rows = await db.query<Row>(
        'SELECT position, kind, record_id, action, revision, language, at FROM calendar_journal WHERE position > ? ORDER BY position',
        [start],
      )
      return rows.map((r) => this.entry(epoch, r))
    }
    const [noted] = await db.query<{ xid: unknown; written: unknown }>(
      `SELECT pg_current_xact_id_if_assigned()::text AS xid, current_setting('calendar.journal', true) AS written`,
    )
    if (!noted || noted.xid === null || !noted.written) return []
    return columnText(noted.written)
      .split('\n')
      .map((line) => {
        const [position, kind, id, action, revision, language] = line.split(' ')
        return this.entry(epoch, { position, xid: noted.xid, kind, record_id: id, action, revision, language, at: time }, time)
      })
  }

  /** See Storage.journalHead. */
  async head(db: Db): Promise<string> {
    const epoch = await this.name(db)
    return this.format(epoch, await this.horizon(db))
  }

  /** SQLite: the last position handed out. PostgreSQL: (HORIZON, 0), read in a statement of its own. */
  private async horizon(db: Db): Promise<Parts> {
    if (this.postgres) {
      const [row] = await db.query<{ horizon: unknown }>(`SELECT ${HORIZON}::text AS horizon`)
      return [BigInt(String(row?.horizon)), 0n]
    }
    const rows = await db.query<{ seq: unknown }>(`SELECT seq FROM sqlite_sequence WHERE name = 'calendar_journal'`)
    return [BigInt(rows[0] ? toInt(rows[0].seq) : 0)]
  }

  /**
   * See Storage.readJournal. `onReplica`: `db` is a replica, which may not have replayed up to
   * `after` or `until` yet (a token made on a server further ahead); it must not answer then,
   * or a page would end before the token's stretch does and skip what lies between.
   */
  async read(db: Db, after: string, limit: number, until?: string, onReplica = false): Promise<JournalPage> {
    const epoch = await this.name(db)
    const from = this.parse(epoch, after)
    const [floor] = await db.query<{ position: unknown }>('SELECT position FROM calendar_journal_floor WHERE one = 1')
    const now = await this.horizon(db)
    if (floor && compare(from, this.parse(epoch, `${epoch}.${String(floor.position)}`)) < 0)
      throw new JournalPositionError(after, 'expired')
    // A position past anything this journal handed out was never one of its own.
    if (!this.postgres && compare(from, now) > 0) throw new JournalPositionError(after, 'malformed')
    // A stretch read again ends where it ended the first time (never past what is readable now).
    const bound = until === undefined ? now : this.parse(epoch, until)
    if (onReplica && (compare(from, now) > 0 || compare(bound, now) > 0)) throw new ReplicaBehind(until ?? after)
    const horizon = compare(bound, now) < 0 ? (compare(bound, from) < 0 ? from : bound) : now
    const take = Math.max(1, Math.min(limit, 10_000))
    // Up to the horizon: on PostgreSQL (xid, position) <= (its xid, n) with n 0 for a horizon of
    // running transactions (their entries are not readable yet) and an entry's own for `until`.
    const rows = this.postgres
      ? await db.query<Row>(
          `SELECT position, xid, kind, record_id, action, revision, language, at FROM calendar_journal
           WHERE (xid, position) > (?, ?) AND (xid, position) <= (?, ?)
           ORDER BY xid, position LIMIT ?`,
          [String(from[0]), String(from[1]), String(horizon[0]), String(horizon[1]), take + 1],
        )
      : await db.query<Row>(
          `SELECT position, kind, record_id, action, revision, language, at FROM calendar_journal
           WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
          [String(from[0]), String(horizon[0]), take + 1],
        )
    const more = rows.length > take
    const entries = rows.slice(0, take).map((r) => this.entry(epoch, r))
    let next = entries.length ? this.parse(epoch, (entries[entries.length - 1] as JournalEntry).position) : from
    // Nothing more before the horizon: a later read may start there (it skips nothing).
    if (!more && compare(horizon, next) > 0) next = horizon
    return { entries, next: this.format(epoch, next), more }
  }

  /**
   * PostgreSQL: the committed entries `read` holds back because a transaction older than theirs
   * is still running (see Storage.otherWriters). Outside a transaction every statement sees only
   * committed rows, so those at or past the horizon are exactly these.
   */
  async ahead(db: Db, limit: number): Promise<JournalEntry[]> {
    if (!this.postgres) return []
    const epoch = await this.name(db)
    const rows = await db.query<Row>(
      `SELECT position, xid, kind, record_id, action, revision, language, at FROM calendar_journal
       WHERE xid >= ${HORIZON} ORDER BY xid, position LIMIT ?`,
      [Math.max(1, Math.min(limit, 10_000))],
    )
    return rows.map((r) => this.entry(epoch, r))
  }

  /** See Storage.journalNames. */
  async names(db: Db, ids: readonly number[]): Promise<JournalName[]> {
    const out = new Map<number, JournalName>()
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500)
      const rows = await db.query<{ record_id: unknown; name: unknown; prior_status: unknown }>(
        `SELECT record_id, name, prior_status FROM calendar_journal
         WHERE name IS NOT NULL AND kind = 'event' AND record_id IN (${chunk.map(() => '?').join(', ')})
         ORDER BY ${this.postgres ? 'xid, position' : 'position'}`,
        chunk,
      )
      for (const r of rows) {
        const id = toInt(r.record_id)
        const published = r.prior_status === 'publish' || (out.get(id)?.published ?? false)
        out.set(id, { id, name: columnText(r.name), published })
      }
    }
    return [...out.values()]
  }

  /** See Storage.compactJournal; runs inside a write transaction. */
  async compact(db: Db, beforeUtc: string): Promise<number> {
    const order = this.postgres ? 'xid, position' : 'position'
    const key = this.postgres ? 'xid, position' : 'position'
    const [keep] = await db.query<{ xid?: unknown; position: unknown }>(
      `SELECT ${key} FROM calendar_journal WHERE at >= ?${this.postgres ? ` OR xid >= ${HORIZON}` : ''} ORDER BY ${order} LIMIT 1`,
      [beforeUtc],
    )
    const bound = keep ? (this.postgres ? [String(keep.xid), String(keep.position)] : [String(keep.position)]) : null
    const below = bound ? (this.postgres ? ' WHERE (xid, position) < (?, ?)' : ' WHERE position < ?') : ''
    const [last] = await db.query<{ xid?: unknown; position: unknown }>(
      `SELECT ${key} FROM calendar_journal${below} ORDER BY ${this.postgres ? 'xid DESC, position DESC' : 'position DESC'} LIMIT 1`,
      bound ?? [],
    )
    if (!last) return 0
    const { changes } = await db.run(`DELETE FROM calendar_journal${below}`, bound ?? [])
    const floor = this.postgres ? `${String(last.xid)}.${String(last.position)}` : String(last.position)
    await db.run('UPDATE calendar_journal_floor SET position = ? WHERE one = 1', [floor])
    return changes
  }
}
