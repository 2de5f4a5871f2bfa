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

/** The part of pg's query interface this driver uses (a Pool and a PoolClient both have it). */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>
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
   * Errors of idle pooled connections (the server restarted, a network blip). The pool drops the
   * connection; this hook is for logging.
   */
  onIdleError?: (err: Error) => void
}

function connection(target: PgQueryable): SqlConnection {
  return {
    async query<R extends object>(sql: string, params: readonly SqlParam[] = []): Promise<R[]> {
      return (await target.query(sql, params as unknown[])).rows as R[]
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<{ changes: number }> {
      return { changes: (await target.query(sql, params as unknown[])).rowCount ?? 0 }
    },
  }
}

export function pgDriver(pool: PgPool, options: PgDriverOptions = {}): SqlDriver {
  // pg emits 'error' on the pool when an idle client's server goes away; an EventEmitter with no
  // 'error' listener throws, which would take the whole process down.
  pool.on('error', (err) => options.onIdleError?.(err))
  const poolConn = connection(pool)

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
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
        const result = await fn(connection(client))
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
