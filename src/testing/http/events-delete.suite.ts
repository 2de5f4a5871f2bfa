/**
 * Deleting events: the trash, then 410; by id and by slug; trashed events leave every list.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { expectError, expectInvalid } from './harness.js'
import { EVENT_KEYS, ids, eventsOpener } from './events-shared.js'

/** DELETE on an event: the trash, then 410, by id and by slug. */
export function eventsDeleteSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
  })
}
