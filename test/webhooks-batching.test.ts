/**
 * Delivery outcomes are recorded in batches (issue 38, finding 3): a runner claims up to
 * `webhooks.batchSize` deliveries of one endpoint, sends them in order and records their outcomes
 * in one write transaction, so under a writer-heavy load a delivery costs a fraction of a write
 * instead of one each (the speed is measured in bench/webhooks.bench.ts, not here). On memory,
 * SQLite and PostgreSQL: the store's writing calls are counted on each, and on SQL the database
 * transactions the driver runs as well, since those are what compete with the API's writers.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile, type SqlDriver } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import type { WebhookStore } from '../src/storage/webhooks.js'
import { makeApp } from './http/harness.js'
import { admin, pgDescribe, schemaStorage } from './support/pg-schema.js'
async function receiver(fail: (n: number) => boolean = () => false) {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push({ headers: req.headers, body })
      res.writeHead(fail(got.length) ? 500 : 200).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

/** Counts the calls of the store's writing methods (each is one write transaction on SQL). */
function countWrites(store: WebhookStore): Record<string, number> {
  const counts: Record<string, number> = {}
  const holder = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const name of ['claim', 'finish', 'release', 'settle', 'updateEndpoint']) {
    const original = holder[name]!.bind(store)
    counts[name] = 0
    holder[name] = (...args) => {
      counts[name]!++
      return original(...args)
    }
  }
  return counts
}

/** Write transactions the SQL drivers of this file ran (tests run one after the other). */
let transactions = 0

/** Counts the driver's write transactions (the object itself, so its other methods stay as they are). */
function countTransactions(driver: SqlDriver): SqlDriver {
  const transaction = driver.transaction.bind(driver)
  driver.transaction = (fn) => {
    transactions++
    return transaction(fn)
  }
  return driver
}

/** Counts what the store and, on SQL, the database write while `fn` runs. */
async function measure(store: WebhookStore, sql: boolean, fn: () => Promise<void>) {
  const calls = countWrites(store)
  const before = transactions
  await fn()
  return { calls, transactions: sql ? transactions - before : null }
}

function batchingSuite(name: string, makeStorage: () => Storage | Promise<Storage>, sql: boolean) {
  describe(`webhook delivery batches [${name}]`, () => {
    it('sends 20 deliveries of one endpoint with one claim and one outcome write, in order, each signed', async () => {
      const r = await receiver()
      const app = await makeApp(makeStorage, { webhooks: { allowPrivate: true, retrySchedule: [0], concurrency: 1 } })
      onTestFinished(() => app.close())
      const e = (await app.post('/webhooks', { url: r.url, events: ['tag.*'] }, { as: 'administrator' })).body
      for (let i = 0; i < 20; i++) await app.post('/tags', { name: `Tag ${i}` }, { as: 'administrator' })
      await app.router.webhooks.run({ maxMs: 0 })
      const writes = await measure(app.storage.webhooks!, sql, async () => {
        expect(await app.router.webhooks.run()).toMatchObject({ attempted: 20, succeeded: 20 })
      })
      // One claim took the batch, an empty one ended the run; the 20 outcomes went in one write.
      expect(writes.calls).toEqual({ claim: 2, finish: 0, release: 0, settle: 1, updateEndpoint: 0 })
      if (sql) expect(writes.transactions).toBe(3)
      const verifier = new Webhook(e.secret)
      const names = r.got.map((g) => (verifier.verify(g.body, g.headers as Record<string, string>) as { data: { name: string } }).data.name)
      expect(names).toEqual(Array.from({ length: 20 }, (_, i) => `Tag ${i}`))
      const log = (await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })).body.deliveries
      expect(log.every((d: { status: string; attempts: number }) => d.status === 'succeeded' && d.attempts === 1)).toBe(true)
    })

    it('a failure ends the batch: its retry is recorded with the successes before it and the rest let go, in one write', async () => {
      const r = await receiver((n) => n === 3)
      const app = await makeApp(makeStorage, {
        webhooks: { allowPrivate: true, retrySchedule: [3600], batchSize: 10, concurrency: 1 },
      })
      onTestFinished(() => app.close())
      const e = (await app.post('/webhooks', { url: r.url, events: ['tag.*'] }, { as: 'administrator' })).body
      for (let i = 0; i < 6; i++) await app.post('/tags', { name: `Tag ${i}` }, { as: 'administrator' })
      await app.router.webhooks.run({ maxMs: 0 })
      const writes = await measure(app.storage.webhooks!, sql, async () => {
        await app.router.webhooks.run()
      })
      // The third failed: two successes, its retry and the release of the three behind it in one
      // write; the next claim (its retry is not due) took those three, recorded in a second write.
      // The endpoint is written when it starts failing and when it recovers.
      expect(r.got).toHaveLength(6)
      expect(writes.calls).toEqual({ claim: 3, finish: 0, release: 0, settle: 2, updateEndpoint: 2 })
      if (sql) expect(writes.transactions).toBe(7)
      const log = (await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })).body.deliveries.reverse()
      expect(log.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([
        ['succeeded', 1],
        ['succeeded', 1],
        ['pending', 1],
        ['succeeded', 1],
        ['succeeded', 1],
        ['succeeded', 1],
      ])
    })
  })
}

batchingSuite('memory', () => createMemoryStorage(), false)

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-batching-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))
batchingSuite(
  'sqlite',
  async () => createSqlStorage({ driver: countTransactions(await openSqliteFile(join(dir, `b${++files}.db`))) }),
  true,
)

afterAll(() => admin?.end())
pgDescribe('postgres', () => batchingSuite('postgres', () => schemaStorage(undefined, countTransactions), true))
