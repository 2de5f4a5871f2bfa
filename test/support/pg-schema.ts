/** PostgreSQL storages for tests: each in a schema of its own on the test server. */
import pg from 'pg'
import { describe, inject } from 'vitest'
import { createSqlStorage, pgDriver, type SqlDriver, type SqlStorage } from '../../src/storage/sql/index.js'

export const { url, reason } = inject('postgres')

/**
 * `describe` for PostgreSQL tests. Without a server (only outside CI: the globalSetup fails a CI
 * run that has none) the block is skipped under a name that says why.
 */
export const pgDescribe = (name: string, fn: () => void) => (url ? describe(name, fn) : describe.skip(`${name}: ${reason}`, fn))

// Every storage gets its own schema (cheap to create and drop); its pool's connections put that
// schema first on their search_path, so the unqualified table names land there.
export const admin = url ? new pg.Pool({ connectionString: url, max: 2 }) : null
let schemas = 0

/** `wrap` sees the driver before the storage does (a test counting its transactions). */
export async function schemaStorage(
  existing?: string,
  wrap: (driver: SqlDriver) => SqlDriver = (d) => d,
): Promise<SqlStorage & { schema: string }> {
  const schema = existing ?? `s_${process.pid}_${++schemas}_${Math.random().toString(36).slice(2, 8)}`
  if (!existing) await admin!.query(`CREATE SCHEMA ${schema}`)
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` })
  const storage = createSqlStorage({ driver: wrap(pgDriver(pool)) })
  const close = storage.close.bind(storage)
  return Object.assign(storage, {
    schema,
    async close() {
      await close()
      if (!existing) await admin!.query(`DROP SCHEMA ${schema} CASCADE`)
    },
  })
}
