/**
 * SQL text that differs between SQLite and PostgreSQL. The storage writes every statement once,
 * with `?` placeholders and these helpers; everything else is the subset both engines accept
 * (the PostgreSQL side needs PostgreSQL 13+ itself: engine.ts).
 */
import type { SqlParam } from './driver.js'

/** A statement for both engines, or one per engine (a missing side is skipped there). */
export type MigrationStatement = string | { sqlite?: string; postgres?: string }

/** What the values of one column of bulk rows are (see `Dialect.rows`). */
export type ColumnKind = 'int' | 'text' | 'bool' | 'real'

/** A row source for `INSERT INTO t (columns) <sql>` and its parameters. */
export interface RowSource {
  sql: string
  params: SqlParam[]
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres'
  /** Rewrites the portable `?` placeholders into the engine's own (`$1`, `$2`, ... on PostgreSQL). */
  sql(text: string): string
  /** Column types used by the migrations. */
  readonly types: {
    /** An auto-assigned integer primary key that never reuses a value. */
    id: string
    int: string
    /** Text that compares and sorts by code point, like JavaScript's `<` on the records. */
    text: string
    bool: string
    real: string
  }
  /** `expr` contains the parameter as a case-sensitive substring (one placeholder). */
  contains(expr: string): string
  /** `expr` is one of the values of a single list parameter (see `list`). */
  inList(expr: string, kind: 'int' | 'text'): string
  /** 0-based index of `expr` in a list parameter, or NULL. */
  listIndex(expr: string): string
  /** Encodes a list for `inList`/`listIndex`: one parameter, whatever its length. */
  list(values: readonly (string | number)[]): SqlParam
  /**
   * PostgreSQL aborts the whole transaction on a failed statement, so a write that may fail on
   * purpose (a slug conflict the caller retries) runs inside a SAVEPOINT. SQLite only undoes the
   * failed statement.
   */
  readonly failedStatementAbortsTransaction: boolean
  /** The row source of many rows at once, `kinds` naming each column's values. */
  rows(kinds: readonly ColumnKind[], rows: readonly SqlParam[][]): RowSource
  /** Most rows one `rows` source should hold, for rows of `columns` values. */
  maxRows(columns: number): number
  /**
   * A query (one `?`: how many) handing out that many fresh ids of the posts table, so new rows
   * carry their id in the INSERT itself; null where ids are known only after the insert.
   */
  readonly reservePostIds: string | null
  /**
   * An expression handing out one fresh id of the posts table, so a single insert knows its row's
   * id (and starts the row's own translation group with it); null where the id is known only
   * after the insert.
   */
  readonly freshPostId: string | null
}

/** Rewrites `?` outside quoted strings and identifiers to `$n`. Results are cached per text. */
function numberPlaceholders(cache: Map<string, string>, text: string): string {
  const hit = cache.get(text)
  if (hit !== undefined) return hit
  let out = ''
  let n = 0
  let quote: string | null = null
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null
      out += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      out += ch
    } else out += ch === '?' ? `$${++n}` : ch
  }
  // The statements are a fixed set plus a few combinations of filters: the cache stays small,
  // but a cap keeps an unexpected source of distinct texts from growing it without bound.
  if (cache.size > 2000) cache.clear()
  cache.set(text, out)
  return out
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  sql: (text) => text,
  // AUTOINCREMENT: without it SQLite may hand out the id of a deleted last row again.
  types: { id: 'INTEGER PRIMARY KEY AUTOINCREMENT', int: 'INTEGER', text: 'TEXT', bool: 'INTEGER', real: 'REAL' },
  // instr, not LIKE: no metacharacters to escape, and SQLite's LIKE folds ASCII case.
  contains: (expr) => `instr(${expr}, ?) > 0`,
  // A JSON array in one parameter: one statement text whatever the list length, no variable limit.
  inList: (expr) => `${expr} IN (SELECT value FROM json_each(?))`,
  listIndex: (expr) => `(SELECT min(key) FROM json_each(?) WHERE value = ${expr})`,
  list: (values) => JSON.stringify(values),
  failedStatementAbortsTransaction: false,
  rows: (kinds, rows) => {
    const tuple = `(${kinds.map(() => '?').join(', ')})`
    return { sql: `VALUES ${rows.map(() => tuple).join(', ')}`, params: rows.flat() }
  },
  // Well under SQLite's 32,766 variables per statement.
  maxRows: (columns) => Math.max(1, Math.floor(12_000 / columns)),
  // Ids follow the AUTOINCREMENT counter, not the largest id in the table: a post stored under a
  // reserved id (2^32 and up, NewPost.id) must not move the ids handed out next. One writer at a
  // time, so reading the counter inside the write transaction is safe; the insert raises it.
  reservePostIds: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'posts'), 0) + i AS id FROM n`,
  freshPostId: `COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'posts'), 0) + 1`,
}

const PG_TYPE: Record<ColumnKind, string> = { int: 'bigint', text: 'text', bool: 'boolean', real: 'double precision' }

const pgCache = new Map<string, string>()

/**
 * JSON text PostgreSQL's jsonb accepts. JSON.stringify writes a lone surrogate as a `\udXXX`
 * escape (the only \ud800-\udfff escapes it ever writes), which jsonb refuses; a text
 * parameter reaches the server as UTF-8 with U+FFFD in its place, so the rows get the same.
 */
function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value)
  return !json.includes('\\ud') ? json : json.replace(/\\\\|\\ud[89a-f][0-9a-f]{2}/g, (m) => (m.length === 2 ? m : '\\ufffd'))
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  sql: (text) => numberPlaceholders(pgCache, text),
  types: {
    // Never SERIAL: CockroachDB maps it to 64-bit unique_rowid() values beyond 2^53.
    id: 'bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY',
    int: 'bigint',
    // Byte order (= code point order in UTF-8) whatever the database's default collation is,
    // so ordering and range scans on dates and slugs behave exactly as on SQLite.
    text: 'text COLLATE "C"',
    bool: 'boolean',
    real: 'double precision',
  },
  contains: (expr) => `strpos(${expr}, ?) > 0`,
  inList: (expr, kind) => `${expr} = ANY(?::${kind === 'int' ? 'bigint' : 'text'}[])`,
  listIndex: (expr) => `array_position(?::bigint[], ${expr}) - 1`,
  list: (values) => values,
  failedStatementAbortsTransaction: true,
  // One jsonb parameter holding every row. A multi-row VALUES list of 10,000 placeholders cost
  // more to parse and plan than the rows cost to insert; one array parameter per column (unnest)
  // cost the driver a text array literal each (escaping every element: ~8 ms of CPU and its
  // garbage for a series of 500) and the server their parsing. jsonb, not json, whose ->> would
  // parse each element's text again.
  rows: (kinds, rows) => ({
    sql: `SELECT ${kinds.map((k, i) => `(r->>${i})::${PG_TYPE[k]}`).join(', ')} FROM jsonb_array_elements(?::jsonb) r`,
    params: [wellFormedJson(rows)],
  }),
  maxRows: () => 5000,
  // The sequence is looked up once (OFFSET 0 keeps it a subquery): a lookup per row cost 5 ms for 500.
  reservePostIds: `SELECT nextval(q.seq) AS id FROM (SELECT pg_get_serial_sequence('posts', 'id')::regclass AS seq OFFSET 0) q CROSS JOIN generate_series(1, ?)`,
  freshPostId: `nextval(pg_get_serial_sequence('posts', 'id'))`,
}

export function dialectFor(name: 'sqlite' | 'postgres'): Dialect {
  return name === 'postgres' ? postgresDialect : sqliteDialect
}
