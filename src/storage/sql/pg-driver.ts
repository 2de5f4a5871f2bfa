/**
 * SqlDriver over a `pg.Pool` (typed structurally: nothing here imports pg). Reads outside a
 * transaction go to the pool (any connection, READ COMMITTED: they only ever see committed
 * rows). A transaction checks out one client and runs SERIALIZABLE, the level CockroachDB always
 * uses, so concurrent writers in other processes either serialize or fail with 40001, which the
 * storage retries.
 *
 * Recovery: a client whose connection failed is destroyed (`release(true)`) rather than returned
 * to the pool, and the pool opens fresh connections on demand, so once the server is back the
 * next call succeeds.
 */
import type { SqlConnection, SqlDriver, SqlParam } from './driver.js'
import { classify } from './errors.js'

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
   * once per connection, so the server parses and plans it once rather than on every call. Turn
   * off behind a pooler that does not keep named statements across transactions (PgBouncer in
   * transaction mode before 1.21).
   */
  preparedStatements?: boolean
  /**
   * Errors of idle pooled connections (the server restarted, a network blip). The pool drops the
   * connection; this hook is for logging.
   */
  onIdleError?: (err: Error) => void
  /**
   * Write transactions of every process on this database and schema run one at a time (default
   * true), as SQLite's do: a session advisory lock is taken before BEGIN and released after the
   * end. Without it, concurrent writers that touch one hot row (a term's count, a day's event
   * count) fail SERIALIZABLE's checks again and again, and some give up. Reads never wait for it.
   */
  serializeWriters?: boolean
}

/** The advisory lock of this schema's writers (advisory locks are per database; schemas share one). */
const WRITER_LOCK = 'hashtext(current_schema())'

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

function statementNames(): (text: string) => string | undefined {
  const names = new Map<string, string>()
  return (text) => {
    if (PLANNED_PER_CALL.test(text)) return undefined
    let name = names.get(text)
    if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `cer_${names.size + 1}`))
    return name
  }
}

function connection(target: PgQueryable, nameOf: ((text: string) => string | undefined) | null): SqlConnection {
  const send = (text: string, params: readonly SqlParam[]) => {
    const name = nameOf?.(text)
    return name === undefined ? target.query(text, params as unknown[]) : target.query({ name, text, values: params as unknown[] })
  }
  return {
    async query<R extends object>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
      return (await send(sql, params)).rows as R[]
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
      return { changes: (await send(sql, params)).rowCount ?? 0 }
    },
  }
}

export function pgDriver(pool: PgPool, options: PgDriverOptions = {}): SqlDriver {
  // pg emits 'error' on the pool when an idle client's server goes away; an EventEmitter with no
  // 'error' listener throws, which would take the whole process down.
  pool.on('error', (err) => options.onIdleError?.(err))
  const nameOf = options.preparedStatements === false ? null : statementNames()
  const poolConn = connection(pool, nameOf)
  const serialize = options.serializeWriters !== false

  return {
    dialect: 'postgres',

    read: (fn) => fn(poolConn),

    async transaction<T>(fn: (conn: SqlConnection) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      // While checked out, a client whose server goes away emits 'error' with nobody listening
      // (pg-pool only guards idle clients); its next query then fails and we destroy it.
      let destroy = false
      const onError = () => {
        destroy = true
      }
      client.on('error', onError)
      let locked = false
      try {
        // Before BEGIN: the transaction's snapshot must be taken once the previous writer committed.
        if (serialize) {
          await client.query(`SELECT pg_advisory_lock(${WRITER_LOCK})`)
          locked = true
        }
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
        const result = await fn(connection(client, nameOf))
        await client.query('COMMIT')
        return result
      } catch (err) {
        if (classify(err) === 'unavailable') destroy = true
        else {
          try {
            await client.query('ROLLBACK')
          } catch {
            destroy = true
          }
        }
        throw err
      } finally {
        // A destroyed connection ends its session, and the lock with it.
        if (locked && !destroy) {
          try {
            await client.query(`SELECT pg_advisory_unlock(${WRITER_LOCK})`)
          } catch {
            destroy = true
          }
        }
        client.removeListener('error', onError)
        client.release(destroy)
      }
    },

    async execute(sql: string): Promise<void> {
      await pool.query(sql)
    },

    close: () => pool.end(),
  }
}
