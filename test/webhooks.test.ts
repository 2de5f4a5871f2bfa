/**
 * Webhooks end to end, on memory, SQLite and PostgreSQL: endpoints managed by administrators
 * (and refused to everyone else), deliveries made from the change journal and verified with the
 * `standardwebhooks` package (a receiver nobody on this project wrote), retries on 500, 429 with
 * Retry-After and timeouts, 410 disabling the endpoint, secret rotation, replay and ping, SSRF
 * refusals, and two routers on one database delivering each change once.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { createCalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import type { CalendarOptions } from '../src/options.js'
import { expectInvalid, makeApp, type App } from './http/harness.js'
import { admin, pgDescribe, schemaStorage } from './support/pg-schema.js'

interface Received {
  headers: http.IncomingHttpHeaders
  body: string
}

/** A receiver on 127.0.0.1 answering each request with what `answer` says (in order, then 200). */
async function receiver(answers: Array<{ status: number; headers?: Record<string, string>; hang?: boolean; delayMs?: number }> = []) {
  const got: Received[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      got.push({ headers: req.headers, body })
      const a = answers.shift() ?? { status: 200 }
      if (a.hang) return
      setTimeout(() => {
        res.writeHead(a.status, a.headers ?? {})
        res.end('thanks')
      }, a.delayMs ?? 0)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  onTestFinished(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url, got }
}

const EVENT = { title: 'Hooked', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00', status: 'publish' }

const FAST: CalendarOptions['webhooks'] = { allowPrivate: true, retrySchedule: [0, 0, 0], timeoutMs: 2000 }

async function open(makeStorage: () => Storage | Promise<Storage>, webhooks: CalendarOptions['webhooks'] = FAST): Promise<App> {
  const app = await makeApp(makeStorage, { webhooks })
  onTestFinished(() => app.close())
  return app
}

async function endpoint(app: App, url: string, body: Record<string, unknown> = {}) {
  const res = await app.post('/webhooks', { url, ...body }, { as: 'administrator' })
  expect(res.status, res.text).toBe(201)
  return res.body as { id: number; secret: string; events: string[] }
}

function webhooksSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`webhooks [${name}]`, () => {
    it('administrators manage endpoints; anyone else gets 401 or 403; bad input is a 400 naming the field', async () => {
      const app = await open(makeStorage, { allowPrivate: false })
      expect((await app.get('/webhooks')).status).toBe(401)
      expect((await app.get('/webhooks', { as: 'editor' })).status).toBe(403)
      expect((await app.post('/webhooks', { url: 'https://example.com/h' }, { as: 'editor' })).status).toBe(403)
      for (const [body, param] of [
        [{ url: 'ftp://example.com/h' }, 'url'],
        [{ url: 'http://127.0.0.1:9/h' }, 'url'],
        [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
        [{ url: 'http://[::1]/h' }, 'url'],
        [{ url: 'http://10.1.2.3/h' }, 'url'],
        [{ url: 'https://example.com/h', events: ['event.exploded'] }, 'events'],
        [{ url: 'https://example.com/h', events: ['*', 'nonsense'] }, 'events'],
        [{ url: 'https://example.com/h', enabled: 'maybe' }, 'enabled'],
      ] as const) {
        const res = await app.post('/webhooks', body, { as: 'administrator' })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(Object.keys(res.body.data.params)).toContain(param)
      }
      expect((await app.get('/webhooks', { as: 'administrator' })).body.total).toBe(0)
    })

    it('an endpoint url is stored in its serialized form; a control character is a 400 naming url, on create and on update', async () => {
      const app = await open(makeStorage)
      const made = await endpoint(app, 'https://Hooks.EXAMPLE/a b/"q"/<t>?x=<y>')
      const serialized = 'https://hooks.example/a%20b/%22q%22/%3Ct%3E?x=%3Cy%3E'
      expect(made).toMatchObject({ url: serialized })
      expect((await app.get(`/webhooks/${made.id}`, { as: 'administrator' })).body.url).toBe(serialized)
      for (const sent of ['https://x.test/\r\nX-INJ:1', 'https://x.test/a\tb', '\nhttps://x.test/', 'https://x.test/\u007f']) {
        for (const res of [
          await app.post('/webhooks', { url: sent }, { as: 'administrator' }),
          await app.patch(`/webhooks/${made.id}`, { url: sent }, { as: 'administrator' }),
        ]) {
          expectInvalid(res, ['url'])
          expect(res.body.data.params.url, JSON.stringify(sent)).toMatch(/control character/)
        }
      }
      const patched = await app.patch(`/webhooks/${made.id}`, { url: 'https://Other.example/<p>' }, { as: 'administrator' })
      expect(patched.status, patched.text).toBe(200)
      expect(patched.body.url).toBe('https://other.example/%3Cp%3E')
      const listed = (await app.get('/webhooks', { as: 'administrator' })).body
      expect(listed.webhooks.map((w: { url: string }) => w.url)).toEqual(['https://other.example/%3Cp%3E'])
    })

    it('an endpoint declared in the options is checked as a URL field and kept in its serialized form, also one kept before as given', async () => {
      // Checked when the router is made, as the other options are (no storage involved).
      for (const url of ['https://x.test/\r\nX-INJ:1', 'ftp://x.test/hook', 'not a url']) {
        expect(() => createCalendarRouter(createMemoryStorage(), { webhooks: { endpoints: [{ url }] } }), JSON.stringify(url)).toThrow(
          /webhooks\.endpoints\[0\]\.url .*(control character|http or https)/,
        )
      }
      const sent = 'https://Hooks.EXAMPLE/a b/<t>'
      const app = await open(makeStorage, { ...FAST, endpoints: [{ url: sent, events: ['tag.*'] }] })
      // Declared by an earlier version, which kept the URL as given: the same endpoint, not a second one.
      const kept = await app.storage.webhooks!.insertEndpoint({
        url: sent,
        events: ['*'],
        description: '',
        enabled: true,
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        previousSecret: null,
        previousSecretUntil: null,
        disabledReason: null,
        failingSince: null,
        declared: true,
        created: new Date().toISOString(),
        modified: new Date().toISOString(),
      })
      await app.router.webhooks.run()
      const listed = (await app.get('/webhooks', { as: 'administrator' })).body.webhooks
      expect(listed).toEqual([
        expect.objectContaining({ id: kept.id, url: 'https://hooks.example/a%20b/%3Ct%3E', events: ['tag.*'], declared: true }),
      ])
    })

    it('delivers each change, signed as Standard Webhooks says, with the record as an administrator reads it', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      const e = await endpoint(app, r.url, { events: ['event.*'] })
      expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      const made = (await app.post('/events', { ...EVENT, venue: { venue: 'Hall' } }, { as: 'administrator' })).body
      await app.patch(`/events/${made.id}`, { title: 'Renamed' }, { as: 'administrator' })
      await app.del(`/events/${made.id}`, { as: 'administrator' })
      const report = await app.router.webhooks.run()
      expect(report).toMatchObject({ attempted: 3, succeeded: 3 })
      // The venue was created too, but this endpoint asked for events only.
      const verifier = new Webhook(e.secret)
      const payloads = r.got.map((g) => verifier.verify(g.body, g.headers as Record<string, string>) as { type: string; data: any })
      expect(payloads.map((p) => p.type)).toEqual(['event.created', 'event.updated', 'event.deleted'])
      // Made after all three writes: each carries the record as it then was, with its revision.
      expect(payloads[0]!.data).toMatchObject({ id: made.id, title: 'Renamed', revision: expect.any(Number) })
      expect(payloads[0]!.data.venue.venue).toBe('Hall')
      expect(payloads[1]!.data.title).toBe('Renamed')
      expect(payloads[2]!.data).toMatchObject({ id: made.id, kind: 'event', trashed: true })
      // A tampered body or a wrong secret fails verification.
      expect(() => verifier.verify(r.got[0]!.body.replace('Renamed', 'Hacked'), r.got[0]!.headers as Record<string, string>)).toThrow()
      expect(() =>
        new Webhook(`whsec_${btoa('x'.repeat(32))}`).verify(r.got[0]!.body, r.got[0]!.headers as Record<string, string>),
      ).toThrow()
      // Nothing left to send.
      expect(await app.router.webhooks.run()).toMatchObject({ attempted: 0 })
      const log = await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })
      expect(log.body.total).toBe(3)
      expect(
        log.body.deliveries.every(
          (d: { status: string; attempts: number; last_status: number }) =>
            d.status === 'succeeded' && d.attempts === 1 && d.last_status === 200,
        ),
      ).toBe(true)
    })

    it('a change whose record is gone before dispatch still gets its delivery: created, updated and deleted all arrive', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      const e = await endpoint(app, r.url, { events: ['event.*'] })
      const made = (await app.post('/events', EVENT, { as: 'administrator' })).body
      expect((await app.patch(`/events/${made.id}`, { title: 'Renamed' }, { as: 'administrator' })).status).toBe(200)
      expect((await app.del(`/events/${made.id}?force=true`, { as: 'administrator' })).status).toBe(200)
      // Nothing was dispatched before the record vanished.
      expect(await app.router.webhooks.run()).toMatchObject({ attempted: 3, succeeded: 3 })
      const verifier = new Webhook(e.secret)
      const payloads = r.got.map((g) => verifier.verify(g.body, g.headers as Record<string, string>) as { type: string; data: any })
      expect(payloads.map((p) => p.type)).toEqual(['event.created', 'event.updated', 'event.deleted'])
      // The record is gone when the first two are made: each says so, with the revision its change reached.
      expect(payloads[0]!.data).toEqual({ id: made.id, kind: 'event', revision: expect.any(Number), deleted: true })
      expect(payloads[1]!.data).toEqual({ id: made.id, kind: 'event', revision: expect.any(Number), deleted: true })
      expect(payloads[1]!.data.revision).toBeGreaterThan(payloads[0]!.data.revision)
      expect(payloads[2]!.data).toMatchObject({ id: made.id, kind: 'event', trashed: false })
      expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(3)
    })

    it('retries 500, 429 (after Retry-After) and timeouts with the same webhook-id, and stops at 410', async () => {
      const r = await receiver([{ status: 500 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 0, hang: true }])
      // Retries: at once, at once, then after 30 s.
      const app = await open(makeStorage, { ...FAST, retrySchedule: [0, 0, 30], timeoutMs: 300 })
      const e = await endpoint(app, r.url)
      await app.post('/tags', { name: 'Retry me' }, { as: 'administrator' })
      await app.router.webhooks.run() // 500, then at once 429: the next waits for Retry-After
      expect(r.got.length).toBe(2)
      expect((await app.router.webhooks.run()).attempted).toBe(0) // not yet due
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await app.router.webhooks.run() // hangs: timed out, next in 30 s
      expect(r.got.length).toBe(3)
      const [d] = (await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })).body.deliveries
      expect(d).toMatchObject({ status: 'pending', attempts: 3, last_status: null })
      expect(d.last_response).toMatch(/timed out/)
      expect(Date.parse(d.next_attempt_at) - Date.now()).toBeGreaterThan(20_000)
      expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(1)
      expect((await app.get(`/webhooks/${e.id}`, { as: 'administrator' })).body.failing_since).toBeTruthy()
      // 410: the endpoint is disabled, with the reason, and gets nothing more.
      const gone = await receiver([{ status: 410 }])
      const g = await endpoint(app, gone.url)
      await app.post('/tags', { name: 'Gone' }, { as: 'administrator' })
      await app.router.webhooks.run()
      const after = (await app.get(`/webhooks/${g.id}`, { as: 'administrator' })).body
      expect(after).toMatchObject({ enabled: false, disabled_reason: 'gone' })
      await app.post('/tags', { name: 'After' }, { as: 'administrator' })
      await app.router.webhooks.run()
      expect(gone.got.length).toBe(1)
    })

    it('gives up after the schedule; a rotated secret signs beside the old one; replay and ping send again', async () => {
      const r = await receiver([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }])
      const app = await open(makeStorage)
      const e = await endpoint(app, r.url)
      await app.post('/categories', { name: 'Failing' }, { as: 'administrator' })
      for (let i = 0; i < 5; i++) await app.router.webhooks.run()
      const failed = (await app.get(`/webhooks/${e.id}/deliveries`, { as: 'administrator' })).body.deliveries[0]
      expect(failed).toMatchObject({ status: 'failed', attempts: 4, last_status: 503 })
      const rotated = (await app.patch(`/webhooks/${e.id}`, { rotate_secret: true }, { as: 'administrator' })).body
      expect(rotated.secret).not.toBe(e.secret)
      expect(rotated.previous_secret_expires).toBeTruthy()
      const replay = await app.post(`/webhooks/${e.id}/replay`, { delivery: failed.id }, { as: 'administrator' })
      expect(replay.body.replayed).toBe(1)
      expect((await app.post(`/webhooks/${e.id}/ping`, {}, { as: 'administrator' })).status).toBe(201)
      await app.router.webhooks.run()
      const [again, ping] = r.got.slice(4)
      for (const secret of [e.secret, rotated.secret]) {
        expect(new Webhook(secret).verify(again!.body, again!.headers as Record<string, string>)).toMatchObject({
          type: 'category.created',
        })
      }
      expect(again!.headers['webhook-id']).not.toBe(r.got[0]!.headers['webhook-id'])
      expect(new Webhook(rotated.secret).verify(ping!.body, ping!.headers as Record<string, string>)).toMatchObject({
        type: 'webhook.ping',
      })
      expect((await app.del(`/webhooks/${e.id}`, { as: 'administrator' })).status).toBe(200)
      expect((await app.get(`/webhooks/${e.id}`, { as: 'administrator' })).status).toBe(404)
    })

    it('disables an endpoint failing for disableAfterDays, and follows no redirect', async () => {
      const failing = await receiver([{ status: 500 }, { status: 500 }, { status: 500 }])
      // One attempt per change here (the retry is an hour away): failing since the first.
      const app = await open(makeStorage, { ...FAST, retrySchedule: [3600], disableAfterDays: 1 / 86_400 })
      const e = await endpoint(app, failing.url)
      await app.post('/tags', { name: 'One' }, { as: 'administrator' })
      await app.router.webhooks.run()
      expect((await app.get(`/webhooks/${e.id}`, { as: 'administrator' })).body).toMatchObject({ enabled: true })
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await app.post('/tags', { name: 'Two' }, { as: 'administrator' })
      await app.router.webhooks.run()
      expect((await app.get(`/webhooks/${e.id}`, { as: 'administrator' })).body).toMatchObject({
        enabled: false,
        disabled_reason: 'failing',
      })
      // A redirect is an answer like any other: not followed, not a success.
      const elsewhere = await receiver()
      const moved = await receiver([{ status: 302, headers: { location: elsewhere.url } }])
      const m = await endpoint(app, moved.url)
      await app.post('/tags', { name: 'Three' }, { as: 'administrator' })
      await app.router.webhooks.run()
      expect(elsewhere.got).toEqual([])
      expect((await app.get(`/webhooks/${m.id}/deliveries`, { as: 'administrator' })).body.deliveries[0]).toMatchObject({
        status: 'pending',
        last_status: 302,
      })
    })

    it('one slow receiver never delays another endpoint', async () => {
      const slow = await receiver([{ status: 0, hang: true }])
      const fast = await receiver()
      const app = await open(makeStorage, { ...FAST, timeoutMs: 5000 })
      await endpoint(app, slow.url)
      await endpoint(app, fast.url)
      await app.router.webhooks.start()
      onTestFinished(() => app.router.webhooks.stop())
      await app.post('/tags', { name: 'First' }, { as: 'administrator' })
      const t0 = Date.now()
      while (slow.got.length === 0 && Date.now() - t0 < 3000) await new Promise((resolve) => setTimeout(resolve, 10))
      // The slow endpoint now holds its request open; the fast one gets this and the next change.
      await app.post('/tags', { name: 'Second' }, { as: 'administrator' })
      while (fast.got.length < 2 && Date.now() - t0 < 3000) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(fast.got.length).toBe(2)
      expect(Date.now() - t0).toBeLessThan(2500)
    })

    it('stop() waits for the attempt under way, records it, and lets the rest of its chain go', async () => {
      const slow = await receiver([{ status: 200, delayMs: 400 }])
      const app = await open(makeStorage)
      const hook = await endpoint(app, slow.url)
      await app.post('/tags', { name: 'First' }, { as: 'administrator' })
      await app.post('/tags', { name: 'Second' }, { as: 'administrator' })
      await app.router.webhooks.start()
      const t0 = Date.now()
      while (slow.got.length === 0 && Date.now() - t0 < 3000) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(slow.got.length).toBe(1)
      await app.router.webhooks.stop()
      // The first attempt ended and was recorded before stop() resolved; the second was never sent.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(350)
      const list = (await app.get(`/webhooks/${hook.id}/deliveries`, { as: 'administrator' })).body.deliveries as Array<{
        status: string
        attempts: number
      }>
      expect(list.map((d) => d.status).sort()).toEqual(['pending', 'succeeded'])
      expect(list.find((d) => d.status === 'pending')?.attempts).toBe(0)
      expect(slow.got.length).toBe(1)
    })

    it('the background runner delivers right after a commit', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      await endpoint(app, r.url)
      await app.router.webhooks.start()
      onTestFinished(() => app.router.webhooks.stop())
      const t0 = Date.now()
      await app.post('/events', EVENT, { as: 'administrator' })
      while (r.got.length === 0 && Date.now() - t0 < 5000) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(r.got.length).toBe(1)
      expect(Date.now() - t0).toBeLessThan(900)
      expect((JSON.parse(r.got[0]!.body) as { data: { title: string } }).data.title).toBe('Hooked')
    })

    it('the background runner sends while commits keep coming faster than it dispatches them', async () => {
      const r = await receiver()
      const app = await open(makeStorage)
      await endpoint(app, r.url)
      // A dispatcher slower than the writers (a loaded host): every commit lands while it reads.
      const readJournal = app.storage.readJournal.bind(app.storage)
      app.storage.readJournal = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 200))
        return readJournal(...args)
      }
      await app.router.webhooks.start()
      onTestFinished(() => app.router.webhooks.stop())
      let during = 0
      // A commit every 10-20 ms for up to 3 s: each read of the journal sees several land.
      for (let i = 0; i < 150 && during === 0; i++) {
        await app.post('/tags', { name: `Steady ${i}` }, { as: 'administrator' })
        await new Promise((resolve) => setTimeout(resolve, 10))
        during = r.got.length
      }
      // Deliveries arrived while the writes went on, not only once they stopped.
      expect(during).toBeGreaterThan(0)
    })
  })
}

webhooksSuite('memory', () => createMemoryStorage())

const dir = mkdtempSync(join(tmpdir(), 'calendar-webhooks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
webhooksSuite('sqlite', async () => createSqlStorage({ driver: await openSqliteFile(join(dir, `w-${++n}.sqlite`)) }))

describe('webhook endpoints declared in the options', () => {
  it('are kept once by URL when two routers on one SQLite file start together, listed and not editable', async () => {
    const r = await receiver()
    const file = join(dir, 'declared.sqlite')
    const options = { ...FAST, endpoints: [{ url: r.url, events: ['tag.*'] }] }
    const a = await open(async () => createSqlStorage({ driver: await openSqliteFile(file) }), options)
    const b = await open(async () => createSqlStorage({ driver: await openSqliteFile(file) }), options)
    await Promise.all([a.router.webhooks.run(), b.router.webhooks.run()])
    const listed = (await a.get('/webhooks', { as: 'administrator' })).body.webhooks
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ url: r.url, declared: true, events: ['tag.*'] })
    expect((await a.patch(`/webhooks/${listed[0].id}`, { enabled: false }, { as: 'administrator' })).status).toBe(403)
    await a.post('/tags', { name: 'Declared' }, { as: 'administrator' })
    await Promise.all([a.router.webhooks.run(), b.router.webhooks.run()])
    expect(r.got).toHaveLength(1)
  })
})

describe('webhooks from two routers on one SQLite file', () => {
  it('deliver each change once per endpoint', async () => {
    const r = await receiver()
    const file = join(dir, 'shared.sqlite')
    const a = await open(async () => createSqlStorage({ driver: await openSqliteFile(file) }))
    const b = await open(async () => createSqlStorage({ driver: await openSqliteFile(file) }))
    await endpoint(a, r.url)
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).post('/tags', { name: `Tag ${i}` }, { as: 'administrator' })
    await Promise.all([a.router.webhooks.run(), b.router.webhooks.run(), a.router.webhooks.run(), b.router.webhooks.run()])
    await Promise.all([a.router.webhooks.run(), b.router.webhooks.run()])
    const types = r.got.map((g) => JSON.parse(g.body) as { type: string; data: { name: string } })
    expect(types.length).toBe(10)
    expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(10)
  })
})

afterAll(() => admin?.end())
pgDescribe('PostgreSQL', () => webhooksSuite('postgres', () => schemaStorage()))
