/**
 * The CalDAV face's figures (issue 35, docs/benchmarks.md):
 *
 * 1. vdirsyncer (Debian's) against the router served by the Node adapter on SQLite: the first
 *    sync of CALDAV_BENCH_VDIR events (default 5,000; target < 10 s) and a sync with nothing
 *    changed (target < 1 s), each with the CPU time the server (this process) and vdirsyncer
 *    (through /usr/bin/time) spent in it: on a loaded machine the wall time is mostly waiting.
 * 2. At CALDAV_BENCH_EVENTS events (default 100,000) on SQLite and PostgreSQL (a throwaway
 *    server), in process: `sync-collection` answering 1,000 changes (target p50 <= 50 ms) and a
 *    one-month `calendar-query` with ETags (target p50 <= 20 ms). Each is timed once cold (the
 *    first request after the changes: the CalDAV face applies the REST sync's delta to the
 *    calendar it holds and renders the changed objects) and then CALDAV_BENCH_RUNS times
 *    (default 20) with the calendar as held (p50 of the wall times, and of this process's CPU
 *    time per request; ETags of unchanged objects are kept).
 *
 *   node --import tsx bench/caldav.bench.ts
 *
 * Settings: CALDAV_BENCH_PARTS (default vdir,sqlite,pg), CALDAV_BENCH_VDIR, CALDAV_BENCH_EVENTS, CALDAV_BENCH_PG_EVENTS (default: the same),
 * CALDAV_BENCH_RUNS.
 *
 * Events are spread over eight years from 2027 (about 1,000 a month at 100,000).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { toNodeHandler } from '../adapters/node/index.js'
import { createCalendarRouter, type CalendarRouter } from '../src/index.js'
import { createSqlStorage, openSqliteFile, pgDriver } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { findPostgresBin, startPostgres } from '../test/support/postgres-server.js'
import { benchEvent } from './bench-event.js'

const env = process.env
const VDIR_EVENTS = Number(env.CALDAV_BENCH_VDIR ?? 5_000)
const EVENTS = Number(env.CALDAV_BENCH_EVENTS ?? 100_000)
/** PostgreSQL's count: seeding it event by event is slow (about 5 ms an event on the 2-core machine). */
const PG_EVENTS = Number(env.CALDAV_BENCH_PG_EVENTS ?? EVENTS)
const RUNS = Number(env.CALDAV_BENCH_RUNS ?? 20)
/** Which parts run: vdir, sqlite, pg (comma list). */
const PARTS = new Set((env.CALDAV_BENCH_PARTS ?? 'vdir,sqlite,pg').split(','))
const CHANGES = 1_000
const ORIGIN = 'http://127.0.0.1'
const CAL = `${ORIGIN}/caldav/calendars/all/`
const dir = mkdtempSync(join(tmpdir(), 'calendar-caldav-bench-'))

const pad = (n: number) => String(n).padStart(2, '0')

/** Event n: an hour on a day spread over eight years from 2027-01-01. */
function eventOf(n: number, total: number) {
  const day = new Date(Date.UTC(2027, 0, 1) + Math.floor((n / total) * 8 * 365) * 86_400_000)
  const date = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`
  const hour = 8 + (n % 12)
  return benchEvent({
    status: 'publish',
    slug: `caldav-${n}`,
    title: `Event ${n}`,
    description: `<p>Event number ${n} of the CalDAV bench.</p>`,
    created: '2026-01-01 00:00:00',
    start: `${date} ${pad(hour)}:00:00`,
    end: `${date} ${pad(hour + 1)}:00:00`,
    allDay: false,
    cost: [],
    featured: false,
    venueIds: [],
    organizerIds: [],
    categoryIds: [],
    tagIds: [],
  })
}

async function seed(storage: Storage, total: number): Promise<number[]> {
  const ids: number[] = []
  for (let start = 0; start < total; start += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, total - start) }, (_, k) => eventOf(start + k, total))
    ids.push(
      ...(await storage.transaction(async (tx) => {
        const out: number[] = []
        for (const e of batch) out.push((await tx.insertPost(e)).id)
        return out
      })),
    )
  }
  return ids
}

function routerOn(storage: Storage): CalendarRouter {
  return createCalendarRouter(storage, {
    caldav: true,
    authenticate: (r) => (r.headers.get('authorization') ? { id: 1, role: 'administrator' } : null),
  })
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const millis = (ms: number) => `${ms.toFixed(1)} ms`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

/**
 * A request's wall time and this process's CPU time meanwhile (the router's work, less what the
 * other processes of a loaded machine take from it: on 2 shared cores at load 10 and more, wall
 * times of a few milliseconds are mostly waiting for a core).
 */
async function timedCpu(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage()
  const wall = await timedMs(fn)
  const used = process.cpuUsage(cpu)
  return { wall, cpu: (used.user + used.system) / 1000 }
}

/** p50 of the wall times and of the CPU times of some runs. */
const p50s = (runs: Array<{ wall: number; cpu: number }>) =>
  `p50 ${millis(median(runs.map((r) => r.wall)))} (CPU p50 ${millis(median(runs.map((r) => r.cpu)))})`

/** vdirsyncer's own CPU time (user + system, seconds) of its last run, from /usr/bin/time when present. */
let clientCpu = Number.NaN

function vdirsyncer(config: string, ...args: string[]): Promise<void> {
  const times = join(dir, 'vdirsyncer.time')
  const timed = existsSync('/usr/bin/time')
  const [bin, argv] = timed
    ? ['/usr/bin/time', ['-f', '%U %S', '-o', times, '/usr/bin/vdirsyncer', '-c', config, ...args]]
    : ['/usr/bin/vdirsyncer', ['-c', config, ...args]]
  return new Promise((resolve, reject) => {
    const child = execFile(bin, argv, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`vdirsyncer ${args.join(' ')}: ${error.message}\n${stderr.slice(-2000)}`))
      const [user, system] = timed ? readFileSync(times, 'utf8').trim().split(/\s+/).slice(-2).map(Number) : [Number.NaN, Number.NaN]
      clientCpu = user! + system!
      resolve()
    })
    child.stdin?.end('y\n')
  })
}

/** Wall time of a vdirsyncer run, the server's CPU time meanwhile (this process: the router) and vdirsyncer's own. */
async function timedSync(config: string): Promise<{ wall: number; server: number; client: number }> {
  const cpu = process.cpuUsage()
  const wall = await timedMs(() => vdirsyncer(config, 'sync'))
  const used = process.cpuUsage(cpu)
  return { wall, server: (used.user + used.system) / 1e6, client: clientCpu }
}

const split = (t: { wall: number; server: number; client: number }) =>
  `${seconds(t.wall)} (CPU: server ${t.server.toFixed(2)} s, vdirsyncer ${t.client.toFixed(2)} s)`

async function vdirsyncerBench(): Promise<string[]> {
  if (!existsSync('/usr/bin/vdirsyncer')) return ['vdirsyncer: not installed (apt-get install vdirsyncer), skipped']
  const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'vdir.sqlite')) })
  await storage.migrate?.()
  await seed(storage, VDIR_EVENTS)
  const server = http.createServer(toNodeHandler(routerOn(storage)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const base = join(dir, 'vdir')
  const config = join(base, 'config')
  await new Promise((r) => execFile('mkdir', ['-p', join(base, 'local')], r))
  writeFileSync(
    config,
    [
      '[general]',
      `status_path = "${join(base, 'status')}/"`,
      '[pair cal]',
      'a = "cal_local"',
      'b = "cal_remote"',
      'collections = ["all"]',
      '[storage cal_local]',
      'type = "filesystem"',
      `path = "${join(base, 'local')}/"`,
      'fileext = ".ics"',
      '[storage cal_remote]',
      'type = "caldav"',
      `url = "http://127.0.0.1:${port}/caldav/"`,
      'username = "bench"',
      'password = "bench"',
      '',
    ].join('\n'),
  )
  try {
    await vdirsyncer(config, 'discover', 'cal')
    const first = await timedSync(config)
    const again = await timedSync(config)
    return [
      `vdirsyncer, SQLite, ${VDIR_EVENTS.toLocaleString('en')} events: first sync ${split(first)} (target < 10 s); sync with nothing changed ${split(again)} (target < 1 s)`,
    ]
  } finally {
    server.close()
    await storage.close?.()
  }
}

async function dav(router: CalendarRouter, method: string, body: string, headers: Record<string, string> = {}) {
  const res = await router.fetch(new Request(CAL, { method, headers: { authorization: 'Basic x', ...headers }, body }))
  const text = await res.text()
  if (res.status !== 207) throw new Error(`${method} answered ${res.status}: ${text.slice(0, 300)}`)
  return text
}

const SYNC = (token: string) =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`
const MONTH = `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20300301T000000Z" end="20300401T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`
const TOKEN_PROP = `<d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>`

async function scaleBench(name: string, storage: Storage, events: number): Promise<string[]> {
  const t0 = performance.now()
  const ids = await seed(storage, events)
  const seeded = performance.now() - t0
  const router = routerOn(storage)
  const read = await timedCpu(() => dav(router, 'PROPFIND', TOKEN_PROP, { depth: '0' }))
  const token = /<d:sync-token>([^<]+)</.exec(await dav(router, 'PROPFIND', TOKEN_PROP, { depth: '0' }))![1]!
  // 1,000 changes through the storage (journaled like any write): every 100th event retitled.
  await storage.transaction(async (tx) => {
    for (let i = 0; i < CHANGES; i++) await tx.updatePost(ids[i * Math.floor(events / CHANGES)]!, 'event', { title: `Changed ${i}` })
  })
  let answered = 0
  const syncCold = await timedMs(async () => (answered = (await dav(router, 'REPORT', SYNC(token))).match(/<d:getetag>/g)?.length ?? 0))
  const syncRuns: Array<{ wall: number; cpu: number }> = []
  for (let i = 0; i < RUNS; i++) syncRuns.push(await timedCpu(() => dav(router, 'REPORT', SYNC(token))))
  let inMonth = 0
  const queryFirst = await timedMs(
    async () => (inMonth = (await dav(router, 'REPORT', MONTH, { depth: '1' })).match(/<d:getetag>/g)?.length ?? 0),
  )
  const queryRuns: Array<{ wall: number; cpu: number }> = []
  for (let i = 0; i < RUNS; i++) queryRuns.push(await timedCpu(() => dav(router, 'REPORT', MONTH, { depth: '1' })))
  return [
    `${name}, ${events.toLocaleString('en')} events (seeded in ${seconds(seeded)}); the calendar's first read (PROPFIND sync-token) ${seconds(read.wall)} (CPU ${seconds(read.cpu)})`,
    `  sync-collection answering ${answered} changes: cold ${millis(syncCold)}, then ${p50s(syncRuns)} over ${RUNS} (target p50 <= 50 ms)`,
    `  calendar-query for one month (${inMonth} objects with ETags): first ${millis(queryFirst)}, then ${p50s(queryRuns)} over ${RUNS} (target p50 <= 20 ms)`,
  ]
}

async function main() {
  const lines: string[] = [`CalDAV bench, node ${process.version}, ${new Date().toISOString()}`]
  if (PARTS.has('vdir')) lines.push(...(await vdirsyncerBench()))
  console.log(lines.join('\n'))
  if (PARTS.has('sqlite')) {
    const sqlite = createSqlStorage({ driver: await openSqliteFile(join(dir, 'scale.sqlite')) })
    await sqlite.migrate?.()
    lines.push(...(await scaleBench('SQLite', sqlite, EVENTS)))
    await sqlite.close?.()
    console.log(lines.slice(-3).join('\n'))
  }
  const bin = findPostgresBin()
  if (!PARTS.has('pg')) lines.push('PostgreSQL: not asked for (CALDAV_BENCH_PARTS)')
  else if (!bin) lines.push('PostgreSQL: no binaries, skipped')
  else {
    const server = await startPostgres(bin)
    try {
      const pool = new pg.Pool({ connectionString: server.url, max: 10 })
      const storage = createSqlStorage({ driver: pgDriver(pool) })
      await storage.migrate?.()
      lines.push(...(await scaleBench('PostgreSQL', storage, PG_EVENTS)))
      await storage.close?.()
    } finally {
      await server.destroy()
    }
  }
  console.log(`\n${lines.join('\n')}`)
}

main()
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }))
