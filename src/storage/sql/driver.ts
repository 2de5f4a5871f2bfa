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
   * Optional: runs `fn` holding the database's migration lock, which one migration run of every
   * process on this database (and schema) holds at a time; another run waits for it, then finds
   * the versions applied. `fn` migrates through the driver it is given (which may be this one).
   * Without it, migrations run unlocked.
   */
  migrationLock?<T>(fn: (driver: SqlDriver) => Promise<T>): Promise<T>
  /**
   * Optional, SQLite: `PRAGMA data_version` on the connection reads use, answering for what a
   * read starting now would see (the snapshot it would share, or the last commit). It changes
   * whenever another connection (another process, or this driver's writer) committed. Called
   * before every response-cache hit, so it is synchronous whenever it can be and cheap. Without
   * it the storage compares `journalHead()` instead.
   */
  dataVersion?(): number | Promise<number>
  /**
   * Optional (PostgreSQL): where this driver's last commit ended, as a position replicas can be
   * compared with (a WAL position); null before its first commit. Read after a write, it names a
   * state that includes the write (the `X-Calendar-Bookmark` of its response).
   */
  bookmark?(): bigint | null
  /** Optional (PostgreSQL with replicas): the primary's position now, read on the primary. */
  position?(): Promise<bigint>
  /** Optional: read replicas (PostgreSQL streaming replicas). `read` never uses them. */
  readonly replicas?: SqlReplicas
  /** Releases the connections. */
  close(): Promise<void>
}

/** Read replicas, as the storage routes a request's reads (storage/sql/session.ts). */
export interface SqlReplicas {
  /**
   * A fresh replica that has replayed at least `atLeast` (any fresh one with null), in turns;
   * null when none qualifies: the read goes to the primary.
   */
  choose(atLeast: bigint | null): number | null
  /**
   * When `choose(atLeast)` found none: asks a fresh replica where its replay stands now, and
   * returns it when it has reached `atLeast`.
   */
  probe(atLeast: bigint): Promise<number | null>
  /** Runs a read outside any transaction on replica `i`. */
  read<T>(i: number, fn: (conn: SqlConnection) => Promise<T>): Promise<T>
  /** A read on replica `i` failed (the caller runs it on the primary): one that is down is set aside. */
  failed(i: number, err: unknown): void
  /** Reads served so far: by each replica, and by the primary for callers that could have used one. */
  counts(): { replicas: number[]; primary: number }
  /** Counts a read a caller that could have used a replica sent to the primary. */
  primaryRead(): void
}

/**
 * A column's value as text. Drivers hand text as strings and numbers as numbers or bigints; a
 * date keeps its own text, and any other object is written as JSON rather than `[object Object]`.
 */
export function columnText(raw: unknown): string {
  if (typeof raw === 'string') return raw
  if (typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean') return String(raw)
  if (raw instanceof Date) return String(raw)
  return JSON.stringify(raw) ?? ''
}
