/**
 * HTTP behaviour beyond the reference: conditional GET, caching headers, CORS, the read cache
 * and the change hook.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { withStorageHooks } from '../../storage/pipeline.js'
import type { CalendarOptions } from '../../options.js'
import { NS, makeApp, type App } from './harness.js'

const EVENT = { title: 'Concert', start_date: '2026-12-01 19:00', end_date: '2026-12-01 22:00' }

export function httpFeaturesSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options: CalendarOptions = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`conditional GET [${name}]`, () => {
    it('sends an ETag on 2xx GET and HEAD (strong for one record, weak for lists), and 304 without a body when it matches', async () => {
      const a = await app()
      const created = await a.post('/events', EVENT, { as: 'administrator' })
      // A write reply carries the record's tag for the caller (conditional-writes.suite.ts).
      expect(created.headers.get('etag')).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/)
      expect((await a.get('/events')).headers.get('etag')).toMatch(/^W\/"[0-9a-z]+-[0-9a-z]+"$/)
      const first = await a.get(`/events/${created.body.id}`)
      const etag = first.headers.get('etag')
      expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/)
      expect((await a.head(`/events/${created.body.id}`)).headers.get('etag')).toBe(etag)
      const again = await a.get(`/events/${created.body.id}`, { headers: { 'if-none-match': etag! } })
      expect(again.status).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      // Weak comparison, lists and `*` match; another tag does not.
      expect((await a.get(`/events/${created.body.id}`, { headers: { 'if-none-match': `"x", W/${etag!}` } })).status).toBe(304)
      expect((await a.get(`/events/${created.body.id}`, { headers: { 'if-none-match': '*' } })).status).toBe(304)
      expect((await a.get(`/events/${created.body.id}`, { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200)
    })

    it('changes the ETag when the representation changes, and never marks errors', async () => {
      const a = await app()
      const created = await a.post('/events', EVENT, { as: 'administrator' })
      const before = (await a.get('/events')).headers.get('etag')
      await a.patch(`/events/${created.body.id}`, { title: 'Renamed' }, { as: 'administrator' })
      const after = await a.get('/events', { headers: { 'if-none-match': before! } })
      expect(after.status).toBe(200)
      expect(after.headers.get('etag')).not.toBe(before)
      expect((await a.get('/events/999999')).headers.get('etag')).toBeNull()
    })

    it('lets CDNs cache anonymous reads only; signed-in responses are private and no-store', async () => {
      const a = await app()
      const anon = await a.get('/events')
      expect(anon.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate')
      expect(anon.headers.get('vary')).toContain('Authorization')
      const admin = await a.get('/events', { as: 'administrator' })
      expect(admin.headers.get('cache-control')).toContain('no-store')
      expect(admin.headers.get('cache-control')).toContain('private')
      const custom = await app({ cacheControl: 'public, s-maxage=30' })
      expect((await custom.get('/events')).headers.get('cache-control')).toBe('public, s-maxage=30')
    })
  })

  describe(`read cache [${name}]`, () => {
    it('never serves a stale read after a write in the same process', async () => {
      const a = await app({ cache: { ttlMs: 60_000 } })
      const created = await a.post('/events', EVENT, { as: 'administrator' })
      expect((await a.get(`/events/${created.body.id}`)).body.title).toBe('Concert')
      expect((await a.get('/events')).body.total).toBe(1)
      await a.patch(`/events/${created.body.id}`, { title: 'Renamed' }, { as: 'administrator' })
      expect((await a.get(`/events/${created.body.id}`)).body.title).toBe('Renamed')
      await a.post('/events', { ...EVENT, title: 'Second' }, { as: 'administrator' })
      expect((await a.get('/events')).body.total).toBe(2)
      await a.del(`/events/${created.body.id}`, { as: 'administrator' })
      expect((await a.get(`/events/${created.body.id}`)).status).toBe(403)
    })

    it('never serves a privileged response to an anonymous caller, nor the reverse', async () => {
      const a = await app({ cache: {} })
      await a.post('/events', { ...EVENT, status: 'draft', title: 'Secret draft' }, { as: 'administrator' })
      const admin = await a.get('/events', { as: 'administrator' })
      expect(admin.body.total).toBe(1)
      const anon = await a.get('/events')
      expect(anon.body.total).toBe(0)
      expect(anon.text).not.toContain('Secret draft')
      expect((await a.get('/events', { as: 'administrator' })).body.total).toBe(1)
    })

    it('serves repeated anonymous reads from the cache (storage is not asked again)', async () => {
      let listCalls = 0
      const counting = async () => {
        const s = await makeStorage()
        return withStorageHooks(s, [{ read: (op, next) => (op.name === 'listEvents' && listCalls++, next(op)) }])
      }
      const a = await makeApp(counting, { cache: {} })
      onTestFinished(() => a.close())
      const first = await a.get('/events')
      const second = await a.get('/events')
      expect(second.text).toBe(first.text)
      expect(second.headers.get('etag')).toBe(first.headers.get('etag'))
      expect(listCalls).toBe(1)
      expect((await a.get('/events', { headers: { 'if-none-match': first.headers.get('etag')! } })).status).toBe(304)
    })
  })

  describe(`change hook [${name}]`, () => {
    it('reports every committed write, including records created alongside an event', async () => {
      const seen: unknown[] = []
      const a = await app({ onChange: (c) => void seen.push(c) })
      const venue = await a.post('/venues', { venue: 'Hall' }, { as: 'administrator' })
      const event = await a.post('/events', { ...EVENT, venue: venue.body.id, categories: ['New Cat'] }, { as: 'administrator' })
      await a.patch(`/events/${event.body.id}`, { title: 'X' }, { as: 'administrator' })
      await a.del(`/events/${event.body.id}`, { as: 'administrator' })
      await new Promise((r) => setTimeout(r, 0))
      expect(seen).toEqual([
        { type: 'venue', action: 'create', id: venue.body.id, language: 'en', revision: 0 },
        { type: 'category', action: 'create', id: event.body.categories[0].id, language: 'en', revision: 0 },
        { type: 'event', action: 'create', id: event.body.id, language: 'en', revision: expect.any(Number) },
        { type: 'event', action: 'update', id: event.body.id, language: 'en', revision: expect.any(Number) },
        { type: 'event', action: 'delete', id: event.body.id, language: 'en', revision: expect.any(Number) },
        // The trashed event no longer counts in its category: the category changed too.
        { type: 'category', action: 'update', id: event.body.categories[0].id, language: 'en', revision: 0 },
      ])
      const revisions = seen.slice(2).map((c) => (c as { revision: number }).revision)
      expect(revisions[1]).toBeGreaterThan(revisions[0] as number)
    })

    it('reports nothing for a rejected or rolled-back write, and a throwing hook does not fail the request', async () => {
      const seen: unknown[] = []
      const errors: unknown[] = []
      const a = await app({ onChange: (c) => void seen.push(c), onError: (e) => void errors.push(e) })
      const bad = await a.post(
        '/events',
        { ...EVENT, organizer: [{ organizer: 'A' }, { organizer: 'B', website: 'not a url' }] },
        { as: 'administrator' },
      )
      expect(bad.status).toBe(400)
      expect((await a.post('/events', {}, { as: 'administrator' })).status).toBe(400)
      await new Promise((r) => setTimeout(r, 0))
      expect(seen).toEqual([])
      const throwing = await app({
        onChange: () => {
          throw new Error('hook down')
        },
        onError: (e) => void errors.push(e),
      })
      expect((await throwing.post('/events', EVENT, { as: 'administrator' })).status).toBe(201)
      await new Promise((r) => setTimeout(r, 0))
      expect(errors.map((e) => (e as Error).message)).toContain('hook down')
    })
  })
}

export function allowSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`Allow per record [${name}]`, () => {
    it('lists write methods on a record only for callers who may modify that record', async () => {
      const a = await makeApp(makeStorage)
      onTestFinished(() => a.close())
      const theirs = await a.post('/events', EVENT, { as: 'administrator' })
      const mine = await a.post('/events', EVENT, { as: 'contributor' })
      expect((await a.get(`/events/${theirs.body.id}`, { as: 'contributor' })).headers.get('allow')).toBe('GET')
      expect((await a.get(`/events/${mine.body.id}`, { as: 'contributor' })).headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
      expect((await a.get(`/events/${theirs.body.id}`, { as: 'editor' })).headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
      expect((await a.get(`/events/${theirs.body.id}`)).headers.get('allow')).toBe('GET')
      const venue = await a.post('/venues', { venue: 'V' }, { as: 'administrator' })
      expect((await a.get(`/venues/${venue.body.id}`, { as: 'author' })).headers.get('allow')).toBe('GET')
    })
  })
}

/**
 * Storage-free, run once (test/http-once.test.ts): CORS headers are decided before and after the
 * handler from the options alone; the only reads are of an empty list.
 */
export function corsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options: CalendarOptions = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`CORS [${name}]`, () => {
    it('is off by default: no CORS headers, OPTIONS describes the route', async () => {
      const a = await app()
      const res = await a.get('/events', { headers: { origin: 'https://app.example' } })
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      const opt = await a.fetch(`http://127.0.0.1:8080/wp-json/${NS}/events`, { method: 'OPTIONS' })
      expect(opt.status).toBe(200)
      expect(opt.body.methods).toEqual(['GET', 'POST'])
      expect(opt.headers.get('allow')).toBe('GET, POST')
    })

    it('answers preflights with 204 and the route methods, reflecting allowed origins only', async () => {
      const a = await app({ cors: { origins: ['https://app.example'], maxAge: 120 } })
      const pre = await a.fetch(`http://127.0.0.1:8080/wp-json/${NS}/events/5`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'authorization, content-type',
        },
      })
      expect(pre.status).toBe(204)
      expect(pre.text).toBe('')
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example')
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, DELETE, POST, PUT, PATCH, HEAD, OPTIONS')
      expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type')
      expect(pre.headers.get('access-control-max-age')).toBe('120')
      expect(pre.headers.get('vary')).toContain('Origin')
      const stranger = await a.fetch(`http://127.0.0.1:8080/wp-json/${NS}/events`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      })
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull()
      const actual = await a.get('/events', { headers: { origin: 'https://app.example' } })
      expect(actual.headers.get('access-control-allow-origin')).toBe('https://app.example')
      expect(actual.headers.get('access-control-expose-headers')).toContain('X-TEC-Total')
      expect(actual.headers.get('access-control-expose-headers')).toContain('ETag')
      expect(actual.headers.get('vary')).toContain('Origin')
      expect(
        (await a.get('/events', { headers: { origin: 'https://evil.example' } })).headers.get('access-control-allow-origin'),
      ).toBeNull()
    })

    it('uses * for any origin without credentials and reflects the origin with credentials', async () => {
      const any = await app({ cors: {} })
      expect((await any.get('/events', { headers: { origin: 'https://x.example' } })).headers.get('access-control-allow-origin')).toBe('*')
      const creds = await app({ cors: { origins: '*', credentials: true } })
      const res = await creds.get('/events', { headers: { origin: 'https://x.example' } })
      expect(res.headers.get('access-control-allow-origin')).toBe('https://x.example')
      expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    })
  })
}

/** Storage-free, run once: the read cache alone, without a router or storage. */
export function readCacheBoundSuite(t: SuiteApi, name: string) {
  const { describe, it } = t
  describe(`read cache [${name}]`, () => {
    it('stays within its byte bound', async () => {
      const { ReadCache } = await import('../../cache/response-cache.js')
      const cache = new ReadCache({ maxBytes: 50_000 })
      const body = new TextEncoder().encode('x'.repeat(1000))
      for (let i = 0; i < 200; i++) cache.set(cache.key(`http://x/${i}`, ''), { status: 200, headers: {}, body })
      expect(cache.size).toBeLessThanOrEqual(50_000)
      expect(cache.get(cache.key('http://x/199', ''))?.body).toHaveLength(1000)
      expect(cache.get(cache.key('http://x/0', ''))).toBeUndefined()
    })
  })
}
