/**
 * Creating a recurring series of 500 occurrences (one POST /events with `recurrence`, one
 * transaction) on SQLite (a better-sqlite3 file) and PostgreSQL (a throwaway server, or
 * CALENDAR_BENCH_DATABASE_URL), through the router in process. Target: <= 150 ms.
 *
 *   node --import tsx bench/recurrence.bench.ts
 *
 * Settings (environment): RECUR_RUNS=15 measured creations after RECUR_WARMUP=3;
 * RECUR_ENGINES=sqlite,postgres; RECUR_OCCURRENCES=500.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createCalendarRouter } from '../src/index.js'
import { createSqlStorage, openSqliteFile, pgDriver, type SqlStorage } from '../src/storage/sql/index.js'
import { findPostgresBin, startPostgres, type PgServer } from '../test/support/postgres-server.js'

const env = process.env
const RUNS = Number(env.RECUR_RUNS ?? 15)
const WARMUP = Number(env.RECUR_WARMUP ?? 3)
const ENGINES = (env.RECUR_ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim())
const OCCURRENCES = Number(env.RECUR_OCCURRENCES ?? 500)

async function measure(label: string, storage: SqlStorage): Promise<void> {
  await storage.migrate()
  const router = createCalendarRouter(storage, {
    authenticate: () => ({ id: 1, role: 'administrator' }),
    now: () => new Date('2026-11-21T12:00:00Z'),
    cache: undefined,
  })
  const times: number[] = []
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const body = JSON.stringify({
      title: `Daily standup ${i}`,
      description: '<p>Fifteen minutes, every weekday.</p>',
      start_date: '2027-01-04 09:00:00',
      end_date: '2027-01-04 09:15:00',
      timezone: 'Europe/Berlin',
      categories: ['Meetings'],
      recurrence: `FREQ=DAILY;COUNT=${OCCURRENCES}`,
    })
    const t0 = performance.now()
    const res = await router.fetch(
      new Request('http://localhost/wp-json/calendar/events/v1/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    )
    const ms = performance.now() - t0
    if (res.status !== 201) throw new Error(`${label}: ${res.status} ${await res.text()}`)
    if (i >= WARMUP) times.push(ms)
  }
  times.sort((a, b) => a - b)
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1)
  console.log(
    `${label.padEnd(12)} ${OCCURRENCES} occurrences: median ${q(0.5)} ms, p90 ${q(0.9)} ms, min ${q(0)} ms, max ${q(1)} ms (${RUNS} runs)`,
  )
}

async function main() {
  if (ENGINES.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'calendar-recur-'))
    try {
      const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'bench.db')) })
      await measure('SQLite', storage)
      await storage.close?.()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  if (ENGINES.includes('postgres')) {
    let server: PgServer | null = null
    let url = env.CALENDAR_BENCH_DATABASE_URL ?? ''
    if (!url) {
      const bin = findPostgresBin()
      if (!bin) return console.log('PostgreSQL: skipped (no binaries and no CALENDAR_BENCH_DATABASE_URL)')
      server = await startPostgres(bin)
      url = server.url
    }
    const schema = `calendar_recur_${process.pid}`
    const admin = new pg.Pool({ connectionString: url, max: 1 })
    await admin.query(`CREATE SCHEMA ${schema}`)
    const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` })
    try {
      await measure('PostgreSQL', createSqlStorage({ driver: pgDriver(pool) }))
    } finally {
      await pool.end()
      await admin.query(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
      await server?.destroy()
    }
  }
}

await main()
