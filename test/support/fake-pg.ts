/** A pg pool of one fake client for unit tests of the PostgreSQL driver: every statement goes to `query`. */
import type { PgPool, PgPoolClient, PgQueryConfig } from '../../src/storage/sql/pg-driver.js'

export type FakeQuery = (sql: string) => Promise<{ rows: unknown[]; rowCount: number }>

export function fakePool(query: FakeQuery): PgPool {
  const client: PgPoolClient = {
    query: (text: string | PgQueryConfig) => query(typeof text === 'string' ? text : text.text),
    release: () => undefined,
    on: () => client,
    removeListener: () => client,
  }
  const pool: PgPool = {
    query: (text: string | PgQueryConfig) => client.query(text),
    connect: () => Promise.resolve(client),
    end: () => Promise.resolve(),
    on: () => pool,
  }
  return pool
}
