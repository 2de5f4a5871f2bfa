/**
 * Convenience openers for the two common setups. The drivers are optional peer dependencies and
 * are loaded here with dynamic `import()` only when called, so importing the SQL storage never
 * requires a driver that is not installed.
 */
import { StorageUnavailableError } from '../types.js'
import type { SqlDriver } from './driver.js'
import { translate } from './errors.js'
import { pgDriver, type PgPool } from './pg-driver.js'
import type { ReplicaHealthOptions } from './replicas.js'
import { sqliteDriver, type SqliteDatabase } from './sqlite-driver.js'

async function load<T>(name: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer()
  } catch (err) {
    throw new Error(`The SQL storage needs the "${name}" package for this: npm install ${name}`, { cause: err })
  }
}

/**
 * A SQLite database file through better-sqlite3 (Node): WAL mode, busy_timeout 5000 ms,
 * foreign keys on, synchronous NORMAL (durable across process crashes; an OS crash may lose the
 * last commits, which WAL still keeps consistent). Two connections: one writes, one reads, so
 * readers never see a write transaction's uncommitted rows and never wait for it.
 *
 * ':memory:' cannot be shared by two connections of better-sqlite3 (it has no memdb/URI and no
 * shared cache), and one connection would either show uncommitted writes to readers or make
 * readers wait for writers. So ':memory:' opens a private temporary file instead (fsync off),
 * removed on close: the same isolation as a file, and gone when the storage is.
 */
export interface OpenSqliteOptions {
  /** How long a write waits for another process's lock before failing (503). Default 5000 ms. */
  busyTimeoutMs?: number
  /**
   * Page cache of the reading connection, in MiB. Default 64. A search or a filtered list at
   * scale visits tens of thousands of index entries spread over the file; with SQLite's own
   * default (a few MiB) most of those visits copy the page in from the OS again (measured at
   * 1M events: a common-fragment search 72 ms with the default cache, 47 ms with 256 MiB).
   */
  cacheSizeMiB?: number
  /**
   * The write-ahead log is checkpointed and truncated once it is larger than this, in MiB
   * (default 16; 0 leaves it to SQLite's automatic checkpoints, which cannot shorten it while
   * reads keep running). See docs/storage.md §2.9.
   */
  walLimitMiB?: number
}

/** A read-only descriptor of `path`, or null when there is no such file (yet). */
function existingFile(openSync: (path: string, flags: string) => number, path: string): number | null {
  try {
    return openSync(path, 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

export async function openSqliteFile(path: string, options: OpenSqliteOptions = {}): Promise<SqlDriver> {
  const busyTimeout = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))
  const cacheKiB = Math.max(1, Math.floor((options.cacheSizeMiB ?? 64) * 1024))
  const walLimitBytes = Math.max(0, Math.floor((options.walLimitMiB ?? 16) * 1024 * 1024))
  const { default: Database } = await load('better-sqlite3', () => import('better-sqlite3'))
  const { statSync, openSync, readSync, closeSync } = await import('node:fs')
  let file = path
  let cleanup: (() => Promise<void>) | undefined
  const temporary = path === ':memory:' || path === ''
  if (temporary) {
    const [{ mkdtemp, rm }, { tmpdir }, nodePath] = await Promise.all([import('node:fs/promises'), import('node:os'), import('node:path')])
    const dir = await mkdtemp(nodePath.join(tmpdir(), 'calendar-sqlite-'))
    file = nodePath.join(dir, 'memory.db')
    cleanup = () => rm(dir, { recursive: true, force: true })
  }
  const open = (): SqliteDatabase => {
    const db = new Database(file)
    db.exec(`PRAGMA busy_timeout = ${busyTimeout}`)
    db.exec('PRAGMA foreign_keys = ON')
    db.exec(`PRAGMA synchronous = ${temporary ? 'OFF' : 'NORMAL'}`)
    return db
  }
  let writer: SqliteDatabase | undefined
  try {
    writer = open()
    // WAL is a property of the file: set once by the writer, the reader opens into it.
    writer.exec('PRAGMA journal_mode = WAL')
    const reader = open()
    reader.exec('PRAGMA query_only = ON')
    // Negative: a size in KiB rather than a number of pages.
    reader.exec(`PRAGMA cache_size = -${cacheKiB}`)
    const wal = `${file}-wal`
    // A stat after each commit costs microseconds; asking SQLite is a checkpoint of its own.
    const walSize = () => statSync(wal, { throwIfNoEntry: false })?.size ?? 0
    // The WAL index (`-shm`) exists while a connection is open in WAL mode; its first 48 bytes are
    // the header every commit rewrites (sqlite.org/walformat.html): dataVersion() compares them.
    // Opened at the first question (SQLite creates it with the first read); until it exists, and
    // where it cannot be read, dataVersion() asks SQLite.
    let shm: number | null = null
    // One array for every question: the driver copies the bytes it keeps.
    const header = new Uint8Array(48)
    const walIndexStamp = () => {
      shm ??= existingFile(openSync, `${file}-shm`)
      if (shm === null) return null
      return readSync(shm, header, 0, 48, 0) === 48 ? header : null
    }
    const onClose = async () => {
      if (shm !== null) closeSync(shm)
      await cleanup?.()
    }
    return sqliteDriver(writer, { reader, walLimitBytes, walSize, walIndexStamp, onClose })
  } catch (err) {
    writer?.close()
    await cleanup?.()
    // SQLITE_CANTOPEN (no permission, a directory), a lock, or better-sqlite3's own check for a
    // missing directory: the storage is unavailable. Anything else (not a database) is a bug.
    const e = translate(err)
    if (e instanceof StorageUnavailableError) throw e
    if (err instanceof TypeError && /directory does not exist/.test(err.message)) {
      throw new StorageUnavailableError(`Cannot open the SQLite database ${file}: its directory does not exist`, { cause: err })
    }
    throw err
  }
}

export interface OpenPostgresOptions {
  /** Pool size (default 10). */
  max?: number
  /** How long to wait for a connection before failing with StorageUnavailableError (default 5000 ms). */
  connectionTimeoutMillis?: number
  /** Reuse named prepared statements (default true; see `PgDriverOptions`). */
  preparedStatements?: boolean
  /**
   * Connection strings of streaming replicas of this primary: each gets a pool like the
   * primary's (same settings), and reads go to them as docs/storage-setup.md ("Read replicas")
   * says. Polling and lag bound: `replicaHealth`.
   */
  replicas?: readonly string[]
  /** See `PgDriverOptions.replicaHealth`. */
  replicaHealth?: ReplicaHealthOptions
  /** Any other pg.Pool settings (ssl, statement_timeout, options...). */
  [setting: string]: unknown
}

/** A PostgreSQL (or compatible) database through a new `pg.Pool` on this connection string. */
export async function openPostgres(connectionString: string, options: OpenPostgresOptions = {}): Promise<SqlDriver> {
  const pg = await load('pg', () => import('pg'))
  const Pool = (pg as unknown as { default?: { Pool: typeof pg.Pool } }).default?.Pool ?? pg.Pool
  const { preparedStatements, replicas = [], replicaHealth, ...settings } = options
  const open = (url: string) =>
    new Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, ...settings }) as unknown as PgPool
  return pgDriver(open(connectionString), { preparedStatements, replicas: replicas.map(open), ...(replicaHealth ? { replicaHealth } : {}) })
}
