/**
 * Picks the example servers' storage from the environment:
 * CALENDAR_STORAGE=sqlite (default) | postgres | memory,
 * CALENDAR_DB (SQLite file, default ./calendar.db), CALENDAR_DATABASE_URL (postgres://...),
 * CALENDAR_DATABASE_REPLICA_URLS (streaming replicas of that database, comma-separated: reads go
 * to them, docs/storage-setup.md "Read replicas").
 */
import type { Storage } from '../../src/index.js'
import { createMemoryStorage } from '../../src/storage/memory.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../../src/storage/sql/index.js'

export interface OpenedStorage {
  storage: Storage
  /** Where the data lives, for the start-up message. */
  description: string
}

export async function openStorage(env: NodeJS.ProcessEnv): Promise<OpenedStorage> {
  const url = env.CALENDAR_DATABASE_URL
  const kind = (env.CALENDAR_STORAGE ?? (url ? 'postgres' : 'sqlite')).toLowerCase()
  if (kind === 'memory') return { storage: createMemoryStorage(), description: 'memory (data is lost on restart)' }
  if (kind === 'sqlite') {
    const file = env.CALENDAR_DB ?? './calendar.db'
    const storage = createSqlStorage({ driver: await openSqliteFile(file) })
    await storage.migrate()
    return { storage, description: `SQLite file ${file}` }
  }
  if (kind === 'postgres' || kind === 'postgresql') {
    if (!url) throw new Error('CALENDAR_STORAGE=postgres needs CALENDAR_DATABASE_URL=postgres://user:pass@host:5432/db')
    const replicas = (env.CALENDAR_DATABASE_REPLICA_URLS ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean)
    const replicaHealth = {
      onError: (err: Error, i: number) =>
        console.warn(`replica ${i < 0 ? 'poll of the primary' : replicas[i] ? new URL(replicas[i]).host : i}: ${err.message}`),
    }
    const storage = createSqlStorage({ driver: await openPostgres(url, { replicas, replicaHealth }) })
    await storage.migrate()
    const also = replicas.length ? `, reads also from ${replicas.map((u) => new URL(u).host).join(', ')}` : ''
    return { storage, description: `PostgreSQL ${new URL(url).host}${also}` }
  }
  throw new Error(`CALENDAR_STORAGE must be memory, sqlite or postgres (got "${kind}")`)
}
