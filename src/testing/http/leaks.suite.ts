/**
 * No leaks: every read route × every role × every non-public status. A record the caller may
 * not read never shows up — not as a list item, not embedded in another record, not by its
 * title anywhere in the body, not in a term count — on JSON and iCalendar alike.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import type { CalendarOptions } from '../../options.js'
import { makeApp, type App, type Caller } from './harness.js'

const STATUSES = ['draft', 'pending', 'private', 'future', 'trash'] as const
const SECRET = (kind: string, status: string) => `SECRET-${kind}-${status}`

export const leakStats = { checks: 0 }

export function leaksSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function world(
    options: CalendarOptions = {},
  ): Promise<{ app: App; publicEvent: any; ids: Record<string, number>; slugs: Record<string, string> }> {
    const app = await makeApp(makeStorage, options)
    onTestFinished(() => app.close())
    const ids: Record<string, number> = {}
    const slugs: Record<string, string> = {}
    const owner = { as: 'editor' as const }
    for (const status of STATUSES) {
      const create = status === 'trash' ? 'publish' : status
      const v = await app.post('/venues', { venue: SECRET('venue', status), status: create }, owner)
      const o = await app.post('/organizers', { organizer: SECRET('organizer', status), status: create }, owner)
      const e = await app.post(
        '/events',
        {
          title: SECRET('event', status),
          status: create,
          start_date: '2026-12-01 10:00',
          end_date: '2026-12-01 11:00',
          categories: [SECRET('category', status)],
        },
        owner,
      )
      for (const [kind, res] of [
        ['venue', v],
        ['organizer', o],
        ['event', e],
      ] as const) {
        expect(res.status).toBe(201)
        ids[`${kind}-${status}`] = res.body.id
        slugs[`${kind}-${status}`] = res.body.slug
      }
      if (status === 'trash') {
        for (const kind of ['event', 'venue', 'organizer']) {
          const del = await app.del(`/${kind}s/${ids[`${kind}-${status}`]}`, owner)
          expect(del.status).toBe(200)
        }
      }
    }
    // A published event linked to every non-public venue and organizer.
    const publicEvent = (
      await app.post(
        '/events',
        {
          title: 'Public event',
          start_date: '2026-12-02 10:00',
          end_date: '2026-12-02 11:00',
          venue: ids['venue-draft'],
          organizer: STATUSES.filter((s) => s !== 'trash').map((s) => ids[`organizer-${s}`]),
        },
        owner,
      )
    ).body
    return { app, publicEvent, ids, slugs }
  }

  const READERS: Array<Caller | undefined> = [undefined, 'subscriber', 'contributor', 'author']

  describe(`no leaks [${name}]`, () => {
    /**
     * With the response cache on, one router answers every caller, and before each reader an
     * editor and the secrets' owner read the same URL (twice, so their answers are cached hits):
     * a reader must still never get a cached view of a class that may see more.
     */
    const matrix = async (cached: boolean) => {
      const { app, publicEvent, ids, slugs } = await world(cached ? { cache: { ttlMs: 60_000 } } : {})
      const hitsBefore = app.router.cacheStats()?.hits ?? 0
      const routes = [
        '/events?start_date=2000-01-01&end_date=2100-01-01',
        '/events?start_date=2000-01-01&end_date=2100-01-01&format=ics',
        `/events/${publicEvent.id}`,
        `/events/${publicEvent.id}?format=ics`,
        `/events/by-slug/${publicEvent.slug}`,
        '/venues',
        '/organizers',
        `/venues?event=${publicEvent.id}`,
        `/organizers?event=${publicEvent.id}`,
        '/venues?search=secret',
        '/organizers?search=secret',
        '/events?search=secret&start_date=2000-01-01',
        '/categories',
        '/categories?hide_empty=0',
        '/tags?hide_empty=0',
      ]
      for (const kind of ['event', 'venue', 'organizer']) {
        for (const status of STATUSES) {
          routes.push(
            `/${kind}s/${ids[`${kind}-${status}`]}`,
            `/${kind}s/by-slug/${encodeURIComponent(slugs[`${kind}-${status}`] as string)}`,
          )
        }
      }
      for (const as of READERS) {
        for (const route of routes) {
          if (cached) for (let i = 0; i < 2; i++) await app.get(route, { as: i ? 'editor' : 'administrator' })
          const res = await app.get(route, as ? { as } : {})
          leakStats.checks++
          expect(res.status, `${as ?? 'anonymous'} ${route}`).toBeLessThan(500)
          for (const kind of ['event', 'venue', 'organizer']) {
            for (const status of STATUSES) {
              expect(res.text.includes(SECRET(kind, status)), `${as ?? 'anonymous'} GET ${route} shows ${SECRET(kind, status)}`).toBe(false)
            }
          }
        }
      }
      // The public event is readable and embeds nothing its reader may not see.
      const anon = await app.get(`/events/${publicEvent.id}`)
      expect(anon.status).toBe(200)
      expect(anon.body.venue).toEqual([])
      expect(anon.body.organizer).toEqual([])
      // Editors (and the owner) see the linked records.
      const editor = await app.get(`/events/${publicEvent.id}`, { as: 'editor' })
      expect(editor.body.venue.venue).toBe(SECRET('venue', 'draft'))
      expect(editor.body.organizer).toHaveLength(4)
      // The cached run really answered from the cache.
      if (cached) expect(app.router.cacheStats()!.hits - hitsBefore).toBeGreaterThan(routes.length * READERS.length)
    }

    it('no list, single read, feed or embed shows a non-public record to a caller who may not read it', () => matrix(false))

    it('nor through the response cache, with editors reading every URL first', () => matrix(true))

    it('term counts count only published events, for everyone', async () => {
      const { app } = await world()
      for (const as of [undefined, 'administrator'] as const) {
        const res = await app.get('/categories?hide_empty=0', as ? { as } : {})
        for (const term of res.body.categories) expect(term.count).toBe(0)
        expect((await app.get('/categories', as ? { as } : {})).body.total).toBe(0)
      }
    })

    it('the owner and editors can read what others cannot', async () => {
      const { app, ids } = await world()
      for (const status of ['draft', 'pending', 'private'] as const) {
        expect((await app.get(`/events/${ids[`event-${status}`]}`, { as: 'editor' })).status).toBe(200)
        expect((await app.get(`/events/${ids[`event-${status}`]}`, { as: 'administrator' })).status).toBe(200)
        for (const as of READERS) {
          const res = await app.get(`/events/${ids[`event-${status}`]}`, as ? { as } : {})
          expect(res.status).toBe(403)
          expect(res.body.code).toBe('event-not-accessible')
        }
      }
      expect((await app.get(`/events/${ids['event-trash']}`, { as: 'administrator' })).body.code).toBe('event-no-longer-available')
    })
  })
}
