/**
 * SqlDriver over a synchronous SQLite client: better-sqlite3 (Node), `bun:sqlite` (Bun) and
 * `node:sqlite` (Node >= 22.13, Deno) all have `prepare(sql).all(...)/.run(...)`, `exec(sql)` and
 * `close()`, which is all this uses. Pragmas are set with `exec`, so better-sqlite3's `.pragma()`
 * is not needed.
 *
 * Isolation. A SQLite transaction belongs to a connection, and the storage keeps a write
 * transaction open across `await`s, so reads outside it must not run on that connection:
 * - With `reader` (a second connection to the same file, WAL mode): reads outside transactions
 *   run there inside a read transaction (one consistent snapshot for a page, its count and its
 *   links), and never see the writer's uncommitted rows. The reads of one event-loop turn share
 *   one snapshot (for at most SNAPSHOT_MS): opening and closing a read transaction per storage
 *   call cost about as much as a read by id itself. A commit or DDL through any driver of this
 *   process ends the shared snapshot (once the reads using it are done), so a read after a write
 *   always sees it and the WAL can be checkpointed past it; a commit by another process is seen
 *   from the next turn (at most SNAPSHOT_MS later). `dataVersion()`, which the response cache
 *   asks before every hit, answers by the same rules, so a hit is as fresh as a read would be.
 * - With one connection only: a read outside waits until the running write transaction ends.
 *   That is sound, but a transaction function must then read through its `tx`, never through
 *   the storage (which would wait for itself). `openSqliteFile` always opens two connections,
 *   also for ':memory:' (see open.ts).
 *
 * The write-ahead log. SQLite's automatic checkpoint copies committed pages back into the database
 * but can only start the log over from its beginning at a moment no reader is inside it, and
 * under concurrent requests the shared snapshot above is nearly always open: the log then grows
 * without end. So once it is larger than `walLimitBytes`, the commit that noticed it pauses this
 * driver's reads and writes (its snapshot closed, no write transaction open) and checkpoints with
 * TRUNCATE, which empties the file. Another connection still inside the log (another process,
 * another storage on the file) makes that attempt report busy; it is retried on timers, without
 * SQLite's blocking busy wait. Every driver that commits past the limit pauses the same way, so
 * two of them on one file soon are both out of the log and one attempt succeeds; a connection that
 * stays in it longer than CHECKPOINT_WAIT_MS (a long-running read of another program) makes the
 * driver give up until the log has grown by another `walLimitBytes` (docs/storage.md §2.9).
 *
 * Locking. Writers take the write lock up front (BEGIN IMMEDIATE) so a transaction never fails
 * half-way on a lock upgrade. While the file is locked by another connection (another process, or
 * another storage in this one), BEGIN is retried with timers until the connection's
 * busy_timeout has passed, instead of letting SQLite sleep: a synchronous wait would block the
 * event loop, and with it the other storage in this process that holds the lock.
 */
import type { SqlConnection, SqlDriver, SqlParam } from './driver.js'
import { isBusy } from './errors.js'

/** The part of a prepared statement this driver uses. */
export interface SqliteStatement {
  // `any` keeps every client's own (stricter) parameter types assignable: better-sqlite3,
  // bun:sqlite and node:sqlite each name their bindable values differently.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: no narrower type accepts all three clients
  all(...params: any[]): unknown[]
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as for all()
  run(...params: any[]): { changes: number | bigint }
}

/** The part of a better-sqlite3 / bun:sqlite / node:sqlite database object this driver uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  exec(sql: string): unknown
  close(): unknown
}

export interface SqliteDriverOptions {
  /** A second connection to the same database file (WAL mode) for reads outside transactions. */
  reader?: SqliteDatabase
  /** Called after close() closed the connections (open.ts deletes its temporary file here). */
  onClose?: () => void | Promise<void>
  /**
   * With `reader`: checkpoint and truncate the write-ahead log once it is larger than this many
   * bytes (default 16 MiB; 0 never does, leaving it to SQLite's automatic checkpoints).
   */
  walLimitBytes?: number
  /**
   * The size of the `-wal` file in bytes (open.ts stats it), checked after every commit. Without
   * it the driver asks SQLite how long the log is every WAL_PROBE_COMMITS commits, because that
   * question is itself a (passive) checkpoint.
   */
  walSize?: () => number
  /**
   * The WAL-index header as it stands (open.ts reads the first bytes of the `-shm` file), or
   * null when it cannot be read. Every commit of any connection to the file, in any process,
   * rewrites it (its change counter grows) before the commit returns, so while it is unchanged
   * the database is too, and dataVersion() answers without asking SQLite: a read of a few bytes
   * instead of a statement that takes and drops a read lock (about 0.8 against 2-3 µs per
   * cache hit). See docs/storage.md §2, item 10. The array may be the same one each call (its
   * bytes valid until the next): allocating one per question cost as much as the read.
   */
  walIndexStamp?: () => Uint8Array | null
}

/** One connection with a cache of prepared statements (preparing costs more than running). */
class Connection implements SqlConnection {
  private readonly statements = new Map<string, SqliteStatement>()

  constructor(readonly db: SqliteDatabase) {}

  private prepare(sql: string): SqliteStatement {
    let stmt = this.statements.get(sql)
    if (!stmt) {
      stmt = this.db.prepare(sql)
      if (this.statements.size >= 500) this.statements.clear()
      this.statements.set(sql, stmt)
    }
    return stmt
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a statement's error (busy, a constraint) must reach the caller as a rejection, as the interface's callers expect of every driver
  async query<R extends object>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
    return this.prepare(sql).all(...params.map(bind)) as R[]
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a statement's error (busy, a constraint) must reach the caller as a rejection, as the interface's callers expect of every driver
  async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
    return { changes: Number(this.prepare(sql).run(...params.map(bind)).changes) }
  }

  exec(sql: string): void {
    this.db.exec(sql)
  }

  /**
   * A parameterless statement through the statement cache: every storage read opens and closes
   * a read transaction, and `exec` would parse BEGIN and COMMIT again each time.
   */
  step(sql: string): void {
    this.prepare(sql).run()
  }

  pragma(name: string): unknown {
    const row = this.db.prepare(`PRAGMA ${name}`).all()[0] as Record<string, unknown> | undefined
    return row ? Object.values(row)[0] : undefined
  }

  /** ROLLBACK after a failure; the transaction may already be gone, which is fine. */
  rollback(): void {
    try {
      this.db.exec('ROLLBACK')
    } catch {
      // no transaction was open
    }
  }
}

/** SQLite has no boolean type; better-sqlite3 and node:sqlite refuse JavaScript booleans. */
function bind(value: SqlParam): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'object' && value !== null) throw new TypeError('array parameters are not used with SQLite')
  return value
}

/** A promise-chain mutex: one holder at a time, in arrival order. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve()

  /** `fn` runs inside the chain's `then`, so a throw of a synchronous `fn` rejects like an async one's. */
  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(fn)
    this.tail = result.catch(() => undefined)
    return result
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The longest a read snapshot is shared, for hosts whose reads never let the event loop turn. */
const SNAPSHOT_MS = 5
/**
 * Commits and DDL through any driver of this process: a shared snapshot older than the last one
 * is not reused, so a read after a write sees it also through another storage on the same file.
 */
let processWrites = 0
/**
 * Ends each driver's shared snapshot once its reads in flight are done. Called on every commit:
 * a snapshot older than a write is never reused, and one left open keeps SQLite from
 * checkpointing the WAL past it. Waiting for the event loop to turn is not enough: a host that
 * writes in a loop of promises (an import of a million events) never lets it turn, and the WAL
 * grew by gigabytes.
 */
const snapshotClosers = new Set<() => void>()

/** How long a checkpoint waits for other connections to leave the log before giving up. */
const CHECKPOINT_WAIT_MS = 1000
/** Without `walSize`, the log's length is asked for once per this many commits. */
const WAL_PROBE_COMMITS = 32

/**
 * Runs `op` (BEGIN IMMEDIATE, DDL) without SQLite's synchronous busy wait: on SQLITE_BUSY it is
 * retried on timers until `timeoutMs` has passed; then the BUSY error is thrown (and becomes
 * StorageUnavailableError in the storage).
 */
async function withoutBlocking(conn: Connection, timeoutMs: number, op: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs
  conn.exec('PRAGMA busy_timeout = 0')
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        op()
        return
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) throw err
        await sleep(Math.min(50, 1 + attempt * 2))
      }
    }
  } finally {
    conn.exec(`PRAGMA busy_timeout = ${timeoutMs}`)
  }
}

/**
 * The driver a migration run uses while it holds the write lock: every statement runs on the
 * writer inside the run's one transaction (SQLite's DDL is transactional), a transaction of the
 * run is a savepoint in it, and its reads see what the run created so far.
 */
function lockedDriver(conn: Connection): SqlDriver {
  const locked: SqlDriver = {
    dialect: 'sqlite',
    read: (fn) => fn(conn),
    async transaction(fn) {
      conn.exec('SAVEPOINT migration_step')
      try {
        const result = await fn(conn)
        conn.exec('RELEASE migration_step')
        return result
      } catch (err) {
        conn.exec('ROLLBACK TO migration_step; RELEASE migration_step')
        throw err
      }
    },
    // eslint-disable-next-line @typescript-eslint/require-await -- a statement's error (busy, a constraint) must reach the caller as a rejection, as the interface's callers expect of every driver
    execute: async (sql) => conn.exec(sql),
    migrationLock: (fn) => fn(locked),
    close: () => Promise.reject(new Error('a migration run cannot close the driver it runs on')),
  }
  return locked
}

/**
 * The writer and the optional reader connection, set up: a reader needs the file in WAL mode
 * (switched to here: it is persistent in the file), and every connection enforces foreign keys.
 */
function openConnections(db: SqliteDatabase, options: SqliteDriverOptions): { writer: Connection; reader: Connection | null } {
  const writer = new Connection(db)
  const reader = options.reader ? new Connection(options.reader) : null
  // In rollback-journal mode a COMMIT waits for readers, and a read transaction held across an
  // await on the same thread would make it wait for itself: a reader needs WAL, so switch to it
  // rather than make every host remember the pragma.
  const isWal = () => String(writer.pragma('journal_mode')).toLowerCase() === 'wal'
  if (reader && !isWal()) writer.exec('PRAGMA journal_mode = WAL')
  if (reader && !isWal()) {
    throw new Error(
      'sqliteDriver: a separate reader connection needs a database file in WAL mode, and this one could not switch ' +
        '(an in-memory database, or another connection holds it): open a file and run PRAGMA journal_mode = WAL before sqliteDriver()',
    )
  }
  // Link rows cascade with their event; SQLite enforces foreign keys per connection, off by default.
  writer.exec('PRAGMA foreign_keys = ON')
  return { writer, reader }
}

/** `PRAGMA data_version` on one connection, its statement prepared once. */
function versionAsker(conn: Connection): () => number {
  let statement: SqliteStatement | null = null
  return () => {
    statement ??= conn.db.prepare('PRAGMA data_version')
    return Number((statement.all()[0] as { data_version: unknown }).data_version)
  }
}

/** Whether two WAL-index stamps are equal, byte for byte. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Since when a snapshot (or a shared dataVersion answer) is open, and after which write of the process. */
interface Opened {
  openedAt: number
  writes: number
}

/** Whether a snapshot (or a shared answer) may still serve a read starting now. */
const reusable = (s: Opened) => s.writes === processWrites && performance.now() - s.openedAt <= SNAPSHOT_MS

/**
 * The reader connection's shared snapshot (see the header): reads of one event-loop turn share
 * one read transaction, ended by a write of the process, its age or the turn; `dataVersion()`
 * answers by the same rules.
 */
class ReaderSnapshots {
  private snapshot: Opened | null = null
  // dataVersion() outside a snapshot, shared like one: beginning and ending a read transaction
  // (file-lock calls) is most of what asking costs there, several times the question itself.
  private version: (Opened & { value: number }) | null = null
  private readonly askVersion: () => number
  // The last version asked outside a snapshot and the WAL-index header read just before asking:
  // a commit after that read changes the header, so an equal header means nothing committed.
  private stamped: { stamp: Uint8Array; value: number } | null = null

  /** Ends a shared answer when the event loop turns (one function for every answer, no closure each). */
  private readonly forgetVersion = (answer: Opened): void => {
    if (this.version === answer) this.version = null
  }

  constructor(
    private readonly reader: Connection,
    private readonly lock: Mutex,
    private readonly walIndexStamp?: () => Uint8Array | null,
  ) {
    this.askVersion = versionAsker(reader)
  }

  /** The last commit's version, asked of SQLite only when the WAL-index header moved. */
  private stampedVersion(): number {
    const stamp = this.walIndexStamp?.() ?? null
    if (stamp && this.stamped && sameBytes(stamp, this.stamped.stamp)) return this.stamped.value
    const value = this.askVersion()
    this.stamped = stamp ? { stamp: stamp.slice(), value } : null
    return value
  }

  /** Ends the open snapshot (rolled back after a failed read). */
  end(failed = false): void {
    this.snapshot = null
    if (failed) this.reader.rollback()
    else this.reader.step('COMMIT')
  }

  endIfOpen(): void {
    if (this.snapshot) this.end()
  }

  /** Ends the open snapshot once the reads in flight are done (called on every commit of the process). */
  readonly closeLater = (): void => {
    const open = this.snapshot
    if (open) void this.lock.run(() => this.snapshot === open && this.end()).catch(() => undefined)
  }

  read<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      if (this.snapshot && !reusable(this.snapshot)) this.end()
      if (!this.snapshot) {
        this.reader.step('BEGIN')
        // A newer view than an answer dataVersion() shares: it answers from this one.
        this.version = null
        const opened = (this.snapshot = { openedAt: performance.now(), writes: processWrites })
        // Ended when the event loop turns (or earlier, by a write or its age).
        setImmediate(() => void this.lock.run(() => this.snapshot === opened && this.end()))
      }
      try {
        return await fn(this.reader)
      } catch (err) {
        this.end(true)
        throw err
      }
    })
  }

  /**
   * Answers for what a read starting now would see, by the rules of read(): inside the shared
   * snapshot while a read could still use it; else the last commit, an answer then shared for
   * as long as a snapshot would be. A statement outside the read lock is safe here (it runs
   * synchronously, between the awaits of any read); a snapshot that the next read would end
   * first may still be in use, so then it waits for the lock like a read.
   */
  dataVersion(): number | Promise<number> {
    if (this.snapshot) {
      if (reusable(this.snapshot)) return this.askVersion()
      return this.lock.run(() => {
        if (this.snapshot && !reusable(this.snapshot)) this.end()
        return this.askVersion()
      })
    }
    if (this.version && reusable(this.version)) return this.version.value
    const answer = (this.version = { value: this.stampedVersion(), openedAt: performance.now(), writes: processWrites })
    setImmediate(this.forgetVersion, answer)
    return answer.value
  }
}

/**
 * Keeps the write-ahead log under `walLimitBytes` (see the header): `afterCommit` measures it
 * now and then and, past the limit, checkpoints it empty with this driver's reads paused.
 */
function walKeeper(
  writer: Connection,
  snapshots: ReaderSnapshots | null,
  readLock: Mutex,
  busyTimeout: number,
  options: SqliteDriverOptions,
) {
  // Only a driver with a reader keeps snapshots open across commits; with one connection every
  // read ends with its statement and SQLite's own checkpoints start the log over.
  const walLimit = snapshots ? Math.max(0, options.walLimitBytes ?? 16 * 1024 * 1024) : 0
  // SQLite's own restarts of the log (when it finds a moment with no reader) cut the file back to
  // this size; without it the file keeps its largest size until the last connection closes.
  if (walLimit > 0) writer.exec(`PRAGMA journal_size_limit = ${walLimit}`)
  const frameBytes = snapshots && !options.walSize ? Number(writer.pragma('page_size')) + 24 : 0
  const checkpointRow = (mode: 'PASSIVE' | 'TRUNCATE') =>
    writer.db.prepare(`PRAGMA wal_checkpoint(${mode})`).all()[0] as { busy: number; log: number } | undefined
  const walBytes = (): number => {
    if (options.walSize) return options.walSize()
    const row = checkpointRow('PASSIVE')
    return row && row.log > 0 ? 32 + row.log * frameBytes : 0
  }
  /**
   * Checkpoints the log and empties it: with both locks held, so no snapshot of this driver is
   * open and no write transaction; retried on timers while another connection is still in the
   * log, until it gets under `goal` bytes (or is emptied) or CHECKPOINT_WAIT_MS has passed.
   * Returns the log's size when it gave up, or null.
   */
  const truncate = async (goal: number): Promise<number | null> => {
    snapshots?.endIfOpen()
    const deadline = Date.now() + CHECKPOINT_WAIT_MS
    writer.exec('PRAGMA busy_timeout = 0')
    try {
      for (let attempt = 0; ; attempt++) {
        let busy = true
        try {
          busy = checkpointRow('TRUNCATE')?.busy !== 0
        } catch (err) {
          if (!isBusy(err)) throw err
        }
        const size = busy ? walBytes() : 0
        if (size <= goal) return null
        if (Date.now() >= deadline) return size
        await sleep(Math.min(20, 1 + attempt))
      }
    } finally {
      writer.exec(`PRAGMA busy_timeout = ${busyTimeout}`)
    }
  }
  let commits = 0
  // After a checkpoint gave up, the next is tried only once the log has grown by another limit.
  let checkpointAbove = walLimit
  /** After a commit, with the write lock held and no write transaction open. */
  const afterCommit = async () => {
    if (walLimit === 0 || (!options.walSize && ++commits % WAL_PROBE_COMMITS !== 0)) return
    let found: number
    try {
      found = walBytes()
    } catch {
      return // the commit stands; the log is measured again after the next one
    }
    if (found <= checkpointAbove) return
    await readLock
      .run(() => truncate(walLimit))
      .then(
        (left) => void (checkpointAbove = left === null ? walLimit : left + walLimit),
        // The commit stands whatever happens here, so the request that made it must not fail: a
        // checkpoint that went wrong (a full disk) is tried again after the next limit's growth.
        () => void (checkpointAbove = found + walLimit),
      )
  }
  return { truncate, afterCommit }
}

export function sqliteDriver(db: SqliteDatabase, options: SqliteDriverOptions = {}): SqlDriver {
  const { writer, reader } = openConnections(db, options)
  const busyTimeout = Number(writer.pragma('busy_timeout') ?? 0)
  const writeLock = new Mutex()
  const readLock = reader ? new Mutex() : writeLock
  const snapshots = reader ? new ReaderSnapshots(reader, readLock, options.walIndexStamp) : null
  if (snapshots) snapshotClosers.add(snapshots.closeLater)
  const askWriterVersion = versionAsker(writer)
  const afterWrite = () => {
    processWrites++
    for (const close of snapshotClosers) close()
  }
  const wal = walKeeper(writer, snapshots, readLock, busyTimeout, options)
  /**
   * `fn` in one BEGIN IMMEDIATE transaction on the writer, then `after` (still under the write
   * lock, no transaction open), with the write lock held throughout.
   */
  const inWriteTransaction = <T>(fn: () => Promise<T>, after?: () => Promise<void>): Promise<T> =>
    writeLock.run(async () => {
      await withoutBlocking(writer, busyTimeout, () => writer.exec('BEGIN IMMEDIATE'))
      let result: T
      try {
        result = await fn()
        writer.exec('COMMIT')
        afterWrite()
      } catch (err) {
        writer.rollback()
        throw err
      }
      await after?.()
      return result
    })

  return {
    dialect: 'sqlite',

    read<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
      return snapshots ? snapshots.read(fn) : writeLock.run(() => fn(writer))
    },

    transaction<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
      return inWriteTransaction(() => fn(writer), wal.afterCommit)
    },

    dataVersion(): number | Promise<number> {
      return snapshots ? snapshots.dataVersion() : askWriterVersion()
    },

    /**
     * The migration lock is the write lock: the whole run is one BEGIN IMMEDIATE transaction on
     * the writer, so another connection's run (another process) waits for it to commit and then
     * reads the versions it recorded; a run that fails leaves nothing half-made.
     */
    migrationLock<T>(fn: (driver: SqlDriver) => Promise<T>): Promise<T> {
      return inWriteTransaction(() => fn(lockedDriver(writer)))
    },

    execute(sql: string): Promise<void> {
      return writeLock.run(async () => {
        await withoutBlocking(writer, busyTimeout, () => writer.exec(sql))
        afterWrite()
        await wal.afterCommit()
      })
    },

    async close(): Promise<void> {
      if (snapshots) snapshotClosers.delete(snapshots.closeLater)
      await writeLock.run(async () => {
        if (reader)
          await readLock.run(async () => {
            // The last connection to close removes the log, but two processes closing at once
            // may each still see the other: emptied first, the file left behind holds nothing.
            await wal.truncate(0).catch(() => undefined)
            reader.db.close()
          })
        writer.db.close()
      })
      await options.onClose?.()
    },
  }
}
