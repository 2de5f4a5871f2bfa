/**
 * SqlDriver over a `pg.Pool` (typed structurally: nothing here imports pg). Reads outside a
 * transaction go to the pool (any connection, READ COMMITTED: they only ever see committed
 * rows). A transaction checks out one client and runs SERIALIZABLE, so concurrent writers in
 * other processes either serialize or fail with 40001, which the storage retries.
 *
 * Nothing here needs a session of its own: the writers' lock is a table lock that ends with the
 * transaction, and named statements fall back to unnamed ones where the connection they were
 * prepared on is not the one the next statement gets. So the driver works behind a pooler in
 * transaction mode (PgBouncer's `pool_mode = transaction`).
 *
 * Recovery: a client whose connection failed is destroyed (`release(true)`) rather than returned
 * to the pool, and the pool opens fresh connections on demand, so once the server is back the
 * next call succeeds.
 */
import { columnText, type SqlConnection, type SqlDriver, type SqlParam, type SqlReplicas } from './driver.js'
import { classify } from './errors.js'
import { COMMIT_POSITION, parseLsn, PRIMARY_ONLY, ReplicaHealth, type ReplicaHealthOptions } from './replicas.js'

export interface PgQueryResult {
  rows: unknown[]
  rowCount: number | null
}

/** A query as pg takes it; with `name`, pg prepares it once per connection and reuses it. */
export interface PgQueryConfig {
  name?: string
  text: string
  values?: unknown[]
}

/** The part of pg's query interface this driver uses (a Pool and a PoolClient both have it). */
export interface PgQueryable {
  query(text: string | PgQueryConfig, values?: unknown[]): Promise<PgQueryResult>
}

export interface PgPoolClient extends PgQueryable {
  release(destroy?: boolean | Error): void
  on(event: 'error', listener: (err: Error) => void): unknown
  removeListener(event: 'error', listener: (err: Error) => void): unknown
}

export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>
  end(): Promise<void>
  on(event: 'error', listener: (err: Error) => void): unknown
}

export interface PgDriverOptions {
  /**
   * Reuse prepared statements (default true): each statement text gets a name, which pg prepares
   * once per connection, so the server parses and plans it once rather than on every call. Behind
   * a pooler that does not keep named statements with their client (PgBouncer in transaction mode
   * before 1.21) the server answers "prepared statement already exists" or "does not exist": the
   * driver then stops naming statements for good (the transaction it happened in is run again).
   * `false` never names them.
   */
  preparedStatements?: boolean
  /**
   * Errors of idle pooled connections (the server restarted, a network blip), and of one that
   * broke right after a COMMIT, before the commit's position was read (the commit stands). The
   * pool drops the connection; this hook is for logging.
   */
  onIdleError?: (err: Error) => void
  /**
   * Write transactions of every process on this database and schema run one at a time (default
   * true), as SQLite's do: each takes `LOCK TABLE calendar_writer IN EXCLUSIVE MODE` first,
   * which ends with the transaction. Without it, concurrent writers that touch one hot row (a
   * term's count, a day's event count) fail SERIALIZABLE's checks again and again, and some give
   * up. Reads never wait for it (the table is never read).
   */
  serializeWriters?: boolean
  /**
   * Streaming replicas of this primary (their own pools). The driver's `read` never uses them:
   * the storage sends the reads of a request to one (see docs/storage-setup.md, "Read replicas")
   * when it has replayed far enough for that request, and to the primary otherwise.
   */
  replicas?: readonly PgPool[]
  /** How often the replicas' positions are polled, and the lag past which one is skipped. */
  replicaHealth?: ReplicaHealthOptions
}

/**
 * The writers' lock: a table of the storage's schema, locked as the transaction's first
 * statement. LOCK TABLE takes no snapshot, so the SERIALIZABLE snapshot is taken by the next
 * statement, once the previous writer committed (an advisory lock taken by a SELECT would freeze
 * the snapshot before waiting). Being a transaction lock, it needs no session of its own.
 */
const WRITER_TABLE = 'calendar_writer'
const LOCK_WRITERS = `LOCK TABLE ${WRITER_TABLE} IN EXCLUSIVE MODE`
/**
 * Concurrent CREATE TABLE IF NOT EXISTS can still collide on the catalog: the table is there
 * then. The server names the collision by the relation (42P07), its row type (42710, "type
 * already exists") or the catalog's unique index (23505), depending on where the two met.
 */
const ALREADY_THERE = new Set(['42P07', '42710', '23505'])
/** The server lost or never had the named statement of this connection (a pooler moved us). */
const NAMED_LOST = new Set(['42P05', '26000'])

/**
 * Names for statement texts, never reused for another text (pg refuses a known name with other
 * text). Each name is a prepared statement on every connection that ran it, so past MAX_NAMED
 * distinct texts the rest run unnamed (parsed per call) and the server's memory stays bounded;
 * the storage's statements are a fixed set plus some filter combinations, well under it.
 */
const MAX_NAMED = 1000

/**
 * A pattern match (search) is planned for each call, never named: after five executions
 * PostgreSQL may keep a generic plan, and a generic `LIKE $1` cannot use the trigram index (the
 * pattern is unknown when planning), so a rare-word search at 1M events went from 7 ms to 250 ms
 * once the plan turned generic.
 */
const PLANNED_PER_CALL = /\bLIKE\b/i

/** Statement names per text; `off` once the server showed they do not stay with their connection. */
interface Naming {
  off: boolean
  nameOf(text: string): string | undefined
}

function statementNames(enabled: boolean): Naming {
  const names = new Map<string, string>()
  const naming: Naming = {
    off: !enabled,
    nameOf(text) {
      if (naming.off || PLANNED_PER_CALL.test(text)) return undefined
      let name = names.get(text)
      if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `cer_${names.size + 1}`))
      return name
    },
  }
  return naming
}

const codeOf = (err: unknown) => (typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined)

/**
 * `inTransaction`: `target` is one client, holding the transaction. A lost name aborted the
 * transaction, so it is rethrown (the storage runs it again). Statements sent together (a page
 * and its count) are queued here one after another: a pool runs them on two connections, but
 * one client would queue them itself, which pg deprecates (it refuses it from pg 9).
 */
function connection(target: PgQueryable, naming: Naming, inTransaction: boolean): SqlConnection {
  const send = inTransaction ? oneAtATime(sendOn(target, naming, inTransaction)) : sendOn(target, naming, inTransaction)
  return {
    async query<R extends object>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
      return (await send(sql, params)).rows as R[]
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
      return { changes: (await send(sql, params)).rowCount ?? 0 }
    },
  }
}

type Send = (text: string, params: readonly SqlParam[]) => Promise<PgQueryResult>

/** `send`, each call started once the one before it settled. */
function oneAtATime(send: Send): Send {
  let last: Promise<unknown> = Promise.resolve()
  return (text, params) => {
    const next = last.then(() => send(text, params))
    // The queue goes on after a failure; the caller of the failed statement gets its error.
    last = next.catch(() => undefined)
    return next
  }
}

function sendOn(target: PgQueryable, naming: Naming, inTransaction: boolean): Send {
  return async (text, params) => {
    const name = naming.nameOf(text)
    if (name === undefined) return target.query(text, params as unknown[])
    try {
      return await target.query({ name, text, values: params as unknown[] })
    } catch (err) {
      if (!NAMED_LOST.has(codeOf(err) as string)) throw err
      naming.off = true
      if (inTransaction)
        throw Object.assign(new Error('Named statements do not survive this pooler: retried unnamed', { cause: err }), { code: '40001' })
      return target.query(text, params as unknown[])
    }
  }
}

/** The driver's commit positions: the latest one, or PRIMARY_ONLY while the last one is unknown. */
function commitPositions(report: (err: Error) => void) {
  let last: bigint | null = null
  let unknown = false
  return {
    bookmark: () => (unknown ? PRIMARY_ONLY : last),
    /** False when the position could not be read: the connection is suspect, the commit stands. */
    async after(client: PgQueryable): Promise<boolean> {
      try {
        const { rows } = await client.query(COMMIT_POSITION)
        const lsn = parseLsn(columnText((rows[0] as { lsn?: unknown } | undefined)?.lsn ?? ''))
        if (lsn !== null && (last === null || lsn > last)) last = lsn
        unknown = false
        return true
      } catch (err) {
        // Committed all the same: the caller must not see a failure, and the reads that carry
        // this bookmark (PRIMARY_ONLY) go to the primary until the next commit's position is known.
        unknown = true
        report(err instanceof Error ? err : new Error(String(err)))
        return false
      }
    },
  }
}

function replicaReads(health: ReplicaHealth, pools: readonly PgPool[], naming: Naming): SqlReplicas {
  const conns = pools.map((replica) => connection(replica, naming, false))
  return {
    choose: (atLeast) => health.choose(atLeast),
    probe: (atLeast) => health.probe(atLeast),
    read(i, fn) {
      health.served[i]! += 1
      return fn(conns[i]!)
    },
    failed: (i, err) => health.failed(i, err),
    counts: () => ({ replicas: [...health.served], primary: health.primaryReads }),
    primaryRead() {
      health.primaryReads += 1
    },
  }
}

/**
 * The migration lock: a transaction-scoped advisory lock of this schema (two keys: the schema's
 * name and the migrations table's), the first statement of the migration run's one transaction.
 * A second process's run waits at this SELECT until the first one committed or rolled back (or
 * its connection died), then reads the versions the first recorded. A transaction lock, not a
 * session one, so it holds behind a pooler in transaction mode too.
 */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext('calendar_migrations'))`

/**
 * The driver a migration run uses while it holds the lock: every statement runs on the lock's
 * connection, inside its transaction (PostgreSQL's DDL is transactional), each in a savepoint so
 * that a statement expected to fail (an extension the role may not create, a column an older,
 * interrupted run added) leaves the rest standing. One connection for the whole run: a pool of
 * one, or a pooler's small pool shared by processes waiting for the lock, cannot starve it.
 */
function lockedDriver(conn: SqlConnection): SqlDriver {
  const step = async <T>(fn: () => Promise<T>): Promise<T> => {
    await conn.run('SAVEPOINT migration_step')
    try {
      const result = await fn()
      await conn.run('RELEASE SAVEPOINT migration_step')
      return result
    } catch (err) {
      await conn.run('ROLLBACK TO SAVEPOINT migration_step')
      throw err
    }
  }
  const locked: SqlDriver = {
    dialect: 'postgres',
    read: (fn) => step(() => fn(conn)),
    transaction: (fn) => step(() => fn(conn)),
    execute: (sql) => step(async () => void (await conn.run(sql))),
    migrationLock: (fn) => fn(locked),
    close: () => Promise.reject(new Error('a migration run cannot close the driver it runs on')),
  }
  return locked
}

/**
 * Runs `fn` in the migration lock's transaction on a connection of its own. With `writersLock`,
 * the writers' lock is taken too: writers of processes that migrated already wait, so a backfill
 * sees every row (the transaction is READ COMMITTED: a SERIALIZABLE snapshot would be taken
 * before the wait for the lock and miss the versions the previous holder recorded).
 */
async function holdMigrationLock<T>(
  pool: PgPool,
  naming: Naming,
  writersLock: ((client: PgPoolClient) => Promise<void>) | null,
  fn: (driver: SqlDriver) => Promise<T>,
): Promise<T> {
  return checkedOut(pool, async (client, drop) => {
    try {
      // On this very connection, before BEGIN: asking the pool for another could wait for ever.
      await writersLock?.(client)
      await client.query('BEGIN')
      await client.query(MIGRATION_LOCK)
      if (writersLock) await client.query(LOCK_WRITERS)
      const result = await fn(lockedDriver(connection(client, naming, true)))
      await client.query('COMMIT')
      return result
    } catch (err) {
      // The locks end with the transaction; a connection that cannot even roll back is dropped.
      await client.query('ROLLBACK').catch(drop)
      throw err
    }
  })
}

/**
 * `fn` on a client checked out of `pool`, returned to it afterwards, or destroyed when `fn`
 * called `drop` or the client reported an error meanwhile (pg-pool only guards idle clients: a
 * checked-out one whose server goes away emits 'error' with nobody listening).
 */
async function checkedOut<T>(pool: PgPool, fn: (client: PgPoolClient, drop: () => void) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let destroy = false
  const drop = () => {
    destroy = true
  }
  client.on('error', drop)
  try {
    return await fn(client, drop)
  } finally {
    client.removeListener('error', drop)
    client.release(destroy)
  }
}

export function pgDriver(pool: PgPool, options: PgDriverOptions = {}): SqlDriver {
  // pg emits 'error' on the pool when an idle client's server goes away; an EventEmitter with no
  // 'error' listener throws, which would take the whole process down.
  pool.on('error', (err) => options.onIdleError?.(err))
  const naming = statementNames(options.preparedStatements !== false)
  const poolConn = connection(pool, naming, false)
  const serialize = options.serializeWriters !== false
  const commits = commitPositions((err) => options.onIdleError?.(err))
  const pools = options.replicas ?? []
  const onReplicaError = options.replicaHealth?.onError
  // As for the primary's pool: an idle client's error with no listener would end the process.
  for (const [i, replica] of pools.entries()) replica.on('error', (err) => onReplicaError?.(err, i))
  const health = pools.length ? new ReplicaHealth(pool, pools, options.replicaHealth) : null
  const replicas = health ? replicaReads(health, pools, naming) : undefined
  // Created once, on the connection the first transaction checked out: asking the pool for
  // another one could wait for ever where the pool is full (a small pool, a held client).
  let lockTable: Promise<void> | null = null
  const ensureLockTable = (client: PgPoolClient) =>
    (lockTable ??= client.query(`CREATE TABLE IF NOT EXISTS ${WRITER_TABLE} (held boolean)`).then(
      () => undefined,
      (err: unknown) => {
        if (ALREADY_THERE.has(codeOf(err) as string)) return
        lockTable = null
        throw err
      },
    ))

  return {
    dialect: 'postgres',

    read: (fn) => fn(poolConn),

    transaction<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
      return checkedOut(pool, async (client, drop) => {
        try {
          if (serialize) await ensureLockTable(client)
          await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
          if (serialize) await client.query(LOCK_WRITERS)
          const result = await fn(connection(client, naming, true))
          await client.query('COMMIT')
          if (!(await commits.after(client))) drop()
          return result
        } catch (err) {
          // A connection that failed, or cannot even roll back, is dropped, not pooled again.
          if (classify(err) === 'unavailable') drop()
          else await client.query('ROLLBACK').catch(drop)
          throw err
        }
      })
    },

    async execute(sql: string): Promise<void> {
      await pool.query(sql)
    },

    migrationLock: (fn) => holdMigrationLock(pool, naming, serialize ? ensureLockTable : null, fn),

    bookmark: commits.bookmark,

    async position(): Promise<bigint> {
      const { rows } = await pool.query(COMMIT_POSITION)
      const lsn = parseLsn(columnText((rows[0] as { lsn?: unknown } | undefined)?.lsn ?? ''))
      if (lsn === null) throw new Error('pg_current_wal_insert_lsn() gave no position')
      return lsn
    },

    ...(replicas ? { replicas } : {}),

    async close() {
      health?.close()
      await Promise.all([pool.end(), ...pools.map((p) => p.end())])
    },
  }
}
