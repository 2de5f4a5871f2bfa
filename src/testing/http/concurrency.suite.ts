/**
 * Many writers at once, through the HTTP surface: same titles, the same nested venue, the same
 * new term names, updates and deletes racing. Afterwards slugs are unique, nothing was created
 * twice that should exist once, counts and totals agree with the records, and no event points
 * at a record that is gone.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

export const concurrencyStats = { operations: 0 }

const EVENT = { start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00' }

export function concurrencySuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>, width = 40) {
  const { describe, it } = t
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage)
    onTestFinished(() => a.close())
    return a
  }

  async function all<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
    concurrencyStats.operations += n
    return Promise.all(Array.from({ length: n }, (_, i) => fn(i)))
  }

  describe(`concurrency [${name}]`, () => {
    it('parallel creates with one title get distinct slugs, one nested venue and one term each', async () => {
      const a = await app()
      const results = await all(width, () =>
        a.post(
          '/events',
          { ...EVENT, title: 'Same Title', venue: { venue: 'Shared Hall', city: 'Paris' }, categories: ['Brand New'], tags: ['fresh'] },
          { as: 'administrator' },
        ),
      )
      expect(results.map((r) => r.status)).toEqual(results.map(() => 201))
      const slugs = results.map((r) => r.body.slug)
      expect(new Set(slugs).size).toBe(width)
      expect(slugs).toContain('same-title')
      const venues = await a.get('/venues', { as: 'administrator' })
      expect(venues.body.total).toBe(1)
      expect(new Set(results.map((r) => r.body.venue.id))).toEqual(new Set([venues.body.venues[0].id]))
      const categories = await a.get('/categories')
      expect(categories.body.categories.map((t: { name: string; count: number }) => [t.name, t.count])).toEqual([['Brand New', width]])
      const tags = await a.get('/tags')
      expect(tags.body.tags.map((t: { slug: string; count: number }) => [t.slug, t.count])).toEqual([['fresh', width]])
      const list = await a.get('/events?per_page=120', { as: 'administrator' })
      expect(list.body.total).toBe(width)
      expect(list.headers.get('x-tec-total')).toBe(String(width))
    })

    it('racing updates of different fields of one event lose none of them', async () => {
      const a = await app()
      const e = await a.seed({ title: 'Base' })
      const fields: Array<Record<string, unknown>> = [
        { title: 'Renamed' },
        { description: 'Described' },
        { excerpt: 'Short' },
        { cost: '$5' },
        { website: 'https://example.com/x' },
        { featured: true },
        { sticky: true },
        { show_map: true },
        { categories: ['Music'] },
        { tags: ['late'] },
      ]
      const results = await all(fields.length, (i) => a.patch(`/events/${e.id}`, fields[i], { as: 'administrator' }))
      expect(results.map((r) => r.status)).toEqual(fields.map(() => 200))
      const final = (await a.get(`/events/${e.id}`)).body
      expect(final).toMatchObject({
        title: 'Renamed',
        description: 'Described',
        excerpt: 'Short',
        cost: '$5',
        website: 'https://example.com/x',
        featured: true,
        sticky: true,
        show_map: true,
      })
      expect(final.categories.map((t: { name: string }) => t.name)).toEqual(['Music'])
      expect(final.tags.map((t: { name: string }) => t.name)).toEqual(['late'])
    })

    it('creates, updates and deletes interleaved: totals, counts and links stay exact', async () => {
      const a = await app()
      const venue = await a.post('/venues', { venue: 'Hall' }, { as: 'administrator' })
      const org = await a.post('/organizers', { organizer: 'Org' }, { as: 'administrator' })
      const seeded = await all(width, (i) =>
        a.seed({ title: `Event ${i % 5}`, venue: venue.body.id, organizer: [org.body.id], categories: ['Music'] }),
      )
      const ids = seeded.map((e) => e.id as number)
      await all(width, (i) => {
        const id = ids[i] as number
        if (i % 3 === 0) return a.del(`/events/${id}`, { as: 'administrator' })
        if (i % 3 === 1) return a.patch(`/events/${id}`, { categories: [], title: `Moved ${i}` }, { as: 'administrator' })
        return a.post('/events', { ...EVENT, title: `Event ${i % 5}`, categories: ['Music'], organizer: [org.body.id] }, { as: 'editor' })
      })
      const deleted = ids.filter((_, i) => i % 3 === 0).length
      const created = ids.filter((_, i) => i % 3 === 2).length
      const list = await a.get('/events?per_page=120', { as: 'administrator' })
      expect(list.body.total).toBe(width - deleted + created)
      const slugs = list.body.events.map((e: { slug: string }) => e.slug)
      expect(new Set(slugs).size).toBe(slugs.length)
      const withMusic = list.body.events.filter((e: { categories: Array<{ name: string }> }) =>
        e.categories.some((c) => c.name === 'Music'),
      ).length
      expect((await a.get('/categories')).body.categories[0].count).toBe(withMusic)
      // Trash the venue and the organizer while other writers link new events to them.
      await all(10, (i) =>
        i === 0
          ? a.del(`/venues/${venue.body.id}`, { as: 'administrator' })
          : i === 1
            ? a.del(`/organizers/${org.body.id}`, { as: 'administrator' })
            : a.post('/events', { ...EVENT, title: `Late ${i}`, venue: venue.body.id, organizer: [org.body.id] }, { as: 'administrator' }),
      )
      const after = await a.get('/events?per_page=120', { as: 'administrator' })
      for (const e of after.body.events) {
        expect(e.venue).toEqual([])
        expect(e.organizer).toEqual([])
      }
    })
  })
}
