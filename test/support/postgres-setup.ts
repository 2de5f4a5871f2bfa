/**
 * vitest globalSetup: gives the test files a PostgreSQL connection string via `inject('postgres')`.
 * - CALENDAR_TEST_DATABASE_URL set: that server is used as is.
 * - Otherwise a throwaway server is started from Debian's binaries and removed afterwards.
 * - No binaries: in CI that is an error (PostgreSQL tests must never be skipped silently there);
 *   elsewhere the PostgreSQL tests are skipped and the reason printed.
 */
import type { TestProject } from 'vitest/node'
import pg from 'pg'
import { findPostgresBin, startPostgres } from './postgres-server.js'

export interface PostgresContext {
  /** Connection string, or '' when PostgreSQL is not available. */
  url: string
  /** Why `url` is empty. */
  reason: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresContext
  }
}

/** Test files' own databases (support/pg-schema.ts) start with this; the teardown drops them. */
export const TEST_DATABASE_PREFIX = 'cer_test_'

/** Drops the test files' databases left on a server this run did not start. */
async function dropTestDatabases(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
      TEST_DATABASE_PREFIX,
    ])
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

export const inCi = () => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const external = process.env.CALENDAR_TEST_DATABASE_URL
  if (external) {
    project.provide('postgres', { url: external, reason: '' })
    return () => dropTestDatabases(external)
  }
  const bin = findPostgresBin()
  if (!bin) {
    const reason =
      'no PostgreSQL binaries (/usr/lib/postgresql/*/bin or CALENDAR_TEST_PG_BIN; apt-get install -y postgresql) and CALENDAR_TEST_DATABASE_URL is not set'
    if (inCi()) throw new Error(`PostgreSQL is required in CI: ${reason}`)
    console.warn(`\n[postgres-setup] PostgreSQL tests will be skipped: ${reason}\n`)
    project.provide('postgres', { url: '', reason })
    return
  }
  const server = await startPostgres(bin)
  // The storages of the tests live in schemas of their own and their migrations create pg_trgm
  // if it is missing, in the first of them; dropping that schema (CASCADE) would take the
  // extension, and every other schema's trigram index, with it. Installed once in public here,
  // it stays (storage-postgres.test.ts covers creating it, in a database of its own).
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public')
  await client.end()
  project.provide('postgres', { url: server.url, reason: '' })
  return () => server.destroy()
}
