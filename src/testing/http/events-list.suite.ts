/**
 * Event lists (GET /events): paging, ordering, search and filters, and the canonical rest_url and next links.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { LANG, API, expectError, expectInvalid, expectNoRoute } from './harness.js'
import { WINDOW, LIST, ids, eventsOpener } from './events-shared.js'

/** GET /events: paging, ordering, the filters other than dates, and the canonical rest_url. */
export function eventsListSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
        const ja = await app.seed({ title: 'JA', [LANG]: 'ja' })
        expect(ja.rest_url).toBe(`${API}/events/${ja.id}?${LANG}=ja`)
        const list = await app.get(`/events?${LANG}=ja&per_page=1`)
        expect(ids(list)).toEqual([ja.id])
        expect(list.body.rest_url).toBe(`${LIST}?page=1&per_page=1&${WINDOW}&status=publish&${LANG}=ja`)
        expect(ids(await app.fetch(list.body.rest_url))).toEqual([ja.id])
        expectNoRoute(await app.get('/events', { lang: 'ja' }))
      })
    })
  })
}
