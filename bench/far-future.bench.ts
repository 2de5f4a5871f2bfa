/**
 * A list past the written horizon writes nothing (issue 36, target "a far-future list writes
 * nothing"), on memory, SQLite and PostgreSQL, through the router in process.
 *
 * A weekly series without an end (written 24 months ahead, the default horizon) and 200 lone
 * events; a sync token taken; then `GET /events` for a month five years ahead, FAR_RUNS times.
 * Counted: storage transactions opened by those reads, and the changes the incremental sync
 * reports afterwards (both must be 0); shown: occurrences of the series in that month. Timed:
 * that list and the same list for a month inside the horizon (p50, p90).
 *
 *   node --import tsx bench/far-future.bench.ts
 *
 * Settings (environment): FAR_RUNS=30, FAR_ENGINES=memory,sqlite,postgres.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { findPostgresBin, startPostgres } from '../test/support/postgres-server.js'

const RUNS = Number(process.env.FAR_RUNS ?? 30)
const ENGINES = (process.env.FAR_ENGINES ?? 'memory,sqlite,postgres').split(',').map((s) => s.trim())
const API = 'http://localhost/wp-json/calendar/events/v1'

type Json = Record<string, unknown> & { events: Array<{ id: number; title: string }>; deleted: number[] }

async function measure(label: string, storage: Storage): Promise<void> {
  let transactions = 0
  const open = storage.transaction.bind(storage)
  storage.transaction = ((fn: Parameters<Storage['transaction']>[0], o?: Parameters<Storage['transaction']>[1]) => {
    transactions++
    return open(fn, o)
  }) as Storage['transaction']
  const router = createCalendarRouter(storage, {
    authenticate: () => ({ id: 1, role: 'administrator' }),
    now: () => new Date('2026-11-21T12:00:00Z'),
  })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await router.fetch(
      new Request(`${API}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
      }),
    )
    if (res.status >= 300) throw new Error(`${label}: ${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Json
  }
  await call('POST', '/events', {
    title: 'Weekly choir',
    start_date: '2026-12-02 18:00',
    end_date: '2026-12-02 20:00',
    recurrence: 'FREQ=WEEKLY',
    categories: ['Music'],
  })
  for (let k = 0; k < 200; k++) {
    const day = String(1 + (k % 28)).padStart(2, '0')
    await call('POST', '/events', { title: `Lone ${k}`, start_date: `2027-03-${day} 10:00`, end_date: `2027-03-${day} 11:00` })
  }
  let token = ''
  for (let path = '/events?sync_token=*&per_page=50'; ;) {
    const page = await call('GET', path)
    if (!page.next_rest_url) {
      token = page.sync_token as string
      break
    }
    path = String(page.next_rest_url).replace('http://localhost/wp-json/calendar/events/v1', '')
  }
  const time = async (path: string) => {
    const times: number[] = []
    let shown = 0
    for (let k = 0; k < RUNS + 3; k++) {
      const t0 = performance.now()
      const page = await call('GET', path)
      if (k >= 3) times.push(performance.now() - t0)
      shown = page.events.filter((e) => e.title === 'Weekly choir').length
    }
    times.sort((a, b) => a - b)
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1)
    return { shown, p50: q(0.5), p90: q(0.9) }
  }
  const before = transactions
  const far = await time('/events?start_date=2031-12-01&end_date=2031-12-31&per_page=50')
  const near = await time('/events?start_date=2027-06-01&end_date=2027-06-30&per_page=50')
  const opened = transactions - before
  const delta = await call('GET', `/events?sync_token=${encodeURIComponent(token)}&per_page=50`)
  console.log(
    `${label.padEnd(10)} month 5 years ahead: ${far.shown} occurrences shown, p50 ${far.p50} ms, p90 ${far.p90} ms; ` +
      `month inside the horizon: p50 ${near.p50} ms, p90 ${near.p90} ms; ` +
      `${2 * (RUNS + 3)} lists opened ${opened} transactions; sync afterwards: ${delta.events.length} changed, ${delta.deleted.length} deleted`,
  )
}

async function main() {
  if (ENGINES.includes('memory')) await measure('memory', createMemoryStorage())
  if (ENGINES.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'far-future-'))
    const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'bench.db')) })
    try {
      await measure('SQLite', storage)
    } finally {
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  if (ENGINES.includes('postgres')) {
    const bin = findPostgresBin()
    if (!bin) throw new Error('no PostgreSQL binaries (apt-get install postgresql)')
    const server = await startPostgres(bin)
    const storage = createSqlStorage({ driver: await openPostgres(server.url) })
    try {
      await measure('PostgreSQL', storage)
    } finally {
      await storage.close()
      await server.destroy()
    }
  }
}

await main()
