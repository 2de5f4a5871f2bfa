// Bun: `bun test/runtime/smoke/bun.mjs`. The built package through calendar-events-router/bun,
// on memory storage and on SQLite through bun:sqlite.
import { Database } from 'bun:sqlite'
import { createCalendarRouter } from 'calendar-events-router'
import { serveCalendar } from 'calendar-events-router/bun'
import { createMemoryStorage } from 'calendar-events-router/storage/memory'
import { createSqlStorage, sqliteDriver } from 'calendar-events-router/storage/sql'
import { options, report, runChecks } from './checks.mjs'

const storages = { memory: createMemoryStorage(), 'bun:sqlite': createSqlStorage({ driver: sqliteDriver(new Database(':memory:')) }) }
const results = []
for (const [label, storage] of Object.entries(storages)) {
  const server = serveCalendar(createCalendarRouter(storage, options), { port: 0, hostname: '127.0.0.1' })
  try {
    results.push(...(await runChecks(`http://127.0.0.1:${server.port}`, `bun ${Bun.version} ${label}`)))
  } finally {
    server.stop(true)
    await storage.close?.()
  }
}
process.exit(report(results))
