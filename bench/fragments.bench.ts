/**
 * What does a read cost in-process, without the response cache, on rich events (a venue, an
 * organizer, a category and a tag each, about 3.9 KB of JSON per event)?
 *
 *   node --import tsx bench/fragments.bench.ts        BENCH_N=2000 for more requests per figure,
 *                                                     BENCH_STORAGE=sqlite for a SQLite file
 *
 * Times `router.handle()` alone (no sockets): `GET /events?per_page=10` and `GET /events/{id}`,
 * memory storage (or SQLite), with the fragment cache on (the default) and off. Prints
 * microseconds per request and bodies per second; both configurations must answer the same bytes.
 */
import { createCalendarRouter, type CalendarOptions } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { RequestLike } from '../src/http/types.js'

const N = Number(process.env.BENCH_N ?? 1000)
const EVENTS = 200
const ORIGIN = 'http://127.0.0.1:8080'
const API = `${ORIGIN}/wp-json/calendar/events/v1`
const HOUR = 3_600_000
const wallClock = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

const headers = (auth?: string) => ({ get: (name: string) => (name.toLowerCase() === 'authorization' ? (auth ?? null) : null) })

function request(method: string, url: string, body?: unknown, auth?: string): RequestLike {
  const text = body === undefined ? '' : JSON.stringify(body)
  const h = headers(auth)
  return {
    method,
    url,
    headers: { get: (name) => (name.toLowerCase() === 'content-type' && body !== undefined ? 'application/json' : h.get(name)) },
    text: async () => text,
  }
}

/** About 1.2 KB of text per event: descriptions of that size make a 3.9 KB representation. */
const PARAGRAPH =
  '<p>An evening of music, talks and food in the old market hall. Doors open an hour before the start; ' +
  'seats are not numbered. Bring a friend, or come and meet new ones: tables are shared.</p>'

export async function richRouter(options: CalendarOptions) {
  const storage =
    process.env.BENCH_STORAGE === 'sqlite' ? createSqlStorage({ driver: await openSqliteFile(':memory:') }) : createMemoryStorage()
  const router = createCalendarRouter(storage, {
    ...options,
    now: () => new Date('2026-11-21T12:00:00Z'),
    authenticate: (req) => (req.headers.get('authorization') === 'Bearer bench' ? { id: 1, role: 'administrator' } : null),
  })
  const write = async (path: string, body: Record<string, unknown>) => {
    const res = await router.handle(request('POST', `${API}${path}`, body, 'Bearer bench'))
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.body}`)
    return JSON.parse(res.body as string) as { id: number }
  }
  const venues: number[] = []
  const organizers: number[] = []
  for (let n = 0; n < 20; n++) {
    venues.push(
      (
        await write('/venues', {
          venue: `Market Hall ${n}`,
          address: `${n + 1} Harbour Street`,
          city: 'Portsmouth',
          zip: 'PO1 2AB',
          country: 'United Kingdom',
          phone: '+44 23 9200 0000',
          website: `https://hall-${n}.example.org/`,
          status: 'publish',
        })
      ).id,
    )
    organizers.push(
      (
        await write('/organizers', {
          organizer: `Friends of the Hall ${n}`,
          email: `friends${n}@example.org`,
          phone: '+44 23 9200 0001',
          website: `https://friends-${n}.example.org/`,
          status: 'publish',
        })
      ).id,
    )
  }
  const ids: number[] = []
  const first = Date.UTC(2027, 0, 1, 10)
  for (let n = 0; n < EVENTS; n++) {
    const start = first + n * 7 * HOUR
    const e = await write('/events', {
      title: `Harbour evening ${n}`,
      description: PARAGRAPH.repeat(4),
      excerpt: 'Music, talks and food in the old market hall.',
      start_date: wallClock(start),
      end_date: wallClock(start + 2 * HOUR),
      cost: '10',
      website: `https://example.org/evening-${n}`,
      venue: venues[n % venues.length],
      organizer: [organizers[n % organizers.length]],
      categories: [`Category ${n % 5}`],
      tags: [`tag-${n % 7}`],
      status: 'publish',
    })
    ids.push(e.id)
  }
  return { router, ids, storage }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)

/** Mean microseconds of `n` sequential requests. */
async function round(router: Router, req: RequestLike, n: number): Promise<number> {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < n; i++) await router.handle(req)
  return Number(process.hrtime.bigint() - t0) / 1000 / n
}

type Router = Awaited<ReturnType<typeof richRouter>>['router']

async function main() {
  const configs: Array<[string, CalendarOptions]> = [
    ['fragment cache off', { fragmentCache: false }],
    ['fragment cache on (default)', {}],
  ]
  const built = []
  for (const [name, options] of configs) built.push({ name, ...(await richRouter(options)) })
  const rows: string[] = []
  for (const route of ['GET /events?per_page=10', 'GET /events/{id}']) {
    const cells = built.map(({ name, router, ids }) => ({
      name,
      router,
      req: request('GET', route.includes('{id}') ? `${API}/events/${ids[EVENTS >> 1]}` : `${API}/events?per_page=10`),
      rounds: [] as number[],
      body: '',
    }))
    for (const c of cells) {
      // Bodies come encoded (the ETag hashes the bytes): compare them as text.
      const body = (await c.router.handle(c.req)).body
      c.body = typeof body === 'string' ? body : Buffer.from(body as Uint8Array).toString('utf8')
      await round(c.router, c.req, Math.min(200, N)) // warm-up (and the cache's first fill)
    }
    if (cells.some((c) => c.body !== cells[0]!.body)) throw new Error(`${route}: the configurations answer different bytes`)
    // Rounds alternate between configurations so that load from other processes hits both alike.
    for (let r = 0; r < ROUNDS; r++) for (const c of cells) c.rounds.push(await round(c.router, c.req, Math.ceil(N / ROUNDS)))
    for (const c of cells) {
      const sorted = [...c.rounds].sort((a, b) => a - b)
      const best = sorted[0]!
      const median = sorted[sorted.length >> 1]!
      rows.push(
        `| ${c.name} | ${route} | ${c.body.length} B | ${best.toFixed(0)} µs | ${median.toFixed(0)} µs | ${Math.round(1e6 / best)} /s |`,
      )
    }
  }
  console.log(
    `${EVENTS} rich events, ${process.env.BENCH_STORAGE === 'sqlite' ? 'SQLite' : 'memory'} storage, response cache off; router.handle() in-process, ${ROUNDS} alternating rounds of ${Math.ceil(N / ROUNDS)} requests`,
  )
  console.log('| configuration | route | body | best round | median round | rate (best) |')
  console.log('|---|---|---|---|---|---|')
  for (const r of rows) console.log(r)
  for (const b of built) await b.storage.close?.()
}

// Imported by a profiling script: only the seeding is wanted then.
if (!process.env.BENCH_SKIP_MAIN) await main()
