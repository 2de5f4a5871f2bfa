/**
 * The calendar on Deno, with no adapter: `Deno.serve(calendar.fetch)`, data in SQLite through
 * `node:sqlite`. Run: `npm run example:deno` (= `deno run --sloppy-imports --allow-net
 * --allow-env --allow-read --allow-write examples/deno/server.ts`).
 * Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_STORAGE (sqlite | memory),
 * CALENDAR_DB (./calendar.db), CALENDAR_API_TOKENS / CALENDAR_API_TOKEN, CALENDAR_TIMEZONE,
 * CALENDAR_CORS_ORIGINS, as for `npm start`.
 *
 * In your own Deno app: `import { createCalendarRouter } from 'npm:calendar-events-router'`.
 * This file imports the sources (`.js` names for `.ts` files, hence `--sloppy-imports`).
 */
import { DatabaseSync } from 'node:sqlite'
import { createCalendarRouter } from '../../src/index.js'
import { announce, exampleOptions } from '../shared/options.js'
import { openRuntimeStorage } from '../shared/sqlite.js'

const env = process.env
const { options, generatedToken } = exampleOptions(env)
const { storage, description } = await openRuntimeStorage(env, (file) => new DatabaseSync(file), 'node:sqlite')
const calendar = createCalendarRouter(storage, options)

const server = Deno.serve(
  {
    port: Number(env.PORT ?? 8080),
    hostname: env.HOST ?? '127.0.0.1',
    onListen: ({ hostname, port }) => announce(`http://${hostname}:${port}/wp-json/calendar/events/v1/`, description, generatedToken),
  },
  calendar.fetch,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, () => {
    void server
      .shutdown()
      .then(() => storage.close?.())
      .then(() => Deno.exit(0))
  })
}
