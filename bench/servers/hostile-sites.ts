/**
 * Hostile import sources for bench/import-hostile.bench.ts, in a process of their own (a remote
 * site's CPU is not the importer's): TEC sites whose listings never end or whose second page
 * never answers, a redirect loop, answers of a gigabyte (declared, or chunked without a length)
 * and a trickle of one byte every 100 ms. Prints its port on stdout.
 * `node --import tsx bench/servers/hostile-sites.ts`
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

const API = '/wp-json/tribe/events/v1'
const GIB = 1024 * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'X')
const BLURB = 'x'.repeat(1000)

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))

/** Writes `total` bytes of CHUNK as fast as the reader takes them, until it goes away. */
function pour(res: ServerResponse, total: number) {
  let sent = 0
  const more = () => {
    while (sent < total) {
      sent += CHUNK.length
      if (!res.write(CHUNK)) return void res.once('drain', more)
    }
    res.end()
  }
  res.on('close', () => (sent = total))
  more()
}

/** A TEC site under `/{name}`: `listing` answers each listing's page. */
function tec(res: ServerResponse, rest: string, page: number, listing: (key: string, page: number) => unknown) {
  const key = rest.slice(API.length).replace(/^\/|\/$/g, '')
  if (!rest.startsWith(API)) return res.writeHead(404).end('{}')
  if (key === '') return json(res, { namespace: 'tribe/events/v1', routes: {} })
  const body = listing(key, page)
  if (body !== undefined) json(res, body)
}

const event = (id: number) => ({
  id,
  global_id: `hostile.bench?id=${id}`,
  title: `Endless ${id}`,
  start_date: '2027-03-01 10:00:00',
  end_date: '2027-03-01 11:00:00',
  timezone: 'UTC',
  status: 'publish',
})

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const [, site = '', ...rest] = url.pathname.split('/')
  const path = `/${rest.join('/')}`
  const page = Number(url.searchParams.get('page') ?? 1)
  switch (site) {
    case 'endless-events':
      return tec(res, path, page, (key, p) => (key === 'events' ? { events: [event(p)] } : { [key]: [] }))
    case 'endless-terms':
      return tec(res, path, page, (key, p) =>
        key === 'categories'
          ? {
              categories: Array.from({ length: 100 }, (_, i) => ({
                id: p * 100 + i,
                name: `T${p}-${i}`,
                slug: `t${p}-${i}`,
                parent: 0,
                description: BLURB,
              })),
            }
          : { [key]: [] },
      )
    case 'hanging':
      // The first events page answers; the second never does.
      return tec(res, path, page, (key, p) =>
        key !== 'events' ? { [key]: [] } : p === 1 ? { events: [event(1)], total_pages: 2 } : undefined,
      )
    case 'loop':
      return res.writeHead(302, { location: `/loop/again${path}` }).end()
    case 'gigabyte-declared.ics':
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': String(GIB) })
      return pour(res, GIB)
    case 'gigabyte-chunked.ics':
      res.writeHead(200, { 'content-type': 'text/calendar' })
      return pour(res, GIB)
    case 'trickle.ics': {
      res.writeHead(200, { 'content-type': 'text/calendar' })
      res.write('BEGIN:VCALENDAR\r\n')
      const timer = setInterval(() => res.write('X'), 100)
      return res.on('close', () => clearInterval(timer))
    }
    default:
      res.writeHead(404).end()
  }
})
server.listen(0, '127.0.0.1', () => console.log((server.address() as AddressInfo).port))
