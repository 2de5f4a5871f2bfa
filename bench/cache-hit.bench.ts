/**
 * What a response-cache hit costs in-process, and how many hits survive a stream of writes.
 *
 *   node --import tsx bench/cache-hit.bench.ts        HITS=100000 by default
 *   BENCH_STORAGE=sqlite                              on a SQLite file (each hit first checks
 *                                                     whether another process committed)
 *
 * 200 rich events (venue, organizer, category, tag, a long description) on the memory storage
 * (or SQLite), cache on. Figures:
 * - `handle()` alone for cached GET /events/{id} and GET /events?per_page=10 (about 29 KB);
 * - the same plus what the Node adapter then does with the body (its byte length, and the
 *   bytes `res.end` writes: a string is encoded on every response, stored bytes are not);
 * - a mixed loop over 20 URLs with an editor's write every 50 reads: time per read and hits.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { RawResponse, RequestLike } from '../src/http/types.js'

const HITS = Number(process.env.HITS ?? 100_000)
const ORIGIN = 'http://127.0.0.1:8080'
const NS = `${ORIGIN}/wp-json/calendar/events/v1`
const EVENTS = 200

const sqlite = process.env.BENCH_STORAGE === 'sqlite'
const storage = sqlite
  ? createSqlStorage({ driver: await openSqliteFile(join(mkdtempSync(join(tmpdir(), 'calendar-hits-')), 'hits.db')) })
  : createMemoryStorage()
const router = createCalendarRouter(storage, {
  cache: { ttlMs: 3_600_000 },
  now: () => new Date('2026-11-21T22:54:48Z'),
  authenticate: (r) => (r.headers.get('authorization') === 'Bearer editor' ? { id: 2, role: 'editor' } : null),
})

function request(method: string, url: string, body?: unknown, editor = false): RequestLike {
  const text = body === undefined ? '' : JSON.stringify(body)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (editor) headers.authorization = 'Bearer editor'
  if (body !== undefined) headers['content-type'] = 'application/json'
  return { method, url, headers: { get: (n) => headers[n.toLowerCase()] ?? null }, text: async () => text }
}

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const raw = await router.handle(request(method, NS + path, body, true))
  const text = typeof raw.body === 'string' ? raw.body : new TextDecoder().decode(raw.body ?? new Uint8Array())
  if (raw.status >= 300) throw new Error(`${method} ${path}: ${raw.status} ${text.slice(0, 200)}`)
  return JSON.parse(text)
}

const lorem = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '
const ids: number[] = []
for (let n = 0; n < EVENTS; n++) {
  const day = String(1 + (n % 28)).padStart(2, '0')
  const e = await call('POST', '/events', {
    title: `Rich event ${n}`,
    description: `<p>${lorem.repeat(1)}</p>`,
    start_date: `2026-12-${day} 19:00:00`,
    end_date: `2026-12-${day} 22:00:00`,
    status: 'publish',
    venue: { venue: `Venue ${n % 20}`, address: '1 Main Street', city: 'Lyon', country: 'France', zip: '69001' },
    organizer: { organizer: `Organizer ${n % 10}`, email: 'org@example.com', website: 'https://example.com' },
    categories: [`Category ${n % 5}`],
    tags: [`Tag ${n % 7}`],
  })
  ids.push(e.id)
}

const get = (path: string) => request('GET', NS + path)
/** What toNodeHandler does per response with the body: its length, and the bytes written. */
const toWire = (raw: RawResponse) =>
  raw.body === null
    ? 0
    : Buffer.byteLength(raw.body) + (typeof raw.body === 'string' ? Buffer.from(raw.body).byteLength : raw.body.byteLength)

async function time(label: string, req: RequestLike, wire: boolean) {
  const first = await router.handle(req)
  const size = first.body === null ? 0 : Buffer.byteLength(first.body)
  for (let i = 0; i < 20_000; i++) await router.handle(req)
  const t0 = process.hrtime.bigint()
  let sink = 0
  for (let i = 0; i < HITS; i++) {
    const raw = await router.handle(req)
    if (wire) sink += toWire(raw)
  }
  const us = Number(process.hrtime.bigint() - t0) / 1000 / HITS
  console.log(`${label.padEnd(44)} ${(size / 1024).toFixed(1).padStart(6)} KB  ${us.toFixed(2).padStart(7)} µs/hit${sink < 0 ? '!' : ''}`)
}

console.log(`${HITS} cached anonymous reads each, ${sqlite ? 'SQLite' : 'memory'} (node ${process.version})`)
await time('handle(): GET /events/{id}', get(`/events/${ids[100]}`), false)
await time('handle(): GET /events?per_page=10', get('/events?per_page=10'), false)
await time('handle() + adapter body work: /events/{id}', get(`/events/${ids[100]}`), true)
await time('handle() + adapter body work: per_page=10', get('/events?per_page=10'), true)

// Mixed: 20 URLs read round-robin, an editor's title update every 50 reads.
const urls = [
  ...ids.slice(0, 10).map((id) => `/events/${id}`),
  '/events?per_page=10',
  '/events?per_page=10&page=2',
  '/events?categories=category-1',
  '/venues',
  '/organizers',
  '/categories',
  '/tags',
  `/events/${ids[150]}`,
  `/events/${ids[151]}`,
  `/events/${ids[152]}`,
]
const READS = 20_000
let writes = 0
const before = router.cacheStats?.()
const t0 = process.hrtime.bigint()
for (let i = 0; i < READS; i++) {
  if (i % 50 === 49) {
    const id = ids[40 + (writes++ % 100)]!
    await router.handle(request('PATCH', `${NS}/events/${id}`, { title: `Renamed ${writes}` }, true))
  }
  await router.handle(get(urls[i % urls.length]!))
}
const us = Number(process.hrtime.bigint() - t0) / 1000 / READS
const after = router.cacheStats?.()
const hits = after && before ? ` hits ${(((after.hits - before.hits) / READS) * 100).toFixed(1)}%` : ''
console.log(`mixed: ${READS} reads over ${urls.length} URLs, ${writes} writes: ${us.toFixed(1)} µs/read${hits}`)
await storage.close?.()
