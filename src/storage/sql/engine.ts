/**
 * The engine behind a PostgreSQL connection, checked before the first migration. The storage
 * rests on PostgreSQL itself: the journal's plpgsql triggers, `pg_current_xact_id()` and
 * `pg_snapshot_xmin()` (PostgreSQL 13+), SERIALIZABLE with a transaction-scoped table lock for
 * writers. Engines that speak the protocol without those (CockroachDB, YugabyteDB) are refused
 * with a sentence saying so, rather than failing later in a migration or, worse, at a write.
 */
import { columnText, type SqlDriver } from './driver.js'

/** The oldest PostgreSQL the storage is written for (server_version_num). */
export const MIN_POSTGRES = 130000

/** Why this server cannot hold the storage, or null when it can. */
export function engineProblem(version: string, versionNum: number): string | null {
  if (/cockroach/i.test(version)) return 'CockroachDB is not supported: the storage needs PostgreSQL triggers and pg_current_xact_id()'
  if (/-YB-|yugabyte/i.test(version))
    return 'YugabyteDB is not supported: it is not tested with the storage\u2019s journal triggers and table locks'
  if (!Number.isFinite(versionNum) || versionNum < MIN_POSTGRES)
    return `PostgreSQL 13 or newer is needed (the server says ${version.split(' on ')[0] ?? version})`
  return null
}

/**
 * Throws a clear error when the database behind `driver` is not a PostgreSQL the storage runs
 * on; SQLite drivers pass.
 * @example await checkEngine(pgDriver(pool)) // throws on CockroachDB
 */
export async function checkEngine(driver: SqlDriver): Promise<void> {
  if (driver.dialect !== 'postgres') return
  const rows = await driver.read((c) =>
    c.query<{ v: unknown; n: unknown }>(`SELECT version() AS v, current_setting('server_version_num') AS n`),
  )
  const problem = engineProblem(columnText(rows[0]?.v ?? ''), Number(rows[0]?.n))
  if (problem) throw new Error(`Unsupported database engine: ${problem}.`)
}
