/**
 * A CMS-style host that serves its REST API under /api/rest (not WordPress's /wp-json) and its
 * languages as path segments: the calendar is /api/rest/calendar/events/v1/..., the Japanese one
 * /ja/api/rest/calendar/events/v1/..., beside the host's own /api/rest/cms/v1/pages. Everything
 * outside the calendar's namespace goes to the host (`toNodeHandler` used with a `next`).
 * Run: `npm run example:cms-prefix`.
 *
 * Environment: PORT (8080), HOST (127.0.0.1), and CALENDAR_STORAGE, CALENDAR_DB,
 * CALENDAR_DATABASE_URL, CALENDAR_API_TOKENS, CALENDAR_TIMEZONE, CALENDAR_CORS_ORIGINS as for `npm start`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createCalendarRouter } from '../../src/index.js'
import { toNodeHandler } from '../../adapters/node/index.js'
import { openStorage } from '../node-server/storage.js'
import { exampleOptions, stopOnSignals } from '../shared/options.js'

const LANGUAGES = ['en', 'ja', 'ko']
const SECTION = { event: 'events', venue: 'venues', organizer: 'organizers', category: 'events/category', tag: 'events/tag' }

/** The host's own pages and API. */
function cms(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0]!
  const [, lang = 'en'] = /^\/(ja|ko)(?=\/|$)/.exec(path) ?? []
  const json = (status: number, data: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' }).end(JSON.stringify(data))
  }
  if (/^(\/(ja|ko))?\/api\/rest\/cms\/v1\/pages\/?$/.test(path)) return json(200, [{ id: 1, lang, title: 'Home' }])
  if (/^(\/(ja|ko))?\/?$/.test(path)) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end(`<h1>CMS home (${lang})</h1>`)
    return
  }
  if (path.startsWith('/api/rest/') || /^\/(ja|ko)\/api\/rest\//.test(path)) return json(404, { error: 'no such API route' })
  res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found')
}

export async function createCmsServer(env: NodeJS.ProcessEnv = process.env) {
  const { options, generatedToken } = exampleOptions(env)
  const { storage, description } = await openStorage(env)
  const calendar = createCalendarRouter(storage, {
    ...options,
    prefix: '/api/rest',
    languages: LANGUAGES,
    // Public pages follow the CMS's URLs too: /ja/events/{slug}/ for a Japanese event.
    permalink: (kind, record, baseUrl) =>
      `${baseUrl}${record.language === 'en' ? '' : `/${record.language}`}/${SECTION[kind]}/${record.slug}/`,
  })
  const api = toNodeHandler(calendar)
  const server = createServer((req, res) => api(req, res, () => cms(req, res)))
  return { server, storage, storageDescription: description, generatedToken }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = process.env
  const { server, storage, storageDescription, generatedToken } = await createCmsServer(env)
  server.listen(Number(env.PORT ?? 8080), env.HOST ?? '127.0.0.1', () => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : env.PORT
    const site = `http://${env.HOST ?? '127.0.0.1'}:${port}`
    console.log(`calendar-events-router listening on ${site}/api/rest/calendar/events/v1/`)
    console.log(`storage: ${storageDescription}`)
    console.log(`Japanese: ${site}/ja/api/rest/calendar/events/v1/events; the CMS's own API: ${site}/api/rest/cms/v1/pages`)
    if (generatedToken) console.log(`No CALENDAR_API_TOKENS set: administrator token for this run is ${generatedToken}`)
  })
  stopOnSignals(server, storage)
}
