/**
 * @module calendar-events-router/storage/sql: storage on SQLite (the embedded default) or
 * PostgreSQL, with hand-written SQL in two dialects. Drivers are injected (`sqliteDriver`,
 * `pgDriver`) or opened for you (`openSqliteFile`, `openPostgres`); none is imported statically.
 *
 * ```ts
 * const storage = createSqlStorage({ driver: await openSqliteFile('./calendar.db') })
 * const storage = createSqlStorage({ driver: pgDriver(new pg.Pool({ connectionString })) })
 * ```
 */
export { createSqlStorage, type SqlStorage, type SqlStorageOptions } from './storage.js'
export type { SqlConnection, SqlDriver, SqlParam, SqlReplicas } from './driver.js'
export type { ReplicaHealthOptions } from './replicas.js'
export { sqliteDriver, type SqliteDatabase, type SqliteDriverOptions, type SqliteStatement } from './sqlite-driver.js'
export {
  pgDriver,
  type PgDriverOptions,
  type PgPool,
  type PgPoolClient,
  type PgQueryable,
  type PgQueryConfig,
  type PgQueryResult,
} from './pg-driver.js'
export { openSqliteFile, openPostgres, type OpenPostgresOptions, type OpenSqliteOptions } from './open.js'
export { MIGRATIONS, type Migration } from './migrations.js'
