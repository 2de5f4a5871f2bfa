/**
 * The calendar on Bun: `Bun.serve` through `calendar-events-router/bun`, data in SQLite through
 * Bun's own `bun:sqlite`. Run: `npm run example:bun` (= `bun examples/bun/server.ts`).
 * Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_STORAGE (sqlite | memory),
 * CALENDAR_DB (./calendar.db), CALENDAR_API_TOKENS / CALENDAR_API_TOKEN, CALENDAR_TIMEZONE,
 * CALENDAR_CORS_ORIGINS, as for `npm start`.
 */
import { Database } from 'bun:sqlite'
import { createCalendarRouter } from '../../src/index.js'
import { serveCalendar } from '../../adapters/bun/index.js'
import { announce, exampleOptions } from '../shared/options.js'
import { openRuntimeStorage } from '../shared/sqlite.js'

const env = process.env
const { options, generatedToken } = exampleOptions(env)
const { storage, description } = await openRuntimeStorage(env, (file) => new Database(file), 'bun:sqlite')
const calendar = createCalendarRouter(storage, options)

const server = serveCalendar(calendar, { port: Number(env.PORT ?? 8080), hostname: env.HOST ?? '127.0.0.1' })
announce(`http://${server.hostname}:${server.port}/wp-json/calendar/events/v1/`, description, generatedToken)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // The storage closes before the exit (for SQLite that checkpoints and removes the -wal file);
    // stop() without `true` lets the requests in flight finish first.
    void Promise.resolve(server.stop())
      .then(() => storage.close?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('[calendar] closing the storage failed:', error)
          process.exit(1)
        },
      )
  })
}
