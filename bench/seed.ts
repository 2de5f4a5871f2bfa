/**
 * Shared by the bench servers: the same 1000 published events, created through the router's
 * public API so every server answers with exactly what the router would.
 */
import { createCalendarRouter, type CalendarOptions, type Storage } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import type { HeadersLike } from '../src/http/types.js'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export const EVENTS_PATH = '/wp-json/calendar/events/v1/events'
export const EVENT_COUNT = 1000

export interface Ready {
  port: number
  /** The measured routes, as request targets: one event, then a page of the list. */
  paths: [single: string, list: string]
}

export interface Captured {
  status: number
  headers: Record<string, string>
  body: string
}

const HOUR = 3_600_000
const wallClock = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

export async function seed(extra: CalendarOptions = {}, storage: Storage = createMemoryStorage()) {
  const router = createCalendarRouter(storage, {
    ...extra,
    authenticate: (req: { headers: HeadersLike }) =>
      req.headers.get('authorization') === 'Bearer bench' ? { id: 1, role: 'administrator' } : null,
  })
  const ids: number[] = []
  const first = Date.UTC(2027, 0, 1, 10)
  for (let n = 0; n < EVENT_COUNT; n++) {
    const start = first + n * 7 * HOUR // spreads events over days and hours of day
    const res = await router.fetch(
      new Request('http://127.0.0.1' + EVENTS_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        body: JSON.stringify({
          title: `Event ${n}`,
          start_date: wallClock(start),
          end_date: wallClock(start + 2 * HOUR),
          status: 'publish',
        }),
      }),
    )
    if (res.status !== 201) throw new Error(`seeding event ${n}: ${res.status} ${await res.text()}`)
    ids.push(((await res.json()) as { id: number }).id)
  }
  const paths: Ready['paths'] = [`${EVENTS_PATH}/${ids[EVENT_COUNT >> 1]}`, `${EVENTS_PATH}?per_page=10`]

  /**
   * One GET through the router's standard entry, kept as plain data for the raw servers. `origin`
   * is the one the load will use, since links in the JSON are built from the Host header.
   */
  async function capture(origin: string, path: string): Promise<Captured> {
    const res = await router.fetch(new Request(origin + path))
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`)
    const headers: Record<string, string> = {}
    res.headers.forEach((value: string, name: string) => {
      if (name !== 'content-length' && name !== 'date') headers[name] = value
    })
    return { status: res.status, headers, body: await res.text() }
  }

  return { router, ids, paths, capture }
}

/** Listens, lets the server precompute against its real origin, then tells the parent where it is. */
export async function serve(
  handler: http.RequestListener,
  paths: Ready['paths'],
  prepare?: (origin: string) => Promise<void>,
): Promise<void> {
  // Without a parent (it crashed or was killed) a server would linger; leave with it.
  process.on('disconnect', () => process.exit(0))
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() })
  })
  const server = http.createServer(handler)
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await prepare?.(`http://127.0.0.1:${port}`)
  const ready: Ready = { port, paths }
  process.send!(ready)
}
