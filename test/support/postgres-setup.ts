/**
 * vitest globalSetup: gives the test files a PostgreSQL connection string via `inject('postgres')`.
 * - CALENDAR_TEST_DATABASE_URL set: that server is used as is.
 * - Otherwise a throwaway server is started from Debian's binaries and removed afterwards.
 * - No binaries: in CI that is an error (PostgreSQL tests must never be skipped silently there);
 *   elsewhere the PostgreSQL tests are skipped and the reason printed.
 */
import type { TestProject } from 'vitest/node'
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

export const inCi = () => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const external = process.env.CALENDAR_TEST_DATABASE_URL
  if (external) {
    project.provide('postgres', { url: external, reason: '' })
    return
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
  project.provide('postgres', { url: server.url, reason: '' })
  return () => server.destroy()
}
