/**
 * Geolocation over HTTP: venue coordinates on writes (given, cleared, geocoded), their output
 * (representation, JSON-LD, iCalendar), and the geoloc filters of event and venue lists with
 * the geofence. Runs unchanged against every storage backend; data is seeded through the API.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { CalendarOptions } from '../../options.js'
import type { Storage } from '../../storage/types.js'
import { NS, makeApp, type App, type Res, expectInvalid } from './harness.js'

/** Berlin's centre, and points due north of it: 0.1° of latitude is 11.12 km on our sphere. */
const BERLIN = { lat: 52.52, lng: 13.405 }
const NEAR = `geoloc_lat=${BERLIN.lat}&geoloc_lng=${BERLIN.lng}`
const north = (km: number) => ({ geo_lat: +(BERLIN.lat + km / 111.195).toFixed(6), geo_lng: BERLIN.lng })

const titles = (res: Res) => {
  expect(res.status, res.text).toBe(200)
  return (res.body.events ?? res.body.venues).map((x: { title?: string; venue?: string }) => x.title ?? x.venue)
}

export function geoSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }

  const venue = async (app: App, fields: Record<string, unknown>, as: 'administrator' | 'author' = 'administrator') => {
    const res = await app.post('/venues', fields, { as })
    if (res.status !== 201) throw new Error(`venue create failed: ${res.status} ${res.text}`)
    return res.body
  }

  const venueCount = async (app: App) => (await app.get('/venues', { as: 'administrator' })).body.total as number
  const eventCount = async (app: App) => (await app.get('/events', { as: 'administrator' })).body.total as number

  describe(`geolocation (${name})`, () => {
    describe('venue coordinates', () => {
      it('stores geo_lat/geo_lng as numbers and shows them where the reference puts them', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Town Hall', address: '1 Square', stateprovince: 'BE', geo_lat: 52.52, geo_lng: 13.405 })
        expect(v.geo_lat).toBe(52.52)
        expect(v.geo_lng).toBe(13.405)
        const keys = Object.keys(v)
        expect(keys.slice(keys.indexOf('stateprovince'), keys.indexOf('stateprovince') + 4)).toEqual([
          'stateprovince',
          'geo_lat',
          'geo_lng',
          'show_map',
        ])
        const single = (await app.get(`/venues/${v.id}`)).body
        expect(single.geo_lat).toBe(52.52)
        expect(single.json_ld.geo).toEqual({ '@type': 'GeoCoordinates', latitude: 52.52, longitude: 13.405 })
        const singleKeys = Object.keys(single)
        expect(singleKeys.indexOf('json_ld')).toBe(singleKeys.indexOf('geo_lng') + 1)
      })

      it('accepts numeric strings (forms) and the extremes of the ranges', async () => {
        const app = await open()
        const v = await app.post(
          '/venues',
          { venue: 'Form Hall', geo_lat: '-33.8688', geo_lng: ' 151.2093' },
          { as: 'administrator', form: true },
        )
        expect(v.status, v.text).toBe(201)
        expect([v.body.geo_lat, v.body.geo_lng]).toEqual([-33.8688, 151.2093])
        const edge = await venue(app, { venue: 'Edge', geo_lat: '-90', geo_lng: 180 })
        expect([edge.geo_lat, edge.geo_lng]).toEqual([-90, 180])
        // 0 is a coordinate like any other (not an empty value to prune).
        const zero = await venue(app, { venue: 'Null Island', geo_lat: 0, geo_lng: '0' })
        expect([zero.geo_lat, zero.geo_lng]).toEqual([0, 0])
        expect(titles(await app.get('/venues?geoloc=true'))).toContain('Null Island')
      })

      it('updates and clears coordinates ("" or null for both)', async () => {
        const app = await open()
        const v = await venue(app, { venue: 'Mover', geo_lat: 10, geo_lng: 20 })
        const moved = await app.post(`/venues/${v.id}`, { geo_lat: '11.5', geo_lng: '-20.25' }, { as: 'administrator' })
        expect([moved.body.geo_lat, moved.body.geo_lng]).toEqual([11.5, -20.25])
        const renamed = await app.post(`/venues/${v.id}`, { venue: 'Mover 2' }, { as: 'administrator' })
        expect([renamed.body.geo_lat, renamed.body.geo_lng]).toEqual([11.5, -20.25])
        const cleared = await app.post(`/venues/${v.id}`, { geo_lat: '', geo_lng: '' }, { as: 'administrator' })
        expect(cleared.status).toBe(200)
        expect(cleared.body).not.toHaveProperty('geo_lat')
        expect(cleared.body).not.toHaveProperty('geo_lng')
        await app.post(`/venues/${v.id}`, { geo_lat: 1, geo_lng: 2 }, { as: 'administrator' })
        const nulled = await app.put(`/venues/${v.id}`, { geo_lat: null, geo_lng: null }, { as: 'administrator' })
        expect(nulled.body).not.toHaveProperty('geo_lat')
        expect((await app.get(`/venues/${v.id}`)).body.json_ld).not.toHaveProperty('geo')
      })

      it('rejects half-given, out-of-range and non-numeric coordinates with a 400 naming the field, storing nothing', async () => {
        const app = await open()
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ geo_lat: 52 }, 'geo_lng'],
          [{ geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: '', geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: 52, geo_lng: null }, 'geo_lng'],
          [{ geo_lat: 90.0001, geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: -91, geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: 52, geo_lng: 180.5 }, 'geo_lng'],
          [{ geo_lat: 52, geo_lng: -181 }, 'geo_lng'],
          [{ geo_lat: 'north', geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: 52, geo_lng: '0x10' }, 'geo_lng'],
          [{ geo_lat: 52, geo_lng: 'Infinity' }, 'geo_lng'],
          [{ geo_lat: true, geo_lng: 13 }, 'geo_lat'],
          [{ geo_lat: [52], geo_lng: 13 }, 'geo_lat'],
        ]
        for (const [coords, field] of cases)
          expectInvalid(await app.post('/venues', { venue: 'Bad', ...coords }, { as: 'administrator' }), [field])
        const range = await app.post('/venues', { venue: 'Bad', geo_lat: 95, geo_lng: 13 }, { as: 'administrator' })
        expect(range.body.data.details.geo_lat.code).toBe('rest_out_of_bounds')
        expect(await venueCount(app)).toBe(0)

        const v = await venue(app, { venue: 'Kept', geo_lat: 1, geo_lng: 2 })
        for (const [coords, field] of cases) {
          expectInvalid(await app.post(`/venues/${v.id}`, { venue: 'Renamed', ...coords }, { as: 'administrator' }), [field])
        }
        const after = (await app.get(`/venues/${v.id}`)).body
        expect([after.venue, after.geo_lat, after.geo_lng]).toEqual(['Kept', 1, 2])
      })

      it('takes coordinates in nested venue data of event writes, into embedded venues, JSON-LD and iCalendar', async () => {
        const app = await open()
        const e = await app.seed({ venue: { venue: 'Nested Hall', address: 'Unter den Linden 1', geo_lat: '52.517', geo_lng: '13.389' } })
        expect(e.venue).toMatchObject({ venue: 'Nested Hall', geo_lat: 52.517, geo_lng: 13.389 })
        const single = (await app.get(`/events/${e.id}`)).body
        expect(single.json_ld.location.geo).toEqual({ '@type': 'GeoCoordinates', latitude: 52.517, longitude: 13.389 })
        expect(single.venue.json_ld.geo.latitude).toBe(52.517)
        const ics = (await app.get(`/events/${e.id}?format=ics`)).text
        expect(ics).toContain('\r\nGEO:52.517;13.389\r\n')

        // Same data again: the venue is reused; other coordinates make it another venue.
        const again = await app.seed({ venue: { venue: 'Nested Hall', address: 'Unter den Linden 1', geo_lat: 52.517, geo_lng: 13.389 } })
        expect(again.venue.id).toBe(e.venue.id)
        const elsewhere = await app.seed({ venue: { venue: 'Nested Hall', address: 'Unter den Linden 1', geo_lat: 48.1, geo_lng: 11.5 } })
        expect(elsewhere.venue.id).not.toBe(e.venue.id)
        expect(elsewhere.venue.geo_lat).toBe(48.1)
        // Without coordinates the data matches the first one.
        const plain = await app.seed({ venue: { venue: 'Nested Hall', address: 'Unter den Linden 1' } })
        expect(plain.venue.id).toBe(e.venue.id)

        const updated = await app.post(
          `/events/${e.id}`,
          { venue: { venue: 'Second Hall', geo_lat: -1, geo_lng: -2 } },
          { as: 'administrator' },
        )
        expect(updated.body.venue).toMatchObject({ venue: 'Second Hall', geo_lat: -1, geo_lng: -2 })
      })

      it('rejects bad nested coordinates before anything is written', async () => {
        const app = await open()
        const events = await eventCount(app)
        for (const coords of [{ geo_lat: 52 }, { geo_lat: 100, geo_lng: 1 }, { geo_lat: 1, geo_lng: 'east' }]) {
          const res = await app.post(
            '/events',
            {
              title: 'Nope',
              start_date: '2026-12-01 10:00:00',
              end_date: '2026-12-01 11:00:00',
              venue: { venue: 'Nested Bad', ...coords },
            },
            { as: 'administrator' },
          )
          expect(res.status, res.text).toBe(400)
          expect(Object.keys(res.body.data.params)).toEqual(['venue'])
          expect(res.body.data.details.venue.code).toBe('could-not-create-venue')
          expect(res.body.message).toBe('Invalid parameter(s): venue')
          expect(res.body.data.params.venue).toMatch(/geo_l(at|ng)/)
        }
        expect(await eventCount(app)).toBe(events)
        expect(await venueCount(app)).toBe(0)
      })
    })

    describe('geocode hook', () => {
      it('geocodes a venue written with an address and no coordinates, and only then', async () => {
        const calls: unknown[] = []
        const app = await open({
          geocode: (address) => {
            calls.push(address)
            return Promise.resolve(address.city === 'Berlin' ? { lat: 52.52, lng: 13.405 } : null)
          },
        })
        const v = await venue(app, { venue: 'Geocoded', address: 'Alexanderplatz 1', city: 'Berlin', zip: '10178', country: 'Germany' })
        expect([v.geo_lat, v.geo_lng]).toEqual([52.52, 13.405])
        expect(calls).toEqual([
          {
            address: 'Alexanderplatz 1',
            city: 'Berlin',
            state: '',
            province: '',
            stateprovince: '',
            zip: '10178',
            country: 'Germany',
            line: 'Alexanderplatz 1, Berlin, 10178, Germany',
          },
        ])
        const unknown = await venue(app, { venue: 'Nowhere', city: 'Atlantis' })
        expect(unknown).not.toHaveProperty('geo_lat')
        expect(calls).toHaveLength(2)
        // Given coordinates win; a venue without address fields is not looked up.
        expect((await venue(app, { venue: 'Given', city: 'Berlin', geo_lat: 1, geo_lng: 2 })).geo_lat).toBe(1)
        await venue(app, { venue: 'No address', phone: '555', website: 'https://example.com' })
        expect(calls).toHaveLength(2)
        // Moving the address geocodes again; renaming does not.
        await app.post(`/venues/${unknown.id}`, { venue: 'Renamed' }, { as: 'administrator' })
        expect(calls).toHaveLength(2)
        const moved = await app.post(`/venues/${unknown.id}`, { city: 'Berlin' }, { as: 'administrator' })
        expect([moved.body.geo_lat, moved.body.geo_lng]).toEqual([52.52, 13.405])
        expect(calls).toHaveLength(3)
        // Nested venue data: a new venue is geocoded, a reused one is not looked up again.
        const e = await app.seed({ venue: { venue: 'Nested', address: 'Karl-Marx-Allee 1', city: 'Berlin' } })
        expect(e.venue.geo_lat).toBe(52.52)
        expect(calls).toHaveLength(4)
        const again = await app.seed({ venue: { venue: 'Nested', address: 'Karl-Marx-Allee 1', city: 'Berlin' } })
        expect(again.venue.id).toBe(e.venue.id)
        expect(calls).toHaveLength(4)
      })

      it('never fails the write: a throw, a bad answer or a timeout stores the venue without coordinates and reports to onError', async () => {
        const errors: unknown[] = []
        let mode: 'throw' | 'bad' | 'hang' | 'sync-throw' = 'throw'
        const app = await open({
          geocodeTimeoutMs: 50,
          onError: (e) => errors.push(e),
          geocode: (address) => {
            if (mode === 'sync-throw') throw new Error('sync boom')
            if (mode === 'bad') return { lat: 200, lng: 'x' } as never
            if (mode === 'hang') return new Promise(() => undefined)
            return Promise.reject(new Error(`boom ${address.city}`))
          },
        })
        for (const m of ['throw', 'sync-throw', 'bad', 'hang'] as const) {
          mode = m
          const res = await app.post('/venues', { venue: `Venue ${m}`, city: 'Paris' }, { as: 'administrator' })
          expect(res.status, res.text).toBe(201)
          expect(res.body).not.toHaveProperty('geo_lat')
        }
        expect(errors).toHaveLength(4)
        expect(errors.every((e) => e instanceof Error && e.name === 'GeocodeError')).toBe(true)
        expect(((errors[0] as Error).cause as Error).message).toBe('boom Paris')
        expect(((errors[1] as Error).cause as Error).message).toBe('sync boom')
        expect((errors[3] as Error).message).toMatch(/50 ms/)
        expect(await venueCount(app)).toBe(4)
        // An event with a new nested venue is created too.
        mode = 'hang'
        const e = await app.seed({ venue: { venue: 'Hung', city: 'Paris' } })
        expect(e.venue.venue).toBe('Hung')
        expect(e.venue).not.toHaveProperty('geo_lat')
      })
    })

    describe('filters', () => {
      /**
       * Venues at Berlin's centre, 33 km north (inside 25 miles, outside 25 km), 45 km north
       * (outside 25 miles), in Hamburg, and one without coordinates; one event at each, one
       * without a venue.
       */
      const world = async (options: CalendarOptions = {}) => {
        const app = await open(options)
        const ids: Record<string, number> = {}
        const places: Array<[string, Record<string, unknown>]> = [
          ['Centre', { geo_lat: BERLIN.lat, geo_lng: BERLIN.lng }],
          ['North33', north(33)],
          ['North45', north(45)],
          ['Hamburg', { geo_lat: 53.5511, geo_lng: 9.9937 }],
          ['Nowhere', {}],
        ]
        let day = 1
        for (const [title, coords] of places) {
          const v = await venue(app, { venue: `${title} venue`, ...coords })
          ids[title] = v.id
          await app.seed({ title, venue: v.id, start_date: `2026-12-0${day} 10:00:00`, end_date: `2026-12-0${day++} 11:00:00` })
        }
        await app.seed({ title: 'Homeless', start_date: `2026-12-0${day} 10:00:00`, end_date: `2026-12-0${day} 11:00:00` })
        return { app, ids }
      }

      it('geoloc=true keeps events whose venue has coordinates; false filters nothing', async () => {
        const { app } = await world()
        expect(titles(await app.get('/events?geoloc=true'))).toEqual(['Centre', 'North33', 'North45', 'Hamburg'])
        expect(titles(await app.get('/events?geoloc=1'))).toHaveLength(4)
        expect(titles(await app.get('/events?geoloc=false'))).toHaveLength(6)
        const res = await app.get('/events?geoloc=true')
        expect(res.body.total).toBe(4)
        expect(res.headers.get('x-tec-total')).toBe('4')
      })

      it('geoloc_lat/geoloc_lng keep events within the geofence: 25 miles by default, by great-circle distance', async () => {
        const { app } = await world()
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre', 'North33'])
        expect(titles(await app.get(`/events?${NEAR}&geoloc_radius=30`))).toEqual(['Centre', 'North33', 'North45'])
        expect(titles(await app.get(`/events?${NEAR}&geoloc_radius=0.5`))).toEqual(['Centre'])
        expect(titles(await app.get(`/events?${NEAR}&geoloc_radius=200`))).toEqual(['Centre', 'North33', 'North45', 'Hamburg'])
        expect(titles(await app.get('/events?geoloc_lat=53.55&geoloc_lng=10'))).toEqual(['Hamburg'])
        expect(titles(await app.get('/events?geoloc_lat=-33.86&geoloc_lng=151.2'))).toEqual([])
      })

      it('uses the geofence option and its unit', async () => {
        const { app } = await world({ geofence: { radius: 25, unit: 'km' } })
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre'])
        expect(titles(await app.get(`/events?${NEAR}&geoloc_radius=40`))).toEqual(['Centre', 'North33'])
        const doc = (await app.get('')).body.routes[`/${NS}/events`].endpoints[0].args
        expect(doc.geoloc_radius.description).toMatch(/kilometres \(default 25\)/)
      })

      it('keeps totals, paging and the geoloc parameters in rest_url and next links', async () => {
        const { app } = await world()
        const first = await app.get(`/events?per_page=1&${NEAR}&geoloc_radius=30`)
        expect(titles(first)).toEqual(['Centre'])
        expect(first.body.total).toBe(3)
        expect(first.body.total_pages).toBe(3)
        expect(first.headers.get('x-tec-totalpages')).toBe('3')
        const rest = new URL(first.body.rest_url)
        expect(rest.searchParams.get('geoloc_lat')).toBe('52.52')
        expect(rest.searchParams.get('geoloc_lng')).toBe('13.405')
        expect(rest.searchParams.get('geoloc_radius')).toBe('30')
        const next = new URL(first.body.next_rest_url)
        expect([...next.searchParams.keys()]).toEqual(expect.arrayContaining(['geoloc_lat', 'geoloc_lng', 'geoloc_radius']))
        const second = await app.fetch(first.body.next_rest_url)
        expect(titles(second)).toEqual(['North33'])
        const third = await app.fetch(second.body.next_rest_url)
        expect(titles(third)).toEqual(['North45'])
        expect(third.body).not.toHaveProperty('next_rest_url')
        expect(titles(await app.fetch(third.body.previous_rest_url))).toEqual(['North33'])
        // The order of TEC's rest_url: geoloc parameters between search and status.
        const all = await app.get(`/events?geoloc=1&${NEAR}&geoloc_radius=30&search=o`)
        expect(all.body.rest_url).toMatch(/&search=o&geoloc=1&geoloc_lat=52\.52&geoloc_lng=13\.405&geoloc_radius=30&status=publish$/)
      })

      it('composes with other filters, visibility and the read cache; iCalendar honours it', async () => {
        const { app, ids } = await world({ cache: { ttlMs: 60_000 } })
        expect(titles(await app.get(`/events?${NEAR}&search=north`))).toEqual(['North33'])
        expect(titles(await app.get(`/events?${NEAR}&venue=${ids.North33}`))).toEqual(['North33'])
        expect(titles(await app.get(`/events?${NEAR}&venue=${ids.Hamburg}`))).toEqual([])
        expect(titles(await app.get(`/events?${NEAR}&start_date=2026-12-02`))).toEqual(['North33'])
        // A draft event near the point: listed for editors only.
        await app.seed({
          title: 'Draft near',
          status: 'draft',
          venue: ids.Centre,
          start_date: '2026-12-10 10:00:00',
          end_date: '2026-12-10 11:00:00',
        })
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre', 'North33'])
        expect(titles(await app.get(`/events?${NEAR}`, { as: 'editor' }))).toEqual(['Centre', 'North33', 'Draft near'])
        // A published event at a draft venue: the venue's place is not revealed to who cannot read it.
        const hidden = await venue(app, { venue: 'Hidden venue', status: 'draft', geo_lat: BERLIN.lat, geo_lng: BERLIN.lng })
        await app.seed({ title: 'At hidden', venue: hidden.id, start_date: '2026-12-11 10:00:00', end_date: '2026-12-11 11:00:00' })
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre', 'North33'])
        expect(titles(await app.get(`/events?geoloc=1`))).not.toContain('At hidden')
        expect(titles(await app.get(`/events?${NEAR}`, { as: 'administrator' }))).toContain('At hidden')
        // iCalendar: the same events.
        const ics = (await app.get(`/events?${NEAR}&format=ics`)).text
        expect([...ics.matchAll(/^SUMMARY:(.*)$/gm)].map((m) => m[1]!.trim())).toEqual(['Centre', 'North33'])
        expect(ics).toContain(`GEO:${BERLIN.lat};${BERLIN.lng}`)
        // Cached anonymous answer, then the venue moves: the next answer follows.
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre', 'North33'])
        await app.post(`/venues/${ids.Hamburg}`, { geo_lat: BERLIN.lat + 0.01, geo_lng: BERLIN.lng }, { as: 'administrator' })
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['Centre', 'North33', 'Hamburg'])
        await app.post(`/venues/${ids.Centre}`, { geo_lat: '', geo_lng: '' }, { as: 'administrator' })
        expect(titles(await app.get(`/events?${NEAR}`))).toEqual(['North33', 'Hamburg'])
      })

      it('finds venues across the antimeridian and near the poles', async () => {
        const app = await open()
        const east = await venue(app, { venue: 'East edge', geo_lat: 0, geo_lng: 179.9 })
        const polar = await venue(app, { venue: 'Polar', geo_lat: 89.8, geo_lng: 180 })
        await app.seed({ title: 'Dateline', venue: east.id })
        await app.seed({ title: 'Pole', venue: polar.id, start_date: '2026-11-29 10:00:00', end_date: '2026-11-29 11:00:00' })
        expect(titles(await app.get('/events?geoloc_lat=0&geoloc_lng=-179.9&geoloc_radius=20'))).toEqual(['Dateline'])
        expect(titles(await app.get('/events?geoloc_lat=0&geoloc_lng=-179.9&geoloc_radius=10'))).toEqual([])
        expect(titles(await app.get('/events?geoloc_lat=89.9&geoloc_lng=0&geoloc_radius=30'))).toEqual(['Pole'])
        expect(titles(await app.get('/events?geoloc_lat=89.9&geoloc_lng=0&geoloc_radius=15'))).toEqual([])
        expect(titles(await app.get('/venues?geoloc_lat=0&geoloc_lng=-179.95&geoloc_radius=12'))).toEqual(['East edge'])
      })

      it('caps geoloc_radius at 20,000 km', async () => {
        const { app } = await world()
        const res = await app.get(`/events?geoloc_lat=0&geoloc_lng=0&geoloc_radius=99999`)
        expect(titles(res)).toEqual(['Centre', 'North33', 'North45', 'Hamburg'])
        expect(Number(new URL(res.body.rest_url).searchParams.get('geoloc_radius'))).toBeCloseTo(20_000 / 1.609344, 6)
        const { app: km } = await world({ geofence: { radius: 50_000, unit: 'km' } })
        expect(titles(await km.get(`/events?geoloc_lat=0&geoloc_lng=0`))).toHaveLength(4)
      })

      it('answers bad geolocation parameters with a 400 naming them', async () => {
        const { app } = await world()
        expectInvalid(await app.get('/events?geoloc_lat=91&geoloc_lng=0'), ['geoloc_lat'])
        expectInvalid(await app.get('/events?geoloc_lat=0&geoloc_lng=-180.01'), ['geoloc_lng'])
        expectInvalid(await app.get('/events?geoloc_lat=abc&geoloc_lng=0'), ['geoloc_lat'])
        expectInvalid(await app.get('/events?geoloc_lat=&geoloc_lng=0'), ['geoloc_lat'])
        expectInvalid(await app.get('/events?geoloc_lat=52'), ['geoloc_lng'])
        expectInvalid(await app.get('/events?geoloc_lng=13'), ['geoloc_lat'])
        expectInvalid(await app.get('/events?geoloc_radius=10'), ['geoloc_radius'])
        for (const r of ['0', '-5', 'far', '', 'NaN', '1e999'])
          expectInvalid(await app.get(`/events?${NEAR}&geoloc_radius=${r}`), ['geoloc_radius'])
        expectInvalid(await app.get('/events?geoloc=maybe'), ['geoloc'])
        expectInvalid(await app.get('/venues?geoloc_lat=52'), ['geoloc_lng'])
        expectInvalid(await app.get('/venues?geoloc_lat=52&geoloc_lng=13&geoloc_radius=-1'), ['geoloc_radius'])
        expectInvalid(await app.get('/venues?geoloc_lat=-100&geoloc_lng=13'), ['geoloc_lat'])
      })

      it('filters GET /venues the same way', async () => {
        const { app } = await world()
        const located = await app.get('/venues?geoloc=true')
        expect(titles(located).sort()).toEqual(['Centre venue', 'Hamburg venue', 'North33 venue', 'North45 venue'])
        expect(located.body.total).toBe(4)
        expect(titles(await app.get('/venues?geoloc=false'))).toHaveLength(5)
        expect(titles(await app.get(`/venues?${NEAR}`)).sort()).toEqual(['Centre venue', 'North33 venue'])
        const paged = await app.get(`/venues?${NEAR}&geoloc_radius=30&per_page=2`)
        expect(paged.body.total).toBe(3)
        expect(new URL(paged.body.next_rest_url).searchParams.get('geoloc_radius')).toBe('30')
        expect(titles(await app.fetch(paged.body.next_rest_url))).toHaveLength(1)
        expect(titles(await app.get(`/venues?${NEAR}&search=north33`))).toEqual(['North33 venue'])
        // Draft venues: only for who may see them.
        await venue(app, { venue: 'Draft venue', status: 'draft', geo_lat: BERLIN.lat, geo_lng: BERLIN.lng })
        expect(titles(await app.get(`/venues?${NEAR}`))).not.toContain('Draft venue')
        expect(titles(await app.get(`/venues?${NEAR}`, { as: 'editor' }))).toContain('Draft venue')
        // Organizers have no coordinates and no such filter.
        expect((await app.get('/organizers?geoloc=true')).status).toBe(200)
      })
    })
  })
}

/** Storage-free, run once (test/http-once.test.ts): discovery and /doc are built from the schemas. */
export function geoDocSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = async (options: CalendarOptions = {}): Promise<App> => {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    return app
  }

  describe(`geolocation (${name})`, () => {
    describe('filters', () => {
      it('documents the fields and filters in discovery and /doc', async () => {
        const app = await open()
        const { routes } = (await app.get('')).body
        const list = routes[`/${NS}/events`].endpoints[0].args
        for (const name of ['geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius']) expect(list[name]?.description, name).toBeTruthy()
        expect(list.geoloc_lat).toMatchObject({ type: 'number', minimum: -90, maximum: 90 })
        expect(list.geoloc_radius.description).toMatch(/miles \(default 25\)/)
        const venues = routes[`/${NS}/venues`].endpoints
        expect(venues[0].args.geoloc_radius).toBeTruthy()
        expect(venues[1].args.geo_lat).toMatchObject({ minimum: -90, maximum: 90 })
        expect(venues[1].args.geo_lng).toMatchObject({ minimum: -180, maximum: 180 })
        const doc = (await app.get('/doc')).body
        const names = doc.paths['/events'].get.parameters.map((p: { name: string }) => p.name)
        expect(names).toEqual(expect.arrayContaining(['geoloc', 'geoloc_lat', 'geoloc_lng', 'geoloc_radius']))
        expect(doc.paths['/venues'].get.parameters.map((p: { name: string }) => p.name)).toContain('geoloc_radius')
        expect(Object.keys(doc.components.schemas.venueCreate.properties)).toEqual(expect.arrayContaining(['geo_lat', 'geo_lng']))
      })
    })
  })
}
