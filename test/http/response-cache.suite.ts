/**
 * The response cache: targeted invalidation never serves a stale read after a write through any
 * route, unrelated entries survive writes, reads are shared only by callers of one reader class,
 * and a hit answers exactly what an uncached router answers (bytes, ETag, 304, Content-Length).
 *
 * The oracle is a second router without a cache over the same storage: after every write, each
 * watched URL must read the same (status, ETag, body) through both, for an anonymous caller, an
 * administrator, an author and a contributor (whose views hold their own drafts).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { toNodeHandler } from '../../adapters/node/index.js'
import { createCalendarRouter, type CalendarRouter } from '../../src/router.js'
import type { CalendarOptions } from '../../src/options.js'
import type { Storage } from '../../src/storage/types.js'
import { NS, API, authenticate, makeApp, NOW, WIRE_OPTIONS } from './harness.js'

const admin = { as: 'administrator' } as const

interface Read {
  status: number
  etag: string | null
  text: string
}

async function read(router: CalendarRouter, path: string, headers: Record<string, string> = {}): Promise<Read> {
  const res = await router.fetch(new Request(API + path, { headers }))
  return { status: res.status, etag: res.headers.get('etag'), text: await res.text() }
}

/** The callers whose cached views the invalidation tests watch (the harness's bearer tokens). */
const READERS: ReadonlyArray<Record<string, string>> = [
  {},
  { authorization: 'Bearer administrator' },
  { authorization: 'Bearer author' },
  { authorization: 'Bearer contributor' },
]

export function responseCacheSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function world(options: CalendarOptions = {}) {
    const app = await makeApp(makeStorage, { cache: { ttlMs: 60_000 }, ...options })
    onTestFinished(() => app.close())
    const oracle = createCalendarRouter(app.storage, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS, ...options })
    const stats = () => app.router.cacheStats()!
    const ok = async (res: Promise<{ status: number; text: string; body: any }>) => {
      const r = await res
      expect(r.status, r.text).toBeLessThan(300)
      return r.body
    }

    const v1 = await ok(app.post('/venues', { venue: 'Main Hall', city: 'Lyon' }, admin))
    const v2 = await ok(app.post('/venues', { venue: 'Annex', city: 'Lyon' }, admin))
    const v3 = await ok(app.post('/venues', { venue: 'Far Barn', city: 'Nantes' }, admin))
    const o1 = await ok(app.post('/organizers', { organizer: 'Acme' }, admin))
    const o2 = await ok(app.post('/organizers', { organizer: 'Bolt' }, admin))
    const e1 = await app.seed({ title: 'Opera night', venue: v1.id, organizer: o1.id, categories: ['Music'], tags: ['Loud'] })
    const e2 = await app.seed({
      title: 'Jazz trio',
      venue: v2.id,
      organizer: o2.id,
      categories: ['Music'],
      start_date: '2026-11-29 20:00:00',
    })
    const e3 = await app.seed({
      title: 'Puppets',
      venue: v3.id,
      categories: ['Theatre'],
      tags: ['Quiet'],
      start_date: '2026-11-30 15:00:00',
    })
    const music = e1.categories[0].id
    const theatre = e3.categories[0].id
    const loud = e1.tags[0].id
    const quiet = e3.tags[0].id

    /** Every URL a write below may affect, and several it must not. */
    const urls = [
      '/events',
      '/events?per_page=1',
      '/events?format=ics',
      `/events?venue=${v1.id}`,
      `/events?organizer=${o2.id}`,
      '/events?search=hall',
      '/events?categories=music',
      '/events?tags=quiet',
      `/events/${e1.id}`,
      `/events/${e2.id}`,
      `/events/${e3.id}`,
      `/events/${e1.id}?format=ics`,
      '/events/by-slug/opera-night',
      '/venues',
      '/venues?only_with_upcoming=true',
      `/venues/${v1.id}`,
      `/venues/${v2.id}`,
      `/venues/${v3.id}`,
      '/venues/by-slug/main-hall',
      '/organizers',
      `/organizers/${o1.id}`,
      `/organizers/${o2.id}`,
      '/categories',
      '/categories?hide_empty=true',
      `/categories/${music}`,
      `/categories/${theatre}`,
      '/tags',
      `/tags/${loud}`,
      `/tags/${quiet}`,
      '/doc',
    ]

    /** Reads every URL twice as every reader: each successful answer must then come from the cache. */
    async function warm(paths: readonly string[] = urls, readers = READERS) {
      // Twice: a list may first write (open-ended series reaching its window), dropping entries.
      for (let pass = 0; pass < 2; pass++) for (const h of readers) for (const p of paths) await read(app.router, p, h)
      const before = stats().hits
      let cacheable = 0
      for (const h of readers) for (const p of paths) if ((await read(app.router, p, h)).status < 300) cacheable++
      expect(stats().hits - before).toBe(cacheable)
    }

    /** Every URL reads through the cache exactly as without it, for every reader. */
    async function fresh(label: string, paths: readonly string[] = urls, readers = READERS) {
      for (const h of readers) {
        for (const p of paths) {
          const cached = await read(app.router, p, h)
          const truth = await read(oracle, p, h)
          expect(cached, `${label}: ${h.authorization ?? 'anonymous'} ${p}`).toEqual(truth)
        }
      }
    }

    /** Writes, having first cached every URL, then checks them all. */
    async function after(label: string, write: () => Promise<unknown>) {
      await warm()
      await write()
      await fresh(label)
    }

    /** Hits and misses a batch of reads adds. */
    async function counted(paths: readonly string[]) {
      const before = { ...stats() }
      for (const p of paths) await read(app.router, p)
      return { hits: stats().hits - before.hits, misses: stats().misses - before.misses }
    }

    return { app, oracle, stats, ok, after, warm, fresh, counted, urls, v1, v2, v3, o1, o2, e1, e2, e3, music, theatre, loud, quiet }
  }

  describe(`response cache invalidation [${name}]`, () => {
    it('event writes: create, update, venue and term moves, trash, restore, delete for good', async () => {
      const w = await world()
      const { app, after, ok, v1, v2, e1, e2, e3 } = w
      await after('create', () =>
        ok(
          app.post(
            '/events',
            { title: 'Hall party', start_date: '2026-11-27 18:00', end_date: '2026-11-27 23:00', venue: v1.id, categories: ['Music'] },
            admin,
          ),
        ),
      )
      await after('title update', () => ok(app.patch(`/events/${e1.id}`, { title: 'Opera gala' }, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.title).toBe('Opera gala')
      // Edits of shown fields alone keep the lists that do not hold the event, but a searched
      // text brings it into (or out of) searches.
      await after('title into a search', () => ok(app.patch(`/events/${e3.id}`, { title: 'Hall recital' }, admin)))
      await after('description out of a search', () => ok(app.patch(`/events/${e3.id}`, { title: 'Recital', excerpt: 'Hall' }, admin)))
      await after('cost and website', () => ok(app.patch(`/events/${e3.id}`, { cost: '12', website: 'https://example.org/r' }, admin)))
      await after('slug', () => ok(app.patch(`/events/${e1.id}`, { slug: 'opera-night-2' }, admin)))
      await after('slug back', () => ok(app.patch(`/events/${e1.id}`, { slug: 'opera-night' }, admin)))
      await after('venue move', () => ok(app.patch(`/events/${e1.id}`, { venue: v2.id }, admin)))
      expect((await app.get(`/events?venue=${v1.id}`)).body.events.map((e: any) => e.id)).not.toContain(e1.id)
      await after('term move', () => ok(app.patch(`/events/${e1.id}`, { categories: ['Theatre'], tags: [] }, admin)))
      expect((await app.get(`/categories/${w.theatre}`)).body.count).toBe(2)
      await after('to draft', () => ok(app.patch(`/events/${e2.id}`, { status: 'draft' }, admin)))
      await after('back to publish', () => ok(app.patch(`/events/${e2.id}`, { status: 'publish' }, admin)))
      await after('trash', () => ok(app.del(`/events/${e2.id}`, admin)))
      expect((await app.get(`/events/${e2.id}`)).status).not.toBe(200)
      await after('restore', () => ok(app.patch(`/events/${e2.id}`, { status: 'publish' }, admin)))
      await after('delete for good', () => ok(app.del(`/events/${e1.id}?force=true`, admin)))
      expect((await app.get('/events/by-slug/opera-night')).status).toBe(400)
    })

    it('venue and organizer writes: update, trash (events embedding them), restore, delete for good', async () => {
      const w = await world()
      const { app, after, ok, v1, v3, o1, o2, e1 } = w
      await after('venue rename', () => ok(app.patch(`/venues/${v1.id}`, { venue: 'Grand Hall' }, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.venue.venue).toBe('Grand Hall')
      await after('venue moves town', () => ok(app.patch(`/venues/${v3.id}`, { city: 'Paris' }, admin)))
      await after('organizer rename', () => ok(app.patch(`/organizers/${o1.id}`, { organizer: 'Acme & Co' }, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.organizer[0].organizer).toBe('Acme & Co')
      await after('venue trash', () => ok(app.del(`/venues/${v1.id}`, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.venue).toEqual([])
      await after('organizer trash', () => ok(app.del(`/organizers/${o2.id}`, admin)))
      await after('venue delete for good', () => ok(app.del(`/venues/${v3.id}?force=true`, admin)))
      await after('organizer delete for good', () => ok(app.del(`/organizers/${o1.id}?force=true`, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.organizer).toEqual([])
    })

    it('a linked record anonymous callers could not see appears once published, and goes when unpublished', async () => {
      const w = await world()
      const { app, after, ok, e3 } = w
      const hidden = await ok(app.post('/venues', { venue: 'Secret Cellar', status: 'draft' }, admin))
      await ok(app.patch(`/events/${e3.id}`, { venue: hidden.id }, admin))
      w.urls.push(`/venues/${hidden.id}`)
      // Cached while the venue is a draft: the event shows no venue to anonymous callers.
      expect((await app.get(`/events/${e3.id}`)).body.venue).toEqual([])
      await after('venue published', () => ok(app.patch(`/venues/${hidden.id}`, { status: 'publish' }, admin)))
      expect((await app.get(`/events/${e3.id}`)).body.venue.venue).toBe('Secret Cellar')
      await after('venue back to draft', () => ok(app.patch(`/venues/${hidden.id}`, { status: 'draft' }, admin)))
      expect((await app.get(`/events/${e3.id}`)).text).not.toContain('Secret Cellar')
    })

    it("signed-in views: a user's own drafts, their publication and trash, and drafts linked by others", async () => {
      const w = await world()
      const { app, after, ok, v1, o1, e1 } = w
      const author = { as: 'author' } as const
      const contributor = { as: 'contributor' } as const
      const cellar = await ok(app.post('/venues', { venue: 'Cellar draft', status: 'draft' }, author))
      const mine = await ok(
        app.post(
          '/events',
          { title: 'Author draft', start_date: '2026-12-03 10:00', end_date: '2026-12-03 11:00', venue: cellar.id, status: 'draft' },
          author,
        ),
      )
      const pending = await ok(
        app.post(
          '/events',
          {
            title: 'Contributor idea',
            start_date: '2026-12-04 10:00',
            end_date: '2026-12-04 11:00',
            venue: v1.id,
            organizer: o1.id,
            status: 'pending',
          },
          contributor,
        ),
      )
      expect(pending.status).toBe('pending')
      w.urls.push(`/events/${mine.id}`, `/events/${pending.id}`, `/venues/${cellar.id}`, '/events?status=draft', '/events?status=pending')
      await after('author edits own draft', () => ok(app.patch(`/events/${mine.id}`, { title: 'Author draft, edited' }, author)))
      expect((await app.get('/events', author)).text).toContain('Author draft, edited')
      expect((await app.get('/events', { as: 'author2' })).text).not.toContain('Author draft')
      await after('contributor edits own pending event', () =>
        ok(app.patch(`/events/${pending.id}`, { title: 'Contributor plan' }, contributor)),
      )
      await after('draft venue linked to a public event', () => ok(app.patch(`/events/${e1.id}`, { venue: cellar.id }, admin)))
      expect((await app.get(`/events/${e1.id}`, author)).body.venue.venue).toBe('Cellar draft')
      expect((await app.get(`/events/${e1.id}`)).body.venue).toEqual([])
      await after('admin publishes the pending event', () => ok(app.patch(`/events/${pending.id}`, { status: 'publish' }, admin)))
      // Published, the contributor may no longer modify it: its Allow changes with no write of theirs.
      expect((await app.get(`/events/${pending.id}`, contributor)).headers.get('allow')).toBe('GET')
      await after('author publishes own draft', () => ok(app.patch(`/events/${mine.id}`, { status: 'publish' }, author)))
      await after('author trashes own event', () => ok(app.del(`/events/${mine.id}`, author)))
      await after('author publishes the venue', () => ok(app.patch(`/venues/${cellar.id}`, { status: 'publish' }, author)))
      expect((await app.get(`/events/${e1.id}`)).body.venue.venue).toBe('Cellar draft')
    })

    it('term writes: rename, reparent, delete (events embedding them, counts, filters)', async () => {
      const w = await world()
      const { app, after, ok, e1, music, theatre, loud } = w
      await after('category rename', () => ok(app.patch(`/categories/${music}`, { name: 'Live music' }, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.categories[0].name).toBe('Live music')
      await after('category reparent', () => ok(app.patch(`/categories/${theatre}`, { parent: music }, admin)))
      await after('tag rename', () => ok(app.patch(`/tags/${loud}`, { name: 'Very loud', slug: 'quiet-not' }, admin)))
      await after('category delete', () => ok(app.del(`/categories/${music}?force=true`, admin)))
      expect((await app.get(`/events/${e1.id}`)).body.categories).toEqual([])
      await after('tag delete', () => ok(app.del(`/tags/${loud}?force=true`, admin)))
      await after('category create', () => ok(app.post('/categories', { name: 'Dance' }, admin)))
    })

    it('translations, recurring series and the host jobs (extendSeries, emptyTrash)', async () => {
      let now = NOW.getTime()
      const w = await world({ now: () => new Date(now), recurrence: { horizonMonths: 25 } })
      const { app, after, ok, e1, urls } = w
      await after('translation', () =>
        ok(
          app.post(
            '/events',
            { title: 'Opéra', start_date: '2026-12-01', end_date: '2026-12-01', translation_of: e1.id },
            { ...admin, lang: 'ja' },
          ),
        ),
      )
      expect(Object.keys((await app.get(`/events/${e1.id}`)).body.translations)).toEqual(['ja'])
      const head = await ok(
        app.post(
          '/events',
          {
            title: 'Weekly class',
            start_date: '2026-11-24 18:00',
            end_date: '2026-11-24 19:00',
            recurrence: 'FREQ=WEEKLY',
            venue: w.v2.id,
          },
          admin,
        ),
      )
      const members = (await app.get(`/events?post_parent=${head.id}&per_page=50`)).body.events
      expect(members.length).toBeGreaterThan(3)
      const third = members[1].id
      urls.push(
        `/events/${head.id}`,
        `/events/${third}`,
        `/events?post_parent=${head.id}`,
        `/events?post_parent=${head.id}&page=2&per_page=2`,
      )
      await after('series edit, all', () => ok(app.post(`/events/${head.id}`, { title: 'Weekly class v2' }, admin)))
      expect((await app.get(`/events/${third}`)).body.title).toBe('Weekly class v2')
      await after('occurrence alone', () => ok(app.post(`/events/${third}`, { title: 'Class moved' }, admin)))
      await after('series rule', () => ok(app.post(`/events/${head.id}`, { recurrence: 'FREQ=WEEKLY;INTERVAL=2' }, admin)))
      await after('series split', () =>
        ok(
          app.post(
            `/events/${members[3].id}`,
            { title: 'Late class', start_date: '2026-12-22 20:00:00', end_date: '2026-12-22 21:00:00', recurrence_scope: 'following' },
            admin,
          ),
        ),
      )
      // The clock jumps: /doc's date defaults follow it, which a cached entry sees only when it
      // expires (ttlMs), as documented; that is not what is tested here.
      urls.splice(urls.indexOf('/doc'), 1)
      now += 40 * 86_400_000
      await after('extendSeries', async () => expect((await app.router.extendSeries()).added).toBeGreaterThan(0))
      await after('trash', () => ok(app.del(`/events/${w.e3.id}`, admin)))
      now += 31 * 86_400_000
      await after('emptyTrash', async () => expect((await app.router.emptyTrash({ olderThanDays: 30 })).deleted).toBe(1))
      await after('series ended', () => ok(app.post(`/events/${head.id}`, { recurrence: null }, admin)))
    })
  })

  describe(`response cache hits [${name}]`, () => {
    it('reports every occurrence of a series written in bulk to onChange, as the cache sees them', async () => {
      const seen: Array<{ type: string; action: string; id: number }> = []
      const { app, ok } = await world({ onChange: (c) => void seen.push(c) })
      const head = await ok(
        app.post(
          '/events',
          { title: 'Drill', start_date: '2026-12-01 08:00', end_date: '2026-12-01 09:00', recurrence: 'FREQ=DAILY;COUNT=5' },
          admin,
        ),
      )
      const members = (await app.get(`/events?post_parent=${head.id}`)).body.events.map((e: any) => e.id)
      expect(members).toHaveLength(4)
      await new Promise((resolve) => setTimeout(resolve, 0))
      const created = seen.filter((c) => c.type === 'event' && c.action === 'create').map((c) => c.id)
      expect(created).toEqual(expect.arrayContaining([head.id, ...members]))
    })

    it('keeps entries a write cannot affect, and drops those it can', async () => {
      const w = await world()
      const { app, ok, warm, counted, v1, v2, v3, o1, o2, e1, e2, e3, theatre, loud, quiet } = w
      const unrelated = [`/events/${e3.id}`, `/venues/${v3.id}`, `/organizers/${o2.id}`, `/categories/${theatre}`, `/tags/${quiet}`, '/doc']
      await warm()
      await ok(app.patch(`/venues/${v1.id}`, { venue: 'Grand Hall' }, admin))
      expect(await counted(unrelated)).toEqual({ hits: unrelated.length, misses: 0 })
      // Also kept: event lists that do not filter or search by venue, and the other venues.
      expect(await counted(['/events?tags=quiet', `/venues/${v2.id}`, '/organizers'])).toEqual({ hits: 3, misses: 0 })
      expect(await counted([`/venues/${v1.id}`, `/events/${e1.id}`, '/venues', '/events?search=hall', `/events?venue=${v1.id}`])).toEqual({
        hits: 0,
        misses: 5,
      })

      await warm()
      await ok(app.patch(`/events/${e1.id}`, { title: 'Opera gala' }, admin))
      // A new title leaves single venues, organizers, other events (even those sharing its terms:
      // no count changed), other terms, the lists that do not hold the event and the lists that
      // count events (no event came or went)...
      const kept = [
        `/events/${e2.id}`,
        `/events/${e3.id}`,
        `/venues/${v1.id}`,
        `/venues/${v3.id}`,
        `/organizers/${o1.id}`,
        `/categories/${theatre}`,
        '/venues',
        '/organizers',
        '/doc',
        '/events?tags=quiet',
        '/venues?only_with_upcoming=true',
        '/categories?hide_empty=true',
        // A search the new title does not move the event into or out of.
        '/events?search=hall',
      ]
      expect(await counted(kept)).toEqual({ hits: kept.length, misses: 0 })
      // ...and drops itself and the lists and feeds that hold it.
      const dropped = [`/events/${e1.id}`, '/events', '/events?format=ics']
      expect(await counted(dropped)).toEqual({ hits: 0, misses: dropped.length })
      // A title that brings the event into a search drops that search.
      await warm()
      await ok(app.patch(`/events/${e1.id}`, { title: 'Opera in the hall' }, admin))
      expect(await counted(['/events?search=hall'])).toEqual({ hits: 0, misses: 1 })
      expect((await app.get('/events?search=hall')).body.events.map((e: any) => e.id)).toContain(e1.id)
      // A change lists filter by (its dates) drops every event list and the lists that count events.
      await warm()
      await ok(app.patch(`/events/${e1.id}`, { start_date: '2026-12-02 18:00:00', end_date: '2026-12-02 20:00:00' }, admin))
      const moved = ['/events?tags=quiet', '/venues?only_with_upcoming=true', '/categories?hide_empty=true', '/events']
      expect(await counted(moved)).toEqual({ hits: 0, misses: moved.length })
      expect(await counted([`/events/${e3.id}`, `/venues/${v3.id}`])).toEqual({ hits: 2, misses: 0 })
      // Links moved: the terms' counts change, so entries showing them go; other terms stay.
      await warm()
      await ok(app.patch(`/events/${e1.id}`, { tags: [] }, admin))
      expect(await counted([`/tags/${loud}`, `/events/${e2.id}`])).toEqual({ hits: 0, misses: 2 })
      expect(await counted([`/tags/${quiet}`, `/events/${e3.id}`, `/venues/${v1.id}`])).toEqual({ hits: 3, misses: 0 })
    })

    it('shares a read only among callers of one reader class', async () => {
      const { app, ok, stats } = await world()
      await ok(
        app.post('/events', { title: 'Secret', start_date: '2026-12-05 10:00', end_date: '2026-12-05 11:00', status: 'draft' }, admin),
      )
      await ok(
        app.post(
          '/events',
          { title: 'Mine', start_date: '2026-12-06 10:00', end_date: '2026-12-06 11:00', status: 'draft' },
          { as: 'author' },
        ),
      )
      const anon = await app.get('/events')
      const count = async (as?: 'administrator' | 'editor' | 'author' | 'author2') => {
        const before = { ...stats() }
        const res = await app.get('/events', as ? { as } : {})
        return { text: res.text, hit: stats().hits - before.hits, miss: stats().misses - before.misses, res }
      }
      const first = await count('administrator')
      expect(first).toMatchObject({ hit: 0, miss: 1 })
      expect(first.text).toContain('Secret')
      expect(first.res.headers.get('cache-control')).toContain('private')
      const again = await count('administrator')
      expect(again).toMatchObject({ hit: 1, miss: 0, text: first.text })
      expect(again.res.headers.get('cache-control')).toContain('private')
      // Editors see what administrators see, but are a class of their own.
      expect(await count('editor')).toMatchObject({ hit: 0, miss: 1, text: first.text })
      // Authors see their own drafts only: one class per user.
      const author = await count('author')
      expect(author).toMatchObject({ hit: 0, miss: 1 })
      expect(author.text).toContain('Mine')
      expect(author.text).not.toContain('Secret')
      const other = await count('author2')
      expect(other).toMatchObject({ hit: 0, miss: 1 })
      expect(other.text).not.toContain('Mine')
      expect(await count('author')).toMatchObject({ hit: 1, text: author.text })
      const anonAgain = await count()
      expect(anonAgain).toMatchObject({ hit: 1, text: anon.text })
      expect(anonAgain.text).not.toContain('Secret')
      expect(anonAgain.text).not.toContain('Mine')
    })

    it('keeps anonymous reads only with signedIn: false', async () => {
      const { app, stats } = await world({ cache: { ttlMs: 60_000, signedIn: false } })
      await app.get('/events', admin)
      const before = { ...stats() }
      await app.get('/events', admin)
      expect(stats()).toEqual(before)
      await app.get('/events')
      await app.get('/events')
      expect(stats().hits).toBe(before.hits + 1)
    })

    it('answers hits with the bytes and ETag of an uncached response; 304 and HEAD as before', async () => {
      const { app, oracle, ok, stats, e1 } = await world()
      await ok(app.patch(`/events/${e1.id}`, { title: 'Café ☕ «Opéra»', description: '<p>Ünïcödé</p>' }, admin))
      const first = await read(app.router, `/events/${e1.id}`)
      const hits = stats().hits
      const hit = await read(app.router, `/events/${e1.id}`)
      expect(stats().hits).toBe(hits + 1)
      expect(hit).toEqual(first)
      expect(hit).toEqual(await read(oracle, `/events/${e1.id}`))
      const notModified = await app.get(`/events/${e1.id}`, { headers: { 'if-none-match': hit.etag! } })
      expect(notModified.status).toBe(304)
      expect(notModified.text).toBe('')
      expect(notModified.headers.get('etag')).toBe(hit.etag)
      const head = await app.head(`/events/${e1.id}`)
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      expect(head.headers.get('etag')).toBe(hit.etag)
      // The old validator no longer matches after a write.
      await ok(app.patch(`/events/${e1.id}`, { title: 'Plain' }, admin))
      const changed = await app.get(`/events/${e1.id}`, { headers: { 'if-none-match': hit.etag! } })
      expect(changed.status).toBe(200)
      expect(changed.headers.get('etag')).not.toBe(hit.etag)
    })

    it('sends a hit through the Node adapter as the stored bytes with the right Content-Length', async () => {
      const { app, ok, stats, e1 } = await world()
      await ok(app.patch(`/events/${e1.id}`, { title: 'Crème brûlée 🍮' }, admin))
      const server = createServer(toNodeHandler(app.router))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/${NS}/events/${e1.id}`
      const bodies: Buffer[] = []
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url)
        const bytes = Buffer.from(await res.arrayBuffer())
        expect(res.status).toBe(200)
        expect(Number(res.headers.get('content-length'))).toBe(bytes.byteLength)
        bodies.push(bytes)
      }
      expect(bodies[1]!.equals(bodies[0]!)).toBe(true)
      expect(bodies[0]!.toString('utf8')).toContain('Crème brûlée 🍮')
      expect(stats().hits).toBeGreaterThan(0)
      const head = await fetch(url, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(Buffer.from(await head.arrayBuffer()).byteLength).toBe(0)
      // The length a GET would send (RFC 9110 §8.6), and none on a 304.
      expect(head.headers.get('content-length')).toBe(String(bodies[0]!.byteLength))
      const etag = head.headers.get('etag')!
      const unchanged = await fetch(url, { headers: { 'if-none-match': etag } })
      expect(unchanged.status).toBe(304)
      expect(unchanged.headers.get('content-length')).toBeNull()
    })

    it("two routers over one storage see each other's writes: SQLite at once, PostgreSQL within pollMs, memory after ttlMs", async () => {
      const ttlMs = 150
      const pollMs = 100
      const a = await makeApp(makeStorage, { cache: { ttlMs, pollMs } })
      onTestFinished(() => a.close())
      const b = createCalendarRouter(a.storage, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS, cache: { ttlMs, pollMs } })
      onTestFinished(() => b.close())
      const event = await a.seed({ title: 'Before' })
      const path = `/events/${event.id}`
      expect(JSON.parse((await read(b, path)).text).title).toBe('Before')
      const cachedAt = Date.now()
      expect(JSON.parse((await read(b, '/events')).text).total).toBe(1)
      await a.patch(path, { title: 'After' }, admin)
      await a.seed({ title: 'Second' })
      const early = JSON.parse((await read(b, path)).text).title
      // b follows the journal of a storage other writers share (cache-coherence.test.ts): SQLite
      // is checked before every hit; PostgreSQL is polled, so b may answer either within pollMs.
      // The memory storage has no other writers to follow (a router sharing it is one): b
      // answers from its own cache until ttlMs, and after it (a loaded machine may be past it)
      // only the fresh answer is right.
      const mode = a.storage.otherWriters?.mode
      const fresh = ['After']
      const either = ['Before', 'After']
      expect(mode === 'check' ? fresh : mode === 'poll' || Date.now() - cachedAt >= ttlMs - 20 ? either : ['Before']).toContain(early)
      await new Promise((r) => setTimeout(r, Math.max(pollMs, ttlMs) + 50))
      // ...and never after it.
      expect(JSON.parse((await read(b, path)).text).title).toBe('After')
      expect(JSON.parse((await read(b, '/events')).text).total).toBe(2)
    })
  })
}
