/**
 * The `npm start` server: the whole namespace on http://127.0.0.1:$PORT/wp-json/calendar/events/v1/.
 * Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_STORAGE (sqlite), CALENDAR_DB (./calendar.db),
 * CALENDAR_DATABASE_URL (PostgreSQL), CALENDAR_API_TOKENS / CALENDAR_API_TOKEN, CALENDAR_TIMEZONE
 * (UTC), CALENDAR_CORS_ORIGINS (*), CALENDAR_CACHE (on; `off`), CALENDAR_WEBHOOK_ALLOW_PRIVATE (`1`:
 * webhooks to loopback and private addresses). Webhook deliveries run in the background of this
 * process while it serves.
 */
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { createCalendarRouter } from '../../src/index.js'
import { toNodeHandler } from '../../adapters/node/index.js'
import { announce, exampleOptions, stopOnSignals } from '../shared/options.js'
import { openStorage } from './storage.js'

export { corsOrigins } from '../shared/options.js'

export async function startServer(env: NodeJS.ProcessEnv = process.env) {
  const { options, generatedToken } = exampleOptions(env)
  const { storage, description } = await openStorage(env)
  const calendar = createCalendarRouter(storage, {
    ...options,
    // On every storage: writes drop the cached reads they affect, also those of other servers on
    // the same SQLite file (before their next read) or PostgreSQL database (within 250 ms).
    cache: env.CALENDAR_CACHE === 'off' ? false : {},
  })
  const server = createServer(toNodeHandler(calendar))
  const port = Number(env.PORT ?? 8080)
  const host = env.HOST ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  // A long-lived process: it sends the webhooks itself, woken by its own writes and polling for
  // those of other processes on the same database; it stops when the server closes.
  await calendar.webhooks.start()
  server.on('close', () => calendar.webhooks.stop())
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  return { server, storage, storageDescription: description, port: actualPort, host, generatedToken }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  startServer().then(
    ({ server, storage, storageDescription, port, host, generatedToken }) => {
      announce(`http://${host}:${port}/wp-json/calendar/events/v1/`, storageDescription, generatedToken)
      stopOnSignals(server, storage)
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}
