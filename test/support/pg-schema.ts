/** PostgreSQL storages for tests: each in a schema of its own on the test server. */
import pg from 'pg'
import { describe, inject } from 'vitest'
import { createSqlStorage, pgDriver, type SqlDriver, type SqlStorage } from '../../src/storage/sql/index.js'
import { TEST_DATABASE_PREFIX } from './postgres-setup.js'

const server = inject('postgres')
export const reason = server.reason

/**
 * A database of this test file's own on the test server (files run side by side): transaction
 * ids and locks are shared by a server's databases, but a sync reader, a migration lock or a
 * long transaction of one file then never meets another file's. pg_trgm is installed in its
 * public schema once, as the globalSetup does in the server's first database (a storage's
 * migration would otherwise create it in the first storage's schema, and dropping that schema
 * would take it from the others). The globalSetup drops these databases when the run ends.
 */
async function ownDatabase(serverUrl: string): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const first = new pg.Client({ connectionString: serverUrl })
  await first.connect()
  await first.query(`CREATE DATABASE ${name}`).finally(() => first.end())
  const own = new URL(serverUrl)
  own.pathname = `/${name}`
  const client = new pg.Client({ connectionString: own.toString() })
  await client.connect()
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').finally(() => client.end())
  return own.toString()
}

export const url = server.url ? await ownDatabase(server.url) : ''

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
