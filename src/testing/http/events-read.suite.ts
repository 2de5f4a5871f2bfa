/**
 * Reading one event by id or slug, with json_ld, and the errors for unknown and trashed events.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { ORIGIN, expectError, expectInvalid, expectNoRoute } from './harness.js'
import { EVENT_KEYS, eventsOpener } from './events-shared.js'

/** GET /events/{id} and /events/by-slug/{slug}: one event, its json_ld, and the errors of a missing or trashed one. */
export function eventsReadSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
  })
}
