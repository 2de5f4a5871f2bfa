/**
 * The events routes as HTTP: routing, HEAD, method overrides, form and JSON bodies, and the WordPress headers.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { NS, API, ORIGIN, expectError, expectNoRoute } from './harness.js'
import { WINDOW, LIST, CACHE_CONTROL, ids, eventsOpener } from './events-shared.js'

/** Routing, method overrides, request bodies and the standard headers of the events routes. */
export function eventsTransportSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('routing and transport', () => {
      it('answers a known path with an unsupported method with 404 rest_no_route (no 405)', async () => {
        const app = await open()
        const e = await app.seed()
        expectNoRoute(await app.del('/events', { as: 'administrator' }))
        expectNoRoute(await app.put('/events', { title: 'x' }, { as: 'administrator' }))
        expectNoRoute(await app.patch('/events', { title: 'x' }, { as: 'administrator' }))
        expectNoRoute(await app.put(`/events/by-slug/${e.slug}/x`, { title: 'x' }, { as: 'administrator' }))
      })

      it('ignores trailing slashes and letter case in the path', async () => {
        const app = await open()
        const e = await app.seed({ title: 'Trailing' })
        const plain = await app.get('/events')
        const slash = await app.get('/events/')
        expect(slash.status).toBe(200)
        expect(slash.body).toEqual(plain.body)
        const one = await app.get(`/events/${e.id}/`)
        expect(one.status).toBe(200)
        expect(one.body.id).toBe(e.id)
        expect((await app.get(`/events/by-slug/${e.slug}/`)).body.id).toBe(e.id)
        const upper = await app.fetch(`${ORIGIN}/wp-json/Calendar/Events/V1/EVENTS/${e.id}`)
        expect(upper.status).toBe(200)
        expect(upper.body.id).toBe(e.id)
      })

      it('answers HEAD like GET without a body', async () => {
        const app = await open()
        const e = await app.seed()
        for (const path of ['/events', `/events/${e.id}`]) {
          const get = await app.get(path)
          const head = await app.head(path)
          expect(head.status).toBe(200)
          expect(head.text).toBe('')
          expect(head.body).toBeNull()
          for (const h of ['content-type', 'allow', 'link', 'x-tec-total', 'x-tec-totalpages']) {
            expect(head.headers.get(h), h).toBe(get.headers.get(h))
          }
        }
        const list = await app.head('/events')
        expect(list.headers.get('x-tec-total')).toBe('1')
        const missing = await app.head('/events/999')
        expect(missing.status).toBe(404)
        expect(missing.text).toBe('')
        const noRoute = await app.head('/nope')
        expect(noRoute.status).toBe(404)
        expect(noRoute.text).toBe('')
      })

      it('honours ?_method= and X-HTTP-Method-Override on POST', async () => {
        const app = await open()
        const e = await app.seed({ title: 'Before' })
        const viaQuery = await app.post(`/events/${e.id}?_method=PATCH`, { title: 'Via query' }, { as: 'administrator' })
        expect(viaQuery.status).toBe(200)
        expect(viaQuery.body.title).toBe('Via query')
        const viaHeader = await app.post(
          `/events/${e.id}`,
          { title: 'Via header' },
          {
            as: 'administrator',
            headers: { 'X-HTTP-Method-Override': 'PATCH' },
          },
        )
        expect(viaHeader.status).toBe(200)
        expect(viaHeader.body.title).toBe('Via header')
        expect((await app.get(`/events/${e.id}`)).body.title).toBe('Via header')

        const deleted = await app.post(`/events/${e.id}`, undefined, {
          as: 'administrator',
          headers: { 'X-HTTP-Method-Override': 'DELETE' },
        })
        expect(deleted.status).toBe(200)
        expect(deleted.body.status).toBe('trash')

        // An override on a POST to a route without that method is no route at all.
        expectNoRoute(await app.post('/events?_method=DELETE', undefined, { as: 'administrator' }))
      })

      it('does not honour an override on GET', async () => {
        const app = await open()
        const e = await app.seed()
        const res = await app.get(`/events/${e.id}?_method=DELETE`, {
          as: 'administrator',
          headers: { 'X-HTTP-Method-Override': 'DELETE' },
        })
        expect(res.status).toBe(200)
        expect(res.body.status).toBe('publish')
        expect((await app.get(`/events/${e.id}`)).status).toBe(200)
      })

      it('reads form-encoded bodies, with PHP brackets for arrays', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          'title=Form+Event&start_date=2026-12-01+10%3A00%3A00&end_date=2026-12-01+12%3A00%3A00&all_day=true&featured=1&categories[]=Alpha&categories[]=Beta&cost[]=5&cost[]=10',
          { as: 'administrator', form: true },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.body.title).toBe('Form Event')
        expect(res.body.all_day).toBe(true)
        expect(res.body.featured).toBe(true)
        expect(res.body.start_date).toBe('2026-12-01 00:00:00')
        expect(res.body.categories.map((c: { name: string }) => c.name)).toEqual(['Alpha', 'Beta'])
        expect(res.body.cost).toBe('$5 \u2013 $10')

        const viaObject = await app.post(
          '/events',
          { title: 'Form 2', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00', tags: ['x', 'y'] },
          { as: 'administrator', form: true },
        )
        expect(viaObject.status, viaObject.text).toBe(201)
        expect(viaObject.body.tags.map((t: { slug: string }) => t.slug)).toEqual(['x', 'y'])
      })

      it('reads a body without Content-Type as form-encoded', async () => {
        const app = await open()
        const res = await app.fetch(`${API}/events`, {
          method: 'POST',
          as: 'administrator',
          body: new TextEncoder().encode('title=No+Type&start_date=2026-12-01&end_date=2026-12-01'),
        })
        expect(res.status, res.text).toBe(201)
        expect(res.body.title).toBe('No Type')
      })

      it('rejects malformed JSON with 400 rest_invalid_json', async () => {
        const app = await open()
        const res = await app.post('/events', '{"title": "x", ', { as: 'administrator' })
        expectError(res, 400, 'rest_invalid_json', 'Invalid JSON body passed.')
        expect(res.body.data).toEqual({ status: 400, json_error_code: 4, json_error_message: 'Syntax error' })
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
      })

      it('rejects a body over maxBodyBytes with a JSON 413', async () => {
        const app = await open({ maxBodyBytes: 512 })
        const big = await app.post(
          '/events',
          { title: 'Big', start_date: '2026-12-01', end_date: '2026-12-01', description: 'x'.repeat(2000) },
          { as: 'administrator' },
        )
        expect(big.status).toBe(413)
        expect(big.headers.get('content-type')).toBe('application/json; charset=UTF-8')
        expect(big.body.data.status).toBe(413)
        expect(typeof big.body.code).toBe('string')
        expect(typeof big.body.message).toBe('string')
        const small = await app.post(
          '/events',
          { title: 'Small', start_date: '2026-12-01', end_date: '2026-12-01' },
          { as: 'administrator' },
        )
        expect(small.status).toBe(201)
        expect((await app.get('/events')).body.events.map((e: { title: string }) => e.title)).toEqual(['Small'])
      })

      it('serves the plain-permalink form ?rest_route= on the site root', async () => {
        const app = await open()
        const a = await app.seed({ title: 'A', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        await app.seed({ title: 'B', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        const res = await app.fetch(`${ORIGIN}/?rest_route=/${NS}/events&per_page=1`)
        expect(res.status).toBe(200)
        expect(ids(res)).toEqual([a.id])
        expect(res.body.total).toBe(2)
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=1&${WINDOW}&status=publish`)
        const single = await app.fetch(`${ORIGIN}/?rest_route=${encodeURIComponent(`/${NS}/events/${a.id}`)}`)
        expect(single.status).toBe(200)
        expect(single.body.id).toBe(a.id)
        expectNoRoute(await app.fetch(`${ORIGIN}/?rest_route=/${NS}/nope`))
      })
    })

    describe('standard headers', () => {
      it('sends the WordPress headers on every response', async () => {
        const app = await open()
        const e = await app.seed()
        for (const res of [
          await app.get('/events'),
          await app.get(`/events/${e.id}`),
          await app.get('/events/999'),
          await app.get('/nope'),
        ]) {
          expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8')
          expect(res.headers.get('link')).toBe(`<${ORIGIN}/wp-json/>; rel="https://api.w.org/"`)
          expect(res.headers.get('x-content-type-options')).toBe('nosniff')
          const expose = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/)
          expect(expose).toEqual(expect.arrayContaining(['X-WP-Total', 'X-WP-TotalPages', 'Link', 'X-TEC-Total', 'X-TEC-TotalPages']))
        }
      })

      it('lists in Allow the methods the caller may use, in registration order', async () => {
        const app = await open()
        const e = await app.seed()
        expect((await app.get('/events')).headers.get('allow')).toBe('GET')
        expect((await app.get('/events', { as: 'subscriber' })).headers.get('allow')).toBe('GET')
        expect((await app.get('/events', { as: 'contributor' })).headers.get('allow')).toBe('GET, POST')
        expect((await app.get('/events', { as: 'administrator' })).headers.get('allow')).toBe('GET, POST')
        expect((await app.get(`/events/${e.id}`)).headers.get('allow')).toBe('GET')
        expect((await app.get(`/events/${e.id}`, { as: 'administrator' })).headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
        expect((await app.get(`/events/by-slug/${e.slug}`, { as: 'editor' })).headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
        // Error replies on a matched route carry it too.
        expect((await app.get('/events/999', { as: 'administrator' })).headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
        expect((await app.get('/events?per_page=0')).headers.get('allow')).toBe('GET')
      })

      it('marks responses to logged-in callers as private and uncacheable', async () => {
        const app = await open()
        const anon = await app.get('/events')
        expect(anon.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate')
        expect(anon.headers.get('expires')).toBeNull()
        for (const as of ['subscriber', 'administrator'] as const) {
          const res = await app.get('/events', { as })
          expect(res.headers.get('cache-control')).toBe(CACHE_CONTROL)
          expect(res.headers.get('expires')).toBe('Wed, 11 Jan 1984 05:00:00 GMT')
        }
        const err = await app.get('/events/9999', { as: 'subscriber' })
        expect(err.status).toBe(404)
        expect(err.headers.get('cache-control')).toBe(CACHE_CONTROL)
      })
    })
  })
}

/** Storage-free (run once, test/http-once.test.ts): an unknown path never reaches a handler. */
export function eventsNoRouteSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('routing and transport', () => {
      it('answers an unknown path with 404 rest_no_route and no Allow header', async () => {
        const app = await open()
        expectNoRoute(await app.get('/nope'))
        expectNoRoute(await app.get('/events/foo'))
        expectNoRoute(await app.get('/events/by-slug/'))
        expectNoRoute(await app.get('/events/12/extra'))
      })
    })
  })
}
