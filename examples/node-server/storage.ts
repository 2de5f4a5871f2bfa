/** Picks the storage backend from CALENDAR_STORAGE (memory until the SQL backends land). */
import type { Storage } from '../../src/index.js'
import { createMemoryStorage } from '../../src/storage/memory.js'

export async function openStorage(env: NodeJS.ProcessEnv): Promise<Storage> {
  const kind = (env.CALENDAR_STORAGE ?? 'memory').toLowerCase()
  if (kind === 'memory') return createMemoryStorage()
  throw new Error(`CALENDAR_STORAGE=${kind} is not available yet; use memory`)
}
