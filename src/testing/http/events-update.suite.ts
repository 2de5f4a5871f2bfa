/**
 * Updating events (POST, PUT, PATCH): only the fields sent change; clearing, slugs, terms and the modified stamp.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { expectError, expectInvalid } from './harness.js'
import { EVENT_KEYS, ids, eventsOpener } from './events-shared.js'

/** POST, PUT and PATCH on an event: partial updates, clearing, slugs, terms and the modified stamp. */
export function eventsUpdateSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
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
  })
}
