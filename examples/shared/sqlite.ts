/**
 * SQL storage on a runtime's own SQLite (`bun:sqlite`, `node:sqlite`), chosen like `npm start`
 * does: CALENDAR_STORAGE=sqlite (default) or memory, CALENDAR_DB (./calendar.db).
 */
import type { Storage } from '../../src/index.js'
import { createMemoryStorage } from '../../src/storage/memory.js'
import { createSqlStorage, sqliteDriver, type SqliteDatabase } from '../../src/storage/sql/index.js'

type Env = Record<string, string | undefined>

export async function openRuntimeStorage(
  env: Env,
  open: (file: string) => SqliteDatabase,
  engine: string,
): Promise<{ storage: Storage; description: string }> {
  const kind = (env.CALENDAR_STORAGE ?? 'sqlite').toLowerCase()
  if (kind === 'memory') return { storage: createMemoryStorage(), description: 'memory (data is lost on restart)' }
  if (kind !== 'sqlite') throw new Error(`CALENDAR_STORAGE must be sqlite or memory here (got "${kind}")`)
  const file = env.CALENDAR_DB ?? './calendar.db'
  const connect = () => {
    const db = open(file)
    db.exec('PRAGMA busy_timeout = 5000')
    db.exec('PRAGMA foreign_keys = ON')
    return db
  }
  const writer = connect()
  let reader: SqliteDatabase | undefined
  if (file !== ':memory:') {
    // A file gets a second connection for reads (WAL), so reads never wait for a write.
    writer.exec('PRAGMA journal_mode = WAL')
    reader = connect()
    reader.exec('PRAGMA query_only = ON')
  }
  const storage = createSqlStorage({ driver: sqliteDriver(writer, reader ? { reader } : {}) })
  await storage.migrate()
  return { storage, description: `SQLite file ${file} (${engine})` }
}
