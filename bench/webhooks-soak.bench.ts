/**
 * Webhook soak (issue 38): writers, sync readers and deliveries together for SOAK_SECONDS
 * (default 600) on SQLite (a file) or memory, the router in this process with its background
 * runner, two endpoints on a local receiver wanting every change. Every SOAK_SAMPLE seconds it
 * samples the process's RSS and heap, the database file (with its WAL), the deliveries received,
 * the backlog (pending deliveries) and the delivery log's size; every SOAK_COMPACT seconds it
 * runs the host's daily job, `router.compactJournal()`, with a short retention (the journal's
 * and `webhooks.retentionDays` both SOAK_RETENTION_MINUTES, `keepPerEndpoint` SOAK_KEEP) so that
 * the bounds are reached within the run. Targets: no error, every change delivered to both endpoints
 * once, the backlog not growing, and the delivery log, the database and RSS flat in the second
 * half (growth printed).
 *
 *   node --import tsx bench/webhooks-soak.bench.ts
 *
 * Settings (environment):
 *   SOAK_ENGINE=sqlite          or memory
 *   SOAK_SECONDS=600
 *   SOAK_SAMPLE=30
 *   SOAK_COMPACT=60
 *   SOAK_RETENTION_MINUTES=2
 *   SOAK_KEEP=2000
 *   SOAK_WRITE_RATE=14          writes/s of the 4 writers together (creates and updates of events)
 *   SOAK_READERS=2              sync readers, each following /events?sync_token= every second
 *   SOAK_EVENTS=300             events created first, then edited (the journal is compacted to the
 *                               same retention, so a reader's token may expire: it starts over)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'

const env = process.env
const ENGINE = env.SOAK_ENGINE ?? 'sqlite'
const SECONDS = Number(env.SOAK_SECONDS ?? 600)
const SAMPLE = Number(env.SOAK_SAMPLE ?? 30)
const COMPACT = Number(env.SOAK_COMPACT ?? 60)
const RETENTION_MINUTES = Number(env.SOAK_RETENTION_MINUTES ?? 2)
const KEEP = Number(env.SOAK_KEEP ?? 2000)
const WRITE_RATE = Number(env.SOAK_WRITE_RATE ?? 14)
const READERS = Number(env.SOAK_READERS ?? 2)
const EVENTS = Number(env.SOAK_EVENTS ?? 300)
const API = 'http://soak.example/wp-json/calendar/events/v1'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const mib = (bytes: number) => bytes / 1024 / 1024

const received = new Map<string, number>()
let deliveries = 0
const server = http.createServer((req, res) => {
  req.on('data', () => undefined)
  req.on('end', () => {
    deliveries++
    const key = `${req.url} ${String(req.headers['webhook-id'])}`
    received.set(key, (received.get(key) ?? 0) + 1)
    res.writeHead(204).end()
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const port = (server.address() as AddressInfo).port

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-soak-'))
const file = join(dir, 'soak.sqlite')
const storage: Storage = ENGINE === 'memory' ? createMemoryStorage() : createSqlStorage({ driver: await openSqliteFile(file) })
let errors = 0
const router = createCalendarRouter(storage, {
  authenticate: () => ({ id: 1, role: 'administrator' }),
  webhooks: { allowPrivate: true, retentionDays: RETENTION_MINUTES / 1440, keepPerEndpoint: KEEP },
  onError: (error) => {
    errors++
    console.error('[soak]', error)
  },
})

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json' } }
  if (body !== undefined) init.body = JSON.stringify(body)
  const res = await router.fetch(new Request(path.startsWith('http') ? path : `${API}${path}`, init))
  if (res.status === 410) return { expired: true }
  if (res.status >= 400) {
    errors++
    console.error(`[soak] ${method} ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`)
    return null
  }
  return res.json()
}

for (const name of ['a', 'b']) await call('POST', '/webhooks', { url: `http://127.0.0.1:${port}/${name}`, events: ['*'] })
await router.webhooks.start()

let running = true
let writes = 0
let syncs = 0
const made: number[] = []

async function writer(n: number): Promise<void> {
  let i = 0
  while (running) {
    const t0 = Date.now()
    // A site of EVENTS events edited over and over: what the database holds stays the same size.
    i++
    const update = made.length >= EVENTS
    if (update) await call('POST', `/events/${made[Math.floor(Math.random() * made.length)]}`, { title: `Soak ${n} ${i}` })
    else {
      const e = await call('POST', '/events', {
        title: `Soak event ${n} ${i}`,
        start_date: '2026-12-01 19:00',
        end_date: '2026-12-01 21:00',
        status: 'publish',
        description: '<p>Soak.</p>',
      })
      if (e) made.push(e.id as number)
    }
    writes++
    await sleep(Math.max(0, 4000 / WRITE_RATE - (Date.now() - t0)))
  }
}

async function reader(): Promise<void> {
  let token = '*'
  while (running) {
    let url = `/events?sync_token=${encodeURIComponent(token)}&per_page=100`
    for (;;) {
      const page = await call('GET', url)
      if (!page) break
      if (page.expired) {
        token = '*'
        break
      }
      if (!page.next_rest_url) {
        token = page.sync_token as string
        break
      }
      url = page.next_rest_url as string
    }
    syncs++
    await sleep(1000)
  }
}

async function backlog(): Promise<{ pending: number; log: number }> {
  const store = storage.webhooks!
  let pending = 0
  let log = 0
  for (const e of await store.listEndpoints()) {
    const { items, total } = await store.listDeliveries(e.id, 100_000, 0)
    log += total
    pending += items.filter((d) => d.status === 'pending').length
  }
  return { pending, log }
}

const dbBytes = () => {
  if (ENGINE === 'memory') return 0
  let n = 0
  for (const f of [file, `${file}-wal`]) {
    try {
      n += statSync(f).size
    } catch (err) {
      // No WAL file at this moment is fine; anything else is not.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return n
}

interface Sample {
  t: number
  rss: number
  heap: number
  db: number
  delivered: number
  pending: number
  log: number
  writes: number
}
const samples: Sample[] = []
const work = [...[0, 1, 2, 3].map(writer), ...Array.from({ length: READERS }, reader)]
const start = Date.now()
let lastCompact = start
console.log(`webhooks soak: ${ENGINE}, ${SECONDS} s, 4 writers at ${WRITE_RATE} writes/s, ${READERS} sync readers, 2 endpoints`)
console.log('     t   RSS MiB  heap MiB   DB MiB  delivered  pending      log   writes')
while (Date.now() - start < SECONDS * 1000) {
  await sleep(Math.min(SAMPLE * 1000, start + SECONDS * 1000 - Date.now()))
  if (Date.now() - lastCompact >= COMPACT * 1000) {
    lastCompact = Date.now()
    await router.compactJournal({ olderThanDays: RETENTION_MINUTES / 1440 })
  }
  const mem = process.memoryUsage()
  const b = await backlog()
  const s = {
    t: (Date.now() - start) / 1000,
    rss: mib(mem.rss),
    heap: mib(mem.heapUsed),
    db: mib(dbBytes()),
    delivered: deliveries,
    ...b,
    writes,
  }
  samples.push(s)
  console.log(
    `${s.t.toFixed(0).padStart(6)} ${s.rss.toFixed(1).padStart(9)} ${s.heap.toFixed(1).padStart(9)} ${s.db.toFixed(1).padStart(8)} ` +
      `${String(s.delivered).padStart(10)} ${String(s.pending).padStart(8)} ${String(s.log).padStart(8)} ${String(s.writes).padStart(8)}`,
  )
}
running = false
await Promise.all(work)
// Let the runner deliver what the last writes made.
for (let i = 0; i < 60 && (await backlog()).pending > 0; i++) await sleep(500)
await router.webhooks.stop()
const repeats = [...received.values()].filter((n) => n > 1).length
const half = samples[Math.floor(samples.length / 2)]!
const last = samples[samples.length - 1]!
const growth = (a: number, b: number) => `${(((b - a) / Math.max(a, 1e-9)) * 100).toFixed(1)}%`
console.log(
  `\n${writes} writes (${(writes / SECONDS).toFixed(1)}/s), ${syncs} syncs, ${deliveries} deliveries (${(deliveries / SECONDS).toFixed(1)}/s), ` +
    `${repeats} received twice, ${errors} errors, ${(await backlog()).pending} pending at the end`,
)
console.log(
  `second half: RSS ${half.rss.toFixed(1)} -> ${last.rss.toFixed(1)} MiB (${growth(half.rss, last.rss)}), ` +
    `DB ${half.db.toFixed(1)} -> ${last.db.toFixed(1)} MiB (${growth(half.db, last.db)}), ` +
    `delivery log ${half.log} -> ${last.log} (${growth(half.log, last.log)}), pending ${half.pending} -> ${last.pending}`,
)
router.close()
await storage.close?.()
server.closeAllConnections()
server.close()
rmSync(dir, { recursive: true, force: true })
