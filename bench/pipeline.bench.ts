/**
 * What the storage path costs per request, in-process: CPU microseconds per `router.handle()`
 * for the rich events of the adapter bench (bench/seed.ts), without sockets or a load generator,
 * so that two versions of the code can be compared on a machine too busy for throughput figures
 * (issue 34: the storage pipeline must not make a request slower).
 *
 *   node --import tsx bench/pipeline.bench.ts        ROUNDS=5 REQUESTS=2000 by default
 *
 * Cells: storage (memory, SQLite) x response cache (on, off) x GET /events/{id}, GET
 * /events?per_page=10 and an editor's update (POST /events/{id}); each cell's figure is the
 * median of ROUNDS rounds, each round the CPU time (user + system) of REQUESTS sequential requests;
 * the reads' rounds interleave (see `cells`).
 *
 * TURNS=1 lets the event loop turn between requests (a setImmediate each), as a server answering
 * one request at a time does: what a storage shares within one turn (SQLite's snapshot and its
 * answer to the response cache's "did another process commit?") is then asked for every request.
 *
 * CELLS=sqlite-on-id,memory-off-list (kinds: id, list, write) measures only those cells;
 * PROFILE=dir also writes one CPU profile per measured cell (its rounds only) into dir, for
 * bench/profile-top.ts or Chrome DevTools. The file runs unchanged against an older checkout
 * (bench/pipeline-side-by-side.sh), so it imports nothing but the storages and the seed.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RequestLike } from '../src/http/types.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { EDITOR_TOKEN, seed } from './seed.js'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const REQUESTS = Number(process.env.REQUESTS ?? 2000)
const CELLS = process.env.CELLS ? new Set(process.env.CELLS.toLowerCase().split(',')) : null
const PROFILE = process.env.PROFILE
const TURNS = process.env.TURNS === '1'
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
const ORIGIN = 'http://127.0.0.1:8080'

function request(method: string, path: string, body?: string, headers: Record<string, string> = {}): RequestLike {
  const all: Record<string, string> = { host: '127.0.0.1:8080', ...headers }
  return {
    method,
    url: ORIGIN + path,
    headers: { get: (name: string) => all[name.toLowerCase()] ?? null },
    text: async () => body ?? '',
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

type Send = (i: number) => Promise<number>

/** One round of `send`: CPU µs per request over REQUESTS sequential requests. */
async function round(send: Send): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) {
    if (TURNS) await turn()
    const status = await send(i)
    if (status >= 400) throw new Error(`status ${status}`)
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / REQUESTS
}

async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_US ?? 50) })
  await session.post('Profiler.start')
  const out = await work()
  const { profile } = await session.post('Profiler.stop')
  mkdirSync(PROFILE!, { recursive: true })
  writeFileSync(join(PROFILE!, `${name}.cpuprofile`), JSON.stringify(profile))
  session.disconnect()
  return out
}

/**
 * The median round of each cell. Every cell is warmed up first, then the rounds interleave (one
 * of each cell in turn): the optimizing compiler's background work and the collector's after the
 * seed fall on every cell alike, where measuring cells one after another charged them to the
 * first (a by-id hit measured first cost twice what it cost measured again after the list).
 * With PROFILE the cells run one after another, each under its own profile.
 */
async function cells(named: Array<[string, Send]>): Promise<Map<string, number>> {
  const wanted = named.filter(([name]) => !CELLS || CELLS.has(name))
  for (const [, send] of wanted) for (let i = 0; i < REQUESTS / 4; i++) await send(i)
  const rounds = new Map<string, number[]>(wanted.map(([name]) => [name, []]))
  if (PROFILE) {
    for (const [name, send] of wanted)
      await profiled(name, async () => {
        for (let r = 0; r < ROUNDS; r++) rounds.get(name)!.push(await round(send))
      })
  } else {
    for (let r = 0; r < ROUNDS; r++) for (const [name, send] of wanted) rounds.get(name)!.push(await round(send))
  }
  return new Map(named.map(([name]) => [name, rounds.has(name) ? median(rounds.get(name)!) : NaN]))
}

const figure = (x: number, width: number) => (Number.isNaN(x) ? '-' : x.toFixed(1)).padStart(width)
const rows: string[] = []
for (const storageName of ['memory', 'SQLite'] as const) {
  for (const cache of ['on', 'off'] as const) {
    const prefix = `${storageName.toLowerCase()}-${cache}-`
    if (CELLS && ![...CELLS].some((c) => c.startsWith(prefix))) continue
    const storage =
      storageName === 'SQLite'
        ? createSqlStorage({ driver: await openSqliteFile(join(mkdtempSync(join(tmpdir(), 'calendar-pipeline-')), 'bench.db')) })
        : createMemoryStorage()
    const seeded = await seed({ cache: cache === 'on' ? { ttlMs: 600_000 } : false }, storage)
    const [single, list] = seeded.paths as [string, string]
    const ids = seeded.mixed.writeIds
    const auth = { authorization: `Bearer ${EDITOR_TOKEN}`, 'content-type': 'application/json' }
    const update = (i: number) =>
      request('POST', `/wp-json/calendar/events/v1/events/${ids[i % ids.length]}`, JSON.stringify({ excerpt: `edit ${i}` }), auth)
    // The writes last: a write drops cached answers, which the reads' rounds would then rebuild.
    const reads = await cells([
      [prefix + 'id', async () => (await seeded.router.handle(request('GET', single))).status],
      [prefix + 'list', async () => (await seeded.router.handle(request('GET', list))).status],
    ])
    const writes = await cells([[prefix + 'write', async (i) => (await seeded.router.handle(update(i))).status]])
    const [byId, listed, write] = [reads.get(prefix + 'id')!, reads.get(prefix + 'list')!, writes.get(prefix + 'write')!]
    rows.push(`${storageName.padEnd(7)}  ${cache.padEnd(14)}  ${figure(byId, 16)}  ${figure(listed, 23)}  ${figure(write, 17)}`)
    await storage.close?.()
  }
}
console.log(`CPU µs per request, in-process (median of ${ROUNDS} rounds of ${REQUESTS}${TURNS ? ', one event-loop turn each' : ''}):\n`)
console.log('storage  response cache  GET /events/{id}  GET /events?per_page=10  POST /events/{id}')
console.log('-------  --------------  ----------------  -----------------------  -----------------')
for (const row of rows) console.log(row)
