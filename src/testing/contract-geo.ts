/** The storage contract's geolocation part: venue coordinates and the geofence list filters. */
import assert from 'node:assert/strict'
import type { EventListQuery, LinkedListQuery, Storage } from '../storage/types.js'
import { eventQuery as events, newEvent, newTerm, newVenue } from './fixtures.js'

type It = (name: string, fn: () => Promise<void>) => void
type WithStorage = (fn: (s: Storage) => Promise<void>) => () => Promise<void>

const venues = (o: Partial<LinkedListQuery> = {}): LinkedListQuery => ({
  language: 'en',
  statuses: ['publish'],
  offset: 0,
  limit: 1000,
  ...o,
})

/** 1° of latitude on the sphere the filters measure on (mean radius 6371.0088 km). */
const KM_PER_DEGREE = 111.19508

export function geoContract(it: It, withStorage: WithStorage): void {
  it(
    'round-trips venue coordinates, including clearing them',
    withStorage(async (s) => {
      const v = await s.transaction((tx) => tx.insertPost(newVenue({ slug: 'v', geoLat: -33.8688, geoLng: 151.2093 })))
      const back = await s.getPost(v.id)
      assert.deepEqual(back?.type === 'venue' ? [back.geoLat, back.geoLng] : null, [-33.8688, 151.2093])
      await s.transaction((tx) => tx.updatePost(v.id, 'venue', { geoLat: null, geoLng: null }))
      const cleared = await s.getPost(v.id)
      assert.deepEqual(cleared?.type === 'venue' ? [cleared.geoLat, cleared.geoLng] : null, [null, null])
    }),
  )

  it(
    'lists events whose venue lies within a circle by exact great-circle distance, across the antimeridian, with venue filters and paging',
    withStorage(async (s) => {
      const ids = await s.transaction(async (tx) => {
        const at = async (slug: string, lat: number | null, lng: number | null) =>
          (await tx.insertPost(newVenue({ slug, geoLat: lat, geoLng: lng }))).id
        const v = {
          centre: await at('centre', 10, 20),
          // 30 km north: inside a 40 km circle.
          north: await at('north', 10 + 30 / KM_PER_DEGREE, 20),
          // In the circle's bounding box (its corner) but 50 km away.
          corner: await at('corner', 10 + 35 / KM_PER_DEGREE, 20 + 35 / KM_PER_DEGREE / Math.cos((10 * Math.PI) / 180)),
          far: await at('far', -10, 20),
          none: await at('none', null, null),
          east: await at('east', 0, 179.95),
        }
        let day = 10
        const event = async (slug: string, venueIds: number[]) =>
          tx.insertPost(
            newEvent({ slug, title: slug, venueIds, startDate: `2027-01-${day} 10:00:00`, endDate: `2027-01-${day++} 11:00:00` }),
          )
        for (const [slug, id] of Object.entries(v)) await event(slug, [id])
        await event('centre-2', [v.centre])
        await event('venueless', [])
        return v
      })
      const titles = async (q: Partial<EventListQuery>) => (await s.listEvents(events(q))).items.map((e) => e.title)
      const near = { lat: 10, lng: 20, radiusKm: 40 }
      assert.deepEqual(await titles({ venueGeo: { near, unpublishedVenues: 'none' } }), ['centre', 'north', 'centre-2'])
      assert.deepEqual(await titles({ venueGeo: { near: { ...near, radiusKm: 0.001 }, unpublishedVenues: 'none' } }), [
        'centre',
        'centre-2',
      ])
      assert.deepEqual(await titles({ venueGeo: { near: { ...near, radiusKm: 60 }, unpublishedVenues: 'none' } }), [
        'centre',
        'north',
        'corner',
        'centre-2',
      ])
      assert.deepEqual(await titles({ venueGeo: { unpublishedVenues: 'none' } }), ['centre', 'north', 'corner', 'far', 'east', 'centre-2'])
      assert.deepEqual(await titles({ venueGeo: { near: { lat: 0, lng: -179.95, radiusKm: 12 }, unpublishedVenues: 'none' } }), ['east'])
      assert.deepEqual(await titles({ venueGeo: { near: { lat: 0, lng: -179.95, radiusKm: 10 }, unpublishedVenues: 'none' } }), [])
      assert.deepEqual(await titles({ venueGeo: { near, unpublishedVenues: 'none' }, venueIds: [ids.north, ids.far] }), ['north'])
      assert.deepEqual(await titles({ venueGeo: { near, unpublishedVenues: 'none' }, venueIds: [ids.far] }), [])
      const page = await s.listEvents(events({ venueGeo: { near, unpublishedVenues: 'none' }, offset: 1, limit: 1 }))
      assert.deepEqual([page.total, page.items.map((e) => e.title)], [3, ['north']])
      const window = await s.listEvents(events({ venueGeo: { near, unpublishedVenues: 'none' }, startGte: '2027-01-11 00:00:00' }))
      assert.deepEqual([window.total, window.items.map((e) => e.title)], [2, ['north', 'centre-2']])
    }),
  )

  it(
    'pages and counts exactly when hundreds of venues match (a backend may plan that case differently)',
    withStorage(async (s) => {
      const term = await s.transaction(async (tx) => {
        const t = await tx.insertTerm(newTerm({ slug: 'every-fifth', name: 'Every fifth' }))
        for (let n = 0; n < 260; n++) {
          const located = n % 13 !== 0
          const v = await tx.insertPost(
            newVenue({ slug: `v${n}`, geoLat: located ? (n % 50) - 25 : null, geoLng: located ? n - 130 : null }),
          )
          const day = String(1 + (n % 28)).padStart(2, '0')
          await tx.insertPost(
            newEvent({
              slug: `e${n}`,
              title: `e${n}`,
              venueIds: [v.id],
              categoryIds: n % 5 === 0 ? [t.id] : [],
              startDate: `2027-02-${day} 10:00:00`,
              endDate: `2027-02-${day} 11:00:00`,
            }),
          )
        }
        // One more in the category, at no venue: never in a geofenced list.
        await tx.insertPost(
          newEvent({
            slug: 'homeless',
            title: 'homeless',
            categoryIds: [t.id],
            startDate: '2027-02-01 09:00:00',
            endDate: '2027-02-01 10:00:00',
          }),
        )
        return t
      })
      const expected = Array.from({ length: 260 }, (_, n) => n)
        .filter((n) => n % 13 !== 0)
        .sort((a, b) => (a % 28) - (b % 28) || a - b)
        .map((n) => `e${n}`)
      const all = await s.listEvents(events({ venueGeo: { unpublishedVenues: 'none' } }))
      assert.deepEqual([all.total, all.items.map((e) => e.title)], [240, expected])
      const page = await s.listEvents(
        events({ venueGeo: { near: { lat: 0, lng: 0, radiusKm: 20_000 }, unpublishedVenues: 'none' }, offset: 100, limit: 7 }),
      )
      assert.deepEqual([page.total, page.items.map((e) => e.title)], [240, expected.slice(100, 107)])
      const window = await s.listEvents(
        events({ venueGeo: { unpublishedVenues: 'none' }, startGte: '2027-02-27 00:00:00', endLte: '2027-02-28 23:59:59' }),
      )
      assert.deepEqual(
        window.items.map((e) => e.title),
        expected.filter((t) => Number(t.slice(1)) % 28 >= 26),
      )
      assert.equal(window.total, window.items.length)
      // With one category besides: only the category's events at those venues.
      const inTerm = expected.filter((t) => Number(t.slice(1)) % 5 === 0)
      for (const venueGeo of [
        { unpublishedVenues: 'none' as const },
        { near: { lat: 0, lng: 0, radiusKm: 20_000 }, unpublishedVenues: 'none' as const },
      ]) {
        const filtered = await s.listEvents(events({ venueGeo, categoryIds: [term.id], limit: 1000 }))
        assert.deepEqual([filtered.total, filtered.items.map((e) => e.title)], [inTerm.length, inTerm])
      }
    }),
  )

  it(
    "counts only the venues the query may read: published, all, or one author's; never trashed ones",
    withStorage(async (s) => {
      await s.transaction(async (tx) => {
        const venue = async (slug: string, status: 'publish' | 'draft' | 'trash', author: number) =>
          (await tx.insertPost(newVenue({ slug, status, author, geoLat: 1, geoLng: 1 }))).id
        const spec: Array<[string, 'publish' | 'draft' | 'trash', number]> = [
          ['published', 'publish', 1],
          ['draft-of-7', 'draft', 7],
          ['draft-of-8', 'draft', 8],
          ['trashed', 'trash', 1],
        ]
        let day = 10
        for (const [slug, status, author] of spec) {
          const id = await venue(slug, status, author)
          await tx.insertPost(
            newEvent({ slug, title: slug, venueIds: [id], startDate: `2027-01-${day} 10:00:00`, endDate: `2027-01-${day++} 11:00:00` }),
          )
        }
      })
      const near = { lat: 1, lng: 1, radiusKm: 1 }
      const titles = async (unpublishedVenues: 'none' | 'all' | number) =>
        (await s.listEvents(events({ venueGeo: { near, unpublishedVenues } }))).items.map((e) => e.title)
      assert.deepEqual(await titles('none'), ['published'])
      assert.deepEqual(await titles('all'), ['published', 'draft-of-7', 'draft-of-8'])
      assert.deepEqual(await titles(7), ['published', 'draft-of-7'])
    }),
  )

  it(
    'lists venues with coordinates, and those within a circle',
    withStorage(async (s) => {
      await s.transaction(async (tx) => {
        await tx.insertPost(newVenue({ slug: 'a', title: 'A', geoLat: 48.8566, geoLng: 2.3522, dateUtc: '2026-01-01 10:00:01' }))
        await tx.insertPost(newVenue({ slug: 'b', title: 'B', geoLat: 48.8049, geoLng: 2.1204, dateUtc: '2026-01-01 10:00:02' }))
        await tx.insertPost(newVenue({ slug: 'c', title: 'C', geoLat: 51.5072, geoLng: -0.1276, dateUtc: '2026-01-01 10:00:03' }))
        await tx.insertPost(newVenue({ slug: 'd', title: 'D', dateUtc: '2026-01-01 10:00:04' }))
        await tx.insertPost(newVenue({ slug: 'e', title: 'E', language: 'ja', geoLat: 48.8566, geoLng: 2.3522 }))
      })
      const titles = async (geo: LinkedListQuery['geo']) => (await s.listLinked('venue', venues({ geo }))).items.map((v) => v.title)
      assert.deepEqual(await titles(undefined), ['D', 'C', 'B', 'A'])
      assert.deepEqual(await titles({}), ['C', 'B', 'A'])
      // Paris to Versailles: 18 km.
      assert.deepEqual(await titles({ near: { lat: 48.8566, lng: 2.3522, radiusKm: 20 } }), ['B', 'A'])
      assert.deepEqual(await titles({ near: { lat: 48.8566, lng: 2.3522, radiusKm: 15 } }), ['A'])
      assert.deepEqual(await titles({ near: { lat: 48.8566, lng: 2.3522, radiusKm: 400 } }), ['C', 'B', 'A'])
      const page = await s.listLinked('venue', venues({ geo: { near: { lat: 48.8566, lng: 2.3522, radiusKm: 400 } }, offset: 1, limit: 1 }))
      assert.deepEqual([page.total, page.items.map((v) => v.title)], [3, ['B']])
      assert.deepEqual((await s.listLinked('organizer', venues({ geo: {} }))).items, [])
    }),
  )
}
