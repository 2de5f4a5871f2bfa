/**
 * Webhook soak (issue 38): writers, sync readers and deliveries together for SOAK_SECONDS
 * (default 600) on SQLite (a file), PostgreSQL (a schema of its own) or memory, the router in
 * this process with its background runner, two endpoints on a local receiver wanting every
 * change. Every SOAK_SAMPLE seconds it samples the process's RSS and heap, the database's size
 * (SQLite: the file with its WAL; PostgreSQL: the schema's tables with their indexes and TOAST),
 * the deliveries received, the backlog (pending deliveries) and the delivery log's size; every
 * SOAK_COMPACT seconds it runs the host's daily job, `router.compactJournal()`, with a short
 * retention (the journal's and `webhooks.retentionDays` both SOAK_RETENTION_MINUTES,
 * `keepPerEndpoint` SOAK_KEEP) so that the bounds are reached within the run.
 *
 * Targets, judged at the end (a line each, then a verdict; exit code 1 when one is missed): no
 * error; every change delivered to both endpoints exactly once; nothing pending at the end; the
 * backlog of the last third of the run no larger than the middle third's (or one batch per
 * endpoint); the delivery log always within what the retention keeps (each endpoint's newest
 * SOAK_KEEP finished deliveries, what arrives between two compactions, and the pending ones);
 * the database and RSS of the last third at most 10% over the middle third's (the first third is
 * warm-up: the journal and the log reach their bounds after SOAK_RETENTION_MINUTES).
 *
 *   node --import tsx bench/webhooks-soak.bench.ts
 *
 * Settings (environment):
 *   SOAK_ENGINE=sqlite          or postgres, memory
 *   CALENDAR_BENCH_DATABASE_URL PostgreSQL to use (a schema of its own); else a throwaway server
 *                               from Debian's binaries (fsync off)
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
import pg from 'pg'
import { createSqlStorage, openPostgres, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { findPostgresBin, startPostgres, type PgServer } from '../test/support/postgres-server.js'

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

/** PostgreSQL: the given server or a throwaway one, a schema of its own, and how to measure and drop it. */
async function postgres() {
  let server: PgServer | null = null
  let url = env.CALENDAR_BENCH_DATABASE_URL ?? ''
  if (!url) {
    const bin = findPostgresBin()
    if (!bin) throw new Error('no PostgreSQL binaries and CALENDAR_BENCH_DATABASE_URL is not set')
    server = await startPostgres(bin)
    url = server.url
  }
  const admin = new pg.Pool({ connectionString: url, max: 1 })
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public')
  const schema = `webhooks_soak_${process.pid}`
  await admin.query(`CREATE SCHEMA ${schema}`)
  const storage = createSqlStorage({ driver: await openPostgres(url, { options: `-c search_path=${schema}` }) })
  return {
    storage,
    // Tables, their indexes and TOAST: what the schema takes on disk.
    async bytes() {
      const { rows } = await admin.query<{ n: string | null }>(
        `SELECT sum(pg_total_relation_size(c.oid)) AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
         WHERE s.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [schema],
      )
      return Number(rows[0]?.n ?? 0)
    },
    async drop() {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
      await server?.destroy()
    },
  }
}

const pgSite = ENGINE === 'postgres' ? await postgres() : null
const storage: Storage =
  pgSite?.storage ?? (ENGINE === 'memory' ? createMemoryStorage() : createSqlStorage({ driver: await openSqliteFile(file) }))
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

const dbBytes = async () => {
  if (pgSite) return pgSite.bytes()
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
    db: mib(await dbBytes()),
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
const pendingAtEnd = (await backlog()).pending
const half = samples[Math.floor(samples.length / 2)]!
const last = samples[samples.length - 1]!
const growth = (a: number, b: number) => `${(((b - a) / Math.max(a, 1e-9)) * 100).toFixed(1)}%`
console.log(
  `\n${writes} writes (${(writes / SECONDS).toFixed(1)}/s), ${syncs} syncs, ${deliveries} deliveries (${(deliveries / SECONDS).toFixed(1)}/s), ` +
    `${repeats} received twice, ${errors} errors, ${pendingAtEnd} pending at the end`,
)
console.log(
  `second half: RSS ${half.rss.toFixed(1)} -> ${last.rss.toFixed(1)} MiB (${growth(half.rss, last.rss)}), ` +
    `DB ${half.db.toFixed(1)} -> ${last.db.toFixed(1)} MiB (${growth(half.db, last.db)}), ` +
    `delivery log ${half.log} -> ${last.log} (${growth(half.log, last.log)}), pending ${half.pending} -> ${last.pending}`,
)
const missed = judge(pendingAtEnd, repeats)
console.log(missed ? `\nverdict: ${missed} target(s) missed` : '\nverdict: every target met')
router.close()
await storage.close?.()
await pgSite?.drop()
server.closeAllConnections()
server.close()
rmSync(dir, { recursive: true, force: true })
process.exitCode = missed ? 1 : 0

/** Prints each target with what the run gave; returns how many were missed. */
function judge(pendingAtEnd: number, repeats: number): number {
  // Thirds of the run by time: the first is warm-up, the middle one the reference.
  const third = (k: number) => samples.filter((s) => s.t > (SECONDS * k) / 3 && (k === 2 || s.t <= (SECONDS * (k + 1)) / 3))
  const max = (list: Sample[], pick: (s: Sample) => number) => Math.max(0, ...list.map(pick))
  const [middle, end] = [third(1), third(2)]
  const rate = deliveries / SECONDS
  // Finished deliveries the retention keeps at most, what arrives between two compactions, and the pending.
  const logBound = (s: Sample) => 2 * KEEP + rate * COMPACT + s.pending
  const lines: Array<[boolean, string]> = [
    [errors === 0, `no error (${errors})`],
    [
      deliveries === 2 * writes && repeats === 0,
      `every change delivered to both endpoints once (${deliveries} of ${2 * writes}, ${repeats} twice)`,
    ],
    [pendingAtEnd === 0, `nothing pending at the end (${pendingAtEnd})`],
    [
      max(end, (s) => s.pending) <=
        Math.max(
          max(middle, (s) => s.pending),
          2 * 25,
        ),
      `backlog not growing (last third at most ${max(end, (s) => s.pending)}, middle third ${max(middle, (s) => s.pending)})`,
    ],
    [
      samples.every((s) => s.log <= logBound(s)),
      `delivery log within the retention (at most ${max(samples, (s) => s.log)}; bound ${Math.round(2 * KEEP + rate * COMPACT)} + pending)`,
    ],
  ]
  for (const [name, pick] of [
    ['database MiB', (s: Sample) => s.db],
    ['RSS MiB', (s: Sample) => s.rss],
  ] as const) {
    const [a, b] = [max(middle, pick), max(end, pick)]
    lines.push([b <= a * 1.1, `${name} bounded (last third at most ${b.toFixed(1)}, middle third ${a.toFixed(1)}, ${growth(a, b)})`])
  }
  for (const [ok, text] of lines) console.log(`${ok ? 'met   ' : 'MISSED'} ${text}`)
  return lines.filter(([ok]) => !ok).length
}
