/**
 * Webhook targets (issue 25), in one run, on SQLite and PostgreSQL, the router in this process
 * (requests through `router.fetch`, no HTTP in front) and a receiver on 127.0.0.1 answering 200:
 *
 * 1. Latency: commit -> receipt with the background runner (`webhooks.start()`): one tag
 *    created at a time, the next once the previous one has arrived; p50/p90 from the start of
 *    the write (so the write itself is in it) and from its answer (target p50 <= 100 ms).
 * 2. Throughput: WEBHOOK_BENCH_CHANGES tags created with no runner, then the deliveries made
 *    (`run({ maxMs: 0 })`: dispatch only, timed) and the background runner started: time until
 *    the receiver has them all (target >= 300 deliveries/s). To one endpoint (one delivery in
 *    flight at a time: deliveries to one endpoint go in order) and spread over 8 endpoints (the
 *    runner's default concurrency).
 * 4. Deliveries under writes (issue 38): a backlog of WEBHOOK_BENCH_BACKLOG deliveries to one
 *    endpoint while 4 writers create events (paced to WEBHOOK_BENCH_WRITE_RATE writes/s in all;
 *    0: as fast as they can), measured for WEBHOOK_BENCH_UNDER_SECONDS; side by side in one run:
 *    the outcome of every attempt in its own write transaction, claims of 10 (how the runner
 *    worked before, reproduced by splitting each batch's settle into per-outcome writes), and
 *    the batches of `webhooks.batchSize` (25). Printed: deliveries/s per endpoint, writes/s the
 *    writers got, and the ratios after/before (target >= 100 deliveries/s per endpoint).
 * 3. The write path with 0, 1 and 20 endpoints (every endpoint wanting every change, no runner):
 *    three databases, one event created in each in turn (so the host's load falls on all three
 *    alike); median and p90 (target: no growth with endpoints: a write adds its journal entry,
 *    and deliveries are made later by the dispatcher).
 *
 *   npm run bench:webhooks
 *
 * Settings (environment):
 *   WEBHOOK_BENCH_ENGINES=sqlite,postgres
 *   WEBHOOK_BENCH_PARTS=latency,throughput,writes
 *   WEBHOOK_BENCH_LATENCY=200       measured changes in part 1 (after 10 warm-up ones)
 *   WEBHOOK_BENCH_CHANGES=2000      changes in part 2
 *   WEBHOOK_BENCH_MAX_SECONDS=120   part 2 gives up waiting after this long (and reports what arrived)
 *   WEBHOOK_BENCH_WRITES=300        measured writes per endpoint count in part 3 (after 20 warm-up)
 *   WEBHOOK_BENCH_BACKLOG=3000      deliveries queued before part 4 starts
 *   WEBHOOK_BENCH_WRITE_RATE=14     writes/s of part 4's 4 writers together (0: unpaced)
 *   WEBHOOK_BENCH_UNDER_SECONDS=20  how long part 4 measures each variant
 *   CALENDAR_BENCH_DATABASE_URL     PostgreSQL to use (a schema of its own per database); else a
 *                                   throwaway server from Debian's binaries (fsync off)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import type { Principal } from '../src/auth/principal.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { findPostgresBin, startPostgres, type PgServer } from '../test/support/postgres-server.js'

const env = process.env
const ENGINES = (env.WEBHOOK_BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim())
const PARTS = (env.WEBHOOK_BENCH_PARTS ?? 'latency,throughput,under-writes,writes').split(',').map((s) => s.trim())
const BACKLOG = Number(env.WEBHOOK_BENCH_BACKLOG ?? 3000)
const WRITE_RATE = Number(env.WEBHOOK_BENCH_WRITE_RATE ?? 14)
const UNDER_SECONDS = Number(env.WEBHOOK_BENCH_UNDER_SECONDS ?? 20)
const LATENCY = Number(env.WEBHOOK_BENCH_LATENCY ?? 200)
const CHANGES = Number(env.WEBHOOK_BENCH_CHANGES ?? 2000)
const WRITES = Number(env.WEBHOOK_BENCH_WRITES ?? 300)
const MAX_SECONDS = Number(env.WEBHOOK_BENCH_MAX_SECONDS ?? 120)
const API = 'http://bench.example/wp-json/calendar/events/v1'
const ADMIN: Principal = { id: 1, role: 'administrator' }

const now = () => performance.timeOrigin + performance.now()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
}
const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`

/** The receiver: 200 to everything; when each message arrived, by the record's id and by webhook-id. */
class Receiver {
  count = 0
  readonly arrivals = new Map<number, number>()
  readonly ids = new Set<string>()
  private waiters: Array<() => void> = []
  private server!: http.Server
  port = 0

  async listen() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const at = now()
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('ok')
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: number } }
        this.count++
        this.ids.add(String(req.headers['webhook-id']))
        if (!this.arrivals.has(body.data.id)) this.arrivals.set(body.data.id, at)
        for (const w of this.waiters.splice(0)) w()
      })
    })
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as AddressInfo).port
    return this
  }

  url(path = '/hook') {
    return `http://127.0.0.1:${this.port}${path}`
  }

  /** Resolves once `check` holds (looked at after every arrival), or rejects after `timeoutMs`. */
  async until(check: () => boolean, timeoutMs: number): Promise<void> {
    if (!(await this.within(check, timeoutMs))) throw new Error(`receiver: timed out (${this.count} received)`)
  }

  /** Whether `check` came to hold within `timeoutMs`. */
  async within(check: () => boolean, timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > end) return false
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 50)
      })
    }
    return true
  }

  reset() {
    this.count = 0
    this.arrivals.clear()
    this.ids.clear()
  }

  close() {
    this.server.closeAllConnections()
    return new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

interface Engine {
  name: string
  /** A fresh, migrated database. */
  open(): Promise<Storage>
  close(): Promise<void>
}

async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-bench-'))
  let n = 0
  return {
    name: 'SQLite',
    async open() {
      const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, `db-${++n}.sqlite`)) })
      await storage.migrate()
      return storage
    },
    async close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function postgresEngine(): Promise<Engine | string> {
  let server: PgServer | null = null
  let url = env.CALENDAR_BENCH_DATABASE_URL ?? ''
  if (!url) {
    const bin = findPostgresBin()
    if (!bin) return 'no PostgreSQL binaries and CALENDAR_BENCH_DATABASE_URL is not set'
    server = await startPostgres(bin)
    url = server.url
    const started = server
    process.once('SIGINT', () => void started.destroy().finally(() => process.exit(130)))
  }
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public')
  const version = (await admin.query('SHOW server_version')).rows[0]?.server_version as string
  const schemas: string[] = []
  return {
    name: `PostgreSQL ${version}${server ? ' (throwaway server, fsync off)' : ''}`,
    async open() {
      const schema = `webhooks_bench_${process.pid}_${schemas.length + 1}`
      await admin.query(`CREATE SCHEMA ${schema}`)
      schemas.push(schema)
      const storage = createSqlStorage({ driver: await openPostgres(url, { options: `-c search_path=${schema}` }) })
      await storage.migrate()
      return storage
    },
    async close() {
      for (const s of schemas) await admin.query(`DROP SCHEMA ${s} CASCADE`)
      await admin.end()
      await server?.destroy()
    },
  }
}

interface Site {
  router: CalendarRouter
  storage: Storage
  post(path: string, body: unknown): Promise<{ id: number }>
  close(): Promise<void>
}

function site(storage: Storage, webhooks: NonNullable<Parameters<typeof createCalendarRouter>[1]>['webhooks'] = {}): Site {
  const router = createCalendarRouter(storage, {
    authenticate: () => ADMIN,
    webhooks: { allowPrivate: true, ...webhooks },
    onError: (error) => console.error('[bench]', error),
  })
  return {
    router,
    storage,
    async post(path, body) {
      const res = await router.fetch(
        new Request(`${API}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      )
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
      return (await res.json()) as { id: number }
    },
    async close() {
      router.webhooks.stop()
      router.close()
      await storage.close?.()
    },
  }
}

let tags = 0
const tag = () => ({ name: `Bench tag ${++tags}` })
let events = 0
const event = () => ({
  title: `Bench event ${++events}`,
  start_date: '2026-12-01 19:00',
  end_date: '2026-12-01 21:00',
  status: 'publish',
  description: '<p>An evening of <strong>live music</strong>.</p>',
})

async function latency(engine: Engine, r: Receiver) {
  const s = site(await engine.open())
  await s.post('/webhooks', { url: r.url(), events: ['tag.*'] })
  await s.router.webhooks.start()
  const fromWrite: number[] = []
  const fromAnswer: number[] = []
  const writes: number[] = []
  for (let i = 0; i < LATENCY + 10; i++) {
    const t0 = now()
    const { id } = await s.post('/tags', tag())
    const t1 = now()
    await r.until(() => r.arrivals.has(id), 10_000)
    if (i >= 10) {
      const at = r.arrivals.get(id)!
      fromWrite.push(at - t0)
      fromAnswer.push(Math.max(0, at - t1))
      writes.push(t1 - t0)
    }
    // Not in step with the runner's poll: the next write comes at a random point of its period.
    await sleep(Math.random() * 20)
  }
  await s.close()
  console.log(`  commit -> receipt, background runner, ${LATENCY} changes one at a time (target p50 <= 100 ms):`)
  console.log(`    from the start of the write  p50 ${ms(quantile(fromWrite, 0.5))}   p90 ${ms(quantile(fromWrite, 0.9))}`)
  console.log(`    from the write's answer      p50 ${ms(quantile(fromAnswer, 0.5))}   p90 ${ms(quantile(fromAnswer, 0.9))}`)
  console.log(`    (the write itself            p50 ${ms(quantile(writes, 0.5))}   p90 ${ms(quantile(writes, 0.9))})`)
}

/**
 * Times every call the runner makes to the webhook store and the journal, so each throughput
 * line can say where a delivery's time goes (calls overlap: the sum may exceed the wall time).
 */
function timed(storage: Storage): Map<string, { calls: number; ms: number }> {
  const stats = new Map<string, { calls: number; ms: number }>()
  const wrap = (target: object, name: string, label: string) => {
    const holder = target as Record<string, (...args: unknown[]) => Promise<unknown>>
    const original = holder[name]!.bind(target)
    holder[name] = async (...args) => {
      const t0 = now()
      try {
        return await original(...args)
      } finally {
        const entry = stats.get(label) ?? { calls: 0, ms: 0 }
        entry.calls++
        entry.ms += now() - t0
        stats.set(label, entry)
      }
    }
  }
  for (const m of ['claim', 'finish', 'getEndpoint', 'cursor', 'dispatch', 'listEndpoints', 'updateEndpoint']) wrap(storage.webhooks!, m, m)
  wrap(storage, 'readJournal', 'readJournal')
  return stats
}

async function throughput(engine: Engine, r: Receiver, endpoints: number) {
  const storage = await engine.open()
  const s = site(storage, { concurrency: 8 })
  for (let e = 0; e < endpoints; e++) await s.post('/webhooks', { url: r.url(`/hook/${e}`), events: ['tag.*'] })
  const perEndpoint = Math.ceil(CHANGES / endpoints)
  // Every endpoint wants every tag: CHANGES / endpoints changes make CHANGES deliveries.
  const tw = now()
  for (let i = 0; i < perEndpoint; i++) await s.post('/tags', tag())
  const writeMs = now() - tw
  const t0 = now()
  const made = await s.router.webhooks.run({ maxMs: 0 })
  const t1 = now()
  const stats = timed(storage)
  await s.router.webhooks.start()
  const total = perEndpoint * endpoints
  const all = await r.within(() => r.count >= total, MAX_SECONDS * 1000)
  const t2 = now()
  const received = r.count
  s.router.webhooks.stop()
  // stop() ends the loop, not the claims and attempts in flight: the storage closes once they
  // are over (nothing arrived for a while).
  for (let last = -1; last !== r.count;) {
    last = r.count
    await sleep(all ? 300 : 3000)
  }
  const dup = r.count - r.ids.size
  await s.close()
  const deliver = t2 - t1
  console.log(
    `  ${String(endpoints).padStart(2)} endpoint${endpoints === 1 ? ' ' : 's'}: ${perEndpoint} changes (written in ${(writeMs / 1000).toFixed(1)} s) -> ${made.dispatched} deliveries; ` +
      `dispatch ${(t1 - t0).toFixed(0)} ms (${Math.round((made.dispatched / (t1 - t0)) * 1000)}/s), ` +
      (all
        ? `sending ${(deliver / 1000).toFixed(2)} s: ${Math.round((total / deliver) * 1000)} deliveries/s ` +
          `(dispatch + sending: ${Math.round((total / (t2 - t0)) * 1000)}/s)`
        : `sending: only ${received} of ${total} received after ${MAX_SECONDS} s (stopped there): ${(received / (deliver / 1000)).toFixed(1)} deliveries/s`) +
      (dup ? `, ${dup} repeats` : ''),
  )
  const line = [...stats]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([name, x]) => `${name} ${x.calls}x ${(x.ms / x.calls).toFixed(2)} ms (${(x.ms / Math.max(1, received)).toFixed(2)}/delivery)`)
    .join(', ')
  console.log(`      where the time goes: ${line}`)
  r.reset()
}

/**
 * The runner as it was before batches: each outcome in its own write transaction (and the
 * release of the rest in one more), claims of 10. Reproduced by splitting the store's settle.
 */
function perAttemptWrites(storage: Storage): void {
  const store = storage.webhooks!
  const settle = store.settle.bind(store)
  store.settle = async (outcomes, release) => {
    for (const one of outcomes) await settle([one], [])
    if (release.length) await settle([], release)
  }
}

/** 4 writers creating events until `stop()`, paced to `rate` writes/s in all (0: unpaced). */
function writers(s: Site, rate: number): { stop: () => Promise<number> } {
  let running = true
  let writes = 0
  const one = async () => {
    while (running) {
      const t0 = now()
      await s.post('/events', event())
      writes++
      if (rate > 0) await sleep(Math.max(0, 4000 / rate - (now() - t0)))
    }
  }
  const all = Promise.all([one(), one(), one(), one()])
  return {
    async stop() {
      running = false
      await all
      return writes
    },
  }
}

async function underWrites(engine: Engine, r: Receiver, variant: 'before' | 'batches'): Promise<number> {
  const storage = await engine.open()
  const s = site(storage, variant === 'before' ? { batchSize: 10 } : {})
  if (variant === 'before') perAttemptWrites(storage)
  await s.post('/webhooks', { url: r.url('/under'), events: ['tag.*'] })
  for (let i = 0; i < BACKLOG; i++) await s.post('/tags', tag())
  await s.router.webhooks.run({ maxMs: 0 })
  const load = writers(s, WRITE_RATE)
  await sleep(1000)
  const t0 = now()
  await s.router.webhooks.start()
  await r.within(() => r.count >= BACKLOG, UNDER_SECONDS * 1000)
  const elapsed = (now() - t0) / 1000
  const delivered = r.count
  const wrote = await load.stop()
  await s.router.webhooks.stop()
  await s.close()
  const rate = delivered / elapsed
  console.log(
    `    ${variant === 'before' ? 'one write per outcome, claims of 10 (before)' : 'batches of 25, one write each (after)    '}: ` +
      `${delivered} of ${BACKLOG} delivered in ${elapsed.toFixed(1)} s = ${rate.toFixed(1)} deliveries/s per endpoint; ` +
      `the writers made ${(wrote / (elapsed + 1)).toFixed(1)} writes/s`,
  )
  r.reset()
  return rate
}

async function writePath(engine: Engine, r: Receiver) {
  const counts = [0, 1, 20]
  const sites: Site[] = []
  for (const n of counts) {
    const s = site(await engine.open())
    for (let e = 0; e < n; e++) await s.post('/webhooks', { url: r.url(`/w/${e}`), events: ['*'] })
    sites.push(s)
  }
  const samples = counts.map(() => [] as number[])
  for (let i = 0; i < WRITES + 20; i++) {
    // Which database goes first turns round, so none always follows the same one.
    for (let k = 0; k < sites.length; k++) {
      const j = (i + k) % sites.length
      const t0 = now()
      await sites[j]!.post('/events', event())
      if (i >= 20) samples[j]!.push(now() - t0)
    }
  }
  console.log(`  creating one event, ${WRITES} per endpoint count, no runner (target: flat):`)
  counts.forEach((n, j) => {
    const xs = samples[j]!
    console.log(
      `    ${String(n).padStart(2)} endpoints  median ${ms(quantile(xs, 0.5))}   p90 ${ms(quantile(xs, 0.9))}` +
        (j ? `   median vs 0: ${(quantile(xs, 0.5) / quantile(samples[0]!, 0.5)).toFixed(2)}x` : ''),
    )
  })
  for (const s of sites) await s.close()
}

console.log(`webhooks bench (node ${process.version}, ${new Date().toISOString()})`)
const r = await new Receiver().listen()
for (const kind of ENGINES) {
  const engine = kind === 'sqlite' ? await sqliteEngine() : kind === 'postgres' ? await postgresEngine() : `unknown engine ${kind}`
  if (typeof engine === 'string') {
    console.log(`\n${kind}: skipped (${engine})`)
    continue
  }
  console.log(`\n${engine.name}`)
  try {
    if (PARTS.includes('latency')) await latency(engine, r)
    if (PARTS.includes('throughput')) {
      console.log(`  throughput to a local receiver, ${CHANGES} deliveries (target >= 300/s):`)
      await throughput(engine, r, 1)
      await throughput(engine, r, 8)
    }
    if (PARTS.includes('under-writes')) {
      const pace = WRITE_RATE > 0 ? `${WRITE_RATE} writes/s in all` : 'as fast as they can'
      console.log(`  one endpoint's backlog of ${BACKLOG} while 4 writers create events (${pace}), ${UNDER_SECONDS} s at most:`)
      const before = await underWrites(engine, r, 'before')
      const after = await underWrites(engine, r, 'batches')
      console.log(`    after / before: ${(after / before).toFixed(2)}x`)
    }
    if (PARTS.includes('writes')) await writePath(engine, r)
  } finally {
    await engine.close()
  }
}
await r.close()
