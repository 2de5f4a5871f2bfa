/**
 * Storage faults seen over HTTP: PostgreSQL stopped mid-run and a SQLite file locked by another
 * process give 503 storage_unavailable JSON, the process keeps serving, and full service
 * returns without a restart once the database is back.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCalendarRouter } from '../src/index.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../src/storage/sql/index.js'
import { authenticate } from './http/harness.js'
import { findPostgresBin, startPostgres } from './support/postgres-server.js'
import { inCi } from './support/postgres-setup.js'

export const faultStats = { injected: 0 }

const dir = mkdtempSync(join(tmpdir(), 'calendar-faults-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const API = 'http://127.0.0.1/wp-json/calendar/events/v1'
const EVENT = { title: 'Gig', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00' }

function client(router: ReturnType<typeof createCalendarRouter>) {
  return {
    get: (path: string) => router.fetch(new Request(`${API}${path}`)),
    create: (title = 'Gig') =>
      router.fetch(
        new Request(`${API}/events`, {
          method: 'POST',
          headers: { authorization: 'Bearer administrator', 'content-type': 'application/json' },
          body: JSON.stringify({ ...EVENT, title }),
        }),
      ),
  }
}

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503)
  expect(res.headers.get('content-type')).toContain('application/json')
  const body = (await res.json()) as { code: string; data: { status: number } }
  expect(body.code).toBe('storage_unavailable')
  expect(body.data.status).toBe(503)
  // A real outage, not a faked one: clients are still told when trying again makes sense.
  const retry = res.headers.get('retry-after')
  expect(Number.isInteger(Number(retry)) && Number(retry) > 0, `Retry-After ${retry}`).toBe(true)
}

const bin = findPostgresBin()
if (!bin && inCi()) throw new Error('PostgreSQL binaries are required in CI for the fault tests')

describe('storage faults over HTTP', () => {
  it.runIf(bin !== null)('PostgreSQL stopped mid-run: 503 JSON, then full service once it is back, with no restart', async () => {
    const server = await startPostgres(bin as string)
    const errors: unknown[] = []
    try {
      const storage = createSqlStorage({ driver: await openPostgres(server.url) })
      const api = client(createCalendarRouter(storage, { authenticate, onError: (e) => void errors.push(e) }))
      expect((await api.create('Before')).status).toBe(201)

      await server.stop()
      faultStats.injected++
      await expectUnavailable(await api.get('/events'))
      await expectUnavailable(await api.create('During'))
      await expectUnavailable(await api.get('/venues'))

      await server.start()
      const after = await api.create('After')
      expect(after.status).toBe(201)
      const list = (await (await api.get('/events?start_date=2026-01-01')).json()) as { events: Array<{ title: string }> }
      expect(list.events.map((e) => e.title)).toEqual(['Before', 'After'])
      expect(errors.length).toBeGreaterThan(0)
      await storage.close()
    } finally {
      await server.destroy()
    }
  })

  it('SQLite file locked by another process: 503 after the busy timeout, never a crash, then service again', async () => {
    const file = join(dir, 'locked.db')
    const storage = createSqlStorage({ driver: await openSqliteFile(file, { busyTimeoutMs: 300 }) })
    const api = client(createCalendarRouter(storage, { authenticate }))
    expect((await api.create('Before')).status).toBe(201)

    // Another process takes the write lock and holds it until told to let go.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)});
         db.exec('BEGIN EXCLUSIVE'); process.stdout.write('locked\\n');
         process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0) })`,
      ],
      { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
    )
    await new Promise<void>((resolve, reject) => {
      holder.stdout.once('data', () => resolve())
      holder.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)))
    })
    faultStats.injected++
    const started = Date.now()
    await expectUnavailable(await api.create('During'))
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)

    holder.stdin.write('release\n')
    await new Promise((resolve) => holder.once('exit', resolve))
    expect((await api.create('After')).status).toBe(201)
    const list = (await (await api.get('/events?start_date=2026-01-01')).json()) as { events: Array<{ title: string }> }
    expect(list.events.map((e) => e.title)).toEqual(['Before', 'After'])
    await storage.close()
  })

  it('an unopenable SQLite path is a clear start-up error, not a hang', async () => {
    await expect(openSqliteFile(join(dir, 'no', 'such', 'dir', 'x.db'))).rejects.toThrow()
  })
})
