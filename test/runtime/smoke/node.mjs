// Node: `node test/runtime/smoke/node.mjs`. The built package through calendar-events-router/node,
// on memory storage and on SQLite through better-sqlite3.
import { createServer } from 'node:http'
import { createCalendarRouter } from 'calendar-events-router'
import { toNodeHandler } from 'calendar-events-router/node'
import { createMemoryStorage } from 'calendar-events-router/storage/memory'
import { createSqlStorage, openSqliteFile } from 'calendar-events-router/storage/sql'
import { options, report, runChecks } from './checks.mjs'

const storages = { memory: createMemoryStorage(), 'better-sqlite3': createSqlStorage({ driver: await openSqliteFile(':memory:') }) }
const results = []
for (const [label, storage] of Object.entries(storages)) {
  const server = createServer(toNodeHandler(createCalendarRouter(storage, options)))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    results.push(...(await runChecks(`http://127.0.0.1:${server.address().port}`, `node ${process.version} ${label}`)))
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await storage.close?.()
  }
}
process.exit(report(results))
