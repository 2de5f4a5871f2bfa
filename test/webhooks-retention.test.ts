/**
 * Webhook deliveries stay bounded (issue 38, finding 1), over HTTP on memory, SQLite and
 * PostgreSQL: finished deliveries are removed past `webhooks.retentionDays` and beyond the
 * newest `webhooks.keepPerEndpoint` per endpoint by `router.compactJournal()` (pending ones stay
 * and are still sent), the log keeps status, attempts and the answer's start of what it holds, and
 * a replay never copies earlier replays, queues a delivery once while its replay is pending and
 * queues at most REPLAY_LIMIT per call (fast-check: any sequence of writes, runs and replays).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { REPLAY_LIMIT } from '../src/resources/webhooks.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import type { CalendarOptions } from '../src/options.js'
import { makeApp, type App } from './http/harness.js'
import { admin, pgDescribe, schemaStorage } from './support/pg-schema.js'

/** A receiver on 127.0.0.1 answering 200 with a body, counting what it got. */
async function receiver() {
  const got: string[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push(body)
      res.writeHead(200).end(`received ${got.length}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

const FAST: CalendarOptions['webhooks'] = { allowPrivate: true, retrySchedule: [0], timeoutMs: 2000 }

async function open(makeStorage: () => Storage | Promise<Storage>, webhooks: CalendarOptions['webhooks'] = {}): Promise<App> {
  const app = await makeApp(makeStorage, { webhooks: { ...FAST, ...webhooks } })
  onTestFinished(() => app.close())
  return app
}

async function endpoint(app: App, url: string): Promise<number> {
  const res = await app.post('/webhooks', { url, events: ['event.*'] }, { as: 'administrator' })
  expect(res.status, res.text).toBe(201)
  return res.body.id as number
}

async function writeEvents(app: App, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await app.seed({ title: `Change ${i}` })
}

async function log(app: App, id: number): Promise<{ total: number; deliveries: any[] }> {
  const res = await app.get(`/webhooks/${id}/deliveries`, { as: 'administrator' })
  expect(res.status).toBe(200)
  return res.body
}

/** Every delivery of the endpoint's log, page after page. */
async function everything(app: App, id: number): Promise<any[]> {
  const all: any[] = []
  for (let page = 1; ; page++) {
    const res = await app.get(`/webhooks/${id}/deliveries?page=${page}`, { as: 'administrator' })
    all.push(...res.body.deliveries)
    if (page >= res.body.total_pages) return all
  }
}

const SINCE = '2000-01-01 00:00:00'

function retentionSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`webhook retention and replay [${name}]`, () => {
    it('compactJournal removes finished deliveries beyond the newest keepPerEndpoint; pending ones stay and are sent', async () => {
      const r = await receiver()
      const app = await open(makeStorage, { keepPerEndpoint: 3 })
      const id = await endpoint(app, r.url)
      await writeEvents(app, 6)
      expect(await app.router.webhooks.run()).toMatchObject({ attempted: 6, succeeded: 6 })
      // Two more changes, dispatched but not yet sent when the host's daily job runs.
      await writeEvents(app, 2)
      await app.router.webhooks.run({ maxMs: 0 })
      expect((await log(app, id)).total).toBe(8)
      const compacted = await app.router.compactJournal()
      expect(compacted.deliveriesRemoved).toBe(3)
      const kept = await log(app, id)
      expect(kept.total).toBe(5)
      expect(kept.deliveries.map((d) => d.status)).toEqual(['pending', 'pending', 'succeeded', 'succeeded', 'succeeded'])
      // What an operator debugs with stays on every kept delivery.
      for (const d of kept.deliveries.slice(2)) {
        expect(d).toMatchObject({ attempts: 1, last_status: 200, last_response: expect.stringMatching(/^received \d+$/) })
      }
      expect(await app.router.webhooks.run()).toMatchObject({ attempted: 2, succeeded: 2 })
      expect(r.got).toHaveLength(8)
    })

    it('compactJournal removes finished deliveries older than retentionDays', async () => {
      const r = await receiver()
      // A retention of a few microseconds: everything finished before the job is old.
      const app = await open(makeStorage, { retentionDays: 1e-10 })
      const id = await endpoint(app, r.url)
      await writeEvents(app, 3)
      await app.router.webhooks.run()
      await new Promise((resolve) => setTimeout(resolve, 5))
      expect((await app.router.compactJournal()).deliveriesRemoved).toBe(3)
      expect((await log(app, id)).total).toBe(0)
    })

    it('a replay never copies earlier replays, and asked twice queues what asking once did', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      const id = await endpoint(app, r.url)
      await writeEvents(app, 4)
      await app.router.webhooks.run()
      const replay = () => app.post(`/webhooks/${id}/replay`, { since: SINCE }, { as: 'administrator' })
      const first = await replay()
      expect(first.body).toMatchObject({ replayed: 4, more: false })
      expect((await replay()).body).toMatchObject({ replayed: 0, deliveries: [] })
      const entries = (await log(app, id)).deliveries
      expect(entries.filter((d) => d.replay_of !== null)).toHaveLength(4)
      await app.router.webhooks.run()
      // The replays have been sent: replaying again sends the four originals, not eight.
      expect((await replay()).body).toMatchObject({ replayed: 4 })
      // One delivery, named by its replay: its original is queued, once.
      const aReplay = (await log(app, id)).deliveries.find((d) => d.replay_of !== null && d.status === 'succeeded')
      await app.router.webhooks.run()
      const one = await app.post(`/webhooks/${id}/replay`, { delivery: aReplay.id }, { as: 'administrator' })
      expect(one.body.replayed).toBe(1)
      const made = (await log(app, id)).deliveries.find((d) => d.id === one.body.deliveries[0])
      expect(made.replay_of).toBe(aReplay.replay_of)
      expect((await app.post(`/webhooks/${id}/replay`, { delivery: aReplay.id }, { as: 'administrator' })).body.replayed).toBe(0)
    })

    it(`a replay queues at most ${REPLAY_LIMIT} deliveries and says when more are left`, async () => {
      const app = await open(makeStorage)
      const id = await endpoint(app, 'http://127.0.0.1:9/never')
      const at = new Date().toISOString()
      const many = Array.from({ length: REPLAY_LIMIT + 1 }, (_, i) => ({
        id: `msg_bulk${String(i).padStart(5, '0')}`,
        endpointId: id,
        type: 'event.updated',
        payload: '{}',
        nextAttemptAt: null,
        created: at,
      }))
      await app.storage.webhooks!.addDeliveries(many)
      const replay = () => app.post(`/webhooks/${id}/replay`, { since: SINCE }, { as: 'administrator' })
      expect((await replay()).body).toMatchObject({ replayed: REPLAY_LIMIT, more: true })
      expect((await replay()).body).toMatchObject({ replayed: 1, more: false })
      expect((await replay()).body).toMatchObject({ replayed: 0, more: false })
    })

    it('property: replays stay bounded by the originals, whatever the sequence of writes, runs and replays', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      const id = await endpoint(app, r.url)
      const step = fc.oneof(
        fc.record({ op: fc.constant('write' as const), n: fc.integer({ min: 1, max: 2 }) }),
        fc.record({ op: fc.constant('run' as const) }),
        fc.record({ op: fc.constant('replay' as const), twice: fc.boolean() }),
      )
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
          for (const s of steps) {
            if (s.op === 'write') await writeEvents(app, s.n)
            else if (s.op === 'run') await app.router.webhooks.run()
            else {
              await app.router.webhooks.run({ maxMs: 0 })
              const once = await app.post(`/webhooks/${id}/replay`, { since: SINCE }, { as: 'administrator' })
              const originals = (await everything(app, id)).filter((d) => d.replay_of === null).length
              expect(once.body.replayed).toBeLessThanOrEqual(originals)
              if (s.twice) {
                // Replaying twice is replaying once.
                expect((await app.post(`/webhooks/${id}/replay`, { since: SINCE }, { as: 'administrator' })).body.replayed).toBe(0)
              }
            }
            // However it came about, at most one pending replay per original.
            const pending = (await everything(app, id))
              .filter((d) => d.replay_of !== null && d.status === 'pending')
              .map((d) => d.replay_of)
            expect(new Set(pending).size).toBe(pending.length)
          }
        }),
        { numRuns: 8 },
      )
    })
  })
}

retentionSuite('memory', () => createMemoryStorage())

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-retention-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))
retentionSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `r${files++}.db`)) }))

afterAll(() => admin?.end())
pgDescribe('postgres', () => retentionSuite('postgres', () => schemaStorage()))
