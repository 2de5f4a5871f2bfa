/**
 * The change journal's targets (issue 24), in one run:
 *
 * 1. Write cost beside the code before the journal (879d433, the journal's parent commit):
 *    creating one event (a venue, an organizer, two categories and a tag) and a 500-occurrence
 *    series through the router in process, on SQLite and PostgreSQL, the two versions
 *    interleaved request by request; median, p90 and the ratio current/before (target <= 1.15x),
 *    with the statements each request sent.
 * 2. Incremental sync at 100,000 events (current code only): a full sync (`sync_token=*`, every
 *    page), then rounds of 1,000 changes each answered by one `sync_token=<token>` sync (every
 *    page followed; the first page and the whole sync timed); p50/p90 (target p50 <= 50 ms),
 *    and a sync with nothing changed (target <= 5 ms).
 * 3. The memory soak: the soak bench of the current code, run as it is (bench/soak.bench.ts: the
 *    SQLite example server), and the memory backend's journal (bounded) past its bound, in process.
 *
 *   git worktree add --detach /tmp/before 879d433 && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   JOURNAL_BENCH_BEFORE=/tmp/before npm run bench:journal
 *
 * Both versions run in this one process, each imported from its own directory: two module
 * graphs of the library over one better-sqlite3 and one pg (the old checkout's node_modules is a
 * link to this one's). Their samples alternate request by request, and which goes first rotates,
 * so the load of a shared host falls on both alike and nothing between two samples waits on
 * another process. They share the heap and the garbage collector: each version's garbage is
 * collected during both versions' requests, so that cost is shared evenly too. Each version
 * writes its own database: its own SQLite file, its own schema of one PostgreSQL server. The
 * old code has no journal API: only its writes are measured.
 *
 * The 100k events of part 2 go in through the storage's own bulk insert (tx.insertEvents, which
 * writes what insertPost writes, journal entries included): bench/scale.bench.ts runs when it is
 * imported, so its seeding cannot be reused; the data has its shape (venues, organizers, ~5
 * categories and 0-3 tags an event, drafts), plus small venues for the renames.
 *
 * Settings (environment):
 *   JOURNAL_BENCH_BEFORE=dir        the code before the journal (a worktree of 879d433); without it, part 1 is skipped
 *   JOURNAL_BENCH_CURRENT=dir       the code measured as current (default: the checkout holding this file)
 *   JOURNAL_BENCH_PARTS=writes,sync,memory,soak   memory: the memory backend's journal past its bound, in process
 *   JOURNAL_MEMORY_WRITES=250000    updates made in the memory part
 *   JOURNAL_BENCH_ENGINES=sqlite,postgres
 *   JOURNAL_WRITE_RUNS=200          measured single-event creations per version, after JOURNAL_WRITE_WARMUP=5
 *   JOURNAL_SERIES_RUNS=30          measured series creations per version, after JOURNAL_SERIES_WARMUP=3
 *   JOURNAL_WRITE_DIAG=no-triggers,no-lock   more sides, for diagnosis: the current code with the journal's triggers
 *                                   dropped; on PostgreSQL without the writers' advisory lock (serializeWriters: false)
 *   JOURNAL_WRITE_TRACE=1           print the statements of each side's last measured creation of each kind
 *   JOURNAL_SYNC_EVENTS=100000      events seeded for part 2
 *   JOURNAL_SYNC_ROUNDS=5           rounds of each change mix (the mixes alternate)
 *   JOURNAL_SYNC_CHANGES=1000       changes per round
 *   JOURNAL_SYNC_MIXES=mixed,edits,renames   what a round's changes are: mixed: updates of random events, some
 *                                   trashed (JOURNAL_SYNC_TRASH=50), some venue renames (JOURNAL_SYNC_RENAMES=10);
 *                                   edits: updates only; renames: updates and the venue renames, nothing trashed
 *   JOURNAL_SYNC_PAGES=5            a sync whose answer runs past this many pages of 1,000 is stopped there (the
 *                                   table says so; the next round starts from a fresh full sync)
 *   JOURNAL_SYNC_WHOLE_FIRST=1      follow the first round of each mix to the end whatever its length
 *   JOURNAL_SYNC_TRACE=1            print the slowest statements of the last round's sync of each mix
 *   JOURNAL_CPU_PROFILE=1           profile the measured requests (V8's sampling profiler, in process) and print the
 *                                   functions and files their time went to, per operation and side or per mix
 *   JOURNAL_NOCHANGE_REQUESTS=50    syncs with nothing changed
 *   JOURNAL_SPANS=1                 print where a sync's time went: per storage call, and the rest (presenting)
 *   CALENDAR_BENCH_DATABASE_URL     use this PostgreSQL server instead of a throwaway one
 *   SOAK_SECONDS, SOAK_WARMUP       passed on to the soak bench (180 and 120)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Session } from 'node:inspector/promises'
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import pg from 'pg'
import type { CalendarRouter, Storage } from '../src/index.js'
import type { NewPost, PostStatus } from '../src/storage/index.js'
import type { SqlConnection, SqlDriver, SqlParam, SqlStorage } from '../src/storage/sql/index.js'
import { findPostgresBin, startPostgres, type PgServer } from '../test/support/postgres-server.js'
import { benchEvent } from './bench-event.js'
import { prng } from './prng.js'

// ---------------------------------------------------------------------------------------------
// Settings

const env = process.env
const HERE = dirname(fileURLToPath(import.meta.url))
const CURRENT_DIR = resolve(env.JOURNAL_BENCH_CURRENT ?? join(HERE, '..'))
const BEFORE_DIR = env.JOURNAL_BENCH_BEFORE ? resolve(env.JOURNAL_BENCH_BEFORE) : null
const PARTS = (env.JOURNAL_BENCH_PARTS ?? 'writes,sync,memory,soak').split(',').map((s) => s.trim())
const ENGINES = (env.JOURNAL_BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim())
const WRITE_RUNS = Number(env.JOURNAL_WRITE_RUNS ?? 200)
const WRITE_WARMUP = Number(env.JOURNAL_WRITE_WARMUP ?? 5)
const SERIES_RUNS = Number(env.JOURNAL_SERIES_RUNS ?? 30)
const SERIES_WARMUP = Number(env.JOURNAL_SERIES_WARMUP ?? 3)
const SYNC_EVENTS = Number(env.JOURNAL_SYNC_EVENTS ?? 100_000)
const SYNC_ROUNDS = Number(env.JOURNAL_SYNC_ROUNDS ?? 5)
const SYNC_CHANGES = Number(env.JOURNAL_SYNC_CHANGES ?? 1000)
const SYNC_MIXES = (env.JOURNAL_SYNC_MIXES ?? 'mixed,edits,renames').split(',').map((s) => s.trim()) as Mix[]
const SYNC_TRASH = Number(env.JOURNAL_SYNC_TRASH ?? 50)
const SYNC_RENAMES = Number(env.JOURNAL_SYNC_RENAMES ?? 10)
const SYNC_PAGES = Number(env.JOURNAL_SYNC_PAGES ?? 5)
const NOCHANGE_REQUESTS = Number(env.JOURNAL_NOCHANGE_REQUESTS ?? 50)
const DIAG = (env.JOURNAL_WRITE_DIAG ?? '').split(',').map((s) => s.trim())
const WHOLE_FIRST = env.JOURNAL_SYNC_WHOLE_FIRST === '1'
const TRACE = env.JOURNAL_WRITE_TRACE === '1'
const SYNC_TRACE = env.JOURNAL_SYNC_TRACE === '1'
const CPU_PROFILE = env.JOURNAL_CPU_PROFILE === '1'
const MEMORY_WRITES = Number(env.JOURNAL_MEMORY_WRITES ?? 250_000)
const SPANS = env.JOURNAL_SPANS !== '0'
/** A sync page; also the router's maxPerPage. */
const PAGE = 1000

type Mix = 'mixed' | 'edits' | 'renames'

/** A round's changes of each mix: SYNC_CHANGES in all, the rest updates of random events (distinct ones). */
const MIXES: Record<Mix, { trash: number; renames: number }> = {
  mixed: { trash: SYNC_TRASH, renames: SYNC_RENAMES },
  edits: { trash: 0, renames: 0 },
  renames: { trash: 0, renames: SYNC_RENAMES },
}
const describeMix = (mix: Mix) => {
  const { trash, renames } = MIXES[mix]
  return [`${SYNC_CHANGES - trash - renames} updates`, trash ? `${trash} trashed` : '', renames ? `${renames} venue renames` : '']
    .filter(Boolean)
    .join(' + ')
}

// ---------------------------------------------------------------------------------------------
// Small utilities

const ORIGIN = 'http://bench.local'
const API = '/wp-json/calendar/events/v1'
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const MONTH = 30.44 * DAY
const NOW = Date.now()
const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
const fmtMs = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? '-' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)
const fmtInt = (n: number) => n.toLocaleString('en-US')
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length))
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s)

/** The q-quantile of the samples (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))] ?? NaN
}

function log(line: string) {
  console.log(line)
}

/** The host's load, as uptime prints it: the figures of a shared host mean little without it. */
const load = () =>
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')} on ${cpus().length} cores`

// ---------------------------------------------------------------------------------------------
// The code under test, imported from a directory

/** What the bench uses of the library; the old code has the same names (no journal API). */
interface Lib {
  dir: string
  createCalendarRouter: typeof import('../src/index.js').createCalendarRouter
  createSqlStorage: typeof import('../src/storage/sql/index.js').createSqlStorage
  openSqliteFile: typeof import('../src/storage/sql/index.js').openSqliteFile
  pgDriver: typeof import('../src/storage/sql/index.js').pgDriver
}

async function loadLib(dir: string): Promise<Lib> {
  const at = (path: string) => pathToFileURL(join(dir, path)).href
  const main = (await import(at('src/index.js'))) as typeof import('../src/index.js')
  const sql = (await import(at('src/storage/sql/index.js'))) as typeof import('../src/storage/sql/index.js')
  return {
    dir,
    createCalendarRouter: main.createCalendarRouter,
    createSqlStorage: sql.createSqlStorage,
    openSqliteFile: sql.openSqliteFile,
    pgDriver: sql.pgDriver,
  }
}

interface Reply {
  status: number
  body: any
  ms: number
}

async function call(router: CalendarRouter, method: string, target: string, body?: unknown, as?: 'admin'): Promise<Reply> {
  const text = body === undefined ? '' : JSON.stringify(body)
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (as) headers.authorization = 'Bearer bench'
  const url = target.startsWith('http') ? target : ORIGIN + API + target
  // Only the router's work is profiled: the client's (parsing the answer) stays out.
  if (profiling) await profiler?.start()
  const t0 = performance.now()
  const res = await router.handle({ method, url, headers: { get: (name) => headers[name.toLowerCase()] ?? null }, text: async () => text })
  if (profiling) await profiler?.stop(profiling)
  // Decoding and parsing the body is the client's work: the time is taken when the router answered.
  const ms = performance.now() - t0
  const raw = typeof res.body === 'string' ? res.body : res.body ? new TextDecoder().decode(res.body) : ''
  const parsed = raw ? JSON.parse(raw) : null
  if (res.status >= 300) throw new Error(`${method} ${target.slice(0, 200)}: ${res.status} ${raw.slice(0, 300)}`)
  return { status: res.status, body: parsed, ms }
}

const authenticate = (req: { headers: { get(name: string): string | null } }) =>
  req.headers.get('authorization') === 'Bearer bench' ? { id: 1, role: 'administrator' as const } : null

// ---------------------------------------------------------------------------------------------
// PostgreSQL: one server for the whole run

interface Pg {
  url: string
  close(): Promise<void>
}

let pgServer: Promise<Pg | string> | null = null

function postgres(): Promise<Pg | string> {
  pgServer ??= (async () => {
    const given = env.CALENDAR_BENCH_DATABASE_URL
    if (given) return { url: given, close: async () => undefined }
    const bin = findPostgresBin()
    if (!bin) return 'no PostgreSQL binaries and no CALENDAR_BENCH_DATABASE_URL'
    const server: PgServer = await startPostgres(bin)
    process.once('SIGINT', () => void server.destroy().finally(() => process.exit(130)))
    return { url: server.url, close: () => server.destroy() }
  })()
  return pgServer
}

/** A storage of `lib` in a database of its own; `close` drops it. */
interface Opened {
  storage: SqlStorage
  /** One statement on a side connection (PostgreSQL), or on the storage's file (SQLite). */
  sql?: (text: string) => Promise<unknown>
  /** The plan of a statement as the storage sent it (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN ANALYZE). */
  explain?: (text: string, params: readonly SqlParam[]) => Promise<string>
  /** After a bulk load: what autovacuum would do within a minute (PostgreSQL). */
  settle?: () => Promise<string>
  close(): Promise<void>
}

/**
 * Counts the statements the storage sends and the time they take (SQLite's client is
 * synchronous: a statement's time is the call; PostgreSQL's, the round trip). BEGIN, COMMIT and
 * PostgreSQL's writer lock are the driver's own and not counted.
 */
class SqlMeter {
  statements = 0
  ms = 0
  /** When set, each statement's text and time are added. */
  trace: Array<{ sql: string; params: readonly SqlParam[]; ms: number }> | null = null

  private wrap(conn: SqlConnection, sync: boolean): SqlConnection {
    const timed = async <T>(sql: string, params: readonly SqlParam[] | undefined, run: () => Promise<T>): Promise<T> => {
      this.statements++
      const t0 = performance.now()
      const promise = run()
      const called = performance.now()
      try {
        return await promise
      } finally {
        const ms = (sync ? called : performance.now()) - t0
        this.ms += ms
        this.trace?.push({ sql: sql.replace(/\s+/g, ' ').trim(), params: params ?? [], ms })
      }
    }
    return {
      query: (sql, params) => timed(sql, params, () => conn.query(sql, params)),
      run: (sql, params) => timed(sql, params, () => conn.run(sql, params)),
    }
  }

  /** The driver with its other members (dataVersion...) kept as they are. */
  driver(inner: SqlDriver): SqlDriver {
    const sync = inner.dialect === 'sqlite'
    return new Proxy(inner, {
      get: (target, key) => {
        if (key === 'read' || key === 'transaction')
          return <T>(fn: (c: SqlConnection) => Promise<T>) => target[key]((c) => fn(this.wrap(c, sync)))
        const value = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }
}

async function openStorage(lib: Lib, engine: string, name: string, meter?: SqlMeter, serializeWriters = true): Promise<Opened | string> {
  const metered = (d: SqlDriver) => (meter ? meter.driver(d) : d)
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `calendar-journal-${name}-`))
    const storage = lib.createSqlStorage({ driver: metered(await lib.openSqliteFile(join(dir, 'bench.db'))) })
    await storage.migrate()
    return {
      storage,
      async sql(text) {
        const { default: Database } = await import('better-sqlite3')
        const side = new Database(join(dir, 'bench.db'))
        try {
          side.exec(text)
        } finally {
          side.close()
        }
      },
      async explain(text, params) {
        const { default: Database } = await import('better-sqlite3')
        const side = new Database(join(dir, 'bench.db'), { readonly: true })
        try {
          const bind = params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p))
          const rows = side.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...bind) as Array<{ detail: string }>
          return rows.map((r) => r.detail).join('\n')
        } finally {
          side.close()
        }
      },
      async close() {
        await storage.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const server = await postgres()
  if (typeof server === 'string') return server
  const schema = `calendar_journal_${name}_${process.pid}`
  const admin = new pg.Pool({ connectionString: server.url, max: 1 })
  await admin.query(`CREATE SCHEMA ${schema}`)
  const pool = new pg.Pool({ connectionString: server.url, max: 10, options: `-c search_path=${schema}` })
  // The old driver has no serializeWriters and ignores it.
  const storage = lib.createSqlStorage({ driver: metered(lib.pgDriver(pool, serializeWriters ? {} : { serializeWriters: false })) })
  await storage.migrate()
  return {
    storage,
    sql: (text) => admin.query(`SET search_path = ${schema}`).then(() => admin.query(text)),
    async explain(text, params) {
      await admin.query(`SET search_path = ${schema}`)
      const { rows } = await admin.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as unknown[])
      return rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')
    },
    async settle() {
      // The plans at 100k events depend on the statistics; a bulk load leaves them stale until autovacuum comes.
      await admin.query(`SET search_path = ${schema}`)
      await admin.query('VACUUM ANALYZE')
      return 'VACUUM ANALYZE'
    },
    async close() {
      await storage.close()
      await pool.end().catch(() => undefined)
      await admin.query(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    },
  }
}

const engineName = (engine: string) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL')

// ---------------------------------------------------------------------------------------------
// 1. Write cost, current beside before

type SideLabel = 'before' | 'current' | 'no-triggers' | 'no-lock'
const SIDES: SideLabel[] = ['before', 'current', 'no-triggers', 'no-lock']

interface WriteRow {
  engine: string
  op: string
  /** Per side: each request's time, and the statements and SQL time per request. */
  sides: Partial<Record<SideLabel, { ms: number[]; statements: number[]; sqlMs: number[] }>>
}

interface Side {
  label: SideLabel
  router: CalendarRouter
  meter: SqlMeter
  refs: { venues: number[]; organizers: number[]; categories: number[]; tags: number[] }
  close(): Promise<void>
}

/** The journal's triggers (migrations 16 and 17), for the diagnostic side that writes without them. */
const JOURNAL_TRIGGERS = [
  ...['posts', 'terms'].flatMap((t) => ['insert', 'update', 'delete'].map((op) => [`calendar_journal_${t}_${op}`, t])),
  ['calendar_journal_term_counts', 'term_counts'],
]

async function writeSide(lib: Lib, engine: string, label: SideLabel): Promise<Side | string> {
  const meter = new SqlMeter()
  const opened = await openStorage(lib, engine, label.replace('-', '_'), meter, label !== 'no-lock')
  if (typeof opened === 'string') return opened
  if (label === 'no-triggers')
    for (const [name, table] of JOURNAL_TRIGGERS)
      await opened.sql!(`DROP TRIGGER IF EXISTS ${name}${engine === 'postgres' ? ` ON ${table}` : ''}`)
  const router = lib.createCalendarRouter(opened.storage, { authenticate, now: () => new Date(NOW) })
  const made = async (path: string, body: Record<string, unknown>) => (await call(router, 'POST', path, body, 'admin')).body.id as number
  const refs: Side['refs'] = { venues: [], organizers: [], categories: [], tags: [] }
  for (let n = 0; n < 5; n++) refs.venues.push(await made('/venues', { venue: `Hall ${n}`, city: 'Berlin', status: 'publish' }))
  for (let n = 0; n < 5; n++) refs.organizers.push(await made('/organizers', { organizer: `Organizer ${n}`, status: 'publish' }))
  for (let n = 0; n < 10; n++) refs.categories.push(await made('/categories', { name: `Category ${n}` }))
  for (let n = 0; n < 5; n++) refs.tags.push(await made('/tags', { name: `tag-${n}` }))
  return { label, router, meter, refs, close: opened.close }
}

function oneEvent(side: Side, n: number) {
  const start = Math.floor((NOW + ((n * 7919) % 365) * DAY) / HOUR) * HOUR
  return {
    title: `Bench night ${n}`,
    description: '<p>Created by the journal bench, with a venue, an organizer, two categories and a tag.</p>',
    start_date: wall(start),
    end_date: wall(start + 2 * HOUR),
    status: 'publish',
    venue: side.refs.venues[n % 5],
    organizer: side.refs.organizers[n % 5],
    categories: [side.refs.categories[n % 5], side.refs.categories[5 + (n % 5)]],
    tags: [side.refs.tags[n % 5]],
  }
}

/** bench/recurrence.bench.ts's series. */
function series(n: number) {
  return {
    title: `Daily standup ${n}`,
    description: '<p>Fifteen minutes, every weekday.</p>',
    start_date: '2027-01-04 09:00:00',
    end_date: '2027-01-04 09:15:00',
    timezone: 'Europe/Berlin',
    categories: ['Meetings'],
    recurrence: 'FREQ=DAILY;COUNT=500',
  }
}

async function writeCost(current: Lib, before: Lib, engine: string): Promise<WriteRow[]> {
  log(`\n[1] write cost on ${engineName(engine)}: current ${current.dir} beside before ${before.dir} (${load()})`)
  const sides: Side[] = []
  try {
    const wanted: Array<[Lib, SideLabel]> = [
      [current, 'current'],
      [before, 'before'],
    ]
    if (DIAG.includes('no-triggers')) wanted.push([current, 'no-triggers'])
    if (DIAG.includes('no-lock') && engine === 'postgres') wanted.push([current, 'no-lock'])
    for (const [lib, label] of wanted) {
      const side = await writeSide(lib, engine, label)
      if (typeof side === 'string') {
        log(`  skipped: ${side}`)
        return []
      }
      sides.push(side)
    }
    const rows: WriteRow[] = []
    const interleave = async (op: string, warmup: number, runs: number, body: (side: Side, n: number) => unknown) => {
      if (runs <= 0) return
      const row: WriteRow = { engine: engineName(engine), op, sides: {} }
      for (let i = 0; i < warmup + runs; i++) {
        // The order rotates, so no version always runs right after another's garbage.
        for (let k = 0; k < sides.length; k++) {
          const side = sides[(i + k) % sides.length]!
          const statements = side.meter.statements
          const sqlMs = side.meter.ms
          const traced = TRACE && i === warmup + runs - 1
          if (traced) side.meter.trace = []
          if (i >= warmup) profiling = `${engineName(engine)} ${op}, ${side.label}`
          const res = await call(side.router, 'POST', '/events', body(side, i), 'admin')
          profiling = null
          if (traced) {
            log(`    ${side.label}, ${op}: ${side.meter.trace!.length} statements`)
            for (const t of side.meter.trace!) log(`      ${lpad(fmtMs(t.ms), 7)} ms  ${t.sql.slice(0, 160)}`)
            side.meter.trace = null
          }
          if (i < warmup) continue
          const got = (row.sides[side.label] ??= { ms: [], statements: [], sqlMs: [] })
          got.ms.push(res.ms)
          got.statements.push(side.meter.statements - statements)
          got.sqlMs.push(side.meter.ms - sqlMs)
        }
      }
      log(
        `  ${pad(op, 40)} ${sides.map((s) => `${s.label} p50 ${fmtMs(quantile(row.sides[s.label]!.ms, 0.5))} ms`).join(', ')} (${runs} each)`,
      )
      rows.push(row)
    }
    await interleave('create event (venue, org, 2 cat, tag)', WRITE_WARMUP, WRITE_RUNS, oneEvent)
    await interleave('create series, 500 occurrences', SERIES_WARMUP, SERIES_RUNS, (_side, n) => series(n))
    return rows
  } finally {
    for (const side of sides) await side.close()
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Incremental sync at 100k events

const COMMON_VENUES = 100
/** Venues with a few events each (the long tail of users' data); the renamed ones are among them. */
const SMALL_VENUES = 300
const SMALL_VENUE_EVENTS = 10
const ORGANIZERS = 20
const CATEGORIES = 50
const TAGS = 30
/** Category k is on an event with probability 0.45 / (k+1)^0.55: ~5 per event, from 45% down to ~5% (as bench/scale.bench.ts). */
const CATEGORY_P = Array.from({ length: CATEGORIES }, (_, k) => 0.45 / (k + 1) ** 0.55)
const WORDS = 'join us for an evening of music and friends with local artists tickets at the door jazz poetry film chess yoga'.split(' ')

interface SyncRefs {
  commonVenues: number[]
  smallVenues: number[]
  organizers: number[]
  categories: number[]
  tags: number[]
}

/** Event `i` of the data set (the same on every run): spread over 9 months back to 27 ahead. */
function makeEvent(i: number, refs: SyncRefs): NewPost<'event'> {
  const r = prng(0x70a1 + i * 7919)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!
  const startMs = Math.floor((NOW - 9 * MONTH + r() * 36 * MONTH) / (15 * MINUTE)) * 15 * MINUTE
  const start = wall(startMs)
  const end = wall(startMs + (1 + Math.floor(r() * 4)) * HOUR)
  const status: PostStatus = r() < 0.02 ? 'draft' : 'publish'
  const small = i < SMALL_VENUES * SMALL_VENUE_EVENTS
  const venue = small ? refs.smallVenues[i % SMALL_VENUES]! : pick(refs.commonVenues)
  const categoryIds = refs.categories.filter((_, k) => r() < CATEGORY_P[k]!)
  if (!categoryIds.length) categoryIds.push(pick(refs.categories))
  const title = `${pick(WORDS)} ${pick(WORDS)} night ${i}`
  const description = `<p>${Array.from({ length: 20 + Math.floor(r() * 20) }, () => pick(WORDS)).join(' ')}.</p>`
  const created = wall(Math.min(NOW, startMs - Math.floor(r() * 120) * DAY))
  // Drawn in this order, as the data set has always been.
  const cost = r() < 0.3 ? [String(5 + Math.floor(r() * 50))] : []
  const featured = r() < 0.03
  const organizerIds = r() < 0.6 ? [pick(refs.organizers)] : []
  const tagIds = [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => pick(refs.tags)))]
  return benchEvent({
    status,
    slug: `sync-event-${i}`,
    title,
    description,
    created,
    start,
    end,
    allDay: false,
    cost,
    featured,
    venueIds: [venue],
    organizerIds,
    categoryIds,
    tagIds,
  })
}

/** Venues, organizers and terms through the router (as users make them). */
async function seedRefs(router: CalendarRouter): Promise<SyncRefs> {
  const made = async (path: string, body: Record<string, unknown>) => (await call(router, 'POST', path, body, 'admin')).body.id as number
  const refs: SyncRefs = { commonVenues: [], smallVenues: [], organizers: [], categories: [], tags: [] }
  for (let n = 0; n < COMMON_VENUES; n++)
    refs.commonVenues.push(
      await made('/venues', { venue: `Hall ${n}`, address: `${n} Main Street`, city: `City ${n % 17}`, status: 'publish' }),
    )
  for (let n = 0; n < SMALL_VENUES; n++)
    refs.smallVenues.push(
      await made('/venues', { venue: `Room ${n}`, address: `${n} Side Street`, city: `Town ${n % 31}`, status: 'publish' }),
    )
  for (let n = 0; n < ORGANIZERS; n++)
    refs.organizers.push(await made('/organizers', { organizer: `Organizer ${n}`, email: `o${n}@example.com`, status: 'publish' }))
  for (let n = 0; n < CATEGORIES; n++) refs.categories.push(await made('/categories', { name: `Category ${n}` }))
  for (let n = 0; n < TAGS; n++) refs.tags.push(await made('/tags', { name: `tag-${n}` }))
  return refs
}

/**
 * The events, through the storage's bulk insert (tx.insertEvents: the rows insertPost writes,
 * journal entries included, a few statements per chunk), 5,000 per transaction.
 */
async function seedEvents(storage: Storage, refs: SyncRefs): Promise<number[]> {
  const ids: number[] = []
  for (let start = 0; start < SYNC_EVENTS; start += 5000) {
    const batch = Array.from({ length: Math.min(5000, SYNC_EVENTS - start) }, (_, k) => makeEvent(start + k, refs))
    const stored = await storage.transaction(async (tx) => {
      if (!tx.insertEvents) throw new Error('this storage has no insertEvents')
      return tx.insertEvents(batch)
    })
    for (const e of stored) if (e?.status === 'publish') ids.push(e.id)
  }
  return ids
}

/** Time per storage method while `on` (calls that overlap are each counted whole). */
class Spans {
  on = false
  ms = new Map<string, { ms: number; calls: number }>()

  wrap<S extends object>(storage: S): S {
    return new Proxy(storage, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver)
        if (typeof value !== 'function' || typeof key !== 'string' || key === 'transaction') return value
        return (...args: unknown[]) => {
          if (!this.on) return value.apply(target, args)
          const t0 = performance.now()
          const out = value.apply(target, args)
          const done = () => {
            const s = this.ms.get(key) ?? { ms: 0, calls: 0 }
            s.ms += performance.now() - t0
            s.calls++
            this.ms.set(key, s)
          }
          if (out && typeof (out as Promise<unknown>).then === 'function') return (out as Promise<unknown>).finally(done)
          done()
          return out
        }
      },
    })
  }

  take(): Array<[string, { ms: number; calls: number }]> {
    const out = [...this.ms.entries()].sort((x, y) => y[1].ms - x[1].ms)
    this.ms = new Map()
    return out
  }
}

/** Self time per function and per file of the profiled stretches, by label (cpu-profile JSON: nodes, samples, timeDeltas). */
class CpuProfiler {
  private session: Session | null = null
  readonly self = new Map<string, { functions: Map<string, number>; files: Map<string, number>; ms: number }>()

  async start(): Promise<void> {
    if (!this.session) {
      this.session = new Session()
      this.session.connect()
      await this.session.post('Profiler.enable')
      await this.session.post('Profiler.setSamplingInterval', { interval: 200 })
    }
    await this.session.post('Profiler.start')
  }

  async stop(label: string): Promise<void> {
    const { profile } = await this.session!.post('Profiler.stop')
    const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
    const into = this.self.get(label) ?? { functions: new Map(), files: new Map(), ms: 0 }
    const samples = profile.samples ?? []
    const deltas = profile.timeDeltas ?? []
    for (let i = 0; i < samples.length; i++) {
      const frame = byId.get(samples[i]!)
      const ms = (deltas[i] ?? 0) / 1000
      // The in-process session's own work (handing the profile over) is not the bench's.
      if (!frame || (frame.functionName === 'dispatch' && !frame.url) || frame.functionName === '(idle)') continue
      const file = frame.url ? frame.url.replace(/^file:\/\//, '').replace(/^.*\/(src|node_modules)\//, '$1/') : frame.functionName
      // tsx's output keeps no line numbers worth printing for src/ files; node's own and packages' are kept.
      const line = frame.url && !file.startsWith('src/') && !file.includes('/bench/') ? `:${frame.lineNumber + 1}` : ''
      const fn = `${frame.functionName || '(anonymous)'} ${file}${line}`
      into.functions.set(fn, (into.functions.get(fn) ?? 0) + ms)
      into.files.set(file, (into.files.get(file) ?? 0) + ms)
      into.ms += ms
    }
    this.self.set(label, into)
  }

  print(): void {
    const top = (m: Map<string, number>, n: number, total: number) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `      ${lpad(fmtMs(v), 8)} ms ${lpad(((100 * v) / total).toFixed(1), 5)}%  ${k}`)
    for (const [label, p] of this.self) {
      log(`\n  CPU profile of the measured requests, ${label}: ${fmtMs(p.ms)} ms sampled; self time by file, then by function`)
      for (const line of top(p.files, 12, p.ms)) log(line)
      log('')
      for (const line of top(p.functions, 20, p.ms)) log(line)
    }
  }
}

const profiler = CPU_PROFILE ? new CpuProfiler() : null
/** The label the requests being made now are profiled under, if any. */
let profiling: string | null = null

interface SyncPass {
  firstMs: number
  totalMs: number
  pages: number
  items: number
  deleted: number
  token: string | null
  /** Stopped at SYNC_PAGES pages. */
  cut: boolean
}

/** One sync as a client runs it: the first request, then next_rest_url to the end (test/http/sync.suite.ts's `sync`). */
async function syncOnce(router: CalendarRouter, token: string, maxPages = Infinity): Promise<SyncPass> {
  const pass: SyncPass = { firstMs: 0, totalMs: 0, pages: 0, items: 0, deleted: 0, token: null, cut: false }
  let res = await call(router, 'GET', `/events?sync_token=${encodeURIComponent(token)}&per_page=${PAGE}`)
  pass.firstMs = res.ms
  for (;;) {
    pass.totalMs += res.ms
    pass.pages++
    pass.items += res.body.events.length
    pass.deleted += res.body.deleted.length
    if (!res.body.next_rest_url) break
    if (pass.pages >= maxPages) {
      pass.cut = true
      return pass
    }
    res = await call(router, 'GET', res.body.next_rest_url)
  }
  pass.token = res.body.sync_token
  return pass
}

interface SyncReport {
  engine: string
  seedMs: number
  full: SyncPass
  rounds: Array<{ mix: Mix; writesMs: number; pass: SyncPass; spans: Array<[string, { ms: number; calls: number }]> }>
  noChange: number[]
  resyncs: number
}

async function syncBench(lib: Lib, engine: string): Promise<SyncReport | null> {
  log(`\n[2] incremental sync on ${engineName(engine)} at ${fmtInt(SYNC_EVENTS)} events (${lib.dir}; ${load()})`)
  const meter = new SqlMeter()
  const opened = await openStorage(lib, engine, 'sync', meter)
  if (typeof opened === 'string') {
    log(`  skipped: ${opened}`)
    return null
  }
  try {
    const spans = new Spans()
    const r0 = { engine: engineName(engine) }
    const storage = spans.wrap(opened.storage)
    const router = lib.createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), maxPerPage: PAGE })
    let t0 = performance.now()
    const refs = await seedRefs(router)
    const published = await seedEvents(opened.storage, refs)
    const seedMs = performance.now() - t0
    log(`  seeded ${fmtInt(SYNC_EVENTS)} events in ${secs(seedMs)} (${fmtInt(published.length)} published)`)
    if (opened.settle) {
      t0 = performance.now()
      log(`  settled: ${await opened.settle()} in ${secs(performance.now() - t0)}`)
    }
    const full = await syncOnce(router, '*')
    log(`  full sync: ${secs(full.totalMs)} for ${full.pages} pages, ${fmtInt(full.items)} events (first page ${fmtMs(full.firstMs)} ms)`)
    let token = full.token!
    const r = prng(0x24)
    const live = new Set(published)
    const rounds: SyncReport['rounds'] = []
    let resyncs = 0
    let n = 0
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      for (const mix of SYNC_MIXES) {
        const { trash, renames } = MIXES[mix]
        const updates = SYNC_CHANGES - trash - renames
        // Distinct events, so that a round changes SYNC_CHANGES records (before the cascades).
        const liveIds = [...live]
        for (let k = 0; k < updates + trash; k++) {
          const j = k + Math.floor(r() * (liveIds.length - k))
          ;[liveIds[k], liveIds[j]] = [liveIds[j]!, liveIds[k]!]
        }
        const w0 = performance.now()
        for (let k = 0; k < updates; k++) await call(router, 'POST', `/events/${liveIds[k]}`, { title: `Edited ${++n}` }, 'admin')
        for (let k = updates; k < updates + trash; k++) {
          live.delete(liveIds[k]!)
          await call(router, 'DELETE', `/events/${liveIds[k]}`, undefined, 'admin')
        }
        for (let k = 0; k < renames; k++) {
          const venue = refs.smallVenues[Math.floor(r() * refs.smallVenues.length)]!
          await call(router, 'POST', `/venues/${venue}`, { venue: `Room renamed ${++n}` }, 'admin')
        }
        const writesMs = performance.now() - w0
        spans.on = true
        profiling = `${r0.engine} ${mix}`
        // The statements of the last round's sync of each mix, with their times (JOURNAL_SYNC_TRACE).
        if (SYNC_TRACE && round === SYNC_ROUNDS - 1) meter.trace = []
        const pass = await syncOnce(router, token, round === 0 && WHOLE_FIRST ? Infinity : SYNC_PAGES)
        profiling = null
        if (meter.trace) {
          const slow = [...meter.trace].sort((x, y) => y.ms - x.ms).slice(0, 8)
          log(`    statements of this sync: ${meter.trace.length}, ${fmtMs(meter.trace.reduce((t, x) => t + x.ms, 0))} ms; the slowest:`)
          for (const t of slow) log(`      ${lpad(fmtMs(t.ms), 8)} ms  ${t.sql.slice(0, 400)}`)
          for (const t of slow.slice(0, 2)) {
            log(`    plan of: ${t.sql.slice(0, 200)}`)
            const plan = await opened.explain?.(t.sql, t.params).catch((err: Error) => `(no plan: ${err.message})`)
            // Cut: PostgreSQL prints the 1,000 ids of an ANY() list inside the plan.
            for (const line of (plan ?? '').split('\n')) log(`      ${line.slice(0, 300)}`)
          }
          meter.trace = null
        }
        spans.on = false
        rounds.push({ mix, writesMs, pass, spans: spans.take() })
        log(
          `  round ${round + 1} ${pad(mix, 6)}: ${updates} updates, ${trash} trashed, ${renames} venue renames in ${secs(writesMs)}; ` +
            `sync ${pass.cut ? `STOPPED after ${pass.pages} pages` : `${pass.pages} page(s)`}: first ${fmtMs(pass.firstMs)} ms, ` +
            `all ${fmtMs(pass.totalMs)} ms, ${fmtInt(pass.items)} events + ${fmtInt(pass.deleted)} deleted`,
        )
        if (pass.token) token = pass.token
        else {
          // The answer ran past SYNC_PAGES pages: start the next round from a fresh full sync.
          resyncs++
          const again = await syncOnce(router, '*')
          token = again.token!
          log(`    (fresh full sync for the next round: ${secs(again.totalMs)})`)
        }
      }
    }
    const noChange: number[] = []
    for (let i = 0; i < NOCHANGE_REQUESTS; i++) {
      const pass = await syncOnce(router, token)
      if (pass.items || pass.deleted) throw new Error('a sync with nothing changed returned changes')
      noChange.push(pass.totalMs)
    }
    log(`  no change: p50 ${fmtMs(quantile(noChange, 0.5))} ms over ${NOCHANGE_REQUESTS} (${load()})`)
    return { engine: engineName(engine), seedMs, full, rounds, noChange, resyncs }
  } finally {
    await opened.close()
  }
}

// ---------------------------------------------------------------------------------------------
// 3. The soak

// ---------------------------------------------------------------------------------------------
// 3b. The memory backend's journal under a long run of writes

interface MemoryReport {
  limit: number
  /** [writes so far, heap used after a full collection, MiB]. */
  samples: Array<[number, number]>
  ms: number
}

/**
 * The soak bench runs SQLite; the memory backend keeps its journal in the heap, bounded at
 * 100,000 entries by default. Updates through the router, in process, past that bound: the heap
 * after a full collection must stop growing once the journal is full.
 */
async function memoryJournal(lib: Lib): Promise<MemoryReport> {
  const { createMemoryStorage } = (await import(
    pathToFileURL(join(lib.dir, 'src/storage/memory.js')).href
  )) as typeof import('../src/storage/memory.js')
  v8.setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const limit = 100_000
  log(`\n[3b] memory backend: ${fmtInt(MEMORY_WRITES)} updates through the router (journal bound ${fmtInt(limit)}; ${load()})`)
  const router = lib.createCalendarRouter(createMemoryStorage(), { authenticate, now: () => new Date(NOW) })
  const ids: number[] = []
  for (let n = 0; n < 200; n++) {
    const start = NOW + n * DAY
    const body = {
      title: `Memory ${n}`,
      start_date: wall(start),
      end_date: wall(start + HOUR),
      status: 'publish',
      categories: [`Cat ${n % 5}`],
    }
    ids.push((await call(router, 'POST', '/events', body, 'admin')).body.id)
  }
  const samples: MemoryReport['samples'] = []
  const sample = (writes: number) => {
    gc()
    const mib = process.memoryUsage().heapUsed / 2 ** 20
    samples.push([writes, mib])
    log(`  ${lpad(fmtInt(writes), 9)} writes: heap ${mib.toFixed(1)} MiB`)
  }
  sample(0)
  const t0 = performance.now()
  const step = Math.max(1, Math.floor(MEMORY_WRITES / 10))
  for (let i = 1; i <= MEMORY_WRITES; i++) {
    await call(router, 'POST', `/events/${ids[i % ids.length]}`, { title: `Memory edit ${i}` }, 'admin')
    if (i % step === 0) sample(i)
  }
  return { limit, samples, ms: performance.now() - t0 }
}

interface SoakReport {
  lines: string[]
  after: number
  end: number
  growth: number
  errors: string
  code: number | null
}

async function soakBench(dir: string): Promise<SoakReport> {
  log(
    `\n[3] soak (${load()}): bench/soak.bench.ts of ${dir} (SOAK_SECONDS ${env.SOAK_SECONDS ?? 180}, SOAK_WARMUP ${env.SOAK_WARMUP ?? 120})`,
  )
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.bench.ts'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
    process.stdout.write(c)
  })
  const code = await new Promise<number | null>((done) => child.once('exit', done))
  const m = /RSS after \d+ s warm-up ([\d.]+) MiB, at end ([\d.]+) MiB: (-?[\d.]+)%/.exec(out)
  const e = /, (\d+) errors/.exec(out)
  return {
    lines: out.trim().split('\n'),
    after: Number(m?.[1] ?? NaN),
    end: Number(m?.[2] ?? NaN),
    growth: Number(m?.[3] ?? NaN),
    errors: e?.[1] ?? '?',
    code,
  }
}

// ---------------------------------------------------------------------------------------------
// The run

function printWrites(rows: WriteRow[]) {
  log('\n1. Write cost, current / before the journal (interleaved request by request; ms; target ratio <= 1.15)')
  log(
    `  ${pad('engine', 12)}${pad('operation', 40)}${lpad('n', 4)}${lpad('before p50', 12)}${lpad('p90', 7)}${lpad('current p50', 13)}${lpad('p90', 7)}` +
      `${lpad('ratio p50', 11)}${lpad('p90', 7)}  target`,
  )
  const q = (xs: number[] | undefined, p: number) => quantile(xs ?? [], p)
  for (const row of rows) {
    const b = row.sides.before
    const c = row.sides.current
    if (!b || !c) continue
    const ratio = q(c.ms, 0.5) / q(b.ms, 0.5)
    log(
      `  ${pad(row.engine, 12)}${pad(row.op, 40)}${lpad(String(c.ms.length), 4)}${lpad(fmtMs(q(b.ms, 0.5)), 12)}${lpad(fmtMs(q(b.ms, 0.9)), 7)}` +
        `${lpad(fmtMs(q(c.ms, 0.5)), 13)}${lpad(fmtMs(q(c.ms, 0.9)), 7)}${lpad(`${ratio.toFixed(2)}x`, 11)}` +
        `${lpad(`${(q(c.ms, 0.9) / q(b.ms, 0.9)).toFixed(2)}x`, 7)}  ${ratio <= 1.15 ? 'met' : 'MISSED'}`,
    )
  }
  log('\n  Statements the storage sent per request (BEGIN/COMMIT and the PostgreSQL writer lock not counted) and their time, p50 ms')
  for (const row of rows) {
    const cells = SIDES.filter((label) => row.sides[label]).map((label) => {
      const x = row.sides[label]!
      return `${label}: ${fmtMs(q(x.statements, 0.5))} statements, SQL ${fmtMs(q(x.sqlMs, 0.5))} ms, request ${fmtMs(q(x.ms, 0.5))} ms`
    })
    log(`  ${pad(row.engine, 12)}${pad(row.op, 40)}${cells.join('; ')}`)
  }
}

function printSync(reports: SyncReport[]) {
  log(
    `\n2. Incremental sync at ${fmtInt(SYNC_EVENTS)} events (ms; per_page ${PAGE}; anonymous client; target: p50 <= 50 ms, no change <= 5 ms)`,
  )
  for (const r of reports)
    log(
      `  ${r.engine}: seeded in ${secs(r.seedMs)}; full sync ${secs(r.full.totalMs)} (${r.full.pages} pages, ${fmtInt(r.full.items)} events, first page ${fmtMs(r.full.firstMs)} ms)`,
    )
  log(
    `  ${pad('engine', 12)}${pad('changes per round', 46)}${lpad('rounds', 7)}${lpad('records', 16)}${lpad('pages', 9)}` +
      `${lpad('1st page p50', 14)}${lpad('p90', 7)}${lpad('whole p50', 11)}${lpad('p90', 7)}  target`,
  )
  const range = (xs: number[]) =>
    !xs.length ? '-' : Math.min(...xs) === Math.max(...xs) ? fmtInt(xs[0]!) : `${fmtInt(Math.min(...xs))}-${fmtInt(Math.max(...xs))}`
  for (const r of reports) {
    for (const mix of SYNC_MIXES) {
      const rs = r.rounds.filter((x) => x.mix === mix)
      if (!rs.length) continue
      const whole = rs.filter((x) => !x.pass.cut)
      const cut = rs.length - whole.length
      const total = whole.map((x) => x.pass.totalMs)
      const p50 = quantile(total, 0.5)
      // Records and pages of the rounds that finished; a stopped one says only how far it got.
      const records = range(whole.map((x) => x.pass.items + x.pass.deleted))
      const pages = range(whole.map((x) => x.pass.pages)) + (cut ? `, ${cut}x>${SYNC_PAGES}` : '')
      log(
        `  ${pad(r.engine, 12)}${pad(describeMix(mix), 46)}${lpad(String(rs.length), 7)}${lpad(records, 16)}${lpad(pages, 9)}` +
          `${lpad(
            fmtMs(
              quantile(
                rs.map((x) => x.pass.firstMs),
                0.5,
              ),
            ),
            14,
          )}${lpad(
            fmtMs(
              quantile(
                rs.map((x) => x.pass.firstMs),
                0.9,
              ),
            ),
            7,
          )}` +
          `${lpad(fmtMs(p50), 11)}${lpad(fmtMs(quantile(total, 0.9)), 7)}  ${cut || p50 > 50 ? 'MISSED' : 'met'}` +
          (whole.length < rs.length ? ` (whole: ${whole.length} round(s) followed to the end)` : ''),
      )
    }
    const p50 = quantile(r.noChange, 0.5)
    log(
      `  ${pad(r.engine, 12)}${pad('nothing changed', 46)}${lpad(String(r.noChange.length), 7)}${lpad('0', 16)}${lpad('1', 9)}` +
        `${lpad(fmtMs(p50), 14)}${lpad(fmtMs(quantile(r.noChange, 0.9)), 7)}${lpad('', 18)}  ${p50 <= 5 ? 'met' : 'MISSED'} (<= 5 ms)`,
    )
  }
  if (!SPANS) return
  log('\n  Where a sync spent its time (median round of each mix that was followed to the end): time inside storage calls,')
  log('  by method (calls; overlapping calls each counted whole), and the rest: the router (mostly presenting the events)')
  for (const r of reports) {
    for (const mix of SYNC_MIXES) {
      const rs = r.rounds.filter((x) => x.mix === mix && !x.pass.cut).sort((x, y) => x.pass.totalMs - y.pass.totalMs)
      const mid = rs[Math.floor((rs.length - 1) / 2)]
      if (!mid) continue
      const inStorage = mid.spans.reduce((s, [, v]) => s + v.ms, 0)
      log(
        `    ${r.engine} ${mix}: ${fmtMs(mid.pass.totalMs)} ms over ${mid.pass.pages} page(s): ${mid.spans
          .slice(0, 6)
          .map(([k, v]) => `${k} ${fmtMs(v.ms)} (${v.calls})`)
          .join(', ')}; outside storage ~${fmtMs(Math.max(0, mid.pass.totalMs - inStorage))}`,
      )
    }
  }
}

function printMemory(m: MemoryReport) {
  // Growth is judged from the first sample at which the journal is full (the seeding's entries count too).
  const full = m.samples.find(([writes]) => writes >= m.limit)
  const last = m.samples[m.samples.length - 1]!
  if (!full) {
    log(`\n3b. Memory backend: ${fmtInt(last[0])} updates never filled the journal (${fmtInt(m.limit)} entries); nothing to judge`)
    return
  }
  const growth = last[1] / full[1] - 1
  log(
    `\n3b. Memory backend, ${fmtInt(last[0])} updates in ${secs(m.ms)} (heap after a full collection; journal bound ${fmtInt(m.limit)} entries)`,
  )
  log(`  ${m.samples.map(([w, mib]) => `${w / 1000}k ${mib.toFixed(1)}`).join(', ')} (writes: MiB)`)
  log(
    `  from ${fmtInt(full[0])} writes (journal full) to ${fmtInt(last[0])}: ${full[1].toFixed(1)} -> ${last[1].toFixed(1)} MiB, ` +
      `${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%  ${growth <= 0.1 ? 'flat (within 10%)' : 'GROWS'}`,
  )
}

function printSoak(s: SoakReport) {
  log('\n3. Memory soak (bench/soak.bench.ts: SQLite example server, mixed reads and writes; target RSS within 10% after warm-up)')
  log(
    `  RSS after warm-up ${fmtMs(s.after)} MiB, at end ${fmtMs(s.end)} MiB: ${s.growth >= 0 ? '+' : ''}${s.growth}%; ${s.errors} errors; exit ${s.code}  ${s.code === 0 ? 'met' : 'MISSED'}`,
  )
  for (const line of s.lines.filter((l) => l.startsWith('soak:') || l.startsWith('RSS MiB'))) log(`  ${line}`)
}

async function main() {
  const { execFileSync } = await import('node:child_process')
  const head = (dir: string) => {
    try {
      return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    } catch {
      return '?'
    }
  }
  log(`calendar-events-router journal bench — Node ${process.version}, ${new Date(NOW).toISOString()}`)
  log(`current: ${CURRENT_DIR} (${head(CURRENT_DIR)}); before: ${BEFORE_DIR ? `${BEFORE_DIR} (${head(BEFORE_DIR)})` : 'not given'}`)
  const current = await loadLib(CURRENT_DIR)
  const before = BEFORE_DIR && PARTS.includes('writes') ? await loadLib(BEFORE_DIR) : null
  const writes: WriteRow[] = []
  const syncs: SyncReport[] = []
  let soaked: SoakReport | null = null
  try {
    if (PARTS.includes('writes')) {
      if (!before) log('\n[1] write cost: skipped (set JOURNAL_BENCH_BEFORE to a checkout of the commit before the journal)')
      else for (const engine of ENGINES) writes.push(...(await writeCost(current, before, engine)))
    }
    if (PARTS.includes('sync')) for (const engine of ENGINES) syncs.push(...[await syncBench(current, engine)].filter((x) => x !== null))
  } finally {
    const server = await pgServer
    if (server && typeof server !== 'string') await server.close()
  }
  const memory = PARTS.includes('memory') ? await memoryJournal(current) : null
  if (PARTS.includes('soak')) soaked = await soakBench(CURRENT_DIR)

  log('\n================================ SUMMARY ================================')
  log(`at the end: ${load()}`)
  if (writes.length) printWrites(writes)
  if (syncs.length) printSync(syncs)
  if (memory) printMemory(memory)
  if (soaked) printSoak(soaked)
  profiler?.print()
}

await main()
