/**
 * The events resource over HTTP: Request in, Response out. Runs unchanged against every storage
 * backend; data is seeded through the API only. Expected behaviour: the reference behaviours in
 * docs/wire-compatibility.md (§1-§4, §7) with its deliberate differences (§5: partial updates,
 * authorization before validation...).
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { CalendarOptions } from '../../src/options.js'
import type { Storage } from '../../src/storage/types.js'
import { API, makeApp, ORIGIN, type App, type Res, expectError, expectInvalid } from './harness.js'

/** Event keys in TEC's order (docs/wire-compatibility.md §2.1) plus our language fields; `json_ld` on single reads. */
const EVENT_KEYS = [
  'id',
  'global_id',
  'global_id_lineage',
  'author',
  'status',
  'date',
  'date_utc',
  'modified',
  'modified_utc',
  'url',
  'rest_url',
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'all_day',
  'start_date',
  'start_date_details',
  'end_date',
  'end_date_details',
  'utc_start_date',
  'utc_start_date_details',
  'utc_end_date',
  'utc_end_date_details',
  'timezone',
  'timezone_abbr',
  'cost',
  'cost_details',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'categories',
  'tags',
  'venue',
  'organizer',
  'custom_fields',
  'language',
  'translations',
]

/** Default list window for the harness clock (2026-11-21 22:54:48 UTC), form-encoded. */
const WINDOW = 'start_date=2026-11-20+00%3A00%3A00&end_date=2028-11-21+23%3A59%3A59'
const LIST = `${API}/events/`
const CACHE_CONTROL = 'no-cache, must-revalidate, max-age=0, no-store, private'

const ids = (res: Res): number[] => res.body.events.map((e: { id: number }) => e.id)

const noRouteMessage = 'No route was found matching the URL and request method.'

function expectNoRoute(res: Res) {
  expectError(res, 404, 'rest_no_route', noRouteMessage)
  expect(res.body.data).toEqual({ status: 404 })
  expect(res.headers.get('allow')).toBeNull()
}

const details = (y: string, mo: string, d: string, h: string, mi: string, s: string) => ({
  year: y,
  month: mo,
  day: d,
  hour: h,
  minutes: mi,
  seconds: s,
})

export function eventsSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  /** A fresh app over a fresh storage, closed when the test ends. */
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }

  describe(`events over HTTP [${name}]`, () => {
    // -----------------------------------------------------------------------------------------
    describe('routing and transport', () => {
      it('answers an unknown path with 404 rest_no_route and no Allow header', async () => {
        const app = await open()
        expectNoRoute(await app.get('/nope'))
        expectNoRoute(await app.get('/events/foo'))
        expectNoRoute(await app.get('/events/by-slug/'))
        expectNoRoute(await app.get('/events/12/extra'))
      })

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
        const res = await app.fetch(`${ORIGIN}/?rest_route=/calendar/events/v1/events&per_page=1`)
        expect(res.status).toBe(200)
        expect(ids(res)).toEqual([a.id])
        expect(res.body.total).toBe(2)
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=1&${WINDOW}&status=publish`)
        const single = await app.fetch(`${ORIGIN}/?rest_route=${encodeURIComponent(`/calendar/events/v1/events/${a.id}`)}`)
        expect(single.status).toBe(200)
        expect(single.body.id).toBe(a.id)
        expectNoRoute(await app.fetch(`${ORIGIN}/?rest_route=/calendar/events/v1/nope`))
      })
    })

    // -----------------------------------------------------------------------------------------
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

    // -----------------------------------------------------------------------------------------
    describe('languages', () => {
      it('stores the language of the request and keeps it in links', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'Konsāto', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00' },
          { as: 'administrator', lang: 'ja' },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.body.language).toBe('ja')
        expect(res.body.translations).toEqual({})
        expect(res.body.rest_url).toBe(`${ORIGIN}/ja/wp-json/calendar/events/v1/events/${res.body.id}`)
        const list = await app.get('/events', { lang: 'ja' })
        expect(ids(list)).toEqual([res.body.id])
        expect(list.body.rest_url).toBe(`${ORIGIN}/ja/wp-json/calendar/events/v1/events/?page=1&per_page=120&${WINDOW}&status=publish`)
      })

      it('scopes lists to the language; the parameter wins over the path', async () => {
        const app = await open()
        const en = await app.seed({ title: 'English' })
        const ja = await app.seed({ title: 'Japanese', multilingual_language: 'ja' })
        const ko = await app.seed({ title: 'Korean' }, { lang: 'ko' })
        expect(ja.language).toBe('ja')
        expect(ko.language).toBe('ko')
        expect(ids(await app.get('/events'))).toEqual([en.id])
        expect(ids(await app.get('/events', { lang: 'ja' }))).toEqual([ja.id])
        expect(ids(await app.get('/events?multilingual_language=ja'))).toEqual([ja.id])
        expect(ids(await app.get('/events?multilingual_language=ko', { lang: 'ja' }))).toEqual([ko.id])
        expect(ids(await app.get('/events?multilingual_language=zh-hans'))).toEqual([])
        // A path segment that is not a served language is not ours at all.
        expectNoRoute(await app.get('/events', { lang: 'fr' }))
      })

      it('scopes slugs to the language; ids are global', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Concert' })
        const ja = await app.seed({ title: 'Concert' }, { lang: 'ja' })
        expect(en.slug).toBe('concert')
        expect(ja.slug).toBe('concert')
        expect((await app.get('/events/by-slug/concert')).body.id).toBe(en.id)
        expect((await app.get('/events/by-slug/concert', { lang: 'ja' })).body.id).toBe(ja.id)
        expect((await app.get('/events/by-slug/concert?multilingual_language=ja')).body.id).toBe(ja.id)
        expectInvalid(await app.get('/events/by-slug/concert', { lang: 'ko' }), ['slug'])
        const byId = await app.get(`/events/${ja.id}`)
        expect(byId.status).toBe(200)
        expect(byId.body.language).toBe('ja')
        const second = await app.seed({ title: 'Concert' })
        expect(second.slug).toBe('concert-2')
      })

      it('rejects an unknown language with rest_not_in_enum', async () => {
        const app = await open()
        const message = 'multilingual_language is not one of en, ja, ko, and zh-hans.'
        for (const res of [
          await app.get('/events?multilingual_language=fr'),
          await app.get('/events/1?multilingual_language=fr'),
          await app.post(
            '/events',
            { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', multilingual_language: 'fr' },
            { as: 'administrator' },
          ),
        ]) {
          expectInvalid(res, ['multilingual_language'])
          expect(res.body.data.params.multilingual_language).toBe(message)
          expect(res.body.data.details.multilingual_language).toEqual({
            code: 'rest_not_in_enum',
            message,
            data: { param: 'multilingual_language' },
          })
        }
        const typed = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', multilingual_language: 5 },
          { as: 'administrator' },
        )
        expectInvalid(typed, ['multilingual_language'])
        expect(typed.body.data.params.multilingual_language).toBe('multilingual_language is not of type string.')
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
      })

      it('links translations with translation_of', async () => {
        const app = await open()
        const en = await app.seed({ title: 'Festival' })
        const ja = await app.post(
          '/events',
          { title: 'Matsuri', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: en.id },
          { as: 'administrator', lang: 'ja' },
        )
        expect(ja.status, ja.text).toBe(201)
        expect(ja.body.language).toBe('ja')
        expect(ja.body.translations).toEqual({ en: en.id })
        const enAgain = await app.get(`/events/${en.id}`)
        expect(enAgain.body.translations).toEqual({ ja: ja.body.id })
        const ko = await app.seed({ title: 'Chukje', translation_of: ja.body.id }, { lang: 'ko' })
        expect(ko.translations).toEqual({ en: en.id, ja: ja.body.id })

        expectInvalid(
          await app.post(
            '/events',
            { title: 'Again', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: en.id },
            { as: 'administrator', lang: 'ja' },
          ),
          ['translation_of'],
        )
        expectInvalid(
          await app.post(
            '/events',
            { title: 'Nothing', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: 9999 },
            { as: 'administrator', lang: 'ja' },
          ),
          ['translation_of'],
        )
        // A trashed translation leaves the group, and its language is free again.
        await app.del(`/events/${ja.body.id}`, { as: 'administrator' })
        expect((await app.get(`/events/${en.id}`)).body.translations).toEqual({ ko: ko.id })
        const again = await app.seed({ title: 'Matsuri 2', translation_of: en.id }, { lang: 'ja' })
        expect(again.translations).toEqual({ en: en.id, ko: ko.id })
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('create', () => {
      it('answers 201 with the full representation in TEC key order', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          {
            title: 'Concert One',
            description: '<p>Great concert</p>',
            excerpt: 'Short',
            start_date: '2026-11-26 19:00:00',
            end_date: '2026-11-26 22:00:00',
            cost: '$10 - $25',
            website: 'https://concert.example.com',
            status: 'publish',
          },
          { as: 'administrator' },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.headers.get('allow')).toBe('GET, POST')
        expect(Object.keys(res.body)).toEqual(EVENT_KEYS)
        const id = res.body.id
        expect(Number.isInteger(id)).toBe(true)
        expect(res.body).toEqual({
          id,
          global_id: `127.0.0.1?id=${id}`,
          global_id_lineage: [`127.0.0.1?id=${id}`],
          author: '1',
          status: 'publish',
          date: '2026-11-21 22:54:48',
          date_utc: '2026-11-21 22:54:48',
          modified: '2026-11-21 22:54:48',
          modified_utc: '2026-11-21 22:54:48',
          url: `${ORIGIN}/event/concert-one/`,
          rest_url: `${API}/events/${id}`,
          title: 'Concert One',
          description: '<p>Great concert</p>',
          excerpt: 'Short',
          slug: 'concert-one',
          image: false,
          all_day: false,
          start_date: '2026-11-26 19:00:00',
          start_date_details: details('2026', '11', '26', '19', '00', '00'),
          end_date: '2026-11-26 22:00:00',
          end_date_details: details('2026', '11', '26', '22', '00', '00'),
          utc_start_date: '2026-11-26 19:00:00',
          utc_start_date_details: details('2026', '11', '26', '19', '00', '00'),
          utc_end_date: '2026-11-26 22:00:00',
          utc_end_date_details: details('2026', '11', '26', '22', '00', '00'),
          timezone: 'UTC',
          timezone_abbr: 'UTC',
          cost: '$10 \u2013 $25',
          cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['10', '25'] },
          website: 'https://concert.example.com',
          show_map: false,
          show_map_link: false,
          hide_from_listings: false,
          sticky: false,
          featured: false,
          categories: [],
          tags: [],
          venue: [],
          organizer: [],
          custom_fields: [],
          language: 'en',
          translations: {},
        })
        // No json_ld outside single reads.
        expect(res.body).not.toHaveProperty('json_ld')
        // Output is plain JSON: slashes unescaped.
        expect(res.text).toContain('"https://concert.example.com"')
      })

      it('defaults the website to the permalink, flags to false, status to publish for publishers', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'Plain', start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' },
          { as: 'editor' },
        )
        expect(res.status).toBe(201)
        expect(res.body.status).toBe('publish')
        expect(res.body.author).toBe('2')
        expect(res.body.website).toBe(`${ORIGIN}/event/plain/`)
        expect(res.body.url).toBe(`${ORIGIN}/event/plain/`)
        for (const k of ['all_day', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'])
          expect(res.body[k], k).toBe(false)
        expect(res.body.cost).toBe('')
        expect(res.body.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] })
        expect(res.body.description).toBe('')
        expect(res.body.excerpt).toBe('')
      })

      it('stores boolean flags given as JSON booleans, numbers and strings', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          {
            title: 'Flags',
            start_date: '2026-12-01 10:00',
            end_date: '2026-12-01 11:00',
            show_map: true,
            show_map_link: 1,
            sticky: 'TRUE',
            featured: '1',
            hide_from_listings: 'false',
          },
          { as: 'administrator' },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.body.show_map).toBe(true)
        expect(res.body.show_map_link).toBe(true)
        expect(res.body.sticky).toBe(true)
        expect(res.body.featured).toBe(true)
        expect(res.body.hide_from_listings).toBe(false)
      })

      it('derives timezone, abbreviation and UTC fields from the event zone, DST included', async () => {
        const app = await open()
        const winter = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:30:00', timezone: 'America/New_York' })
        expect(winter.timezone).toBe('America/New_York')
        expect(winter.timezone_abbr).toBe('EST')
        expect(winter.start_date).toBe('2026-12-01 10:00:00')
        expect(winter.utc_start_date).toBe('2026-12-01 15:00:00')
        expect(winter.utc_end_date).toBe('2026-12-01 17:30:00')
        expect(winter.utc_end_date_details).toEqual(details('2026', '12', '01', '17', '30', '00'))
        const summer = await app.seed({ start_date: '2027-07-04 09:05:07', end_date: '2027-07-04 23:00:00', timezone: 'America/New_York' })
        expect(summer.timezone_abbr).toBe('EDT')
        expect(summer.utc_start_date).toBe('2027-07-04 13:05:07')
        expect(summer.utc_end_date).toBe('2027-07-05 03:00:00')
        expect(summer.start_date_details).toEqual(details('2027', '07', '04', '09', '05', '07'))
        const offset = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', timezone: 'UTC+5' })
        expect(offset.timezone).toBe('UTC+5')
        expect(offset.utc_start_date).toBe('2026-12-01 05:00:00')
      })

      it('uses the site timezone option when none is given', async () => {
        const app = await open({ timezone: 'Europe/Berlin' })
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' })
        expect(e.timezone).toBe('Europe/Berlin')
        expect(e.timezone_abbr).toBe('CET')
        expect(e.utc_start_date).toBe('2026-12-01 09:00:00')
        // Publication date in site time.
        expect(e.date).toBe('2026-11-21 23:54:48')
        expect(e.date_utc).toBe('2026-11-21 22:54:48')
      })

      it.each([
        ['$10 - $25', '$10 \u2013 $25', ['10', '25'], '', ''],
        ['20$', '20$', ['20'], '$', 'postfix'],
        [['0$', '20$', '30$'], 'Free \u2013 30$', ['0', '20', '30'], '$', 'postfix'],
        [15, '$15', ['15'], '', ''],
        ['Free', 'Free', ['free'], '', ''],
        ['', '', [], '', ''],
      ])('formats cost %j as %j', async (cost, shown, values, symbol, position) => {
        const app = await open()
        const e = await app.seed({ cost })
        expect(e.cost).toBe(shown)
        expect(e.cost_details).toEqual({ currency_symbol: symbol, currency_code: '', currency_position: position, values })
      })

      it('spans whole days for all-day events', async () => {
        const app = await open()
        const e = await app.seed({
          all_day: true,
          start_date: '2026-12-01 10:00:00',
          end_date: '2026-12-03 08:00:00',
          timezone: 'America/New_York',
        })
        expect(e.all_day).toBe(true)
        expect(e.start_date).toBe('2026-12-01 00:00:00')
        expect(e.end_date).toBe('2026-12-03 23:59:59')
        expect(e.utc_start_date).toBe('2026-12-01 05:00:00')
        expect(e.utc_end_date).toBe('2026-12-04 04:59:59')
      })

      it('sets an end before the start to the start', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-02 10:00:00', end_date: '2026-12-01 10:00:00' })
        expect(e.start_date).toBe('2026-12-02 10:00:00')
        expect(e.end_date).toBe('2026-12-02 10:00:00')
        expect(e.utc_end_date).toBe('2026-12-02 10:00:00')
      })

      it('reads natural dates relative to now, in the event zone', async () => {
        const app = await open()
        const e = await app.seed({ start_date: 'tomorrow 9am', end_date: 'tomorrow 11:30am' })
        expect(e.start_date).toBe('2026-11-22 09:00:00')
        expect(e.end_date).toBe('2026-11-22 11:30:00')
        // 22:54 UTC on the 21st is 07:54 on the 22nd in Tokyo: "tomorrow" is the 23rd there.
        const tokyo = await app.seed({ start_date: 'tomorrow 9am', end_date: '+2 days', timezone: 'Asia/Tokyo' })
        expect(tokyo.start_date).toBe('2026-11-23 09:00:00')
        expect(tokyo.utc_start_date).toBe('2026-11-23 00:00:00')
        expect(tokyo.end_date).toBe('2026-11-24 07:54:48')
        const short = await app.seed({ start_date: '2026-12-05', end_date: '2026-12-05 18:30' })
        expect(short.start_date).toBe('2026-12-05 00:00:00')
        expect(short.end_date).toBe('2026-12-05 18:30:00')
      })

      it('converts ISO 8601 dates with an offset into the event zone', async () => {
        const app = await open()
        const e = await app.seed({
          start_date: '2026-12-01T10:00:00+01:00',
          end_date: '2026-12-01T12:00:00Z',
          timezone: 'America/New_York',
        })
        expect(e.start_date).toBe('2026-12-01 04:00:00')
        expect(e.utc_start_date).toBe('2026-12-01 09:00:00')
        expect(e.end_date).toBe('2026-12-01 07:00:00')
        expect(e.utc_end_date).toBe('2026-12-01 12:00:00')
      })

      it('generates unique, normalised slugs from titles; a given slug is normalised too', async () => {
        const app = await open()
        const a = await app.seed({ title: 'Hello World' })
        const b = await app.seed({ title: 'Hello World' })
        const c = await app.seed({ title: 'hello  WORLD!' })
        expect([a.slug, b.slug, c.slug]).toEqual(['hello-world', 'hello-world-2', 'hello-world-3'])
        expect((await app.seed({ title: 'Café Crème' })).slug).toBe('cafe-creme')
        const given = await app.seed({ title: 'Whatever', slug: 'My Custom Slug' })
        expect(given.slug).toBe('my-custom-slug')
        expect(given.url).toBe(`${ORIGIN}/event/my-custom-slug/`)
        expect((await app.seed({ title: 'Other', slug: 'hello-world' })).slug).toBe('hello-world-4')
      })

      it('reports missing required fields in registration order', async () => {
        const app = await open()
        const empty = await app.post('/events', {}, { as: 'administrator' })
        expectError(empty, 400, 'rest_missing_callback_param', 'Missing parameter(s): title, start_date, end_date')
        expect(empty.body.data.params).toEqual(['title', 'start_date', 'end_date'])
        const noBody = await app.post('/events', undefined, { as: 'administrator' })
        expectError(noBody, 400, 'rest_missing_callback_param', 'Missing parameter(s): title, start_date, end_date')
        const dates = await app.post('/events', { title: 'x', end_date: null }, { as: 'administrator' })
        expectError(dates, 400, 'rest_missing_callback_param', 'Missing parameter(s): start_date, end_date')
        expect(dates.body.data.params).toEqual(['start_date', 'end_date'])
      })

      it('reports every invalid parameter together', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          {
            title: 'Bad',
            start_date: 'not-a-date',
            end_date: '2026-12-01 10:00:00',
            all_day: 'maybe',
            status: 'bogus',
            timezone: 'Mars/Olympus',
            website: 'foo',
          },
          { as: 'administrator' },
        )
        expectInvalid(res, ['status', 'timezone', 'all_day', 'start_date', 'website'])
        expect(res.body.data.params).toEqual({
          status: 'Invalid parameter.',
          timezone: 'Invalid parameter.',
          all_day: 'all_day is not of type boolean.',
          start_date: 'Invalid parameter.',
          website: 'Invalid parameter.',
        })
        expect(res.body.data.details).toEqual({
          all_day: { code: 'rest_invalid_type', message: 'all_day is not of type boolean.', data: { param: 'all_day' } },
        })
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
      })

      it('sends details as [] when every failure is a plain invalid parameter', async () => {
        const app = await open()
        const res = await app.post('/events', { title: 'x', start_date: 'garbage', end_date: '2026-12-01' }, { as: 'administrator' })
        expectInvalid(res, ['start_date'])
        expect(res.body.data).toEqual({ status: 400, params: { start_date: 'Invalid parameter.' }, details: [] })
      })

      it('type-checks strings: a JSON number title is rejected', async () => {
        const app = await open()
        const res = await app.post('/events', { title: 42, start_date: '2026-12-01', end_date: '2026-12-01' }, { as: 'administrator' })
        expectInvalid(res, ['title'])
        expect(res.body.data.params.title).toBe('title is not of type string.')
        expect(res.body.data.details.title.code).toBe('rest_invalid_type')
        const empty = await app.post('/events', { title: '', start_date: '2026-12-01', end_date: '2026-12-01' }, { as: 'administrator' })
        expectInvalid(empty, ['title'])
      })

      it('assigns categories and tags by ID, slug or name, creating new names', async () => {
        const app = await open()
        const first = await app.seed({ title: 'First', categories: ['Live Music', 'Art'], tags: 'outdoor,family' })
        expect(first.categories.map((c: { name: string }) => c.name)).toEqual(['Art', 'Live Music'])
        expect(first.tags.map((t: { slug: string }) => t.slug)).toEqual(['family', 'outdoor'])
        const music = first.categories.find((c: { slug: string }) => c.slug === 'live-music')
        expect(music).toMatchObject({
          name: 'Live Music',
          slug: 'live-music',
          term_group: 0,
          term_taxonomy_id: music.id,
          taxonomy: 'tribe_events_cat',
          description: '',
          parent: 0,
          count: 1,
          filter: 'raw',
          id: music.id,
          urls: { self: `${API}/categories/${music.id}`, collection: `${API}/categories` },
        })
        expect(Object.keys(music)).toEqual([
          'name',
          'slug',
          'term_group',
          'term_taxonomy_id',
          'taxonomy',
          'description',
          'parent',
          'count',
          'filter',
          'id',
          'urls',
        ])
        expect(first.tags[0].taxonomy).toBe('post_tag')

        const art = first.categories.find((c: { slug: string }) => c.slug === 'art')
        // By ID, by slug, by name (case-insensitive), plus one new name; an unknown ID is ignored.
        const second = await app.seed({ title: 'Second', categories: [music.id, 'art', 99999, 'Brand New'], tags: ['OUTDOOR'] })
        expect(second.categories.map((c: { id: number }) => c.id).sort()).toEqual(expect.arrayContaining([music.id, art.id]))
        expect(second.categories.map((c: { slug: string }) => c.slug)).toEqual(['art', 'brand-new', 'live-music'])
        expect(second.categories.find((c: { slug: string }) => c.slug === 'live-music').count).toBe(2)
        expect(second.tags.map((t: { slug: string }) => t.slug)).toEqual(['outdoor'])
        const unknown = await app.seed({ title: 'Third', categories: [99999] })
        expect(unknown.categories).toEqual([])
      })

      it('rejects venue and organizer IDs that do not exist', async () => {
        const app = await open()
        const venue = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', venue: 9999 },
          { as: 'administrator' },
        )
        expectInvalid(venue, ['venue'])
        const organizer = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', organizer: [9999] },
          { as: 'administrator' },
        )
        expectInvalid(organizer, ['organizer'])
        // An event id is not a venue either; nothing was created by the failed writes.
        const e = await app.seed()
        expectInvalid(
          await app.post('/events', { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', venue: e.id }, { as: 'administrator' }),
          ['venue'],
        )
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(1)
        // Empty values mean "no venue".
        const none = await app.seed({ venue: '', organizer: [] })
        expect(none.venue).toEqual([])
        expect(none.organizer).toEqual([])
      })

      it('rolls back terms created by a write that fails', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', categories: ['Ghost'], venue: 9999 },
          { as: 'administrator' },
        )
        expect(res.status).toBe(400)
        const next = await app.seed({ categories: ['Ghost'] })
        expect(next.categories[0].count).toBe(1)
        expect(next.categories[0].slug).toBe('ghost')
      })

      it('accepts an image URL and shows the image object', async () => {
        const app = await open()
        const e = await app.seed({ image: 'https://img.example.com/pics/poster.JPG' })
        expect(e.image).toEqual({ url: 'https://img.example.com/pics/poster.JPG', extension: 'jpg' })
        expectInvalid(
          await app.post(
            '/events',
            { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', image: 'not a url' },
            { as: 'administrator' },
          ),
          ['image'],
        )
        expectInvalid(
          await app.post(
            '/events',
            { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', image: 'ftp://img.example.com/a.jpg' },
            { as: 'administrator' },
          ),
          ['image'],
        )
      })

      it('rejects an image ID without a resolveImage option', async () => {
        const app = await open()
        for (const image of [12, '12']) {
          const res = await app.post(
            '/events',
            { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', image },
            { as: 'administrator' },
          )
          expectInvalid(res, ['image'])
        }
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
      })

      it('turns an image ID into an image object through resolveImage', async () => {
        const app = await open({
          resolveImage: (id) => (id === 12 ? { url: 'https://cdn.example.com/12.png', width: 640, height: 480 } : null),
        })
        const e = await app.seed({ image: 12 })
        expect(e.image).toMatchObject({ url: 'https://cdn.example.com/12.png', id: 12, extension: 'png', width: 640, height: 480 })
        expect((await app.get(`/events/${e.id}`)).body.image).toEqual(e.image)
        const missing = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', image: 13 },
          { as: 'administrator' },
        )
        expectInvalid(missing, ['image'])
      })

      it('stores the publication date given as date or date_utc', async () => {
        const app = await open({ timezone: 'America/New_York' })
        const local = await app.seed({ date: '2026-11-01 08:00:00' })
        expect(local.date).toBe('2026-11-01 08:00:00')
        expect(local.date_utc).toBe('2026-11-01 13:00:00')
        const utc = await app.seed({ date_utc: '2026-07-01 12:00:00' })
        expect(utc.date).toBe('2026-07-01 08:00:00')
        expect(utc.date_utc).toBe('2026-07-01 12:00:00')
        expectInvalid(
          await app.post('/events', { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', date: 'foo' }, { as: 'administrator' }),
          ['date'],
        )
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('permissions', () => {
      const body = { title: 'Perm', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' }

      it('answers anonymous writes with 401 before looking at the body', async () => {
        const app = await open()
        const e = await app.seed()
        const forbidden = 'Sorry, you are not allowed to do that.'
        expectError(await app.post('/events', body), 401, 'rest_forbidden', forbidden)
        expectError(await app.post('/events', { title: 42, all_day: 'maybe' }), 401, 'rest_forbidden', forbidden)
        expectError(await app.post('/events', '{"broken', {}), 401, 'rest_forbidden')
        expectError(await app.post('/events', {}), 401, 'rest_forbidden')
        expectError(await app.patch(`/events/${e.id}`, { title: 'x' }), 401, 'rest_forbidden')
        expectError(await app.put('/events/9999', { start_date: 'garbage' }), 401, 'rest_forbidden')
        expectError(await app.del(`/events/${e.id}`), 401, 'rest_forbidden')
        expectError(await app.del('/events/by-slug/nothing-here'), 401, 'rest_forbidden')
        expect((await app.get(`/events/${e.id}`)).body.status).toBe('publish')
      })

      it('answers subscribers with 403', async () => {
        const app = await open()
        const e = await app.seed()
        expectError(await app.post('/events', body, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.post('/events', {}, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'subscriber' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${e.id}`, { as: 'subscriber' }), 403, 'rest_forbidden')
        expect((await app.get('/events')).body.total).toBe(1)
      })

      it('scales a contributor publish back to pending', async () => {
        const app = await open()
        const res = await app.post('/events', { ...body, status: 'publish' }, { as: 'contributor' })
        expect(res.status).toBe(201)
        expect(res.body.status).toBe('pending')
        expect(res.body.author).toBe('4')
        const plain = await app.post('/events', body, { as: 'contributor' })
        expect(plain.body.status).toBe('draft')
        const draft = await app.post('/events', { ...body, status: 'draft' }, { as: 'contributor' })
        expect(draft.body.status).toBe('draft')
        const pending = await app.post('/events', { ...body, status: 'pending' }, { as: 'contributor' })
        expect(pending.body.status).toBe('pending')
      })

      it('lets contributors edit only their own unpublished events', async () => {
        const app = await open()
        const own = (await app.post('/events', body, { as: 'contributor' })).body
        const others = (await app.post('/events', body, { as: 'contributor2' })).body
        const admins = await app.seed()

        const edited = await app.patch(`/events/${own.id}`, { title: 'Mine' }, { as: 'contributor' })
        expect(edited.status).toBe(200)
        expect(edited.body.title).toBe('Mine')
        expect(edited.body.status).toBe('draft')
        const promoted = await app.patch(`/events/${own.id}`, { status: 'publish' }, { as: 'contributor' })
        expect(promoted.body.status).toBe('pending')

        expectError(await app.patch(`/events/${others.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${others.id}`, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.patch(`/events/${admins.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${admins.id}`, { as: 'contributor' }), 403, 'rest_forbidden')

        // Once published by an editor, it is out of the contributor's hands.
        expect((await app.patch(`/events/${own.id}`, { status: 'publish' }, { as: 'editor' })).body.status).toBe('publish')
        expectError(await app.patch(`/events/${own.id}`, { title: 'x' }, { as: 'contributor' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${own.id}`, { as: 'contributor' }), 403, 'rest_forbidden')
        expect((await app.get(`/events/${own.id}`)).body.title).toBe('Mine')

        const deletable = (await app.post('/events', body, { as: 'contributor' })).body
        const trashed = await app.del(`/events/${deletable.id}`, { as: 'contributor' })
        expect(trashed.status).toBe(200)
        expect(trashed.body.status).toBe('trash')
      })

      it("lets authors publish and edit their own events, not others'", async () => {
        const app = await open()
        const own = await app.post('/events', { ...body, status: 'publish' }, { as: 'author' })
        expect(own.body.status).toBe('publish')
        expect(own.body.author).toBe('3')
        const others = (await app.post('/events', body, { as: 'author2' })).body
        expect((await app.patch(`/events/${own.body.id}`, { title: 'Edited' }, { as: 'author' })).status).toBe(200)
        expectError(await app.patch(`/events/${others.id}`, { title: 'x' }, { as: 'author' }), 403, 'rest_forbidden')
        expectError(await app.del(`/events/${others.id}`, { as: 'author' }), 403, 'rest_forbidden')
        // Nor may an author write as somebody else.
        expect((await app.post('/events', { ...body, author: 6 }, { as: 'author' })).status).toBe(403)
        const del = await app.del(`/events/${own.body.id}`, { as: 'author' })
        expect(del.status).toBe(200)
        expect((await app.get(`/events/${others.id}`)).body.title).toBe('Perm')
      })

      it('lets editors and administrators do everything', async () => {
        const app = await open()
        const byContributor = (await app.post('/events', body, { as: 'contributor' })).body
        const byAuthor = (await app.post('/events', body, { as: 'author' })).body
        const edited = await app.patch(`/events/${byContributor.id}`, { title: 'By editor', status: 'publish' }, { as: 'editor' })
        expect(edited.status).toBe(200)
        expect(edited.body.status).toBe('publish')
        expect(edited.body.author).toBe('4')
        const assigned = await app.patch(`/events/${byAuthor.id}`, { author: 6 }, { as: 'administrator' })
        expect(assigned.body.author).toBe('6')
        expect((await app.del(`/events/${byAuthor.id}`, { as: 'editor' })).status).toBe(200)
        expect((await app.del(`/events/${byContributor.id}`, { as: 'administrator' })).status).toBe(200)
        const created = await app.post('/events', { ...body, status: 'private' }, { as: 'editor' })
        expect(created.body.status).toBe('private')
      })

      it('never shows drafts, pending or private events to anonymous callers or subscribers', async () => {
        const app = await open()
        const pub = await app.seed({ title: 'Public', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const draft = await app.seed({ title: 'Draft', status: 'draft', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        const pending = await app.seed({
          title: 'Pending',
          status: 'pending',
          start_date: '2026-12-03 10:00',
          end_date: '2026-12-03 11:00',
        })
        const priv = await app.seed({ title: 'Private', status: 'private', start_date: '2026-12-04 10:00', end_date: '2026-12-04 11:00' })
        for (const as of [undefined, 'subscriber'] as const) {
          const list = await app.get('/events', as ? { as } : {})
          expect(ids(list)).toEqual([pub.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=publish`)
          for (const hidden of [draft, pending, priv]) {
            const res = await app.get(`/events/${hidden.id}`, as ? { as } : {})
            expectError(res, 403, 'event-not-accessible', 'The requested event is not accessible')
            expect(res.body).not.toHaveProperty('data.params')
            expect(res.text).not.toContain(hidden.title)
            expectError(await app.get(`/events/by-slug/${hidden.slug}`, as ? { as } : {}), 403, 'event-not-accessible')
          }
        }
        for (const as of ['administrator', 'editor'] as const) {
          const list = await app.get('/events', { as })
          expect(ids(list)).toEqual([pub.id, draft.id, pending.id, priv.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=any`)
        }
        // Contributors and authors see every status, but of others' records only the published
        // ones (docs/wire-compatibility.md §5.11; TEC would list other users' drafts to them).
        const mine = await app.post(
          '/events',
          { title: 'My draft', start_date: '2026-12-05 10:00', end_date: '2026-12-05 11:00' },
          { as: 'contributor' },
        )
        expect(mine.body.status).toBe('draft')
        for (const as of ['contributor', 'author'] as const) {
          const list = await app.get('/events', { as })
          expect(ids(list)).toEqual(as === 'contributor' ? [pub.id, mine.body.id] : [pub.id])
          expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=any`)
          expect(list.text).not.toContain('Private')
        }
        const asAdmin = await app.get(`/events/${draft.id}`, { as: 'administrator' })
        expect(asAdmin.status).toBe(200)
        expect(asAdmin.body.status).toBe('draft')
        expect(asAdmin.body.url).not.toBe(`${ORIGIN}/event/${draft.slug}/`)
      })

      it("lets contributors read their own drafts but not other people's", async () => {
        const app = await open()
        const own = (await app.post('/events', body, { as: 'contributor' })).body
        const others = (await app.post('/events', body, { as: 'contributor2' })).body
        expect((await app.get(`/events/${own.id}`, { as: 'contributor' })).status).toBe(200)
        expectError(await app.get(`/events/${others.id}`, { as: 'contributor' }), 403, 'event-not-accessible')
      })

      it('filters lists by status only for callers who may', async () => {
        const app = await open()
        const pub = await app.seed({ title: 'Public' })
        const draft = await app.seed({ title: 'Draft', status: 'draft' })
        const pending = await app.seed({ title: 'Pending', status: 'pending' })
        const denied = await app.get('/events?status=draft')
        expectInvalid(denied, ['status'])
        expect(denied.body.data.details).toEqual([])
        expectInvalid(await app.get('/events?status=draft', { as: 'subscriber' }), ['status'])
        expectInvalid(await app.get('/events?status=publish,draft'), ['status'])
        const anonPublish = await app.get('/events?status=publish')
        expect(ids(anonPublish)).toEqual([pub.id])

        const drafts = await app.get('/events?status=draft', { as: 'administrator' })
        expect(drafts.status).toBe(200)
        expect(ids(drafts)).toEqual([draft.id])
        expect(drafts.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=draft`)
        const two = await app.get('/events?status=draft,%20pending', { as: 'administrator' })
        expect(ids(two)).toEqual([draft.id, pending.id])
        const arr = await app.get('/events?status[]=publish&status[]=pending', { as: 'editor' })
        expect(ids(arr)).toEqual([pub.id, pending.id])
        expectInvalid(await app.get('/events?status=foo', { as: 'administrator' }), ['status'])
        // `any` (what our own links say for privileged callers) means every visible status.
        expect(ids(await app.get('/events?status=any', { as: 'administrator' }))).toEqual([pub.id, draft.id, pending.id])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('read', () => {
      it('reads one event by id and by slug, with json_ld', async () => {
        const app = await open()
        const e = await app.seed({
          title: 'Readable',
          excerpt: 'Teaser',
          start_date: '2026-12-01 10:00:00',
          end_date: '2026-12-01 12:00:00',
          timezone: 'America/New_York',
        })
        const byId = await app.get(`/events/${e.id}`)
        expect(byId.status).toBe(200)
        expect(Object.keys(byId.body)).toEqual([...EVENT_KEYS, 'json_ld'])
        const { json_ld, ...rest } = byId.body
        expect(rest).toEqual(e)
        expect(json_ld).toEqual({
          '@context': 'http://schema.org',
          '@type': 'Event',
          name: 'Readable',
          description: 'Teaser',
          url: `${ORIGIN}/event/readable/`,
          eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
          eventStatus: 'https://schema.org/EventScheduled',
          startDate: '2026-12-01T10:00:00-05:00',
          endDate: '2026-12-01T12:00:00-05:00',
          performer: 'Organization',
        })
        const bySlug = await app.get('/events/by-slug/readable')
        expect(bySlug.status).toBe(200)
        expect(bySlug.body).toEqual(byId.body)
        // The path slug is normalised before the look-up.
        expect((await app.get('/events/by-slug/READABLE')).body.id).toBe(e.id)
      })

      it('adds offers and image to json_ld when the event has them', async () => {
        const app = await open()
        const e = await app.seed({
          cost: '25',
          image: 'https://img.example.com/x.png',
          start_date: '2027-07-01 18:00',
          end_date: '2027-07-01 20:00',
          timezone: 'Europe/Berlin',
        })
        const ld = (await app.get(`/events/${e.id}`)).body.json_ld
        expect(ld.image).toBe('https://img.example.com/x.png')
        expect(ld.startDate).toBe('2027-07-01T18:00:00+02:00')
        expect(ld.offers).toMatchObject({
          '@type': 'Offer',
          price: '25',
          priceCurrency: 'USD',
          url: `${ORIGIN}/event/${e.slug}/`,
          category: 'primary',
          availability: 'inStock',
        })
      })

      it('answers 404 rest-event-not-found for unknown ids and 0', async () => {
        const app = await open()
        await app.seed()
        expectError(await app.get('/events/9999'), 404, 'rest-event-not-found', 'Event with ID 9999 does not exist.')
        expectError(await app.get('/events/0'), 404, 'rest-event-not-found', 'Event with ID 0 does not exist.')
        expectError(await app.get('/events/9999', { as: 'administrator' }), 404, 'rest-event-not-found')
      })

      it('answers 400 rest_invalid_param for an unknown slug', async () => {
        const app = await open()
        const res = await app.get('/events/by-slug/no-such-slug')
        expectInvalid(res, ['slug'])
        expect(res.body.data).toEqual({ status: 400, params: { slug: 'Invalid parameter.' }, details: [] })
      })

      it('answers 403 event-no-longer-available for a trashed event, administrators included', async () => {
        const app = await open()
        const e = await app.seed()
        await app.del(`/events/${e.id}`, { as: 'administrator' })
        for (const as of [undefined, 'subscriber', 'administrator'] as const) {
          expectError(
            await app.get(`/events/${e.id}`, as ? { as } : {}),
            403,
            'event-no-longer-available',
            'This event is no longer available',
          )
        }
        // Its old slug no longer resolves.
        expectInvalid(await app.get(`/events/by-slug/${e.slug}`), ['slug'])
      })

      it('validates the id parameter and ignores unrelated ones', async () => {
        const app = await open()
        const e = await app.seed()
        const res = await app.get(`/events/${e.id}?foo=bar&context=view`)
        expect(res.status).toBe(200)
        expectNoRoute(await app.get('/events/-1'))
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('update', () => {
      it('changes only the fields sent', async () => {
        const app = await open()
        const e = await app.seed({
          title: 'Full',
          description: 'Desc',
          excerpt: 'Ex',
          cost: '20$',
          website: 'https://full.example.com',
          image: 'https://img.example.com/a.jpg',
          timezone: 'America/New_York',
          show_map: true,
          show_map_link: true,
          sticky: true,
          featured: true,
          categories: ['Music'],
          tags: ['loud'],
          start_date: '2026-12-01 10:00:00',
          end_date: '2026-12-01 12:00:00',
        })
        const res = await app.patch(`/events/${e.id}`, { title: 'Renamed' }, { as: 'administrator' })
        expect(res.status).toBe(200)
        expect(Object.keys(res.body)).toEqual(EVENT_KEYS)
        expect(res.body).toEqual({ ...e, title: 'Renamed' })
        // A draft updated without status stays a draft.
        const draft = await app.seed({ status: 'draft' })
        expect((await app.patch(`/events/${draft.id}`, { title: 'Still draft' }, { as: 'administrator' })).body.status).toBe('draft')
      })

      it('clears description, excerpt, cost, website and image with null or ""', async () => {
        const app = await open()
        for (const empty of [null, '']) {
          const e = await app.seed({
            description: 'D',
            excerpt: 'E',
            cost: '$5',
            website: 'https://w.example.com',
            image: 'https://img.example.com/a.jpg',
          })
          const res = await app.patch(
            `/events/${e.id}`,
            { description: empty, excerpt: empty, cost: empty, website: empty, image: empty },
            { as: 'administrator' },
          )
          expect(res.status, res.text).toBe(200)
          expect(res.body.description).toBe('')
          expect(res.body.excerpt).toBe('')
          expect(res.body.cost).toBe('')
          expect(res.body.cost_details).toEqual({ currency_symbol: '', currency_code: '', currency_position: '', values: [] })
          expect(res.body.website).toBe('')
          expect(res.body.image).toBe(false)
          expect((await app.get(`/events/${e.id}`)).body.website).toBe('')
        }
      })

      it('recomputes the schedule when all_day changes', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00', timezone: 'America/New_York' })
        const res = await app.patch(`/events/${e.id}`, { all_day: true }, { as: 'administrator' })
        expect(res.body.all_day).toBe(true)
        expect(res.body.start_date).toBe('2026-12-01 00:00:00')
        expect(res.body.end_date).toBe('2026-12-01 23:59:59')
        expect(res.body.utc_start_date).toBe('2026-12-01 05:00:00')
        expect(res.body.utc_end_date).toBe('2026-12-02 04:59:59')
        // Omitting all_day later keeps it.
        expect((await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'administrator' })).body.all_day).toBe(true)
      })

      it('keeps the wall clock and recomputes UTC when the timezone changes', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })
        const res = await app.patch(`/events/${e.id}`, { timezone: 'Asia/Tokyo' }, { as: 'administrator' })
        expect(res.body.timezone).toBe('Asia/Tokyo')
        expect(res.body.timezone_abbr).toBe('JST')
        expect(res.body.start_date).toBe('2026-12-01 10:00:00')
        expect(res.body.utc_start_date).toBe('2026-12-01 01:00:00')
        expect(res.body.utc_end_date).toBe('2026-12-01 03:00:00')
        // "" resets to the site zone.
        const reset = await app.patch(`/events/${e.id}`, { timezone: '' }, { as: 'administrator' })
        expect(reset.body.timezone).toBe('UTC')
        expect(reset.body.utc_start_date).toBe('2026-12-01 10:00:00')
        expectInvalid(await app.patch(`/events/${e.id}`, { timezone: 'Mars/Olympus' }, { as: 'administrator' }), ['timezone'])
      })

      it('applies a lone start_date or end_date, keeping the other unless it would end before it starts', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })
        const earlier = await app.patch(`/events/${e.id}`, { start_date: '2026-12-01 09:00:00' }, { as: 'administrator' })
        expect([earlier.body.start_date, earlier.body.end_date]).toEqual(['2026-12-01 09:00:00', '2026-12-01 12:00:00'])
        expect(earlier.body.utc_start_date).toBe('2026-12-01 09:00:00')
        const later = await app.patch(`/events/${e.id}`, { start_date: '2026-12-03 15:00:00' }, { as: 'administrator' })
        expect([later.body.start_date, later.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 15:00:00'])
        const end = await app.patch(`/events/${e.id}`, { end_date: '2026-12-03 18:00:00' }, { as: 'administrator' })
        expect([end.body.start_date, end.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 18:00:00'])
        expect(end.body.utc_end_date).toBe('2026-12-03 18:00:00')
        const before = await app.patch(`/events/${e.id}`, { end_date: '2026-12-01 00:00:00' }, { as: 'administrator' })
        expect([before.body.start_date, before.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 15:00:00'])
        expectInvalid(await app.patch(`/events/${e.id}`, { start_date: 'garbage' }, { as: 'administrator' }), ['start_date'])
      })

      it('treats POST, PUT and PATCH alike', async () => {
        const app = await open()
        const change = {
          title: 'Changed',
          cost: 12,
          featured: true,
          start_date: '2026-12-05 10:00',
          end_date: '2026-12-05 11:00',
          categories: ['Verbs'],
        }
        const bodies: Record<string, unknown>[] = []
        for (const verb of ['post', 'put', 'patch'] as const) {
          const e = await app.seed({ title: `Verb ${verb}`, description: 'kept' })
          const res = await app[verb](`/events/${e.id}`, change, { as: 'administrator' })
          expect(res.status, `${verb}: ${res.text}`).toBe(200)
          const { id, global_id, global_id_lineage, rest_url, slug, url, website, categories, ...same } = res.body
          expect(id).toBe(e.id)
          expect(slug).toBe(e.slug)
          expect(categories.map((c: { slug: string }) => c.slug)).toEqual(['verbs'])
          bodies.push(same)
        }
        expect(bodies[0]).toMatchObject({
          title: 'Changed',
          description: 'kept',
          cost: '$12',
          featured: true,
          start_date: '2026-12-05 10:00:00',
        })
        expect(bodies[1]).toEqual(bodies[0])
        expect(bodies[2]).toEqual(bodies[0])
      })

      it('updates and deletes by slug: the path slug names the event', async () => {
        const app = await open()
        const e = await app.seed({ title: 'Old Name' })
        const res = await app.patch('/events/by-slug/old-name', { title: 'New Title' }, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expect(res.body.id).toBe(e.id)
        expect(res.body.title).toBe('New Title')
        expect(res.body.slug).toBe('old-name')
        const del = await app.del('/events/by-slug/OLD-NAME', { as: 'administrator' })
        expect(del.body.id).toBe(e.id)
        expectError(await app.patch('/events/by-slug/nope', { title: 'x' }, { as: 'administrator' }), 404, 'rest-event-not-found')
        expectError(await app.patch('/events/by-slug/old-name', { title: 'x' }, { as: 'administrator' }), 404, 'rest-event-not-found')
      })

      it('renames by id to a unique slug', async () => {
        const app = await open()
        await app.seed({ title: 'Taken' })
        const e = await app.seed({ title: 'Mine' })
        const res = await app.patch(`/events/${e.id}`, { slug: 'taken' }, { as: 'administrator' })
        expect(res.body.slug).toBe('taken-2')
        const same = await app.patch(`/events/${e.id}`, { slug: 'taken-2' }, { as: 'administrator' })
        expect(same.body.slug).toBe('taken-2')
      })

      it('answers 404 for an unknown id', async () => {
        const app = await open()
        for (const verb of ['post', 'put', 'patch'] as const) {
          expectError(
            await app[verb]('/events/9999', { title: 'x' }, { as: 'administrator' }),
            404,
            'rest-event-not-found',
            'Event with ID 9999 does not exist.',
          )
        }
      })

      it('replaces categories and tags only when sent', async () => {
        const app = await open()
        const e = await app.seed({ categories: ['A', 'B'], tags: ['t1'] })
        const kept = await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'administrator' })
        expect(kept.body.categories.map((c: { slug: string }) => c.slug)).toEqual(['a', 'b'])
        const replaced = await app.patch(`/events/${e.id}`, { categories: ['C'] }, { as: 'administrator' })
        expect(replaced.body.categories.map((c: { slug: string }) => c.slug)).toEqual(['c'])
        expect(replaced.body.tags.map((c: { slug: string }) => c.slug)).toEqual(['t1'])
        const cleared = await app.patch(`/events/${e.id}`, { categories: [], tags: '' }, { as: 'administrator' })
        expect(cleared.body.categories).toEqual([])
        expect(cleared.body.tags).toEqual([])
        expect(ids(await app.get('/events?categories=a'))).toEqual([])
      })

      it('validates flags and links on update', async () => {
        const app = await open()
        const e = await app.seed()
        expectInvalid(await app.patch(`/events/${e.id}`, { featured: 'maybe', venue: 9999 }, { as: 'administrator' }), ['featured'])
        expectInvalid(await app.patch(`/events/${e.id}`, { venue: 9999 }, { as: 'administrator' }), ['venue'])
        expectInvalid(await app.patch(`/events/${e.id}`, { organizer: '9999' }, { as: 'administrator' }), ['organizer'])
        expect((await app.patch(`/events/${e.id}`, { venue: [], organizer: [] }, { as: 'administrator' })).body.venue).toEqual([])
        const flags = await app.patch(`/events/${e.id}`, { featured: true, sticky: 'true' }, { as: 'administrator' })
        expect([flags.body.featured, flags.body.sticky]).toEqual([true, true])
        const off = await app.patch(`/events/${e.id}`, { featured: false }, { as: 'administrator' })
        expect([off.body.featured, off.body.sticky]).toEqual([false, true])
      })

      it('stamps modified with the current time and keeps the publication date', async () => {
        let clock = new Date('2026-11-21T22:54:48Z')
        const app = await open({ now: () => clock })
        const e = await app.seed()
        clock = new Date('2026-11-22T08:00:00Z')
        const res = await app.patch(`/events/${e.id}`, { title: 'Later' }, { as: 'administrator' })
        expect([res.body.date, res.body.date_utc]).toEqual(['2026-11-21 22:54:48', '2026-11-21 22:54:48'])
        expect([res.body.modified, res.body.modified_utc]).toEqual(['2026-11-22 08:00:00', '2026-11-22 08:00:00'])
        clock = new Date('2026-11-23T09:30:00Z')
        const del = await app.del(`/events/${e.id}`, { as: 'administrator' })
        expect(del.body.modified).toBe('2026-11-23 09:30:00')
        expect(del.body.date).toBe('2026-11-21 22:54:48')
      })

      it('does not include json_ld in update responses', async () => {
        const app = await open()
        const e = await app.seed()
        const res = await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'administrator' })
        expect(res.body).not.toHaveProperty('json_ld')
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('delete', () => {
      it('trashes the event, then answers 410', async () => {
        const app = await open()
        const e = await app.seed({ title: 'Doomed' })
        const res = await app.del(`/events/${e.id}`, { as: 'administrator' })
        expect(res.status).toBe(200)
        expect(Object.keys(res.body)).toEqual(EVENT_KEYS)
        expect(res.body.id).toBe(e.id)
        expect(res.body.status).toBe('trash')
        expect(res.body.slug).toBe('doomed__trashed')
        expect(res.body.title).toBe('Doomed')
        expect(res.body.url).not.toBe(e.url)
        const again = await app.del(`/events/${e.id}`, { as: 'administrator' })
        expectError(again, 410, 'event-is-in-trash', 'The event is already trashed')
        expect(again.headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
      })

      it('deletes by slug', async () => {
        const app = await open()
        const e = await app.seed({ title: 'By Slug' })
        const res = await app.del('/events/by-slug/by-slug', { as: 'administrator' })
        expect(res.status).toBe(200)
        expect(res.body.id).toBe(e.id)
        expect(res.body.status).toBe('trash')
        expectInvalid(await app.del('/events/by-slug/by-slug', { as: 'administrator' }), ['slug'])
        expectInvalid(await app.del('/events/by-slug/never-was', { as: 'administrator' }), ['slug'])
      })

      it('answers 404 for an unknown id', async () => {
        const app = await open()
        expectError(
          await app.del('/events/9999', { as: 'administrator' }),
          404,
          'rest-event-not-found',
          'Event with ID 9999 does not exist.',
        )
      })

      it('removes trashed events from every list and frees their slug', async () => {
        const app = await open()
        const keep = await app.seed({ title: 'Keep', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const gone = await app.seed({ title: 'Gone', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        await app.del(`/events/${gone.id}`, { as: 'administrator' })
        expect(ids(await app.get('/events'))).toEqual([keep.id])
        expect(ids(await app.get('/events', { as: 'administrator' }))).toEqual([keep.id])
        expect(ids(await app.get(`/events?include=${gone.id},${keep.id}`, { as: 'administrator' }))).toEqual([keep.id])
        const reborn = await app.seed({ title: 'Gone' })
        expect(reborn.slug).toBe('gone')
        expect((await app.get('/events/by-slug/gone')).body.id).toBe(reborn.id)
        // Trashing the new one too does not clash with the first trashed slug.
        const second = await app.del(`/events/${reborn.id}`, { as: 'administrator' })
        expect(second.status).toBe(200)
        expect(second.body.slug).toMatch(/^gone__trashed/)
        expect(second.body.slug).not.toBe('gone__trashed')
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('venues, organizers and categories seen from events', () => {
      async function venue(app: App, fields: Record<string, unknown> = {}) {
        const res = await app.post(
          '/venues',
          { venue: 'Main Hall', address: '1 Main St', city: 'Springfield', ...fields },
          { as: 'administrator' },
        )
        expect(res.status, res.text).toBe(201)
        return res.body
      }
      async function organizer(app: App, fields: Record<string, unknown> = {}) {
        const res = await app.post(
          '/organizers',
          { organizer: 'Acme Org', email: 'events@acme.example.com', ...fields },
          { as: 'administrator' },
        )
        expect(res.status, res.text).toBe(201)
        return res.body
      }

      it('answers 400 rest-invalid-event-id for the id of something that is not an event', async () => {
        const app = await open()
        const v = await venue(app)
        const message = 'The specified ID is not a valid event.'
        expectError(await app.get(`/events/${v.id}`), 400, 'rest-invalid-event-id', message)
        expectError(await app.patch(`/events/${v.id}`, { title: 'x' }, { as: 'administrator' }), 400, 'rest-invalid-event-id', message)
        expectError(await app.del(`/events/${v.id}`, { as: 'administrator' }), 400, 'rest-invalid-event-id', message)
        expect((await app.get(`/venues/${v.id}`)).body.venue).toBe('Main Hall')
      })

      it('links a venue and organizers by id, embedding them (json_ld only on single reads)', async () => {
        const app = await open()
        const v = await venue(app)
        const o1 = await organizer(app)
        const o2 = await organizer(app, { organizer: 'Solo Person', email: '' })
        const e = await app.seed({ venue: v.id, organizer: [o2.id, o1.id], start_date: '2026-12-01 19:00', end_date: '2026-12-01 22:00' })
        expect(e.venue).toMatchObject({ id: v.id, venue: 'Main Hall', address: '1 Main St', city: 'Springfield' })
        expect(e.venue).not.toHaveProperty('json_ld')
        expect(e.organizer.map((o: { id: number }) => o.id)).toEqual([o2.id, o1.id])
        expect(e.organizer[1]).toMatchObject({ organizer: 'Acme Org', email: 'events@acme.example.com' })
        const list = await app.get('/events')
        expect(list.body.events[0].venue).not.toHaveProperty('json_ld')
        const single = (await app.get(`/events/${e.id}`)).body
        expect(single.venue.json_ld).toMatchObject({ '@type': 'Place', name: 'Main Hall' })
        expect(single.organizer[0].json_ld).toMatchObject({ '@type': 'Person', name: 'Solo Person' })
        expect(single.json_ld.location).toMatchObject({
          '@type': 'Place',
          name: 'Main Hall',
          address: { '@type': 'PostalAddress', streetAddress: '1 Main St', addressLocality: 'Springfield' },
        })
        expect(single.json_ld.organizer).toMatchObject({ '@type': 'Person', name: 'Solo Person' })
        // Forms the reference accepts: a comma list, {id}, a single id.
        const e2 = await app.seed({ venue: { id: v.id }, organizer: `${o1.id},${o2.id}` })
        expect(e2.venue.id).toBe(v.id)
        expect(e2.organizer.map((o: { id: number }) => o.id)).toEqual([o1.id, o2.id])
        const e3 = await app.seed({ venue: [v.id], organizer: o1.id })
        expect(e3.venue.id).toBe(v.id)
        expect(e3.organizer.map((o: { id: number }) => o.id)).toEqual([o1.id])
      })

      it('creates a venue from nested data, then reuses the exact match', async () => {
        const app = await open()
        const first = await app.seed({ venue: { venue: 'Nested Hall', city: 'Shelbyville' }, organizer: [{ organizer: 'Nested Org' }] })
        expect(first.venue).toMatchObject({ venue: 'Nested Hall', city: 'Shelbyville' })
        expect(first.organizer[0]).toMatchObject({ organizer: 'Nested Org' })
        const second = await app.seed({ venue: { venue: 'Nested Hall', city: 'Shelbyville' }, organizer: { organizer: 'Nested Org' } })
        expect(second.venue.id).toBe(first.venue.id)
        expect(second.organizer[0].id).toBe(first.organizer[0].id)
        const bad = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', venue: { city: 'No name' } },
          { as: 'administrator' },
        )
        expectInvalid(bad, ['venue'])
        expect((await app.get('/venues')).body.total).toBe(1)
      })

      it('keeps links when omitted and unlinks with [] or null', async () => {
        const app = await open()
        const v = await venue(app)
        const o = await organizer(app)
        const e = await app.seed({ venue: v.id, organizer: [o.id] })
        const kept = await app.patch(`/events/${e.id}`, { title: 'Kept' }, { as: 'administrator' })
        expect(kept.body.venue.id).toBe(v.id)
        expect(kept.body.organizer.map((x: { id: number }) => x.id)).toEqual([o.id])
        const noVenue = await app.patch(`/events/${e.id}`, { venue: [] }, { as: 'administrator' })
        expect(noVenue.body.venue).toEqual([])
        expect(noVenue.body.organizer.map((x: { id: number }) => x.id)).toEqual([o.id])
        const noOrganizers = await app.patch(`/events/${e.id}`, { organizer: [] }, { as: 'administrator' })
        expect(noOrganizers.body.organizer).toEqual([])
        const relinked = await app.patch(`/events/${e.id}`, { venue: v.id, organizer: [o.id] }, { as: 'administrator' })
        expect(relinked.body.venue.id).toBe(v.id)
        const cleared = await app.patch(`/events/${e.id}`, { venue: null, organizer: null }, { as: 'administrator' })
        expect([cleared.body.venue, cleared.body.organizer]).toEqual([[], []])
      })

      it('filters lists by venue and organizer', async () => {
        const app = await open()
        const v1 = await venue(app)
        const v2 = await venue(app, { venue: 'Small Room', address: '', city: '' })
        const o = await organizer(app)
        const a = await app.seed({
          title: 'A',
          venue: v1.id,
          organizer: [o.id],
          start_date: '2026-12-01 10:00',
          end_date: '2026-12-01 11:00',
        })
        const b = await app.seed({ title: 'B', venue: v2.id, start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        await app.seed({ title: 'C', start_date: '2026-12-03 10:00', end_date: '2026-12-03 11:00' })
        expect(ids(await app.get(`/events?venue=${v1.id}`))).toEqual([a.id])
        const both = await app.get(`/events?venue=${v1.id},${v2.id}`)
        expect(ids(both)).toEqual([a.id, b.id])
        expect(both.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=publish&venue=${v1.id}%2C${v2.id}`)
        expect(ids(await app.get(`/events?organizer=${o.id}`))).toEqual([a.id])
        expect(ids(await app.get(`/events?organizer=${o.id}&venue=${v2.id}`))).toEqual([])
        expectInvalid(await app.get(`/events?venue=${o.id}`), ['venue'])
      })

      it('shows venue [] once the venue is trashed', async () => {
        const app = await open()
        const v = await venue(app)
        const e = await app.seed({ venue: v.id })
        expect((await app.del(`/venues/${v.id}`, { as: 'administrator' })).status).toBe(200)
        expect((await app.get(`/events/${e.id}`)).body.venue).toEqual([])
        expectInvalid(await app.patch(`/events/${e.id}`, { venue: v.id }, { as: 'administrator' }), ['venue'])
      })

      it('does not embed a draft venue for callers who may not read it', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Secret Hall', status: 'draft' })
        const e = await app.seed({ venue: v.id })
        expect(e.venue.id).toBe(v.id)
        const anon = await app.get(`/events/${e.id}`)
        expect(anon.body.venue).toEqual([])
        expect(anon.text).not.toContain('Secret Hall')
        expect((await app.get(`/events/${e.id}`, { as: 'editor' })).body.venue.id).toBe(v.id)
      })

      it('includes child categories when filtering by a parent', async () => {
        const app = await open()
        const music = await app.post('/categories', { name: 'Music' }, { as: 'administrator' })
        expect(music.status, music.text).toBe(201)
        const jazz = await app.post('/categories', { name: 'Jazz', parent: music.body.id }, { as: 'administrator' })
        expect(jazz.status, jazz.text).toBe(201)
        const bebop = await app.post('/categories', { name: 'Bebop', parent: jazz.body.id }, { as: 'administrator' })
        const a = await app.seed({ title: 'Parent', categories: [music.body.id] })
        const b = await app.seed({ title: 'Child', categories: ['jazz'] })
        const c = await app.seed({ title: 'Grandchild', categories: [bebop.body.id] })
        await app.seed({ title: 'None' })
        expect(ids(await app.get('/events?categories=music'))).toEqual([a.id, b.id, c.id])
        expect(ids(await app.get(`/events?categories=${jazz.body.id}`))).toEqual([b.id, c.id])
        expect(ids(await app.get('/events?categories=bebop'))).toEqual([c.id])
        expect(b.categories[0]).toMatchObject({ slug: 'jazz', parent: music.body.id, urls: { up: `${API}/categories/${music.body.id}` } })
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('lists', () => {
      it('answers an empty first page with 200 and zero totals', async () => {
        const app = await open()
        const res = await app.get('/events')
        expect(res.status).toBe(200)
        expect(res.body).toEqual({
          events: [],
          rest_url: `${LIST}?page=1&per_page=120&${WINDOW}&status=publish`,
          total: 0,
          total_pages: 0,
        })
        expect(Object.keys(res.body)).toEqual(['events', 'rest_url', 'total', 'total_pages'])
        expect(res.headers.get('x-tec-total')).toBe('0')
        expect(res.headers.get('x-tec-totalpages')).toBe('0')
      })

      it('applies the default window: from yesterday to 24 months ahead', async () => {
        const app = await open()
        const older = await app.seed({ title: 'Older', start_date: '2026-11-19 10:00', end_date: '2026-11-19 11:00' })
        const yesterday = await app.seed({ title: 'Yesterday', start_date: '2026-11-20 00:00', end_date: '2026-11-20 01:00' })
        const lastDay = await app.seed({ title: 'Last day', start_date: '2028-11-21 10:00', end_date: '2028-11-21 23:59:59' })
        const beyond = await app.seed({ title: 'Beyond', start_date: '2028-11-22 00:00', end_date: '2028-11-22 01:00' })
        const soon = await app.seed({ title: 'Soon', start_date: '2026-11-25 10:00', end_date: '2026-11-25 11:00' })
        const res = await app.get('/events')
        expect(ids(res)).toEqual([yesterday.id, soon.id, lastDay.id])
        expect(res.body.events[0]).not.toHaveProperty('json_ld')
        expect(Object.keys(res.body.events[0])).toEqual(EVENT_KEYS)
        expect(res.body.total).toBe(3)
        expect(res.headers.get('x-tec-total')).toBe('3')
        expect(res.headers.get('x-tec-totalpages')).toBe('1')
        expect([older.id, beyond.id].some((id) => ids(res).includes(id))).toBe(false)
      })

      it('computes the default window per request', async () => {
        let clock = new Date('2026-11-21T22:54:48Z')
        const app = await open({ now: () => clock })
        const e = await app.seed({ start_date: '2026-11-20 10:00', end_date: '2026-11-20 11:00' })
        expect(ids(await app.get('/events'))).toEqual([e.id])
        clock = new Date('2026-11-22T00:00:01Z')
        const later = await app.get('/events')
        expect(ids(later)).toEqual([])
        expect(later.body.rest_url).toBe(
          `${LIST}?page=1&per_page=120&start_date=2026-11-21+00%3A00%3A00&end_date=2028-11-22+23%3A59%3A59&status=publish`,
        )
      })

      it('orders by start date, then id', async () => {
        const app = await open()
        const c = await app.seed({ title: 'C', start_date: '2026-12-03 10:00', end_date: '2026-12-03 11:00' })
        const a1 = await app.seed({ title: 'A1', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const b = await app.seed({ title: 'B', start_date: '2026-12-02 09:00', end_date: '2026-12-02 11:00' })
        const a2 = await app.seed({ title: 'A2', start_date: '2026-12-01 10:00', end_date: '2026-12-01 10:30' })
        expect(ids(await app.get('/events'))).toEqual([a1.id, a2.id, b.id, c.id])
      })

      it('pages with per_page and page, linking next and previous pages', async () => {
        const app = await open()
        const all: number[] = []
        for (let i = 1; i <= 5; i++)
          all.push((await app.seed({ title: `E${i}`, start_date: `2026-12-0${i} 10:00`, end_date: `2026-12-0${i} 11:00` })).id)
        const base = `per_page=2&${WINDOW}&status=publish`

        const p1 = await app.get('/events?per_page=2')
        expect(ids(p1)).toEqual(all.slice(0, 2))
        expect(p1.body.rest_url).toBe(`${LIST}?page=1&${base}`)
        expect(p1.body.next_rest_url).toBe(`${LIST}?${base}&page=2`)
        expect(p1.body).not.toHaveProperty('previous_rest_url')
        expect([p1.body.total, p1.body.total_pages]).toEqual([5, 3])
        expect(p1.headers.get('x-tec-total')).toBe('5')
        expect(p1.headers.get('x-tec-totalpages')).toBe('3')

        const p2 = await app.get('/events?per_page=2&page=2')
        expect(ids(p2)).toEqual(all.slice(2, 4))
        expect(Object.keys(p2.body)).toEqual(['events', 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages'])
        expect(p2.body.rest_url).toBe(`${LIST}?page=2&${base}`)
        expect(p2.body.next_rest_url).toBe(`${LIST}?${base}&page=3`)
        expect(p2.body.previous_rest_url).toBe(`${LIST}?${base}`)

        const p3 = await app.get('/events?per_page=2&page=3')
        expect(ids(p3)).toEqual(all.slice(4))
        expect(p3.body).not.toHaveProperty('next_rest_url')
        expect(p3.body.previous_rest_url).toBe(`${LIST}?${base}&page=2`)

        const past = await app.get('/events?per_page=2&page=4')
        expectError(past, 404, 'event-archive-page-not-found', 'The requested event archive page does not exist')
        expect(past.headers.get('x-tec-total')).toBeNull()

        // Past the last page of an empty list is also a 404; page 1 never is.
        const empty = await open()
        expectError(await empty.get('/events?page=2'), 404, 'event-archive-page-not-found')
        // Following the links gives the same pages.
        const followed = await app.fetch(p1.body.next_rest_url)
        expect(followed.body).toEqual(p2.body)
      })

      it('caps per_page at maxPerPage', async () => {
        const app = await open({ maxPerPage: 5 })
        for (let i = 1; i <= 7; i++) await app.seed({ title: `E${i}` })
        const res = await app.get('/events?per_page=50')
        expect(res.status).toBe(200)
        expect(res.body.events).toHaveLength(5)
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=5&${WINDOW}&status=publish`)
        expect(res.body.total_pages).toBe(2)
      })

      it('caps per_page at 120 by default', async () => {
        const app = await open()
        await app.seed()
        const res = await app.get('/events?per_page=1000')
        expect(res.status).toBe(200)
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=publish`)
      })

      it('rejects bad page and per_page values', async () => {
        const app = await open()
        await app.seed()
        for (const q of ['per_page=0', 'per_page=abc', 'per_page=-1', 'per_page=1.5']) {
          const res = await app.get(`/events?${q}`)
          expectInvalid(res, ['per_page'])
          expect(res.body.data.details).toEqual([])
        }
        for (const q of ['page=0', 'page=foo', 'page=-2']) expectInvalid(await app.get(`/events?${q}`), ['page'])
        expectInvalid(await app.get('/events?page=0&per_page=0'), ['page', 'per_page'])
        expect((await app.get('/events?per_page=05')).body.rest_url).toContain('per_page=5&')
      })

      describe('date filters', () => {
        /** Whole-day (inclusive) versus strict date bounds (docs/wire-compatibility.md §7.2). */
        async function fourEvents(app: App) {
          return {
            eve: await app.seed({ title: 'Eve', start_date: '2017-12-31 17:00:00', end_date: '2017-12-31 18:00:00' }),
            afternoon: await app.seed({ title: 'Afternoon', start_date: '2018-01-01 16:00:00', end_date: '2018-01-01 16:30:00' }),
            evening: await app.seed({ title: 'Evening', start_date: '2018-01-01 20:00:00', end_date: '2018-01-01 20:30:00' }),
            morning: await app.seed({ title: 'Morning', start_date: '2018-01-02 10:00:00', end_date: '2018-01-02 11:00:00' }),
          }
        }

        it('treats start_date/end_date as whole days unless strict_dates', async () => {
          const app = await open()
          const e = await fourEvents(app)
          const q = 'start_date=2018-01-01%2015:00:00&end_date=2018-01-01%2018:00:00'
          const inclusive = await app.get(`/events?${q}`)
          expect(ids(inclusive)).toEqual([e.afternoon.id, e.evening.id])
          expect(inclusive.body.rest_url).toBe(
            `${LIST}?page=1&per_page=120&start_date=2018-01-01+00%3A00%3A00&end_date=2018-01-01+23%3A59%3A59&status=publish`,
          )
          const strict = await app.get(`/events?${q}&strict_dates=true`)
          expect(ids(strict)).toEqual([e.afternoon.id])
          expect(strict.body.rest_url).toContain('start_date=2018-01-01+15%3A00%3A00&end_date=2018-01-01+18%3A00%3A00')
          expect(ids(await app.get(`/events?${q}&strict_dates=false`))).toEqual([e.afternoon.id, e.evening.id])
        })

        it('accepts dates in any supported form and rejects garbage', async () => {
          const app = await open()
          const e = await fourEvents(app)
          expect(ids(await app.get('/events?start_date=2018-01-01&end_date=2018-01-02'))).toEqual([
            e.afternoon.id,
            e.evening.id,
            e.morning.id,
          ])
          expect(ids(await app.get(`/events?start_date=${Date.UTC(2018, 0, 1, 12) / 1000}&end_date=2018-01-01`))).toEqual([
            e.afternoon.id,
            e.evening.id,
          ])
          expect(ids(await app.get('/events?start_date=2018-01-01T00:00:00Z&end_date=January%201,%202018'))).toEqual([
            e.afternoon.id,
            e.evening.id,
          ])
          // Only start_date: the default end still applies.
          expect(ids(await app.get('/events?start_date=2017-12-31'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id, e.morning.id])
          const bad = await app.get('/events?start_date=before%20my%20birthday')
          expectInvalid(bad, ['start_date'])
          expectInvalid(await app.get('/events?end_date=garbage&starts_after=nope'), ['end_date', 'starts_after'])
        })

        it('filters with starts_before/starts_after/ends_before/ends_after, which drop the default window', async () => {
          const app = await open()
          const e = await fourEvents(app)
          const future = await app.seed({ title: 'Far', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' })
          const now = await app.seed({ title: 'Now', start_date: '2026-11-21 10:00', end_date: '2026-11-21 11:00' })
          // starts_after alone: no 24-month cap.
          const after = await app.get('/events?starts_after=2026-11-20')
          expect(ids(after)).toEqual([now.id, future.id])
          expect(after.body.rest_url).toBe(`${LIST}?page=1&per_page=120&status=publish&starts_after=2026-11-20+23%3A59%3A59`)
          // ends_before alone reaches the past; whole days: "before the end of that day".
          expect(ids(await app.get('/events?ends_before=2017-12-31'))).toEqual([e.eve.id])
          expect(ids(await app.get('/events?ends_before=2018-01-01'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id])
          expect(ids(await app.get('/events?starts_before=2018-01-01'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id])
          expect(ids(await app.get('/events?ends_after=2018-01-01'))).toEqual([e.morning.id, now.id, future.id])
          // Several combine; with an explicit start_date both kinds apply.
          expect(ids(await app.get('/events?ends_after=2017-12-31&starts_before=2018-01-01'))).toEqual([e.afternoon.id, e.evening.id])
          expect(
            ids(await app.get('/events?starts_after=2017-01-01&start_date=2018-01-01&strict_dates=1&end_date=2018-01-01%2017:00')),
          ).toEqual([e.afternoon.id])
          // Strict: exact instants.
          expect(
            ids(await app.get('/events?starts_after=2018-01-01%2016:00:00&starts_before=2018-01-02%2010:00:00&strict_dates=true')),
          ).toEqual([e.evening.id])
          expect(
            ids(await app.get('/events?ends_after=2018-01-01%2016:30:00&ends_before=2018-01-02%2011:00:00&strict_dates=true')),
          ).toEqual([e.evening.id])
        })
      })

      it('searches title, description and excerpt, words ANDed, case-insensitively', async () => {
        const app = await open()
        const jazz = await app.seed({ title: 'Jazz Night', description: '<p>Smooth saxophone</p>' })
        const brunch = await app.seed({ title: 'Sunday Brunch', excerpt: 'with live JAZZ' })
        const rock = await app.seed({ title: 'Rock Night' })
        const pct = await app.seed({ title: '100% Fun' })
        const under = await app.seed({ title: 'snake_case meetup' })
        const search = async (s: string) => ids(await app.get(`/events?search=${encodeURIComponent(s)}`))
        expect(await search('jazz')).toEqual([jazz.id, brunch.id])
        expect(await search('NIGHT')).toEqual([jazz.id, rock.id])
        expect(await search('jazz night')).toEqual([jazz.id])
        expect(await search('night jazz')).toEqual([jazz.id])
        expect(await search('saxophone')).toEqual([jazz.id])
        expect(await search('%')).toEqual([pct.id])
        expect(await search('_')).toEqual([under.id])
        expect(await search('0%')).toEqual([pct.id])
        expect(await search('nothing-like-this')).toEqual([])
        const res = await app.get('/events?search=jazz%20night')
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&search=jazz+night&status=publish`)
        expectInvalid(await app.get('/events?search='), ['search'])
      })

      it('filters by categories and tags given as ids, slugs or a comma list', async () => {
        const app = await open()
        const music = await app.seed({ title: 'Music', categories: ['Music'], tags: ['loud'] })
        const art = await app.seed({ title: 'Art', categories: ['Art'], tags: ['quiet'] })
        const both = await app.seed({ title: 'Both', categories: ['Music', 'Art'] })
        await app.seed({ title: 'None' })
        const musicId = music.categories[0].id
        const artId = art.categories[0].id
        expect(ids(await app.get(`/events?categories=${musicId}`))).toEqual([music.id, both.id])
        expect(ids(await app.get('/events?categories=music'))).toEqual([music.id, both.id])
        expect(ids(await app.get(`/events?categories=art,${musicId}`))).toEqual([music.id, art.id, both.id])
        expect(ids(await app.get(`/events?categories[]=art`))).toEqual([art.id, both.id])
        expect(ids(await app.get('/events?tags=loud'))).toEqual([music.id])
        expect(ids(await app.get(`/events?tags=${art.tags[0].id}`))).toEqual([art.id])
        expect(ids(await app.get(`/events?categories=music&tags=quiet`))).toEqual([])
        expect((await app.get(`/events?categories=music`)).body.rest_url).toContain('categories=music')
        expect(artId).not.toBe(musicId)
        expectInvalid(await app.get('/events?categories=nope'), ['categories'])
        expectInvalid(await app.get('/events?categories=9999'), ['categories'])
        expectInvalid(await app.get('/events?tags=nope'), ['tags'])
        // A tag id is not a category.
        expectInvalid(await app.get(`/events?categories=${music.tags[0].id}`), ['categories'])
      })

      it('scopes term look-ups to the language', async () => {
        const app = await open()
        await app.seed({ title: 'EN', categories: ['Music'] })
        const ja = await app.seed({ title: 'JA', categories: ['Music'] }, { lang: 'ja' })
        expect(ids(await app.get('/events?categories=music', { lang: 'ja' }))).toEqual([ja.id])
        expect(ja.categories[0].slug).toBe('music')
      })

      it('filters featured true and false', async () => {
        const app = await open()
        const f = await app.seed({ title: 'F', featured: true })
        const n = await app.seed({ title: 'N' })
        expect(ids(await app.get('/events?featured=true'))).toEqual([f.id])
        expect(ids(await app.get('/events?featured=1'))).toEqual([f.id])
        expect(ids(await app.get('/events?featured=false'))).toEqual([n.id])
        expect(ids(await app.get('/events'))).toEqual([f.id, n.id])
        expect((await app.get('/events?featured=true')).body.rest_url).toBe(
          `${LIST}?page=1&per_page=120&${WINDOW}&status=publish&featured=1`,
        )
        expectInvalid(await app.get('/events?featured=maybe'), ['featured'])
      })

      it('restricts to include ids, ignoring dates, ordered by publication date', async () => {
        const app = await open()
        const a = await app.seed({ title: 'A', date: '2026-11-03 10:00:00', start_date: '2020-01-01 10:00', end_date: '2020-01-01 11:00' })
        const b = await app.seed({ title: 'B', date: '2026-11-01 10:00:00', start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00' })
        const c = await app.seed({ title: 'C', date: '2026-11-02 10:00:00', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const other = await app.seed({ title: 'Other' })
        const res = await app.get(`/events?include=${a.id},${b.id},${c.id}`)
        expect(ids(res)).toEqual([b.id, c.id, a.id])
        expect(res.body.rest_url).toBe(`${LIST}?page=1&per_page=120&status=publish&include=${a.id}%2C${b.id}%2C${c.id}`)
        expect(ids(await app.get(`/events?include[]=${other.id}&include[]=${a.id}`))).toEqual([a.id, other.id])
        expect(ids(await app.get(`/events?include=${a.id}&start_date=2026-11-20`))).toEqual([a.id])
        expectInvalid(await app.get('/events?include=foo-bar,23'), ['include'])
        expect(ids(await app.get('/events?include=9999'))).toEqual([])
      })

      it('filters by post_parent, which must be an existing event', async () => {
        const app = await open()
        const e = await app.seed()
        const res = await app.get(`/events?post_parent=${e.id}`)
        expect(res.status).toBe(200)
        expect(ids(res)).toEqual([])
        expect(res.body.rest_url).toContain(`post_parent=${e.id}`)
        expectInvalid(await app.get('/events?post_parent=9999'), ['post_parent'])
        expectInvalid(await app.get('/events?post_parent=0'), ['post_parent'])
        expectInvalid(await app.get('/events?post_parent=foo-bar'), ['post_parent'])
      })

      it('rejects venue and organizer filters naming nothing', async () => {
        const app = await open()
        const e = await app.seed()
        expectInvalid(await app.get('/events?venue=9999'), ['venue'])
        expectInvalid(await app.get('/events?venue=foo'), ['venue'])
        expectInvalid(await app.get('/events?organizer=9999'), ['organizer'])
        expectInvalid(await app.get(`/events?organizer=${e.id}`), ['organizer'])
        expectInvalid(await app.get('/events?venue=9999&organizer=9998'), ['venue', 'organizer'])
      })

      it('needs geoloc_lat and geoloc_lng together', async () => {
        const app = await open()
        expectInvalid(await app.get('/events?geoloc_lat=40.7'), ['geoloc_lng'])
        expectInvalid(await app.get('/events?geoloc_lng=-74'), ['geoloc_lat'])
        expectInvalid(await app.get('/events?geoloc_lat=north&geoloc_lng=-74'), ['geoloc_lat'])
        expect((await app.get('/events?geoloc_lat=40.7&geoloc_lng=-74')).status).toBe(200)
      })

      it('never lists events hidden from listings, though they can be read', async () => {
        const app = await open()
        const shown = await app.seed({ title: 'Shown' })
        const hidden = await app.seed({ title: 'Hidden', hide_from_listings: true })
        expect(hidden.hide_from_listings).toBe(true)
        for (const as of [undefined, 'administrator'] as const) {
          const res = await app.get('/events', as ? { as } : {})
          expect(ids(res)).toEqual([shown.id])
          expect(res.body.total).toBe(1)
        }
        expect(ids(await app.get('/events?search=hidden'))).toEqual([])
        expect((await app.get(`/events/${hidden.id}`)).status).toBe(200)
        const unhidden = await app.patch(`/events/${hidden.id}`, { hide_from_listings: false }, { as: 'administrator' })
        expect(unhidden.body.hide_from_listings).toBe(false)
        expect(ids(await app.get('/events'))).toEqual([shown.id, hidden.id])
      })

      it('keeps every filter in rest_url and next_rest_url', async () => {
        const app = await open()
        for (let i = 0; i < 3; i++) await app.seed({ title: `Jazz ${i}`, categories: ['Jazz'], featured: true })
        const res = await app.get('/events?per_page=2&categories=jazz&featured=1&search=jazz')
        expect(ids(res)).toHaveLength(2)
        for (const url of [res.body.rest_url, res.body.next_rest_url]) {
          const q = new URL(url).searchParams
          expect(q.get('categories')).toBe('jazz')
          expect(q.get('featured')).toBe('1')
          expect(q.get('search')).toBe('jazz')
          expect(q.get('per_page')).toBe('2')
        }
        expect(ids(await app.fetch(res.body.next_rest_url))).toHaveLength(1)
      })

      it('gives privileged callers links they can follow (status=any)', async () => {
        const app = await open()
        const pub = await app.seed({ title: 'P', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const draft = await app.seed({ title: 'D', status: 'draft', start_date: '2026-12-02 10:00', end_date: '2026-12-02 11:00' })
        const pending = await app.seed({ title: 'Q', status: 'pending', start_date: '2026-12-03 10:00', end_date: '2026-12-03 11:00' })
        const p1 = await app.get('/events?per_page=2', { as: 'editor' })
        expect(ids(p1)).toEqual([pub.id, draft.id])
        expect(p1.body.next_rest_url).toBe(`${LIST}?per_page=2&${WINDOW}&status=any&page=2`)
        const p2 = await app.fetch(p1.body.next_rest_url, { as: 'editor' })
        expect(p2.status, p2.text).toBe(200)
        expect(ids(p2)).toEqual([pending.id])
        expect(p2.body.rest_url).toBe(`${LIST}?page=2&per_page=2&${WINDOW}&status=any`)
        // `any` is still only for callers who may see every status.
        expectInvalid(await app.get('/events?status=any'), ['status'])
        expectInvalid(await app.get('/events?status=any', { as: 'subscriber' }), ['status'])
      })

      it('keeps featured=false, strict_dates and geolocation in rest_url, in the reference order', async () => {
        const app = await open()
        await app.seed({ start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' })
        const off = await app.get('/events?featured=false')
        expect(off.body.rest_url).toBe(`${LIST}?page=1&per_page=120&${WINDOW}&status=publish&featured=0`)
        expect(ids(await app.fetch(off.body.rest_url))).toEqual(ids(off))
        const strict = await app.get('/events?start_date=2026-12-01%2009:00&strict_dates=true')
        expect(new URL(strict.body.rest_url).searchParams.get('strict_dates')).toBe('1')
        expect(new URL(strict.body.rest_url).searchParams.get('start_date')).toBe('2026-12-01 09:00:00')
        const geo = await app.get('/events?geoloc=1&geoloc_lat=40.7&geoloc_lng=-74&search=x')
        expect(geo.body.rest_url).toBe(
          `${LIST}?page=1&per_page=120&${WINDOW}&search=x&geoloc=1&geoloc_lat=40.7&geoloc_lng=-74&status=publish`,
        )
      })

      it('carries the language as a parameter in links when path segments are off', async () => {
        const app = await open({ languagePathSegment: false })
        const ja = await app.seed({ title: 'JA', multilingual_language: 'ja' })
        expect(ja.rest_url).toBe(`${API}/events/${ja.id}?multilingual_language=ja`)
        const list = await app.get('/events?multilingual_language=ja&per_page=1')
        expect(ids(list)).toEqual([ja.id])
        expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=1&${WINDOW}&status=publish&multilingual_language=ja`)
        expect(ids(await app.fetch(list.body.rest_url))).toEqual([ja.id])
        expectNoRoute(await app.get('/events', { lang: 'ja' }))
      })
    })
  })
}
