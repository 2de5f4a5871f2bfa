/**
 * The `npm start` server: the whole namespace on http://127.0.0.1:$PORT/wp-json/calendar/events/v1/.
 * Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_STORAGE (sqlite), CALENDAR_DB (./calendar.db),
 * CALENDAR_DATABASE_URL (PostgreSQL), CALENDAR_API_TOKENS /
 * CALENDAR_API_TOKEN, CALENDAR_TIMEZONE (UTC), CALENDAR_CORS_ORIGINS (*), CALENDAR_CACHE (on; `off`).
 */
import { createServer } from 'node:http'
import { createCalendarRouter } from '../../src/index.js'
import { toNodeHandler } from '../../adapters/node/index.js'
import { tokenAuth } from './auth.js'
import { openStorage } from './storage.js'

/** CALENDAR_CORS_ORIGINS: `*` (default) or a comma-separated list of origins. */
export function corsOrigins(value: string | undefined): '*' | string[] {
  if (value === undefined || value.trim() === '' || value.trim() === '*') return '*'
  return value.split(',').map((s) => s.trim()).filter(Boolean)
}

export async function startServer(env: NodeJS.ProcessEnv = process.env) {
  const auth = tokenAuth(env)
  const { storage, description } = await openStorage(env)
  const calendar = createCalendarRouter(storage, {
    authenticate: auth.authenticate,
    timezone: env.CALENDAR_TIMEZONE ?? 'UTC',
    // Browsers on other origins may read the API: any origin, never with credentials.
    cors: { origins: corsOrigins(env.CALENDAR_CORS_ORIGINS) },
    // One process owns a memory or SQLite store, so every write invalidates the read cache at
    // once; with PostgreSQL other instances may write too, so cached reads live 2 s at most.
    cache: env.CALENDAR_CACHE === 'off' ? false : { ttlMs: description.startsWith('PostgreSQL') ? 2000 : 60_000 },
    onError: (error) => console.error('[calendar]', error),
  })
  const server = createServer(toNodeHandler(calendar))
  const port = Number(env.PORT ?? 8080)
  const host = env.HOST ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  return { server, storage, storageDescription: description, port: actualPort, host, generatedToken: auth.generated }
}


const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '')
if (isMain) {
  startServer().then(({ server, storage, storageDescription, port, host, generatedToken }) => {
    const root = `http://${host}:${port}/wp-json/calendar/events/v1/`
    console.log(`calendar-events-router listening on ${root}`)
    console.log(`storage: ${storageDescription}`)
    if (generatedToken) {
      console.log(`No CALENDAR_API_TOKENS set: administrator token for this run is ${generatedToken}`)
      console.log(`  curl -H 'Authorization: Bearer ${generatedToken}' -H 'Content-Type: application/json' \\`)
      console.log(`    -d '{"title":"Launch party","start_date":"tomorrow 7pm","end_date":"tomorrow 10pm"}' ${root}events`)
    }
    const stop = () => {
      server.close()
      void storage.close?.()
      process.exit(0)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  }, (error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
