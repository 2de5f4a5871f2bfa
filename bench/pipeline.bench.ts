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
 * median of ROUNDS rounds, each round the CPU time (user + system) of REQUESTS sequential requests.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RequestLike } from '../src/http/types.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import { EDITOR_TOKEN, seed } from './seed.js'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const REQUESTS = Number(process.env.REQUESTS ?? 2000)
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

async function cell(send: (i: number) => Promise<number>): Promise<number> {
  // Warm-up: JIT and caches.
  for (let i = 0; i < REQUESTS / 4; i++) await send(i)
  const rounds: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.cpuUsage()
    for (let i = 0; i < REQUESTS; i++) {
      const status = await send(i)
      if (status >= 400) throw new Error(`status ${status}`)
    }
    const used = process.cpuUsage(start)
    rounds.push((used.user + used.system) / REQUESTS)
  }
  return median(rounds)
}

const rows: string[] = []
for (const storageName of ['memory', 'SQLite'] as const) {
  for (const cache of ['on', 'off'] as const) {
    const storage =
      storageName === 'SQLite'
        ? createSqlStorage({ driver: await openSqliteFile(join(mkdtempSync(join(tmpdir(), 'calendar-pipeline-')), 'bench.db')) })
        : createMemoryStorage()
    const seeded = await seed({ cache: cache === 'on' ? { ttlMs: 600_000 } : false }, storage)
    const [single, list] = seeded.paths as [string, string]
    const ids = seeded.mixed.writeIds
    const byId = await cell(async () => (await seeded.router.handle(request('GET', single))).status)
    const listed = await cell(async () => (await seeded.router.handle(request('GET', list))).status)
    const auth = { authorization: `Bearer ${EDITOR_TOKEN}`, 'content-type': 'application/json' }
    const write = await cell(
      async (i) =>
        (
          await seeded.router.handle(
            request('POST', `/wp-json/calendar/events/v1/events/${ids[i % ids.length]}`, JSON.stringify({ excerpt: `edit ${i}` }), auth),
          )
        ).status,
    )
    rows.push(
      `${storageName.padEnd(7)}  ${cache.padEnd(14)}  ${byId.toFixed(1).padStart(16)}  ${listed.toFixed(1).padStart(23)}  ${write.toFixed(1).padStart(17)}`,
    )
    await storage.close?.()
  }
}
console.log(`CPU µs per request, in-process (median of ${ROUNDS} rounds of ${REQUESTS}):\n`)
console.log('storage  response cache  GET /events/{id}  GET /events?per_page=10  POST /events/{id}')
console.log('-------  --------------  ----------------  -----------------------  -----------------')
for (const row of rows) console.log(row)
