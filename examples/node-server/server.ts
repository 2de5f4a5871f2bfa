/**
 * The `npm start` server: the whole namespace on http://127.0.0.1:$PORT/wp-json/calendar/events/v1/
 * and, around it, pages a person can look at (pages/: `/`, the calendar, event, venue and
 * organizer pages at the API's permalinks, the API reference, an editor). Environment: PORT (8080), HOST (127.0.0.1), CALENDAR_STORAGE (sqlite), CALENDAR_DB (./calendar.db),
 * CALENDAR_DATABASE_URL (PostgreSQL), CALENDAR_DATABASE_REPLICA_URLS (its read replicas, comma-separated), CALENDAR_API_TOKENS / CALENDAR_API_TOKEN, CALENDAR_TIMEZONE
 * (UTC), CALENDAR_SITE_URL (the site's identity: UIDs, global ids, webhook links; default this server's address), CALENDAR_CURRENCY (`£`, `€:postfix`; default `$`), CALENDAR_CORS_ORIGINS (*), CALENDAR_CACHE (on; `off`), CALENDAR_WEBHOOK_ALLOW_PRIVATE (`1`:
 * webhooks to loopback and private addresses), CALENDAR_DEMO (on: an empty database gets demo
 * events; `off`), CALENDAR_TEC_NAMES (`1`: TEC clients' names too, /wp-json/tribe/events/v1/
 * with `wpml_language`), CALENDAR_IMPORT_SOURCES (a JSON array of import sources, re-imported
 * every CALENDAR_IMPORT_EVERY minutes, 60; imports.ts). Webhook deliveries run in the background
 * of this process while it serves.
 */
import { createServer, type RequestListener, type Server } from 'node:http'
import { pathToFileURL } from 'node:url'
import { createCalendarRouter, type CalendarOptions, type Storage } from '../../src/index.js'
import { toNodeHandler } from '../../adapters/node/index.js'
import { announce, exampleOptions, stopOnSignals } from '../shared/options.js'
import { seedDemoData } from './demo-data.js'
import { scheduleImports } from './imports.js'
import { createPages } from './pages/index.js'
import { servePages } from './pages/node.js'
import { openStorage } from './storage.js'

export { corsOrigins } from '../shared/options.js'

/** This server's own address, for the site identity when CALENDAR_SITE_URL is not set. */
function ownAddress(host: string, port: number): string {
  // Listening on every interface: the name a local browser uses.
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${name}:${port}`
}

export async function startServer(env: NodeJS.ProcessEnv = process.env) {
  const { options, generatedToken } = exampleOptions(env)
  const { storage, description } = await openStorage(env)
  // The site's identity is this server's address unless CALENDAR_SITE_URL names one, and the
  // port is known once listening (PORT=0): requests arriving before the router exists wait for it.
  let serve!: (handler: RequestListener) => void
  const handler = new Promise<RequestListener>((resolve) => (serve = resolve))
  const server = createServer((req, res) => void handler.then((h) => h(req, res)))
  const port = Number(env.PORT ?? 8080)
  const host = env.HOST ?? '127.0.0.1'
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => resolve())
    })
  } catch (error) {
    await storage.close?.()
    throw error
  }
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  const siteUrl = (env.CALENDAR_SITE_URL || ownAddress(host, actualPort)).replace(/\/+$/, '')
  try {
    const started = await serveCalendar(server, storage, { ...options, siteUrl }, env)
    serve(started.listener)
    return { ...started, server, storage, storageDescription: description, port: actualPort, host, generatedToken, siteUrl }
  } catch (error) {
    server.close()
    await storage.close?.()
    throw error
  }
}

/** The router, its demo data, scheduled imports and webhooks on a listening server. */
async function serveCalendar(server: Server, storage: Storage, options: CalendarOptions & { siteUrl: string }, env: NodeJS.ProcessEnv) {
  const calendar = createCalendarRouter(storage, {
    ...options,
    // On every storage: writes drop the cached reads they affect, also those of other servers on
    // the same SQLite file (before their next read) or PostgreSQL database (within 250 ms).
    cache: env.CALENDAR_CACHE === 'off' ? false : {},
    // Calendar apps at /caldav/ (and /.well-known/caldav): docs/caldav.md.
    caldav: true,
  })
  // Before serving: the first request already sees the demo events.
  const demoEvents = await seedDemoData(storage, options, env)
  const api = toNodeHandler(calendar)
  // The API answers its namespace; everything else is handed on to the pages.
  const pages = servePages(
    createPages(calendar, { timezone: options.timezone ?? 'UTC', siteUrl: options.siteUrl, currency: options.currency }),
  )
  // Scheduled re-imports (CALENDAR_IMPORT_SOURCES, checked before serving): the first run starts now, in the background.
  const imports = scheduleImports(calendar, env)
  server.on('close', () => imports.stop())
  // A long-lived process: it sends the webhooks itself, woken by its own writes and polling for
  // those of other processes on the same database; it stops when the server closes.
  await calendar.webhooks.start()
  server.on('close', () => calendar.webhooks.stop())
  const listener: RequestListener = (req, res) => api(req, res, () => pages(req, res))
  return { router: calendar, demoEvents, imports, listener }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  startServer().then(
    ({ server, storage, router, storageDescription, port, host, generatedToken, demoEvents, siteUrl }) => {
      announce(`http://${host}:${port}/wp-json/calendar/events/v1/`, storageDescription, generatedToken, {
        url: siteUrl,
        fromEnv: Boolean(process.env.CALENDAR_SITE_URL),
      })
      if (process.env.CALENDAR_TEC_NAMES === '1')
        console.log(`TEC's names: http://${host}:${port}/wp-json/tribe/events/v1/ (wpml_language)`)
      console.log(`pages: http://${host}:${port}/ (calendar, event pages, API reference, editor)`)
      console.log(`CalDAV: http://${host}:${port}/caldav/ (any user name, an API token as the password)`)
      // The API's 400 for a receiver on this machine names the router option; here it is a variable.
      console.log(
        process.env.CALENDAR_WEBHOOK_ALLOW_PRIVATE === '1'
          ? 'webhooks: loopback and private addresses allowed (CALENDAR_WEBHOOK_ALLOW_PRIVATE=1; development only)'
          : 'webhooks: public addresses only (CALENDAR_WEBHOOK_ALLOW_PRIVATE=1 lets them reach loopback and private ones, for a receiver on this machine)',
      )
      if (demoEvents) console.log(`demo data: ${demoEvents} events added to the empty database (CALENDAR_DEMO=off to skip)`)
      // Webhook attempts under way end (and are recorded) before the storage closes.
      stopOnSignals(server, storage, () => router.webhooks.stop())
    },
    (error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}
