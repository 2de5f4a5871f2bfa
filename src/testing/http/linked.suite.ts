/**
 * Venues and organizers over HTTP, and linking them (plus categories and tags) to events.
 * Runs unchanged against every storage backend; data is seeded through the API only.
 * Expected behaviour: docs/wire-compatibility.md §2.1 (shapes), §3 (visibility and languages) and
 * §7.5 (venue and organizer writes), with its deliberate differences: §5.1 partial updates and
 * unlinking, §5.2 authorization first, §5.5 JSON booleans and single organizer objects, §5.6
 * always-create / nested reuse, §5.9 no embedded drafts.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { LANG, API, makeApp, ORIGIN, type App, type Caller, type Res, expectError, expectInvalid } from './harness.js'

const NOW_LOCAL = '2026-11-21 22:54:48'
const CACHE_CONTROL = 'no-cache, must-revalidate, max-age=0, no-store, private'

function expectMissing(res: Res, params: string[]) {
  expectError(res, 400, 'rest_missing_callback_param', `Missing parameter(s): ${params.join(', ')}`)
  expect(res.body.data).toEqual({ status: 400, params })
}

function expectForbidden(res: Res, status: 401 | 403) {
  expectError(res, status, 'rest_forbidden', 'Sorry, you are not allowed to do that.')
}

const FULL_VENUE = {
  venue: 'Main Hall',
  description: 'A big hall',
  address: '1 Main St',
  city: 'Springfield',
  country: 'United States',
  state: 'IL',
  zip: '62701',
  phone: '555-0100',
  website: 'https://hall.example.com',
  show_map: 'true',
  show_map_link: 'true',
}

const FULL_ORGANIZER = {
  organizer: 'Acme Org',
  description: 'Organizes things',
  phone: '555-0199',
  website: 'https://acme.example.com',
  email: 'events@acme.example.com',
}

const HEADER_KEYS = ['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url']
const MINIMAL_VENUE_KEYS = [
  ...HEADER_KEYS,
  'venue',
  'slug',
  'show_map',
  'show_map_link',
  'global_id',
  'global_id_lineage',
  'language',
  'translations',
]
const MINIMAL_ORGANIZER_KEYS = [...HEADER_KEYS, 'organizer', 'slug', 'global_id', 'global_id_lineage', 'language', 'translations']

type Kind = 'venue' | 'organizer'
const PLURAL = { venue: 'venues', organizer: 'organizers' } as const
const KINDS: Kind[] = ['venue', 'organizer']

const EVENT = { start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 12:00:00' }

export function linkedSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (): Promise<App> => {
    const app = await makeApp(makeStorage)
    onTestFinished(() => app.close())
    return app
  }

  /** Creates a venue or organizer through the API; fails loudly. */
  const create = async (app: App, kind: Kind, fields: Record<string, unknown>, as: Caller = 'administrator', lang?: string) => {
    const res = await app.post(`/${PLURAL[kind]}`, fields, { as, ...(lang ? { lang } : {}) })
    if (res.status !== 201) throw new Error(`${kind} create failed: ${res.status} ${res.text}`)
    return res.body
  }
  const venue = (app: App, fields: Record<string, unknown>, as: Caller = 'administrator') => create(app, 'venue', fields, as)
  const organizer = (app: App, fields: Record<string, unknown>, as: Caller = 'administrator') => create(app, 'organizer', fields, as)
  const ids = (res: Res, kind: Kind): number[] => res.body[PLURAL[kind]].map((r: { id: number }) => r.id)
  const createEvent = (app: App, fields: Record<string, unknown>, as: Caller = 'administrator') =>
    app.post('/events', { title: 'Linked', ...EVENT, status: 'publish', ...fields }, { as })

  describe(`venues and organizers over HTTP [${name}]`, () => {
    // -----------------------------------------------------------------------------------------
    describe('venue create', () => {
      it('creates a venue and answers 201 with the representation in TEC key order', async () => {
        const app = await open()
        const res = await app.post('/venues', FULL_VENUE, { as: 'administrator' })
        expect(res.status, res.text).toBe(201)
        expect(res.headers.get('allow')).toBe('GET, POST')
        expect(res.headers.get('location')).toBeNull()
        expect(res.headers.get('cache-control')).toBe(CACHE_CONTROL)
        const id = res.body.id
        expect(Number.isInteger(id)).toBe(true)
        expect(Object.keys(res.body)).toEqual([
          ...HEADER_KEYS,
          'venue',
          'description',
          'slug',
          'address',
          'city',
          'country',
          'state',
          'zip',
          'phone',
          'website',
          'stateprovince',
          'show_map',
          'show_map_link',
          'global_id',
          'global_id_lineage',
          'language',
          'translations',
        ])
        expect(res.body).toEqual({
          id,
          author: '1',
          status: 'publish',
          date: NOW_LOCAL,
          date_utc: NOW_LOCAL,
          modified: NOW_LOCAL,
          modified_utc: NOW_LOCAL,
          url: `${ORIGIN}/venue/main-hall/`,
          venue: 'Main Hall',
          description: 'A big hall',
          slug: 'main-hall',
          address: '1 Main St',
          city: 'Springfield',
          country: 'United States',
          state: 'IL',
          zip: '62701',
          phone: '555-0100',
          website: 'https://hall.example.com',
          stateprovince: 'IL',
          show_map: true,
          show_map_link: true,
          global_id: `127.0.0.1?id=${id}`,
          global_id_lineage: [`127.0.0.1?id=${id}`],
          language: 'en',
          translations: {},
        })
        // The create response has no json_ld; the record is readable afterwards.
        const read = await app.get(`/venues/${id}`)
        expect(read.status).toBe(200)
        expect(read.body.venue).toBe('Main Hall')
      })

      it('omits empty fields but always shows the map flags, true by default', async () => {
        const app = await open()
        const res = await app.post('/venues', { venue: 'Side Room', description: '', city: '', phone: null }, { as: 'administrator' })
        expect(res.status, res.text).toBe(201)
        expect(Object.keys(res.body)).toEqual(MINIMAL_VENUE_KEYS)
        expect(res.body.show_map).toBe(true)
        expect(res.body.show_map_link).toBe(true)
        expect(res.body.slug).toBe('side-room')
      })

      it('reads the map flags from strings and from JSON booleans', async () => {
        const app = await open()
        const cases: Array<[unknown, boolean]> = [
          ['false', false],
          ['0', false],
          [false, false],
          ['no', false],
          ['true', true],
          ['1', true],
          ['yes', true],
          [true, true],
        ]
        for (const [value, expected] of cases) {
          const res = await app.post(
            '/venues',
            { venue: `Flag ${String(value)}`, show_map: value, show_map_link: value },
            { as: 'administrator' },
          )
          expect(res.status, `${JSON.stringify(value)}: ${res.text}`).toBe(201)
          expect([res.body.show_map, res.body.show_map_link], JSON.stringify(value)).toEqual([expected, expected])
        }
        // Only one flag given: the other keeps its default.
        const one = await venue(app, { venue: 'One flag', show_map: false })
        expect([one.show_map, one.show_map_link]).toEqual([false, true])
        // Form bodies carry strings.
        const form = await app.post(
          '/venues',
          { venue: 'Form Flags', show_map: 'false', show_map_link: '0' },
          { as: 'administrator', form: true },
        )
        expect(form.status, form.text).toBe(201)
        expect([form.body.show_map, form.body.show_map_link]).toEqual([false, false])
        // A list is not a flag.
        expectInvalid(await app.post('/venues', { venue: 'Bad flag', show_map: ['1'] }, { as: 'administrator' }), ['show_map'])
      })

      it('derives stateprovince: the state in the US or without a country, else the province', async () => {
        const app = await open()
        const us = await venue(app, { venue: 'US', country: 'United States', state: 'IL', province: 'Ignored' })
        expect(us.stateprovince).toBe('IL')
        const usShort = await venue(app, { venue: 'US short', country: 'US', state: 'NY' })
        expect(usShort.stateprovince).toBe('NY')
        const none = await venue(app, { venue: 'No country', state: 'CA' })
        expect(none.stateprovince).toBe('CA')
        const canada = await venue(app, { venue: 'Canada', country: 'Canada', province: 'ON', state: 'Ignored' })
        expect(canada.stateprovince).toBe('ON')
        // Outside the US the state does not stand in for a missing province (docs/wire-compatibility.md §7.5).
        const noProvince = await venue(app, { venue: 'Elsewhere', country: 'Canada', state: 'QC' })
        expect(noProvince.state).toBe('QC')
        expect(noProvince).not.toHaveProperty('stateprovince')
        const explicit = await venue(app, { venue: 'Explicit', country: 'Japan', province: 'Kanto', stateprovince: 'Tokyo' })
        expect(explicit.stateprovince).toBe('Tokyo')
      })

      it('requires the name and validates fields', async () => {
        const app = await open()
        expectMissing(await app.post('/venues', { city: 'Nowhere' }, { as: 'administrator' }), ['venue'])
        expectMissing(await app.post('/venues', { venue: null }, { as: 'administrator' }), ['venue'])
        expectMissing(await app.post('/venues', undefined, { as: 'administrator' }), ['venue'])
        const empty = await app.post('/venues', { venue: '' }, { as: 'administrator' })
        expectInvalid(empty, ['venue'])
        expect(empty.body.data.params.venue).toBe('Invalid parameter.')
        const website = await app.post('/venues', { venue: 'Bad site', website: 'foo' }, { as: 'administrator' })
        expectInvalid(website, ['website'])
        const typed = await app.post('/venues', { venue: 42 }, { as: 'administrator' })
        expectInvalid(typed, ['venue'])
        expect(typed.body.data.details.venue.code).toBe('rest_invalid_type')
        expect(typed.body.data.params.venue).toBe('venue is not of type string.')
        // Several failures are reported together.
        expectInvalid(await app.post('/venues', { venue: '', website: 'nope', status: 'bogus' }, { as: 'administrator' }), [
          'venue',
          'status',
          'website',
        ])
        expectInvalid(await app.post('/venues', { venue: 'Lang', [LANG]: 'fr' }, { as: 'administrator' }), [LANG])
        // Nothing was created by the failed requests.
        expect((await app.get('/venues', { as: 'administrator' })).body.total).toBe(0)
      })

      it('always creates a new venue, even with an identical name (docs/wire-compatibility.md §5.6)', async () => {
        const app = await open()
        const a = await venue(app, FULL_VENUE)
        const b = await venue(app, { ...FULL_VENUE, city: 'Shelbyville' })
        expect(b.id).not.toBe(a.id)
        expect(b.slug).toBe('main-hall-2')
        expect(b.city).toBe('Shelbyville')
        // The first one was not touched.
        expect((await app.get(`/venues/${a.id}`)).body.city).toBe('Springfield')
        const list = await app.get('/venues')
        expect(list.body.total).toBe(2)
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('organizer create', () => {
      it('creates an organizer and answers 201 with the representation in TEC key order', async () => {
        const app = await open()
        const res = await app.post('/organizers', FULL_ORGANIZER, { as: 'administrator' })
        expect(res.status, res.text).toBe(201)
        expect(res.headers.get('allow')).toBe('GET, POST')
        const id = res.body.id
        expect(Object.keys(res.body)).toEqual([
          ...HEADER_KEYS,
          'organizer',
          'description',
          'slug',
          'phone',
          'website',
          'email',
          'global_id',
          'global_id_lineage',
          'language',
          'translations',
        ])
        expect(res.body).toEqual({
          id,
          author: '1',
          status: 'publish',
          date: NOW_LOCAL,
          date_utc: NOW_LOCAL,
          modified: NOW_LOCAL,
          modified_utc: NOW_LOCAL,
          url: `${ORIGIN}/organizer/acme-org/`,
          organizer: 'Acme Org',
          description: 'Organizes things',
          slug: 'acme-org',
          phone: '555-0199',
          website: 'https://acme.example.com',
          email: 'events@acme.example.com',
          global_id: `127.0.0.1?id=${id}`,
          global_id_lineage: [`127.0.0.1?id=${id}`],
          language: 'en',
          translations: {},
        })
        const minimal = await organizer(app, { organizer: 'Solo Person', email: '' })
        expect(Object.keys(minimal)).toEqual(MINIMAL_ORGANIZER_KEYS)
        expect(minimal).not.toHaveProperty('show_map')
      })

      it('requires the name, validates the website, and takes the e-mail as given', async () => {
        const app = await open()
        expectMissing(await app.post('/organizers', { phone: '1' }, { as: 'administrator' }), ['organizer'])
        expectInvalid(await app.post('/organizers', { organizer: '' }, { as: 'administrator' }), ['organizer'])
        expectInvalid(await app.post('/organizers', { organizer: 'Bad', website: 'foo' }, { as: 'administrator' }), ['website'])
        expectInvalid(await app.post('/organizers', { organizer: 'Bad', website: 'ftp:/x' }, { as: 'administrator' }), ['website'])
        const email = await organizer(app, { organizer: 'Loose', email: 'not-an-email' })
        expect(email.email).toBe('not-an-email')
      })

      it('always creates a new organizer, even with identical data', async () => {
        const app = await open()
        const a = await organizer(app, FULL_ORGANIZER)
        const b = await organizer(app, FULL_ORGANIZER)
        expect(b.id).not.toBe(a.id)
        expect(b.slug).toBe('acme-org-2')
        expect((await app.get('/organizers')).body.total).toBe(2)
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('lists', () => {
      for (const kind of KINDS) {
        const plural = PLURAL[kind]

        it(`lists ${plural} newest first with the TEC envelope and totals headers`, async () => {
          const app = await open()
          const a = await create(app, kind, { [kind]: 'Alpha' })
          const b = await create(app, kind, { [kind]: 'Beta' })
          // An older publication date sorts last although created last.
          const old = await create(app, kind, { [kind]: 'Old', date: '2026-01-01 10:00:00' })
          expect(old.date).toBe('2026-01-01 10:00:00')
          const res = await app.get(`/${plural}`)
          expect(res.status).toBe(200)
          expect(res.headers.get('allow')).toBe('GET')
          expect(res.headers.get('x-tec-total')).toBe('3')
          expect(res.headers.get('x-tec-totalpages')).toBe('1')
          expect(Object.keys(res.body)).toEqual([plural, 'rest_url', 'total', 'total_pages'])
          expect(ids(res, kind)).toEqual([b.id, a.id, old.id])
          expect(res.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&status=publish`)
          expect(res.body.total).toBe(3)
          expect(res.body.total_pages).toBe(1)
          // List items are list-context: no json_ld.
          for (const item of res.body[plural]) expect(item).not.toHaveProperty('json_ld')
          expect(res.body[plural][0]).toEqual(b)
          // Privileged callers see every status by default.
          const admin = await app.get(`/${plural}`, { as: 'administrator' })
          expect(admin.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&status=any`)
          expect(admin.headers.get('allow')).toBe('GET, POST')
        })

        it(`pages ${plural} with next/previous links and 404 past the last page`, async () => {
          const app = await open()
          const made = []
          for (const n of ['One', 'Two', 'Three']) made.push(await create(app, kind, { [kind]: n }))
          const [one, two, three] = made
          const p1 = await app.get(`/${plural}?per_page=1`)
          expect(ids(p1, kind)).toEqual([three.id])
          expect(p1.headers.get('x-tec-total')).toBe('3')
          expect(p1.headers.get('x-tec-totalpages')).toBe('3')
          expect(Object.keys(p1.body)).toEqual([plural, 'rest_url', 'next_rest_url', 'total', 'total_pages'])
          expect(p1.body.next_rest_url).toBe(`${API}/${plural}/?per_page=1&status=publish&page=2`)
          const p2 = await app.get(`/${plural}?per_page=1&page=2`)
          expect(ids(p2, kind)).toEqual([two.id])
          expect(Object.keys(p2.body)).toEqual([plural, 'rest_url', 'next_rest_url', 'previous_rest_url', 'total', 'total_pages'])
          expect(p2.body.rest_url).toBe(`${API}/${plural}/?page=2&per_page=1&status=publish`)
          expect(p2.body.next_rest_url).toBe(`${API}/${plural}/?per_page=1&status=publish&page=3`)
          expect(p2.body.previous_rest_url).toBe(`${API}/${plural}/?per_page=1&status=publish`)
          const p3 = await app.get(`/${plural}?per_page=1&page=3`)
          expect(ids(p3, kind)).toEqual([one.id])
          expect(p3.body).not.toHaveProperty('next_rest_url')
          expect(p3.body.previous_rest_url).toBe(`${API}/${plural}/?per_page=1&status=publish&page=2`)
          const past = await app.get(`/${plural}?per_page=1&page=4`)
          expectError(past, 404, `${kind}-archive-page-not-found`, `The requested ${kind} archive page does not exist`)
          // Larger pages are capped, never an error.
          const capped = await app.get(`/${plural}?per_page=1000`)
          expect(capped.status).toBe(200)
          expect(capped.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&status=publish`)
          expectInvalid(await app.get(`/${plural}?page=0`), ['page'])
          expectInvalid(await app.get(`/${plural}?per_page=0`), ['per_page'])
          expectInvalid(await app.get(`/${plural}?per_page=foo`), ['per_page'])
        })

        it(`answers an empty ${kind} list with 200 and no error on page 1`, async () => {
          const app = await open()
          const res = await app.get(`/${plural}`)
          expect(res.status).toBe(200)
          expect(res.body[plural]).toEqual([])
          expect(res.body.total).toBe(0)
          expect(res.body.total_pages).toBe(0)
          expect(res.headers.get('x-tec-total')).toBe('0')
          expect(res.headers.get('x-tec-totalpages')).toBe('0')
          expectError(await app.get(`/${plural}?page=2`), 404, `${kind}-archive-page-not-found`)
        })

        it(`filters ${plural} by event, has_events and only_with_upcoming`, async () => {
          const app = await open()
          const past = await create(app, kind, { [kind]: 'Past only' })
          const future = await create(app, kind, { [kind]: 'Future' })
          const unused = await create(app, kind, { [kind]: 'Unused' })
          const draftOnly = await create(app, kind, { [kind]: 'Draft only' })
          const pastEvent = await app.seed({
            title: 'Past',
            start_date: '2026-11-01 10:00:00',
            end_date: '2026-11-01 12:00:00',
            [kind]: past.id,
          })
          const futureEvent = await app.seed({ title: 'Future', [kind]: future.id })
          await app.seed({ title: 'Draft', status: 'draft', [kind]: draftOnly.id })

          const byEvent = await app.get(`/${plural}?event=${futureEvent.id}`)
          expect(ids(byEvent, kind)).toEqual([future.id])
          expect(byEvent.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&event=${futureEvent.id}&status=publish`)
          expect(ids(await app.get(`/${plural}?event=${pastEvent.id}`), kind)).toEqual([past.id])

          const has = await app.get(`/${plural}?has_events=true`)
          expect(ids(has, kind)).toEqual([future.id, past.id])
          expect(has.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&has_events=true&status=publish`)
          expect(ids(await app.get(`/${plural}?has_events=1`), kind)).toEqual([future.id, past.id])
          expect(ids(await app.get(`/${plural}?has_events=false`), kind)).toEqual([draftOnly.id, unused.id])

          expect(ids(await app.get(`/${plural}?only_with_upcoming=true`), kind)).toEqual([future.id])
          expect(ids(await app.get(`/${plural}?only_with_upcoming=false`), kind)).toEqual([draftOnly.id, unused.id, future.id, past.id])
          // An editor's upcoming set includes draft events; anonymous callers only see published ones.
          expect(ids(await app.get(`/${plural}?only_with_upcoming=1`, { as: 'editor' }), kind)).toEqual([draftOnly.id, future.id])
          // Filters intersect.
          expect(ids(await app.get(`/${plural}?has_events=true&event=${pastEvent.id}`), kind)).toEqual([past.id])
          expect(ids(await app.get(`/${plural}?only_with_upcoming=true&event=${pastEvent.id}`), kind)).toEqual([])
        })

        it(`rejects an ${kind} list event filter that names no event`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'Some' })
          expectInvalid(await app.get(`/${plural}?event=9999`), ['event'])
          expectInvalid(await app.get(`/${plural}?event=${rec.id}`), ['event'])
          expectInvalid(await app.get(`/${plural}?event=foo`), ['event'])
          expectInvalid(await app.get(`/${plural}?event=0`), ['event'])
        })

        it(`shows only published ${plural} to anonymous callers; status filters need privileges`, async () => {
          const app = await open()
          const pub = await create(app, kind, { [kind]: 'Published' })
          const draft = await create(app, kind, { [kind]: 'Drafty', status: 'draft' })
          const pending = await create(app, kind, { [kind]: 'Waiting', status: 'pending' })
          expect(draft.status).toBe('draft')
          expect(ids(await app.get(`/${plural}`), kind)).toEqual([pub.id])
          expect(ids(await app.get(`/${plural}`, { as: 'subscriber' }), kind)).toEqual([pub.id])
          expect(ids(await app.get(`/${plural}?status=publish`), kind)).toEqual([pub.id])
          expectInvalid(await app.get(`/${plural}?status=draft`), ['status'])
          expectInvalid(await app.get(`/${plural}?status=draft`, { as: 'subscriber' }), ['status'])
          expectInvalid(await app.get(`/${plural}?status=bogus`, { as: 'administrator' }), ['status'])
          expect(ids(await app.get(`/${plural}`, { as: 'administrator' }), kind)).toEqual([pending.id, draft.id, pub.id])
          const drafts = await app.get(`/${plural}?status=draft`, { as: 'administrator' })
          expect(ids(drafts, kind)).toEqual([draft.id])
          expect(drafts.body.rest_url).toBe(`${API}/${plural}/?page=1&per_page=120&status=draft`)
          expect(ids(await app.get(`/${plural}?status=draft,pending`, { as: 'administrator' }), kind)).toEqual([pending.id, draft.id])
          // Trashed records are listed only when asked for.
          await app.del(`/${plural}/${pub.id}`, { as: 'administrator' })
          expect(ids(await app.get(`/${plural}`), kind)).toEqual([])
          expect(ids(await app.get(`/${plural}?status=trash`, { as: 'administrator' }), kind)).toEqual([pub.id])
        })

        it(`scopes ${plural} to the request language`, async () => {
          const app = await open()
          const en = await create(app, kind, { [kind]: 'English' })
          const ja = await create(app, kind, { [kind]: '日本語', [LANG]: 'ja' })
          expect(ja.language).toBe('ja')
          expect(en.language).toBe('en')
          expect(ids(await app.get(`/${plural}`), kind)).toEqual([en.id])
          expect(ids(await app.get(`/${plural}?${LANG}=ja`), kind)).toEqual([ja.id])
          expect(ids(await app.get(`/${plural}`, { lang: 'ja' }), kind)).toEqual([ja.id])
          expect(ids(await app.get(`/${plural}?${LANG}=ko`), kind)).toEqual([])
          const bad = await app.get(`/${plural}?${LANG}=fr`)
          expectInvalid(bad, [LANG])
          expect(bad.body.data.details[LANG].code).toBe('rest_not_in_enum')
          // Slugs are per language: the same name gets the same slug in each.
          const en2 = await create(app, kind, { [kind]: 'Same' })
          const ja2 = await create(app, kind, { [kind]: 'Same', [LANG]: 'ja' })
          expect([en2.slug, ja2.slug]).toEqual(['same', 'same'])
          expect((await app.get(`/${plural}/by-slug/same?${LANG}=ja`)).body.id).toBe(ja2.id)
          expect((await app.get(`/${plural}/by-slug/same`)).body.id).toBe(en2.id)
        })
      }

      it('searches venues: some single field holds every fragment', async () => {
        const app = await open()
        const temple = await venue(app, { venue: 'Le Club', address: '100, Avenue du Temple', city: 'Paris', country: 'France' })
        const split = await venue(app, { venue: 'Temple Hall', address: '5 Avenue Road' })
        const zip = await venue(app, { venue: 'Zip Place', zip: '90210', phone: '+1 555 0100' })
        const hyphen = await venue(app, { venue: 'Zed-Hall' })
        const space = await venue(app, { venue: 'Zed Hall' })
        const search = async (q: string) => ids(await app.get(`/venues?search=${encodeURIComponent(q)}`), 'venue')
        // "temple" is in the title of one venue and "avenue" in its address: no single field holds both.
        expect(await search('temple avenue')).toEqual([temple.id])
        expect(await search('AVENUE')).toEqual([split.id, temple.id])
        expect(await search('temple')).toEqual([split.id, temple.id])
        expect(await search('paris')).toEqual([temple.id])
        expect(await search('902')).toEqual([zip.id])
        expect(await search('555')).toEqual([zip.id])
        expect(await search('nothing-like-this')).toEqual([])
        // Hyphens are part of a fragment; other punctuation separates fragments.
        expect(await search('zed-hall')).toEqual([hyphen.id])
        expect(await search('zed hall')).toEqual([space.id, hyphen.id])
        // LIKE wildcards are separators, never wildcards: "z%d" is the fragments "z" and "d".
        expect(await search('z%d_h')).toEqual([space.id, hyphen.id])
        expect(await search('%50')).toEqual([])
        const res = await app.get('/venues?search=temple')
        expect(res.body.total).toBe(2)
        expect(res.headers.get('x-tec-total')).toBe('2')
        expectInvalid(await app.get('/venues?search='), ['search'])
      })

      it('searches organizers: e-mail, website and phone fields', async () => {
        const app = await open()
        const one = await organizer(app, { organizer: 'First', email: 'one@common.com', website: 'http://one.com' })
        const two = await organizer(app, { organizer: 'Second', email: 'two@common.com', website: 'http://two.com' })
        const three = await organizer(app, { organizer: 'Third', email: 'three@other.org', phone: '555-7777' })
        const byWebsite = await organizer(app, { organizer: 'Fourth', website: 'http://one.com/page' })
        const search = async (q: string) => ids(await app.get(`/organizers?search=${encodeURIComponent(q)}`), 'organizer')
        expect(await search('@common.com')).toEqual([two.id, one.id])
        // "one" appears in one's e-mail, but only the website fields hold "http", "one" and "com".
        expect(await search('http://one.com')).toEqual([byWebsite.id, one.id])
        expect(await search('555-7777')).toEqual([three.id])
        expect(await search('third')).toEqual([three.id])
        expect(await search('other.org')).toEqual([three.id])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('single reads', () => {
      it('reads a venue by id and by slug with json_ld, which lists and writes never carry', async () => {
        const app = await open()
        const v = await venue(app, FULL_VENUE)
        const res = await app.get(`/venues/${v.id}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('allow')).toBe('GET')
        const keys = Object.keys(res.body)
        expect(keys.slice(keys.indexOf('stateprovince'))).toEqual([
          'stateprovince',
          'json_ld',
          'show_map',
          'show_map_link',
          'global_id',
          'global_id_lineage',
          'language',
          'translations',
        ])
        expect(res.body.json_ld).toEqual({
          '@type': 'Place',
          name: 'Main Hall',
          description: 'A big hall',
          url: `${ORIGIN}/venue/main-hall/`,
          address: {
            '@type': 'PostalAddress',
            streetAddress: '1 Main St',
            addressLocality: 'Springfield',
            addressRegion: 'IL',
            postalCode: '62701',
            addressCountry: 'United States',
          },
          telephone: '555-0100',
          sameAs: 'https://hall.example.com',
        })
        const { json_ld: _ld, ...rest } = res.body
        expect(rest).toEqual(v)
        const bySlug = await app.get('/venues/by-slug/main-hall')
        expect(bySlug.status).toBe(200)
        expect(bySlug.body).toEqual(res.body)
        // Slugs are normalised before the look-up.
        expect((await app.get('/venues/by-slug/MAIN-HALL')).body.id).toBe(v.id)
        const updated = await app.patch(`/venues/${v.id}`, { city: 'Capital City' }, { as: 'administrator' })
        expect(updated.body).not.toHaveProperty('json_ld')
      })

      it('reads an organizer by id and by slug with json_ld', async () => {
        const app = await open()
        const o = await organizer(app, FULL_ORGANIZER)
        const res = await app.get(`/organizers/${o.id}`)
        expect(res.status).toBe(200)
        const keys = Object.keys(res.body)
        expect(keys.slice(keys.indexOf('email'))).toEqual([
          'email',
          'json_ld',
          'global_id',
          'global_id_lineage',
          'language',
          'translations',
        ])
        expect(res.body.json_ld).toMatchObject({
          '@type': 'Person',
          name: 'Acme Org',
          telephone: '555-0199',
          url: 'https://acme.example.com',
        })
        const bySlug = await app.get('/organizers/by-slug/acme-org')
        expect(bySlug.body).toEqual(res.body)
      })

      for (const kind of KINDS) {
        const plural = PLURAL[kind]
        it(`answers unknown ${kind} ids and slugs with 400, non-digit ids with 404`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'Known' })
          const missing = await app.get(`/${plural}/999999`)
          expectInvalid(missing, ['id'])
          expect(missing.body.data).toEqual({ status: 400, params: { id: 'Invalid parameter.' }, details: [] })
          expectInvalid(await app.get(`/${plural}/0`), ['id'])
          // An event id (or the other linked type) is not a record of this type.
          const e = await app.seed()
          expectInvalid(await app.get(`/${plural}/${e.id}`), ['id'])
          const other = await create(app, kind === 'venue' ? 'organizer' : 'venue', {
            [kind === 'venue' ? 'organizer' : 'venue']: 'Other kind',
          })
          expectInvalid(await app.get(`/${plural}/${other.id}`), ['id'])
          const noRoute = await app.get(`/${plural}/foo`)
          expectError(noRoute, 404, 'rest_no_route')
          expect(noRoute.headers.get('allow')).toBeNull()
          expectError(await app.get(`/${plural}/by-slug/`), 404, 'rest_no_route')
          expectInvalid(await app.get(`/${plural}/by-slug/unknown`), ['slug'])
          expect((await app.get(`/${plural}/${rec.id}`)).status).toBe(200)
          // Known path, unknown method: no route.
          expectError(await app.del(`/${plural}`, { as: 'administrator' }), 404, 'rest_no_route')
        })

        it(`hides a non-published ${kind} from callers who may not read it`, async () => {
          const app = await open()
          const draft = await create(app, kind, { [kind]: 'Secret', status: 'draft' })
          const own = await create(app, kind, { [kind]: 'Mine' }, 'contributor')
          expect(own.status).toBe('draft')
          for (const as of [undefined, 'subscriber', 'contributor2'] as const) {
            for (const path of [`/${plural}/${draft.id}`, `/${plural}/by-slug/secret`]) {
              const res = await app.get(path, as ? { as } : {})
              expectError(res, 403, `${kind}-not-accessible`, `The requested ${kind} is not accessible`)
              expect(res.text).not.toContain('Secret')
            }
          }
          const admin = await app.get(`/${plural}/${draft.id}`, { as: 'administrator' })
          expect(admin.status).toBe(200)
          expect(admin.body.status).toBe('draft')
          expect(admin.body.url).toBe(`${ORIGIN}/?p=${draft.id}`)
          // JSON-LD is for public pages only.
          expect(admin.body).not.toHaveProperty('json_ld')
          expect((await app.get(`/${plural}/${draft.id}`, { as: 'editor' })).status).toBe(200)
          expect((await app.get(`/${plural}/${own.id}`, { as: 'contributor' })).status).toBe(200)
          expectError(await app.get(`/${plural}/${own.id}`, { as: 'contributor2' }), 403, `${kind}-not-accessible`)
          // A trashed record: anonymous callers get 403, editors can still read it.
          const pub = await create(app, kind, { [kind]: 'Binned' })
          await app.del(`/${plural}/${pub.id}`, { as: 'administrator' })
          expectError(await app.get(`/${plural}/${pub.id}`), 403, `${kind}-not-accessible`)
          const trashed = await app.get(`/${plural}/${pub.id}`, { as: 'administrator' })
          expect(trashed.status).toBe(200)
          expect(trashed.body.status).toBe('trash')
        })
      }
    })

    // -----------------------------------------------------------------------------------------
    describe('updates', () => {
      it('updates a venue partially: omitted fields keep their value, "" and null clear', async () => {
        const app = await open()
        const v = await venue(app, FULL_VENUE)
        const res = await app.patch(`/venues/${v.id}`, { city: 'Capital City', phone: '555-0111' }, { as: 'administrator' })
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
        expect(res.body).toEqual({ ...v, city: 'Capital City', phone: '555-0111' })
        // Clearing: the keys disappear (state clearing also re-derives stateprovince).
        const cleared = await app.put(`/venues/${v.id}`, { description: '', zip: null, website: '', state: '' }, { as: 'administrator' })
        expect(cleared.status, cleared.text).toBe(200)
        for (const key of ['description', 'zip', 'website', 'state', 'stateprovince']) expect(cleared.body, key).not.toHaveProperty(key)
        expect(cleared.body.address).toBe('1 Main St')
        expect(cleared.body.venue).toBe('Main Hall')
        expect(cleared.body.show_map).toBe(true)
        // Map flags change only when sent (docs/wire-compatibility.md §5.1 — TEC would reset them to true).
        const flags = await app.post(`/venues/${v.id}`, { show_map: false, show_map_link: 'false' }, { as: 'administrator' })
        expect([flags.body.show_map, flags.body.show_map_link]).toEqual([false, false])
        const kept = await app.patch(`/venues/${v.id}`, { city: 'Elsewhere' }, { as: 'administrator' })
        expect([kept.body.show_map, kept.body.show_map_link]).toEqual([false, false])
        const on = await app.patch(`/venues/${v.id}`, { show_map: 'yes' }, { as: 'administrator' })
        expect([on.body.show_map, on.body.show_map_link]).toEqual([true, false])
        // Country change re-derives stateprovince from the merged state/province.
        await app.patch(`/venues/${v.id}`, { state: 'IL', province: 'ON' }, { as: 'administrator' })
        const moved = await app.patch(`/venues/${v.id}`, { country: 'Canada' }, { as: 'administrator' })
        expect(moved.body.stateprovince).toBe('ON')
        // The stored record changed.
        const read = await app.get(`/venues/${v.id}`)
        expect(read.body.city).toBe('Elsewhere')
        expect(read.body.country).toBe('Canada')
        expect(read.body.slug).toBe('main-hall')
        expect(read.body.date).toBe(v.date)
      })

      it('rejects an empty name and invalid fields on update, changing nothing', async () => {
        const app = await open()
        const v = await venue(app, FULL_VENUE)
        const o = await organizer(app, FULL_ORGANIZER)
        expectInvalid(await app.patch(`/venues/${v.id}`, { venue: '' }, { as: 'administrator' }), ['venue'])
        expectInvalid(await app.patch(`/venues/${v.id}`, { venue: 'New', website: 'foo' }, { as: 'administrator' }), ['website'])
        expectInvalid(await app.patch(`/organizers/${o.id}`, { organizer: '' }, { as: 'administrator' }), ['organizer'])
        expectInvalid(await app.patch(`/organizers/${o.id}`, { organizer: 'New', website: 'foo' }, { as: 'administrator' }), ['website'])
        expect((await app.get(`/venues/${v.id}`)).body.venue).toBe('Main Hall')
        expect((await app.get(`/organizers/${o.id}`)).body.organizer).toBe('Acme Org')
        expectInvalid(await app.patch('/venues/999999', { venue: 'x' }, { as: 'administrator' }), ['id'])
        expectInvalid(await app.patch(`/venues/${o.id}`, { venue: 'x' }, { as: 'administrator' }), ['id'])
      })

      it('updates an organizer partially and clears fields with ""', async () => {
        const app = await open()
        const o = await organizer(app, FULL_ORGANIZER)
        const res = await app.patch(`/organizers/${o.id}`, { email: 'new@acme.example.com' }, { as: 'administrator' })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ ...o, email: 'new@acme.example.com' })
        const cleared = await app.patch(`/organizers/${o.id}`, { email: '', phone: '', website: '' }, { as: 'administrator' })
        for (const key of ['email', 'phone', 'website']) expect(cleared.body).not.toHaveProperty(key)
        expect(cleared.body.description).toBe('Organizes things')
        const renamed = await app.put(`/organizers/${o.id}`, { organizer: 'Acme Two' }, { as: 'administrator' })
        expect(renamed.body.organizer).toBe('Acme Two')
        // Renaming does not change the slug.
        expect(renamed.body.slug).toBe('acme-org')
      })

      for (const kind of KINDS) {
        const plural = PLURAL[kind]
        it(`updates ${kind}s by slug`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'Slugged' })
          const other = await create(app, kind, { [kind]: 'Other' })
          const res = await app.patch(`/${plural}/by-slug/slugged`, { description: 'By slug' }, { as: 'administrator' })
          expect(res.status, res.text).toBe(200)
          expect(res.body.id).toBe(rec.id)
          expect(res.body.description).toBe('By slug')
          const put = await app.put(`/${plural}/by-slug/SLUGGED`, { [kind]: 'Renamed' }, { as: 'administrator' })
          expect(put.status, put.text).toBe(200)
          expect(put.body[kind]).toBe('Renamed')
          // Renaming keeps the slug.
          expect(put.body.slug).toBe('slugged')
          expectInvalid(await app.patch(`/${plural}/by-slug/nope`, { description: 'x' }, { as: 'administrator' }), ['slug'])
          expect((await app.get(`/${plural}/${other.id}`)).body).toEqual({ ...other, json_ld: expect.any(Object) })
        })
      }
    })

    // -----------------------------------------------------------------------------------------
    describe('deletes', () => {
      for (const kind of KINDS) {
        const plural = PLURAL[kind]
        it(`trashes a ${kind}, then answers 410 ${kind}-is-in-trash`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'Side Room' })
          const res = await app.del(`/${plural}/${rec.id}`, { as: 'administrator' })
          expect(res.status, res.text).toBe(200)
          expect(res.headers.get('allow')).toBe('GET, DELETE, POST, PUT, PATCH')
          expect(res.body.status).toBe('trash')
          expect(res.body.slug).toBe('side-room__trashed')
          expect(res.body.url).toBe(`${ORIGIN}/?p=${rec.id}`)
          expect(res.body.id).toBe(rec.id)
          expect(res.body).not.toHaveProperty('json_ld')
          const again = await app.del(`/${plural}/${rec.id}`, { as: 'administrator' })
          expectError(again, 410, `${kind}-is-in-trash`, `The ${kind} is already trashed`)
          expect(again.body.data).toEqual({ status: 410 })
          // The old slug no longer resolves; the name can be reused.
          expectInvalid(await app.del(`/${plural}/by-slug/side-room`, { as: 'administrator' }), ['slug'])
          const fresh = await create(app, kind, { [kind]: 'Side Room' })
          expect(fresh.slug).toBe('side-room')
          expectInvalid(await app.del(`/${plural}/999999`, { as: 'administrator' }), ['id'])
        })

        it(`trashes a ${kind} by slug`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'By Slug' })
          const res = await app.del(`/${plural}/by-slug/by-slug`, { as: 'administrator' })
          expect(res.status).toBe(200)
          expect(res.body.id).toBe(rec.id)
          expect(res.body.status).toBe('trash')
        })
      }

      it('unlinks a trashed venue from its events, which then show venue: []', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Gone Hall' })
        const keep = await venue(app, { venue: 'Kept Hall' })
        const e = await app.seed({ venue: v.id })
        const other = await app.seed({ venue: keep.id })
        expect(e.venue.id).toBe(v.id)
        expect((await app.del(`/venues/${v.id}`, { as: 'administrator' })).status).toBe(200)
        expect((await app.get(`/events/${e.id}`)).body.venue).toEqual([])
        expect((await app.get(`/events/${e.id}`, { as: 'administrator' })).body.venue).toEqual([])
        expect((await app.get(`/events/${other.id}`)).body.venue.id).toBe(keep.id)
        expect((await app.get(`/events?venue=${keep.id}`)).body.events.map((x: { id: number }) => x.id)).toEqual([other.id])
        expect((await app.get(`/venues?event=${e.id}`, { as: 'administrator' })).body.venues).toEqual([])
      })

      it('removes a trashed organizer from the organizer lists of its events', async () => {
        const app = await open()
        const a = await organizer(app, { organizer: 'A' })
        const b = await organizer(app, { organizer: 'B' })
        const c = await organizer(app, { organizer: 'C' })
        const e = await app.seed({ organizer: [a.id, b.id, c.id] })
        expect(e.organizer.map((o: { id: number }) => o.id)).toEqual([a.id, b.id, c.id])
        await app.del(`/organizers/${b.id}`, { as: 'administrator' })
        const read = await app.get(`/events/${e.id}`)
        expect(read.body.organizer.map((o: { id: number }) => o.id)).toEqual([a.id, c.id])
        expect(ids(await app.get(`/organizers?event=${e.id}`), 'organizer')).toEqual([c.id, a.id])
        expect((await app.get(`/events?organizer=${b.id}`)).body.events).toEqual([])
        // Restoring the organizer from the trash does not bring the link back.
        const restored = await app.patch(`/organizers/${b.id}`, { status: 'publish' }, { as: 'administrator' })
        expect(restored.body.status).toBe('publish')
        expect((await app.get(`/events/${e.id}`)).body.organizer.map((o: { id: number }) => o.id)).toEqual([a.id, c.id])
      })
    })

    // -----------------------------------------------------------------------------------------
    describe('permissions', () => {
      for (const kind of KINDS) {
        const plural = PLURAL[kind]
        it(`answers ${kind} writes by anonymous callers with 401 and subscribers with 403, before validation`, async () => {
          const app = await open()
          const rec = await create(app, kind, { [kind]: 'Guarded' })
          for (const [as, status] of [
            [undefined, 401],
            ['subscriber', 403],
          ] as const) {
            const opts = as ? { as } : {}
            const created = await app.post(`/${plural}`, { [kind]: 'Nope' }, opts)
            expectForbidden(created, status)
            expect(created.headers.get('allow')).toBe('GET')
            // Even invalid or unknown targets: authorization comes first (docs/wire-compatibility.md §5.2).
            expectForbidden(await app.post(`/${plural}`, {}, opts), status)
            expectForbidden(await app.patch(`/${plural}/${rec.id}`, { [kind]: 'Nope' }, opts), status)
            expectForbidden(await app.patch(`/${plural}/999999`, { [kind]: '' }, opts), status)
            expectForbidden(await app.del(`/${plural}/${rec.id}`, opts), status)
            expectForbidden(await app.del(`/${plural}/999999`, opts), status)
            expectForbidden(await app.del(`/${plural}/by-slug/guarded`, opts), status)
          }
          const read = await app.get(`/${plural}/${rec.id}`)
          expect(read.status).toBe(200)
          expect(read.body[kind]).toBe('Guarded')
          expect(read.headers.get('allow')).toBe('GET')
          expect((await app.get(`/${plural}`)).body.total).toBe(1)
        })

        it(`scales back ${kind} creates by contributors and limits their edits to their own drafts`, async () => {
          const app = await open()
          const plain = await create(app, kind, { [kind]: 'Plain' }, 'contributor')
          expect(plain.status).toBe('draft')
          expect(plain.author).toBe('4')
          const asked = await create(app, kind, { [kind]: 'Asked', status: 'publish' }, 'contributor')
          expect(asked.status).toBe('pending')
          const adminRec = await create(app, kind, { [kind]: 'Admin owned' })
          const otherDraft = await create(app, kind, { [kind]: 'Other draft' }, 'contributor2')
          // Own unpublished: editable and deletable.
          const edited = await app.patch(`/${plural}/${plain.id}`, { description: 'Mine' }, { as: 'contributor' })
          expect(edited.status, edited.text).toBe(200)
          expect(edited.body.description).toBe('Mine')
          // A contributor cannot publish by updating.
          const publish = await app.patch(`/${plural}/${plain.id}`, { status: 'publish' }, { as: 'contributor' })
          expect(publish.body.status).toBe('pending')
          // Others' records: 403, whatever their status.
          expectForbidden(await app.patch(`/${plural}/${adminRec.id}`, { description: 'x' }, { as: 'contributor' }), 403)
          expectForbidden(await app.patch(`/${plural}/${otherDraft.id}`, { description: 'x' }, { as: 'contributor' }), 403)
          expectForbidden(await app.del(`/${plural}/${otherDraft.id}`, { as: 'contributor' }), 403)
          // Once published by an editor, the contributor loses control of it.
          await app.patch(`/${plural}/${plain.id}`, { status: 'publish' }, { as: 'editor' })
          expectForbidden(await app.patch(`/${plural}/${plain.id}`, { description: 'late' }, { as: 'contributor' }), 403)
          const del = await app.del(`/${plural}/${asked.id}`, { as: 'contributor' })
          expect(del.status).toBe(200)
          expect(del.body.status).toBe('trash')
          expect((await app.get(`/${plural}/${adminRec.id}`)).body.description).toBeUndefined()
        })

        it(`lets authors manage their own ${plural} only, and editors everyone's`, async () => {
          const app = await open()
          const mine = await create(app, kind, { [kind]: 'Authored' }, 'author')
          expect(mine.status).toBe('publish')
          expect(mine.author).toBe('3')
          const theirs = await create(app, kind, { [kind]: 'Theirs' }, 'author2')
          const edited = await app.patch(`/${plural}/${mine.id}`, { description: 'Own published' }, { as: 'author' })
          expect(edited.status).toBe(200)
          expect(edited.body.description).toBe('Own published')
          expectForbidden(await app.patch(`/${plural}/${theirs.id}`, { description: 'x' }, { as: 'author' }), 403)
          expectForbidden(await app.del(`/${plural}/${theirs.id}`, { as: 'author' }), 403)
          const byEditor = await app.patch(`/${plural}/${theirs.id}`, { description: 'Edited by editor' }, { as: 'editor' })
          expect(byEditor.status).toBe(200)
          expect(byEditor.body.author).toBe('6')
          // Only editors may assign another author.
          expectError(await app.patch(`/${plural}/${mine.id}`, { author: 6 }, { as: 'author' }), 403, 'rest_cannot_edit_others')
          const reassigned = await app.patch(`/${plural}/${mine.id}`, { author: 6 }, { as: 'editor' })
          expect(reassigned.body.author).toBe('6')
          expect((await app.del(`/${plural}/${theirs.id}`, { as: 'editor' })).status).toBe(200)
        })
      }
    })

    // -----------------------------------------------------------------------------------------
    describe('linking to events', () => {
      it('accepts a venue as an ID, a numeric string, [id], {id} or a data object', async () => {
        const app = await open()
        const v = await venue(app, FULL_VENUE)
        for (const value of [v.id, String(v.id), [v.id], [String(v.id)], { id: v.id }, { id: String(v.id) }, [{ id: v.id }]]) {
          const res = await createEvent(app, { venue: value })
          expect(res.status, `${JSON.stringify(value)}: ${res.text}`).toBe(201)
          expect(res.body.venue.id, JSON.stringify(value)).toBe(v.id)
          expect(res.body.venue).toEqual(v)
        }
        // A data object creates a venue with the caller as author; JSON booleans work inside it.
        const res = await createEvent(
          app,
          { venue: { venue: 'Inline Venue', address: '2 Side Rd', city: 'Shelbyville', country: 'US', show_map: false } },
          'editor',
        )
        expect(res.status, res.text).toBe(201)
        const inline = res.body.venue
        expect(inline.id).not.toBe(v.id)
        expect(inline).toMatchObject({
          venue: 'Inline Venue',
          slug: 'inline-venue',
          author: '2',
          status: 'publish',
          show_map: false,
          show_map_link: true,
          language: 'en',
        })
        expect(Object.keys(inline)).toEqual([
          ...HEADER_KEYS,
          'venue',
          'slug',
          'address',
          'city',
          'country',
          'show_map',
          'show_map_link',
          'global_id',
          'global_id_lineage',
          'language',
          'translations',
        ])
        const read = await app.get(`/venues/${inline.id}`)
        expect(read.status).toBe(200)
        expect(read.body.show_map).toBe(false)
        expect(ids(await app.get('/venues'), 'venue')).toEqual([inline.id, v.id])
        // Empty values mean no venue.
        for (const value of ['', 0, '0', null, []]) {
          const none = await createEvent(app, { venue: value })
          expect(none.status, JSON.stringify(value)).toBe(201)
          expect(none.body.venue, JSON.stringify(value)).toEqual([])
        }
      })

      it('accepts organizers as an ID, a list or comma string of IDs, data objects, or a single object', async () => {
        const app = await open()
        const a = await organizer(app, { organizer: 'Org A' })
        const b = await organizer(app, { organizer: 'Org B' })
        const orgIds = (res: Res) => res.body.organizer.map((o: { id: number }) => o.id)
        const single = await createEvent(app, { organizer: a.id })
        expect(single.status, single.text).toBe(201)
        expect(orgIds(single)).toEqual([a.id])
        expect(single.body.organizer[0]).toEqual(a)
        // Order of the response list = order given.
        expect(orgIds(await createEvent(app, { organizer: [b.id, a.id] }))).toEqual([b.id, a.id])
        expect(orgIds(await createEvent(app, { organizer: `${a.id},${b.id}` }))).toEqual([a.id, b.id])
        expect(orgIds(await createEvent(app, { organizer: [String(b.id)] }))).toEqual([b.id])
        // Duplicates collapse.
        expect(orgIds(await createEvent(app, { organizer: [a.id, a.id] }))).toEqual([a.id])
        const mixed = await createEvent(app, { organizer: [{ id: b.id }, { organizer: 'Org New', email: 'new@example.com' }, a.id] })
        expect(mixed.status, mixed.text).toBe(201)
        const [first, created, last] = mixed.body.organizer
        expect([first.id, last.id]).toEqual([b.id, a.id])
        expect(created).toMatchObject({ organizer: 'Org New', email: 'new@example.com', slug: 'org-new', status: 'publish' })
        // A single object, not wrapped in a list (docs/wire-compatibility.md §5.5).
        const solo = await createEvent(app, { organizer: { organizer: 'Solo Person', phone: '555-0123' } })
        expect(solo.status, solo.text).toBe(201)
        expect(solo.body.organizer).toHaveLength(1)
        expect(solo.body.organizer[0]).toMatchObject({ organizer: 'Solo Person', phone: '555-0123' })
        expect((await app.get('/organizers')).body.total).toBe(4)
        // Form bodies: organizer[]=a&organizer[]=b and nested venue fields.
        const form = await app.post(
          '/events',
          { title: 'Form linked', ...EVENT, organizer: [a.id, b.id], venue: { venue: 'Form Venue', show_map: 'false' } },
          { as: 'administrator', form: true },
        )
        expect(form.status, form.text).toBe(201)
        expect(orgIds(form)).toEqual([a.id, b.id])
        expect(form.body.venue).toMatchObject({ venue: 'Form Venue', show_map: false })
      })

      it('accepts categories and tags as IDs, slugs or names; a new name creates the term in the request language', async () => {
        const app = await open()
        const music = (await app.post('/categories', { name: 'Music' }, { as: 'administrator' })).body
        const jazz = (await app.post('/categories', { name: 'Jazz', slug: 'jazz-music', parent: music.id }, { as: 'administrator' })).body
        const outdoor = (await app.post('/tags', { name: 'Outdoor' }, { as: 'administrator' })).body
        const res = await createEvent(app, { categories: [music.id, 'jazz-music'], tags: 'Outdoor,Brand New' })
        expect(res.status, res.text).toBe(201)
        expect(res.body.categories.map((t: { id: number }) => t.id)).toEqual([jazz.id, music.id])
        const tagNames = res.body.tags.map((t: { name: string }) => t.name)
        expect(tagNames).toEqual(['Brand New', 'Outdoor'])
        const brandNew = res.body.tags[0]
        expect(brandNew).toMatchObject({ slug: 'brand-new', taxonomy: 'post_tag', parent: 0, count: 1 })
        expect(res.body.tags[1].id).toBe(outdoor.id)
        // By name (case-insensitive) finds the existing term instead of creating another.
        const byName = await createEvent(app, { categories: ['music'], tags: ['brand new'] })
        expect(byName.body.categories.map((t: { id: number }) => t.id)).toEqual([music.id])
        expect(byName.body.tags.map((t: { id: number }) => t.id)).toEqual([brandNew.id])
        // Unknown IDs are ignored, as TEC does; a tag ID is not a category.
        const unknown = await createEvent(app, { categories: [999999, outdoor.id] })
        expect(unknown.status).toBe(201)
        expect(unknown.body.categories).toEqual([])
        // In Japanese, "Music" does not exist yet: it is created as a Japanese category.
        const ja = await app.post(
          '/events',
          { title: '音楽の夕べ', ...EVENT, status: 'publish', categories: ['Music'], [LANG]: 'ja' },
          { as: 'administrator' },
        )
        expect(ja.status, ja.text).toBe(201)
        const jaMusic = ja.body.categories[0]
        expect(jaMusic.id).not.toBe(music.id)
        expect(jaMusic.slug).toBe('music')
        const jaTerm = await app.get(`/categories/${jaMusic.id}`)
        expect(jaTerm.body.language).toBe('ja')
        expect((await app.get('/categories?hide_empty=0')).body.categories.map((t: { id: number }) => t.id)).not.toContain(jaMusic.id)
        expect((await app.get(`/categories?hide_empty=0&${LANG}=ja`)).body.categories.map((t: { id: number }) => t.id)).toEqual([
          jaMusic.id,
        ])
        // Invalid items are a 400 naming the parameter.
        expectInvalid(await createEvent(app, { categories: [{ name: 'x' }] }), ['categories'])
        expectInvalid(await createEvent(app, { tags: [true] }), ['tags'])
      })

      it('keeps links on partial updates and unlinks with venue: [] / null and organizer: []', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Linked Hall' })
        const v2 = await venue(app, { venue: 'Other Hall' })
        const a = await organizer(app, { organizer: 'Linked Org' })
        const b = await organizer(app, { organizer: 'Second Org' })
        const cat = (await app.post('/categories', { name: 'Kept' }, { as: 'administrator' })).body
        const e = (await createEvent(app, { venue: v.id, organizer: [a.id, b.id], categories: [cat.id] })).body
        const patch = (body: Record<string, unknown>) => app.patch(`/events/${e.id}`, body, { as: 'administrator' })
        const untouched = await patch({ title: 'Renamed' })
        expect(untouched.body.venue.id).toBe(v.id)
        expect(untouched.body.organizer.map((o: { id: number }) => o.id)).toEqual([a.id, b.id])
        expect(untouched.body.categories.map((t: { id: number }) => t.id)).toEqual([cat.id])
        // venue: "" and 0 are "no venue" too.
        expect((await patch({ venue: v2.id })).body.venue.id).toBe(v2.id)
        expect((await patch({ venue: [] })).body.venue).toEqual([])
        expect((await patch({ venue: v.id })).body.venue.id).toBe(v.id)
        expect((await patch({ venue: null })).body.venue).toEqual([])
        expect((await patch({ venue: { id: v.id } })).body.venue.id).toBe(v.id)
        expect((await patch({ venue: '' })).body.venue).toEqual([])
        const orgs = await patch({ organizer: [b.id] })
        expect(orgs.body.organizer.map((o: { id: number }) => o.id)).toEqual([b.id])
        const noOrgs = await patch({ organizer: [] })
        expect(noOrgs.body.organizer).toEqual([])
        expect((await patch({ categories: [] })).body.categories).toEqual([])
        const read = await app.get(`/events/${e.id}`)
        expect(read.body.venue).toEqual([])
        expect(read.body.organizer).toEqual([])
        expect(read.body.categories).toEqual([])
        expect(read.body.title).toBe('Renamed')
        // The venue and organizers themselves still exist.
        expect((await app.get(`/venues/${v.id}`)).status).toBe(200)
        expect((await app.get(`/organizers/${a.id}`)).status).toBe(200)
        expect(ids(await app.get('/venues?has_events=true'), 'venue')).toEqual([])
      })

      it('reuses an existing venue or organizer whose name and address match exactly in the same language (docs/wire-compatibility.md §5.6)', async () => {
        const app = await open()
        const hall = await venue(app, { venue: 'Hall', address: '1 Main St', city: 'Springfield', show_map: 'true' })
        const org = await organizer(app, { organizer: 'Crew', email: 'crew@example.com' })
        const same = await createEvent(app, {
          venue: { venue: 'Hall', address: '1 Main St', city: 'Springfield', show_map: false, description: 'Not applied' },
          organizer: [{ organizer: 'Crew', email: 'crew@example.com' }],
        })
        expect(same.status, same.text).toBe(201)
        expect(same.body.venue.id).toBe(hall.id)
        expect(same.body.organizer[0].id).toBe(org.id)
        // The reused venue is never modified.
        const after = await app.get(`/venues/${hall.id}`)
        expect(after.body.show_map).toBe(true)
        expect(after.body).not.toHaveProperty('description')
        expect(after.body.modified).toBe(hall.modified)
        // A different address, a different name (case) or another e-mail: new records.
        const moved = await createEvent(app, { venue: { venue: 'Hall', address: '2 Main St', city: 'Springfield' } })
        expect(moved.body.venue.id).not.toBe(hall.id)
        expect(moved.body.venue.slug).toBe('hall-2')
        const noCity = await createEvent(app, { venue: { venue: 'Hall', address: '1 Main St' } })
        expect(noCity.body.venue.id).not.toBe(hall.id)
        const upper = await createEvent(app, { venue: { venue: 'HALL', address: '1 Main St', city: 'Springfield' } })
        expect(upper.body.venue.id).not.toBe(hall.id)
        const otherMail = await createEvent(app, { organizer: [{ organizer: 'Crew', email: 'other@example.com' }] })
        expect(otherMail.body.organizer[0].id).not.toBe(org.id)
        // Another language: a new venue in that language.
        const ja = await app.post(
          '/events',
          {
            title: '日本のイベント',
            ...EVENT,
            status: 'publish',
            venue: { venue: 'Hall', address: '1 Main St', city: 'Springfield' },
            [LANG]: 'ja',
          },
          { as: 'administrator' },
        )
        expect(ja.status, ja.text).toBe(201)
        expect(ja.body.venue.id).not.toBe(hall.id)
        expect(ja.body.venue.language).toBe('ja')
        expect(ja.body.venue.slug).toBe('hall')
        // A trashed match is not reused.
        const bin = await venue(app, { venue: 'Binned', address: 'Nowhere 1' })
        await app.del(`/venues/${bin.id}`, { as: 'administrator' })
        const revived = await createEvent(app, { venue: { venue: 'Binned', address: 'Nowhere 1' } })
        expect(revived.body.venue.id).not.toBe(bin.id)
        expect(revived.body.venue.status).toBe('publish')
        // Reuse also works on update.
        const e = (await createEvent(app, {})).body
        const upd = await app.patch(
          `/events/${e.id}`,
          { venue: { venue: 'Hall', address: '1 Main St', city: 'Springfield' } },
          { as: 'administrator' },
        )
        expect(upd.body.venue.id).toBe(hall.id)
        expect((await app.get('/venues')).body.total).toBe(5)
      })

      it('stores nothing when one of several new organizers is invalid (all or nothing)', async () => {
        const app = await open()
        const before = await organizer(app, { organizer: 'Existing' })
        for (const bad of [{ phone: '555' }, { organizer: 'Third', website: 'not a url' }, { organizer: '' }]) {
          const res = await app.post(
            '/events',
            {
              title: 'Doomed',
              ...EVENT,
              categories: ['Doomed Category'],
              tags: ['Doomed Tag'],
              venue: { venue: 'Doomed Venue' },
              organizer: [{ organizer: 'Doomed One' }, { organizer: 'Doomed Two', email: 'two@example.com' }, bad],
            },
            { as: 'administrator' },
          )
          expectInvalid(res, ['organizer'])
          expect(res.body.data.details.organizer.code, JSON.stringify(bad)).toBe('could-not-create-organizer')
          expect(res.body.data.params.organizer).toMatch(/^The organizer could not be created from the provided data/)
        }
        const orgs = await app.get('/organizers', { as: 'administrator' })
        expect(orgs.body.organizers.map((o: { organizer: string }) => o.organizer)).toEqual(['Existing'])
        expect(orgs.body.total).toBe(1)
        expect(ids(orgs, 'organizer')).toEqual([before.id])
        expect((await app.get('/venues', { as: 'administrator' })).body.total).toBe(0)
        expect((await app.get('/categories?hide_empty=0')).body.categories).toEqual([])
        expect((await app.get('/tags?hide_empty=0')).body.tags).toEqual([])
        const events = await app.get('/events', { as: 'administrator' })
        expect(events.body.total).toBe(0)
        expect((await app.get('/events/by-slug/doomed', { as: 'administrator' })).status).toBe(400)
      })

      it('rolls back venues, organizers and terms already written when a later part of the event write fails', async () => {
        const app = await open()
        // The tag list fails only after the venue, organizers and the category have been written.
        const doomed = {
          venue: { venue: 'Rolled Venue' },
          organizer: [{ organizer: 'Rolled One' }, { organizer: 'Rolled Two' }],
          categories: ['Rolled Category'],
          tags: ['Rolled Tag', { not: 'a tag' }],
        }
        expectInvalid(await app.post('/events', { title: 'Doomed', ...EVENT, ...doomed }, { as: 'administrator' }), ['tags'])
        const e = await app.seed({ title: 'Survivor' })
        expectInvalid(await app.patch(`/events/${e.id}`, { title: 'Changed', ...doomed }, { as: 'administrator' }), ['tags'])
        expect((await app.get('/venues', { as: 'administrator' })).body.total).toBe(0)
        expect((await app.get('/organizers', { as: 'administrator' })).body.total).toBe(0)
        expect((await app.get('/categories?hide_empty=0')).body.total).toBe(0)
        expect((await app.get('/tags?hide_empty=0')).body.total).toBe(0)
        const events = await app.get('/events', { as: 'administrator' })
        expect(events.body.events.map((x: { title: string }) => x.title)).toEqual(['Survivor'])
        const read = await app.get(`/events/${e.id}`)
        expect(read.body.title).toBe('Survivor')
        expect(read.body.venue).toEqual([])
        expect(read.body.organizer).toEqual([])
        // The same data without the bad tag goes through and creates everything once.
        const ok = await app.post('/events', { title: 'Fine', ...EVENT, ...doomed, tags: ['Rolled Tag'] }, { as: 'administrator' })
        expect(ok.status, ok.text).toBe(201)
        expect((await app.get('/organizers')).body.total).toBe(2)
        expect((await app.get('/venues')).body.total).toBe(1)
      })

      it('rejects venue and organizer values that name nothing usable', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Real' })
        const v2 = await venue(app, { venue: 'Second' })
        const o = await organizer(app, { organizer: 'Real Org' })
        const trashed = await venue(app, { venue: 'Trashed' })
        await app.del(`/venues/${trashed.id}`, { as: 'administrator' })
        const trashedOrg = await organizer(app, { organizer: 'Trashed Org' })
        await app.del(`/organizers/${trashedOrg.id}`, { as: 'administrator' })
        const e = await app.seed()
        for (const value of [999999, '999999', trashed.id, o.id, e.id, [v.id, 999999], { id: 999999 }, 'foo', -1, 1.5, true, [[v.id]]]) {
          expectInvalid(await createEvent(app, { venue: value }), ['venue'])
        }
        for (const value of [999999, [o.id, 999999], trashedOrg.id, v.id, { id: trashedOrg.id }, 'a,b']) {
          expectInvalid(await createEvent(app, { organizer: value }), ['organizer'])
        }
        // An event has one venue.
        expectInvalid(await createEvent(app, { venue: [v.id, v2.id] }), ['venue'])
        // A nested venue that fails venue validation.
        for (const bad of [{ city: 'No name' }, { venue: 'Bad', website: 'foo' }, { venue: 'Bad', show_map: ['x'] }]) {
          const res = await createEvent(app, { venue: bad })
          expectInvalid(res, ['venue'])
          expect(res.body.data.details.venue.code, JSON.stringify(bad)).toBe('could-not-create-venue')
        }
        // Updates validate the same way and change nothing.
        const linked = (await createEvent(app, { venue: v.id, organizer: [o.id] })).body
        expectInvalid(await app.patch(`/events/${linked.id}`, { venue: trashed.id }, { as: 'administrator' }), ['venue'])
        expectInvalid(await app.patch(`/events/${linked.id}`, { organizer: [trashedOrg.id] }, { as: 'administrator' }), ['organizer'])
        const read = await app.get(`/events/${linked.id}`)
        expect(read.body.venue.id).toBe(v.id)
        expect(read.body.organizer.map((x: { id: number }) => x.id)).toEqual([o.id])
        // Only the events seeded above exist.
        expect((await app.get('/events', { as: 'administrator' })).body.total).toBe(2)
      })

      it("does not let a contributor link another user's draft venue or organizer", async () => {
        const app = await open()
        const adminDraft = await venue(app, { venue: 'Admin Draft', status: 'draft' })
        const adminOrgDraft = await organizer(app, { organizer: 'Admin Org Draft', status: 'draft' })
        const published = await venue(app, { venue: 'Public Hall' })
        const own = await venue(app, { venue: 'Own Draft' }, 'contributor')
        expect(own.status).toBe('draft')
        expectInvalid(await createEvent(app, { venue: adminDraft.id }, 'contributor'), ['venue'])
        expectInvalid(await createEvent(app, { organizer: [adminOrgDraft.id] }, 'contributor'), ['organizer'])
        const ok = await createEvent(app, { venue: own.id }, 'contributor')
        expect(ok.status, ok.text).toBe(201)
        expect(ok.body.status).toBe('pending')
        expect(ok.body.venue.id).toBe(own.id)
        const pub = await createEvent(app, { venue: published.id }, 'contributor')
        expect(pub.body.venue.id).toBe(published.id)
        // A nested object that matches the admin's draft is not reused: the contributor gets a new draft venue.
        const nested = await createEvent(app, { venue: { venue: 'Admin Draft' } }, 'contributor')
        expect(nested.status, nested.text).toBe(201)
        expect(nested.body.venue.id).not.toBe(adminDraft.id)
        expect(nested.body.venue).toMatchObject({ venue: 'Admin Draft', status: 'draft', author: '4' })
        // Editors may link any draft.
        expect((await createEvent(app, { venue: adminDraft.id }, 'editor')).status).toBe(201)
      })

      it('never embeds a draft venue or organizer for callers who may not read it (docs/wire-compatibility.md §5.9)', async () => {
        const app = await open()
        const draftVenue = await venue(app, { venue: 'Hidden Hall', status: 'draft' })
        const draftOrg = await organizer(app, { organizer: 'Hidden Org', status: 'draft' })
        const pubOrg = await organizer(app, { organizer: 'Public Org' })
        const e = (await createEvent(app, { venue: draftVenue.id, organizer: [draftOrg.id, pubOrg.id] })).body
        for (const as of [undefined, 'subscriber', 'contributor'] as const) {
          const opts = as ? { as } : {}
          const single = await app.get(`/events/${e.id}`, opts)
          expect(single.status).toBe(200)
          expect(single.body.venue).toEqual([])
          expect(single.body.organizer.map((o: { id: number }) => o.id)).toEqual([pubOrg.id])
          expect(single.text).not.toContain('Hidden')
          const list = await app.get('/events', opts)
          expect(list.text).not.toContain('Hidden')
          expect(list.body.events[0].venue).toEqual([])
        }
        const admin = await app.get(`/events/${e.id}`, { as: 'administrator' })
        expect(admin.body.venue.id).toBe(draftVenue.id)
        expect(admin.body.venue.status).toBe('draft')
        expect(admin.body.organizer.map((o: { id: number }) => o.id)).toEqual([draftOrg.id, pubOrg.id])
        // The venue's linked events are not a way around it either.
        expectError(await app.get(`/venues?event=${e.id}&status=draft`), 400, 'rest_invalid_param')
        expect((await app.get(`/venues?event=${e.id}`)).body.venues).toEqual([])
        expect(ids(await app.get(`/organizers?event=${e.id}`), 'organizer')).toEqual([pubOrg.id])
        // Once published, everyone sees it.
        await app.patch(`/venues/${draftVenue.id}`, { status: 'publish' }, { as: 'administrator' })
        expect((await app.get(`/events/${e.id}`)).body.venue.id).toBe(draftVenue.id)
      })

      it('embeds venues and organizers with json_ld in a single event read only', async () => {
        const app = await open()
        const v = await venue(app, FULL_VENUE)
        const o = await organizer(app, FULL_ORGANIZER)
        const e = (await createEvent(app, { venue: v.id, organizer: [o.id] })).body
        expect(e.venue).not.toHaveProperty('json_ld')
        expect(e.organizer[0]).not.toHaveProperty('json_ld')
        const single = await app.get(`/events/${e.id}`)
        expect(single.body.venue.json_ld).toMatchObject({ '@type': 'Place', name: 'Main Hall' })
        expect(single.body.organizer[0].json_ld).toMatchObject({ '@type': 'Person', name: 'Acme Org' })
        expect(single.body.json_ld.location).toMatchObject({ '@type': 'Place', name: 'Main Hall' })
        expect(single.body.json_ld.organizer).toMatchObject({ '@type': 'Person', name: 'Acme Org' })
        const list = await app.get('/events')
        expect(list.body.events[0].venue).not.toHaveProperty('json_ld')
        expect(list.body.events[0].organizer[0]).not.toHaveProperty('json_ld')
        expect(list.body.events[0].venue).toEqual(v)
      })

      it('filters events by venue and by organizers (OR within the list)', async () => {
        const app = await open()
        const v1 = await venue(app, { venue: 'V1' })
        const v2 = await venue(app, { venue: 'V2' })
        const a = await organizer(app, { organizer: 'A' })
        const b = await organizer(app, { organizer: 'B' })
        const c = await organizer(app, { organizer: 'C' })
        const e1 = (
          await createEvent(app, {
            title: 'E1',
            start_date: '2026-11-25 10:00:00',
            end_date: '2026-11-25 11:00:00',
            venue: v1.id,
            organizer: [a.id],
          })
        ).body
        const e2 = (
          await createEvent(app, {
            title: 'E2',
            start_date: '2026-11-26 10:00:00',
            end_date: '2026-11-26 11:00:00',
            venue: v2.id,
            organizer: [b.id, c.id],
          })
        ).body
        const e3 = (
          await createEvent(app, {
            title: 'E3',
            start_date: '2026-11-27 10:00:00',
            end_date: '2026-11-27 11:00:00',
            venue: v1.id,
            organizer: [c.id],
          })
        ).body
        await createEvent(app, { title: 'E4', start_date: '2026-11-28 10:00:00', end_date: '2026-11-28 11:00:00' })
        const eventIds = (res: Res) => res.body.events.map((e: { id: number }) => e.id)
        const byVenue = await app.get(`/events?venue=${v1.id}`)
        expect(eventIds(byVenue)).toEqual([e1.id, e3.id])
        expect(byVenue.body.rest_url).toContain(`venue=${v1.id}`)
        expect(eventIds(await app.get(`/events?venue=${v1.id},${v2.id}`))).toEqual([e1.id, e2.id, e3.id])
        const byOrg = await app.get(`/events?organizer=${a.id},${b.id}`)
        expect(eventIds(byOrg)).toEqual([e1.id, e2.id])
        expect(byOrg.body.rest_url).toContain(`organizer=${a.id}%2C${b.id}`)
        expect(eventIds(await app.get(`/events?organizer[]=${c.id}`))).toEqual([e2.id, e3.id])
        // Venue and organizer filters combine with AND.
        expect(eventIds(await app.get(`/events?venue=${v1.id}&organizer=${c.id}`))).toEqual([e3.id])
        expectInvalid(await app.get(`/events?venue=${a.id}`), ['venue'])
      })
    })
  })
}
