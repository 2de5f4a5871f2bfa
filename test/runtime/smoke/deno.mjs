// Deno: `deno run --allow-net --allow-read --allow-env test/runtime/smoke/deno.mjs`. The built
// package with no adapter (`Deno.serve(calendar.fetch)`), on memory storage and on SQLite
// through node:sqlite.
import { DatabaseSync } from 'node:sqlite'
import { createCalendarRouter } from 'calendar-events-router'
import { createMemoryStorage } from 'calendar-events-router/storage/memory'
import { createSqlStorage, sqliteDriver } from 'calendar-events-router/storage/sql'
import { options, report, runChecks } from './checks.mjs'

const storages = { memory: createMemoryStorage(), 'node:sqlite': createSqlStorage({ driver: sqliteDriver(new DatabaseSync(':memory:')) }) }
const results = []
for (const [label, storage] of Object.entries(storages)) {
  const calendar = createCalendarRouter(storage, options)
  const controller = new AbortController()
  const { promise: listening, resolve } = Promise.withResolvers()
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', signal: controller.signal, onListen: resolve }, calendar.fetch)
  const { port } = await listening
  try {
    results.push(...(await runChecks(`http://127.0.0.1:${port}`, `deno ${Deno.version.deno} ${label}`)))
  } finally {
    controller.abort()
    await server.finished
    await storage.close?.()
  }
}
Deno.exit(report(results))
