/**
 * Venues, organizers and categories seen from events: linking by id, nested creation, embedding and list filters.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { API, type App, expectError, expectInvalid } from './harness.js'
import { WINDOW, LIST, ids, eventsOpener } from './events-shared.js'

/** Venues, organizers and categories as an event sees them: linking, nesting, embedding and filtering. */
export function eventsLinkedSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
  })
}
