/**
 * Creating events (POST /events): the full representation in TEC key order, defaults, validation errors, terms, links and images.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { API, ORIGIN, expectError, expectInvalid } from './harness.js'
import { EVENT_KEYS, details, eventsOpener } from './events-shared.js'

/** POST /events: the representation, defaults, validation, terms, links and images of a new event. */
export function eventsCreateSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
          event_status: 'scheduled',
          event_status_reason: '',
          attendance_mode: 'offline',
          virtual_url: null,
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

      // Issue 29, finding 4: a number too long for a double, or written with an exponent, was read
      // through a JS number (digits lost) or split at the `e` into a range.
      it.each([
        ['123456789012345678901234567890', '$123456789012345678901234567890', ['123456789012345678901234567890'], '', ''],
        ['$98765432109876543210.50', '$98765432109876543210.5', ['98765432109876543210.5'], '$', 'prefix'],
        [
          ['5', '123456789012345678901234567890'],
          '$5 \u2013 $123456789012345678901234567890',
          ['5', '123456789012345678901234567890'],
          '',
          '',
        ],
        ['1e400', '1e400', ['1e400'], '', ''],
        ['$5 or 1E3', '$5', ['5'], '', ''],
        [['1e400', '10'], '$10', ['10', '1e400'], '', ''],
      ])('keeps the digits of cost %j and never splits one number: %j', async (cost, shown, values, symbol, position) => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'Big', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00', cost },
          { as: 'administrator' },
        )
        expect(res.status, res.text).toBe(201)
        expect(res.body.cost).toBe(shown)
        expect(res.body.cost_details).toEqual({ currency_symbol: symbol, currency_code: '', currency_position: position, values })
        const read = await app.get(`/events/${res.body.id}`, { as: 'administrator' })
        expect([read.body.cost, read.body.cost_details.values]).toEqual([shown, values])
        expect(read.body.json_ld.offers.price).toBe(values.find((x) => /^\d+(\.\d+)?$/.test(x)) ?? shown)
      })

      it('rejects a JSON number cost whose digits JSON cannot carry exactly, naming cost', async () => {
        const app = await open()
        const body = (cost: string) => `{"title":"Big","start_date":"2026-12-01 10:00","end_date":"2026-12-01 11:00","cost":${cost}}`
        for (const cost of ['123456789012345678901234567890', '1e400', '9007199254740993', '[5, 1e21]', '0.0000001']) {
          const res = await app.post('/events', body(cost), { as: 'administrator' })
          expectInvalid(res, ['cost'])
          expect(res.body.data.details.cost.code).toBe('rest_invalid_param')
        }
        const list = await app.get('/events?start_date=2026-01-01&end_date=2027-01-01', { as: 'administrator' })
        expect(list.body.total).toBe(0)
        // Numbers a double holds exactly still pass; an update is held to the same rule.
        const ok = await app.post('/events', body('[9007199254740991, 12.5]'), { as: 'administrator' })
        expect(ok.status, ok.text).toBe(201)
        expect(ok.body.cost_details.values).toEqual(['12.5', '9007199254740991'])
        const update = await app.patch(`/events/${ok.body.id}`, '{"cost":123456789012345678901234567890}', { as: 'administrator' })
        expectInvalid(update, ['cost'])
        const kept = await app.get(`/events/${ok.body.id}`, { as: 'administrator' })
        expect(kept.body.cost).toBe('$12.5 \u2013 $9007199254740991')
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
        // An enum names its values, a date the forms it takes (as WordPress's own messages do).
        const statusMessage = 'status is not one of publish, future, draft, pending, private.'
        const dateMessage =
          'start_date is not a date this API reads: YYYY-MM-DD, YYYY-MM-DD HH:MM:SS, ISO 8601 (2026-12-01T19:00:00Z), a Unix timestamp, or an English expression such as "next friday" or "+1 week".'
        expect(res.body.data.params).toEqual({
          status: statusMessage,
          timezone: 'Invalid parameter.',
          all_day: 'all_day is not of type boolean.',
          start_date: dateMessage,
          website: 'Invalid parameter.',
        })
        expect(res.body.data.details).toEqual({
          status: { code: 'rest_not_in_enum', message: statusMessage, data: { param: 'status' } },
          all_day: { code: 'rest_invalid_type', message: 'all_day is not of type boolean.', data: { param: 'all_day' } },
          start_date: { code: 'rest_invalid_date', message: dateMessage, data: { param: 'start_date' } },
        })
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(0)
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
  })
}

/** Storage-free (run once, test/http-once.test.ts): the request is refused by validation before any storage call, and nothing here reads stored data. */
export function eventsCreateValidationSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('create', () => {
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

      it('sends details as [] when every failure is a plain invalid parameter', async () => {
        const app = await open()
        const res = await app.post(
          '/events',
          { title: 'x', start_date: '2026-12-01', end_date: '2026-12-01', timezone: 'Mars/Olympus' },
          { as: 'administrator' },
        )
        expectInvalid(res, ['timezone'])
        expect(res.body.data).toEqual({ status: 400, params: { timezone: 'Invalid parameter.' }, details: [] })
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
    })
  })
}
