/**
 * The driver seam of the SQL storage (kysely's layering): a driver moves SQL text and
 * parameters to a database and owns connections and transactions; it knows nothing about
 * calendars. The dialect (`dialect.ts`) owns the differences in SQL text. Nothing here imports
 * a database package: the shims in `sqlite-driver.ts` and `pg-driver.ts` take client objects
 * the application created, typed structurally.
 */

/**
 * A parameter value. Booleans are passed as booleans (a SQLite driver turns them into 1/0);
 * arrays only appear where the PostgreSQL dialect asked for an array parameter (a list, or one
 * column of bulk rows, whose elements may be null or booleans).
 */
export type SqlParam = string | number | boolean | null | readonly (string | number | boolean | null)[]

/** One connection's worth of statement execution. SQL text is already in the engine's syntax. */
export interface SqlConnection {
  /** Runs a statement that returns rows (SELECT, or a write with RETURNING). */
  query<R extends object = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<R[]>
  /** Runs a statement for its effect; `changes` is the number of rows written. */
  run(sql: string, params?: readonly SqlParam[]): Promise<{ changes: number }>
}

export interface SqlDriver {
  /** Which SQL dialect the storage must speak to this driver. */
  readonly dialect: 'sqlite' | 'postgres'
  /**
   * Runs a read outside any transaction. Its statements must never observe the uncommitted writes
   * of a running `transaction()`; a driver that can, should give `fn` one consistent snapshot.
   */
  read<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T>
  /**
   * Runs `fn` inside one database transaction on one connection: BEGIN, then COMMIT, or ROLLBACK
   * when `fn` throws (the error is rethrown untouched so the storage can classify it).
   * PostgreSQL drivers begin SERIALIZABLE; SQLite drivers take the write lock up front.
   */
  transaction<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T>
  /** Runs one statement outside any explicit transaction (migrations run DDL this way). */
  execute(sql: string): Promise<void>
  /**
   * Optional, SQLite: `PRAGMA data_version` on the connection reads use, answering for what a
   * read starting now would see (the snapshot it would share, or the last commit). It changes
   * whenever another connection (another process, or this driver's writer) committed. Called
   * before every response-cache hit, so it is synchronous whenever it can be and cheap. Without
   * it the storage compares `journalHead()` instead.
   */
  dataVersion?(): number | Promise<number>
  /** Releases the connections. */
  close(): Promise<void>
}
