/**
 * Geolocation in combination with the other filters, authors and the trash: geofence filters
 * with the category, tag, organizer, featured and venue filters (also when more venues lie in
 * the fence than drive a list); bad nested coordinates on an event update; whom an event may
 * name as author; editing trashed venues and organizers; a synchronous geocoder; and geofenced
 * venue lists under the response cache. Runs unchanged on every storage backend; data is seeded
 * through the API only.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { CalendarOptions } from '../../options.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, USERS, type App, type Res, expectError, expectInvalid, createOk, adminTotal } from './harness.js'

/** Berlin's centre, and points due north of it: 0.1° of latitude is 11.12 km on our sphere. */
const BERLIN = { lat: 52.52, lng: 13.405 }
const HAMBURG = { geo_lat: 53.5511, geo_lng: 9.9937 } // 255 km from BERLIN
const NEAR = `geoloc_lat=${BERLIN.lat}&geoloc_lng=${BERLIN.lng}`
const north = (km: number) => ({ geo_lat: +(BERLIN.lat + km / 111.195).toFixed(6), geo_lng: BERLIN.lng })
const EVENT = { start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' }

const titles = (res: Res) => {
  expect(res.status, res.text).toBe(200)
  return (res.body.events ?? res.body.venues ?? res.body.organizers).map(
    (x: { title?: string; venue?: string; organizer?: string }) => x.title ?? x.venue ?? x.organizer,
  )
}

export function geoCombinationsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }
  const create = createOk
  const day = (n: number) => ({
    start_date: `2026-12-${String(n).padStart(2, '0')} 10:00:00`,
    end_date: `2026-12-${String(n).padStart(2, '0')} 11:00:00`,
  })

  describe(`geofence with other filters [${name}]`, () => {
    /**
     * Venues at Berlin's centre, 33 km north (inside 25 miles), in Hamburg and without
     * coordinates; one organizer; Music with a child Jazz, Art; events mixing all of them, in
     * day order, plus one without a venue.
     */
    const world = async () => {
      const app = await open()
      const centre = await create(app, '/venues', { venue: 'Centre', geo_lat: BERLIN.lat, geo_lng: BERLIN.lng })
      const n33 = await create(app, '/venues', { venue: 'North33', ...north(33) })
      const hamburg = await create(app, '/venues', { venue: 'Hamburg', ...HAMBURG })
      const nowhere = await create(app, '/venues', { venue: 'Nowhere' })
      const org = await create(app, '/organizers', { organizer: 'Org' })
      const music = await create(app, '/categories', { name: 'Music' })
      const jazz = await create(app, '/categories', { name: 'Jazz', parent: music.id })
      const art = await create(app, '/categories', { name: 'Art' })
      const loud = await create(app, '/tags', { name: 'Loud' })
      const all = { categories: [music.id], tags: [loud.id], organizer: org.id, featured: true }
      await app.seed({ title: 'C all', venue: centre.id, ...all, ...day(1) })
      await app.seed({ title: 'C art', venue: centre.id, categories: [art.id], ...day(2) })
      await app.seed({ title: 'N music org', venue: n33.id, categories: [music.id], organizer: org.id, ...day(3) })
      await app.seed({ title: 'N loud featured', venue: n33.id, tags: [loud.id], featured: true, ...day(4) })
      await app.seed({ title: 'N jazz', venue: n33.id, categories: [jazz.id], ...day(5) })
      await app.seed({ title: 'H all', venue: hamburg.id, ...all, ...day(6) })
      await app.seed({ title: 'X all', venue: nowhere.id, ...all, ...day(7) })
      await app.seed({ title: 'Homeless all', ...all, ...day(8) })
      return { app, ids: { centre: centre.id, n33: n33.id, hamburg: hamburg.id, org: org.id, music: music.id, art: art.id, loud: loud.id } }
    }

    it('combines geoloc_lat/geoloc_lng with categories (and their children), tags, organizer and featured', async () => {
      const { app, ids } = await world()
      const list = async (q: string) => {
        const res = await app.get(`/events?${NEAR}&${q}`)
        const t = titles(res)
        expect(res.body.total, q).toBe(t.length)
        return t
      }
      expect(await list(`categories=${ids.music}`)).toEqual(['C all', 'N music org', 'N jazz'])
      expect(await list(`categories=${ids.music},${ids.art}`)).toEqual(['C all', 'C art', 'N music org', 'N jazz'])
      expect(await list(`tags=${ids.loud}`)).toEqual(['C all', 'N loud featured'])
      expect(await list(`organizer=${ids.org}`)).toEqual(['C all', 'N music org'])
      expect(await list('featured=true')).toEqual(['C all', 'N loud featured'])
      expect(await list('featured=false')).toEqual(['C art', 'N music org', 'N jazz'])
      expect(await list(`categories=${ids.music}&tags=${ids.loud}&organizer=${ids.org}&featured=true`)).toEqual(['C all'])
      expect(await list(`categories=${ids.music}&venue=${ids.n33}`)).toEqual(['N music org', 'N jazz'])
      expect(await list(`tags=${ids.loud}&venue=${ids.hamburg}`)).toEqual([])
      // Widened to Hamburg, the same filters take its event in.
      expect(await list(`geoloc_radius=300&categories=${ids.music}&organizer=${ids.org}`)).toEqual(['C all', 'N music org', 'H all'])
      // Paging keeps every filter in the links.
      const first = await app.get(`/events?${NEAR}&categories=${ids.music}&per_page=2`)
      expect(titles(first)).toEqual(['C all', 'N music org'])
      expect(first.body.total).toBe(3)
      const next = new URL(first.body.next_rest_url)
      expect(next.searchParams.get('categories')).toBe(String(ids.music))
      expect(next.searchParams.get('geoloc_lat')).toBe(String(BERLIN.lat))
      expect(titles(await app.fetch(first.body.next_rest_url))).toEqual(['N jazz'])
    })

    it('combines geoloc=true with the same filters: venues with coordinates anywhere', async () => {
      const { app, ids } = await world()
      expect(titles(await app.get(`/events?geoloc=true&categories=${ids.music}`))).toEqual(['C all', 'N music org', 'N jazz', 'H all'])
      expect(titles(await app.get(`/events?geoloc=true&tags=${ids.loud}&featured=true`))).toEqual(['C all', 'N loud featured', 'H all'])
      expect(titles(await app.get(`/events?geoloc=true&organizer=${ids.org}&venue=${ids.hamburg}`))).toEqual(['H all'])
      // Without geoloc the event at a venue without coordinates, and the one without a venue, count.
      expect(titles(await app.get(`/events?organizer=${ids.org}&featured=true`))).toEqual(['C all', 'H all', 'X all', 'Homeless all'])
    })

    it('gives the same answers when more venues lie in the fence than drive a list (201 and more)', async () => {
      const app = await open()
      // 210 venues within about 10 km of the centre; events at a few of them, one in Hamburg.
      const venues: number[] = []
      for (let i = 0; i < 210; i++) {
        const v = await create(app, '/venues', {
          venue: `Ring ${i}`,
          geo_lat: +(BERLIN.lat + ((i % 15) - 7) * 0.01).toFixed(4),
          geo_lng: +(BERLIN.lng + (Math.floor(i / 15) - 7) * 0.015).toFixed(4),
        })
        venues.push(v.id)
      }
      const hamburg = await create(app, '/venues', { venue: 'Hamburg', ...HAMBURG })
      const org = await create(app, '/organizers', { organizer: 'Org' })
      const music = await create(app, '/categories', { name: 'Music' })
      const loud = await create(app, '/tags', { name: 'Loud' })
      await app.seed({ title: 'First ring', venue: venues[0], categories: [music.id], featured: true, ...day(1) })
      await app.seed({ title: 'Middle ring', venue: venues[105], categories: [music.id], organizer: org.id, ...day(2) })
      await app.seed({ title: 'Last ring', venue: venues[209], tags: [loud.id], organizer: org.id, featured: true, ...day(3) })
      await app.seed({ title: 'Ring plain', venue: venues[50], ...day(4) })
      await app.seed({
        title: 'Far',
        venue: hamburg.id,
        categories: [music.id],
        tags: [loud.id],
        organizer: org.id,
        featured: true,
        ...day(5),
      })
      await app.seed({ title: 'Homeless', categories: [music.id], featured: true, ...day(6) })
      const near = `${NEAR}&geoloc_radius=20`
      const list = async (q: string) => {
        const res = await app.get(`/events?${q}`)
        const t = titles(res)
        expect(res.body.total, q).toBe(t.length)
        return t
      }
      expect(await list(near)).toEqual(['First ring', 'Middle ring', 'Last ring', 'Ring plain'])
      expect(await list(`${near}&categories=${music.id}`)).toEqual(['First ring', 'Middle ring'])
      expect(await list(`${near}&tags=${loud.id}`)).toEqual(['Last ring'])
      expect(await list(`${near}&organizer=${org.id}`)).toEqual(['Middle ring', 'Last ring'])
      expect(await list(`${near}&featured=true`)).toEqual(['First ring', 'Last ring'])
      expect(await list(`${near}&venue=${venues[105]},${hamburg.id}`)).toEqual(['Middle ring'])
      expect(await list(`geoloc=1&categories=${music.id}`)).toEqual(['First ring', 'Middle ring', 'Far'])
      expect(await list(`geoloc=1&featured=true&organizer=${org.id}`)).toEqual(['Last ring', 'Far'])
      // And with a search (on SQLite, the matches drive the list then).
      expect(await list(`${near}&search=ring`)).toEqual(['First ring', 'Middle ring', 'Last ring', 'Ring plain'])
      expect(await list(`${near}&search=middle&categories=${music.id}`)).toEqual(['Middle ring'])
      expect(await list(`geoloc=1&search=far`)).toEqual(['Far'])
      expect(await list(`${near}&search=far`)).toEqual([])
      const page = await app.get(`/events?${near}&per_page=3&page=2`)
      expect(titles(page)).toEqual(['Ring plain'])
      expect(page.body.total).toBe(4)
      expect((await app.get(`/venues?${near}`)).body.total).toBe(210)
    })
  })

  describe(`zero coordinates [${name}]`, () => {
    it('(0, 0) and venues on the equator or the prime meridian are located like any other, everywhere they show', async () => {
      const app = await open()
      const island = await create(app, '/venues', { venue: 'Null Island', geo_lat: 0, geo_lng: 0 })
      const equator = await create(app, '/venues', { venue: 'Equator', geo_lat: '0', geo_lng: '9.45' })
      const greenwich = await create(app, '/venues', { venue: 'Meridian', geo_lat: 51.4779, geo_lng: 0 })
      expect([island.geo_lat, island.geo_lng, equator.geo_lat, greenwich.geo_lng]).toEqual([0, 0, 0, 0])
      const e = await app.seed({ title: 'At sea', venue: island.id })
      const single = (await app.get(`/events/${e.id}`)).body
      expect(single.venue).toMatchObject({ geo_lat: 0, geo_lng: 0 })
      expect(single.json_ld.location.geo).toEqual({ '@type': 'GeoCoordinates', latitude: 0, longitude: 0 })
      expect((await app.get(`/events/${e.id}?format=ics`)).text).toContain('\r\nGEO:0;0\r\n')
      expect(titles(await app.get('/events?geoloc=1'))).toEqual(['At sea'])
      expect(titles(await app.get('/events?geoloc_lat=0&geoloc_lng=0&geoloc_radius=1'))).toEqual(['At sea'])
      expect(titles(await app.get('/venues?geoloc_lat=0.1&geoloc_lng=0.1&geoloc_radius=1000')).sort()).toEqual(['Equator', 'Null Island'])
      expect(titles(await app.get('/venues?geoloc=true')).sort()).toEqual(['Equator', 'Meridian', 'Null Island'])
      // Cleared, they are gone: presence is decided by both-or-neither, not by the value.
      const cleared = await app.patch(`/venues/${island.id}`, { geo_lat: null, geo_lng: null }, { as: 'administrator' })
      expect(cleared.body).not.toHaveProperty('geo_lat')
      expect(titles(await app.get('/events?geoloc=1'))).toEqual([])
    })
  })

  describe(`bad nested coordinates on an event update [${name}]`, () => {
    it('answer 400 naming venue (and the coordinate in the message), and change nothing', async () => {
      const app = await open()
      const hall = await create(app, '/venues', { venue: 'Hall', geo_lat: 1, geo_lng: 2 })
      const event = await app.seed({ title: 'Kept', venue: hall.id })
      const venues = await adminTotal(app, '/venues')
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ geo_lat: 52 }, /geo_lng/],
        [{ geo_lng: 13 }, /geo_lat/],
        [{ geo_lat: 100, geo_lng: 1 }, /geo_lat/],
        [{ geo_lat: 1, geo_lng: -181 }, /geo_lng/],
        [{ geo_lat: 'north', geo_lng: 13 }, /geo_lat/],
      ]
      for (const [coords, field] of cases) {
        for (const send of [app.post, app.patch, app.put]) {
          const res = await send(
            `/events/${event.id}`,
            { title: 'Changed', venue: { venue: 'New Hall', ...coords } },
            { as: 'administrator' },
          )
          expectInvalid(res, ['venue'])
          expect(res.body.data.details.venue.code).toBe('could-not-create-venue')
          expect(res.body.data.params.venue).toMatch(field)
        }
      }
      // Form-encoded nested data too.
      const form = await app.post(
        `/events/${event.id}`,
        { title: 'Changed', venue: { venue: 'New Hall', geo_lat: '91', geo_lng: '0' } },
        { as: 'administrator', form: true },
      )
      expectInvalid(form, ['venue'])
      const after = (await app.get(`/events/${event.id}`)).body
      expect(after.title).toBe('Kept')
      expect(after.venue).toMatchObject({ id: hall.id, geo_lat: 1, geo_lng: 2 })
      expect(await adminTotal(app, '/venues')).toBe(venues)
      expect(titles(await app.get('/venues?search=new', { as: 'administrator' }))).toEqual([])
      // The same update with good coordinates goes through.
      const ok = await app.post(
        `/events/${event.id}`,
        { title: 'Changed', venue: { venue: 'New Hall', geo_lat: '52', geo_lng: '13' } },
        { as: 'administrator' },
      )
      expect(ok.status, ok.text).toBe(200)
      expect(ok.body.venue).toMatchObject({ venue: 'New Hall', geo_lat: 52, geo_lng: 13 })
    })
  })

  describe(`whom an event may name as author [${name}]`, () => {
    it('an author or contributor naming someone else gets 403 rest_cannot_edit_others on create and update; nothing is stored', async () => {
      const app = await open()
      const before = await adminTotal(app, '/events')
      for (const as of ['author', 'contributor'] as const) {
        expectError(
          await app.post('/events', { title: 'Theirs', ...EVENT, author: USERS.author2.id }, { as }),
          403,
          'rest_cannot_edit_others',
        )
        expectError(
          await app.post('/events', { title: 'Theirs', ...EVENT, author: String(USERS.administrator.id) }, { as, form: true }),
          403,
          'rest_cannot_edit_others',
        )
      }
      expect(await adminTotal(app, '/events')).toBe(before)
      // Naming oneself is fine.
      const mine = await create(app, '/events', { title: 'Mine', ...EVENT, author: USERS.author.id }, 'author')
      expect(mine.author).toBe(String(USERS.author.id))
      for (const send of [app.post, app.patch, app.put]) {
        expectError(
          await send(`/events/${mine.id}`, { title: 'Given away', author: USERS.author2.id }, { as: 'author' }),
          403,
          'rest_cannot_edit_others',
        )
      }
      expect((await app.get(`/events/${mine.id}`, { as: 'author' })).body).toMatchObject({ title: 'Mine', author: String(USERS.author.id) })
      // An editor may hand it over; the author then no longer edits it as its own.
      const handed = await app.patch(`/events/${mine.id}`, { author: USERS.author2.id }, { as: 'editor' })
      expect(handed.status, handed.text).toBe(200)
      expect(handed.body.author).toBe(String(USERS.author2.id))
      expect((await create(app, '/events', { title: 'For author2', ...EVENT, author: USERS.author2.id }, 'editor')).author).toBe(
        String(USERS.author2.id),
      )
    })

    it('with the users option an unknown id is a 400 even for an author (checked before the capability)', async () => {
      const known = new Set<number>(Object.values(USERS).map((u) => u.id))
      const app = await open({ users: { exists: (id) => known.has(id) } })
      expectInvalid(await app.post('/events', { title: 'X', ...EVENT, author: 987654321 }, { as: 'author' }), ['author'])
      expectError(
        await app.post('/events', { title: 'X', ...EVENT, author: USERS.editor.id }, { as: 'author' }),
        403,
        'rest_cannot_edit_others',
      )
      expect(await adminTotal(app, '/events')).toBe(0)
    })
  })

  describe(`editing trashed venues and organizers [${name}]`, () => {
    for (const [kind, plural, field] of [
      ['venue', 'venues', 'venue'],
      ['organizer', 'organizers', 'organizer'],
    ] as const) {
      it(`a trashed ${kind} accepts edits and stays in the trash; a status restores it`, async () => {
        const app = await open()
        const rec = await create(app, `/${plural}`, { [field]: 'Old Name', phone: '111' })
        const trashed = await app.del(`/${plural}/${rec.id}`, { as: 'editor' })
        expect(trashed.body).toMatchObject({ status: 'trash', slug: 'old-name__trashed' })

        const edited = await app.patch(`/${plural}/${rec.id}`, { [field]: 'New Name', phone: '222' }, { as: 'editor' })
        expect(edited.status, edited.text).toBe(200)
        expect(edited.body).toMatchObject({ id: rec.id, [field]: 'New Name', phone: '222', status: 'trash', slug: 'old-name__trashed' })
        const again = await app.put(`/${plural}/${rec.id}`, { status: 'trash', phone: '333' }, { as: 'editor' })
        expect(again.status, again.text).toBe(200)
        expect(again.body).toMatchObject({ status: 'trash', phone: '333', [field]: 'New Name' })
        // Still in the trash: listed there only, deleting again is a 410.
        expect(titles(await app.get(`/${plural}?status=trash`, { as: 'administrator' }))).toEqual(['New Name'])
        expect(titles(await app.get(`/${plural}`, { as: 'administrator' }))).toEqual([])
        expectError(await app.del(`/${plural}/${rec.id}`, { as: 'editor' }), 410, `${kind}-is-in-trash`)
        // Who may not edit it still may not.
        expectError(await app.patch(`/${plural}/${rec.id}`, { [field]: 'Mine now' }, { as: 'contributor' }), 403, 'rest_forbidden')

        const restored = await app.patch(`/${plural}/${rec.id}`, { status: 'draft' }, { as: 'editor' })
        expect(restored.status, restored.text).toBe(200)
        expect(restored.body).toMatchObject({ status: 'draft', slug: 'old-name', [field]: 'New Name', phone: '333' })
        expect(titles(await app.get(`/${plural}`, { as: 'administrator' }))).toEqual(['New Name'])
        expect(titles(await app.get(`/${plural}?status=trash`, { as: 'administrator' }))).toEqual([])
        const published = await app.patch(`/${plural}/${rec.id}`, { status: 'publish' }, { as: 'editor' })
        expect(published.body.status).toBe('publish')
        expect((await app.get(`/${plural}/${rec.id}`)).body).toMatchObject({ [field]: 'New Name', status: 'publish' })
      })
    }

    it('a trashed venue keeps coordinates edited in the trash out of the geofence until restored', async () => {
      const app = await open()
      const v = await create(app, '/venues', { venue: 'Binned', geo_lat: 10, geo_lng: 10 })
      await app.seed({ title: 'Was there', venue: v.id })
      await app.del(`/venues/${v.id}`, { as: 'administrator' })
      const moved = await app.patch(`/venues/${v.id}`, { geo_lat: BERLIN.lat, geo_lng: BERLIN.lng }, { as: 'administrator' })
      expect(moved.body).toMatchObject({ status: 'trash', geo_lat: BERLIN.lat, geo_lng: BERLIN.lng })
      expect(titles(await app.get(`/venues?${NEAR}`, { as: 'administrator' }))).toEqual([])
      expect(titles(await app.get(`/events?${NEAR}`, { as: 'administrator' }))).toEqual([])
      await app.patch(`/venues/${v.id}`, { status: 'publish' }, { as: 'administrator' })
      expect(titles(await app.get(`/venues?${NEAR}`))).toEqual(['Binned'])
      // Trashing unlinked it from its event; restoring does not link it again.
      expect(titles(await app.get(`/events?${NEAR}`))).toEqual([])
    })
  })

  describe(`a synchronous geocoder [${name}]`, () => {
    it('answers coordinates used at once, for venues and nested venue data, and the geofence finds them', async () => {
      const calls: string[] = []
      const app = await open({
        geocode: (address) => {
          calls.push(address.line)
          return address.city === 'Berlin' ? { lat: BERLIN.lat, lng: BERLIN.lng } : null
        },
      })
      const v = await create(app, '/venues', { venue: 'Sync', address: 'Alexanderplatz 1', city: 'Berlin' })
      expect([v.geo_lat, v.geo_lng]).toEqual([BERLIN.lat, BERLIN.lng])
      expect((await app.get(`/venues/${v.id}`)).body.json_ld.geo).toEqual({
        '@type': 'GeoCoordinates',
        latitude: BERLIN.lat,
        longitude: BERLIN.lng,
      })
      const none = await create(app, '/venues', { venue: 'Unknown', city: 'Atlantis' })
      expect(none).not.toHaveProperty('geo_lat')
      const e = await app.seed({ title: 'Nested sync', venue: { venue: 'Nested', address: 'Karl-Marx-Allee 1', city: 'Berlin' } })
      expect([e.venue.geo_lat, e.venue.geo_lng]).toEqual([BERLIN.lat, BERLIN.lng])
      expect(calls).toEqual(['Alexanderplatz 1, Berlin', 'Atlantis', 'Karl-Marx-Allee 1, Berlin'])
      expect(titles(await app.get(`/venues?${NEAR}`)).sort()).toEqual(['Nested', 'Sync'])
      expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Nested sync'])
      // Moving the unknown venue to Berlin geocodes it there.
      const moved = await app.patch(`/venues/${none.id}`, { city: 'Berlin' }, { as: 'administrator' })
      expect([moved.body.geo_lat, moved.body.geo_lng]).toEqual([BERLIN.lat, BERLIN.lng])
    })
  })

  describe(`geofenced venue lists under the response cache [${name}]`, () => {
    it('serves the second identical read from the cache, and follows venues moving out of and into the fence', async () => {
      const app = await open({ cache: { ttlMs: 60_000 } })
      const stats = () => app.router.cacheStats()!
      const centre = await create(app, '/venues', { venue: 'Centre', geo_lat: BERLIN.lat, geo_lng: BERLIN.lng })
      const n33 = await create(app, '/venues', { venue: 'North33', ...north(33) })
      const far = await create(app, '/venues', { venue: 'Far', ...HAMBURG })
      await app.seed({ title: 'At North33', venue: n33.id })
      /** An anonymous read (names sorted: the order is not what this test is about) and whether the cache answered it. */
      const read = async (path: string) => {
        const before = stats()
        const res = await app.get(path)
        const after = stats()
        return { names: titles(res).sort(), total: res.body.total, text: res.text, hit: after.hits === before.hits + 1 }
      }
      const path = `/venues?${NEAR}`
      const first = await read(path)
      expect(first).toMatchObject({ names: ['Centre', 'North33'], total: 2, hit: false })
      const second = await read(path)
      expect(second).toMatchObject({ names: ['Centre', 'North33'], hit: true })
      expect(second.text).toBe(first.text)
      expect(await read(`/events?${NEAR}`)).toMatchObject({ names: ['At North33'], hit: false })
      expect(await read(`/events?${NEAR}`)).toMatchObject({ names: ['At North33'], hit: true })

      // Out of the fence: both lists change at once.
      await app.patch(`/venues/${n33.id}`, { geo_lat: HAMBURG.geo_lat, geo_lng: HAMBURG.geo_lng }, { as: 'administrator' })
      expect(await read(path)).toMatchObject({ names: ['Centre'], total: 1, hit: false })
      expect(await read(path)).toMatchObject({ names: ['Centre'], hit: true })
      expect(await read(`/events?${NEAR}`)).toMatchObject({ names: [], hit: false })
      // Into the fence: a venue that was never in this answer.
      await app.patch(`/venues/${far.id}`, north(1), { as: 'administrator' })
      expect((await read(path)).names).toEqual(['Centre', 'Far'])
      // A new venue in the fence, and coordinates cleared.
      await create(app, '/venues', { venue: 'Newcomer', ...north(2) })
      expect((await read(path)).names).toEqual(['Centre', 'Far', 'Newcomer'])
      await app.patch(`/venues/${centre.id}`, { geo_lat: '', geo_lng: '' }, { as: 'administrator' })
      expect((await read(path)).names).toEqual(['Far', 'Newcomer'])
      // A wider fence is another entry, computed afresh.
      expect(await read(`${path}&geoloc_radius=300`)).toMatchObject({ names: ['Far', 'Newcomer', 'North33'], hit: false })
    })
  })
}
