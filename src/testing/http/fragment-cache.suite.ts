/**
 * The fragment cache (cache/fragment-cache.ts, post-text.ts): responses written from
 * cached fragments are byte for byte what the plain objects give (a second router on the same
 * storage with `fragmentCache: false` is the oracle), a write through any route is seen by the
 * next read of every URL that shows the record, host, language and caller never mix, the byte
 * bound holds, and a second router on the same database sees the first one's writes.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import { createCalendarRouter, type CalendarRouter } from '../../router.js'
import type { CalendarOptions } from '../../options.js'
import type { Storage } from '../../storage/types.js'
import { withStorageHooks } from '../../storage/pipeline.js'
import { LANG, authenticate, makeApp, NOW, NS_PATH, ORIGIN, type App, type Caller, WIRE_OPTIONS } from './harness.js'

const admin = { as: 'administrator' as const }
const CALLERS: Array<Caller | undefined> = [undefined, 'editor', 'contributor']

interface Read {
  status: number
  text: string
}

/** GET through a router as a caller; `origin` and `lang` say how the URL is addressed. */
async function read(router: CalendarRouter, path: string, as?: Caller, origin = ORIGIN, lang?: string): Promise<Read> {
  const headers = new Headers()
  if (as) headers.set('Authorization', `Bearer ${as}`)
  const res = await router.fetch(new Request(`${origin}${lang ? `/${lang}` : ''}${NS_PATH}${path}`, { headers }))
  return { status: res.status, text: await res.text() }
}

/** A router over the same storage that builds every representation as plain objects. */
function oracle(storage: Storage, options: CalendarOptions = {}): CalendarRouter {
  return createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS, ...options, fragmentCache: false })
}

export const fragmentStats = { comparisons: 0 }

export function fragmentCacheSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options: CalendarOptions = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  /** Every path, as every caller, answers the very bytes the oracle answers; returns the reads. */
  async function same(a: App, plain: CalendarRouter, paths: string[], callers = CALLERS, lang?: string) {
    const out = new Map<string, Read>()
    for (const path of paths) {
      for (const as of callers) {
        const got = await read(a.router, path, as, ORIGIN, lang)
        const want = await read(plain, path, as, ORIGIN, lang)
        expect(got.status, `${as ?? 'anonymous'} GET ${path}`).toBe(want.status)
        expect(got.text, `${as ?? 'anonymous'} GET ${path}`).toBe(want.text)
        fragmentStats.comparisons++
        out.set(`${as ?? ''} ${path}`, got)
      }
    }
    return out
  }

  /**
   * A published event with a venue, an organizer, a category and a tag, a Japanese translation,
   * a second event linked to a draft venue, and a weekly series of three.
   */
  async function richWorld(a: App) {
    const venue = (await a.post('/venues', { venue: 'Harbour Hall', city: 'Portsmouth', address: '1 Quay', status: 'publish' }, admin)).body
    const draftVenue = (await a.post('/venues', { venue: 'Secret Barn', city: 'Nowhere', status: 'draft' }, { as: 'editor' })).body
    const organizer = (await a.post('/organizers', { organizer: 'Friends of the Hall', email: 'f@example.org', status: 'publish' }, admin))
      .body
    const draftOrganizer = (await a.post('/organizers', { organizer: 'Secret Club', status: 'draft' }, { as: 'editor' })).body
    const event = await a.seed({
      title: 'Harbour evening',
      description: '<p>Music and food.</p>',
      cost: '10',
      venue: venue.id,
      organizer: [organizer.id],
      categories: ['Music'],
      tags: ['outdoor'],
    })
    const hidden = await a.seed({
      title: 'Barn dance',
      start_date: '2026-11-29 10:00:00',
      end_date: '2026-11-29 12:00:00',
      venue: draftVenue.id,
      organizer: [organizer.id, draftOrganizer.id],
      categories: ['Music'],
    })
    const ja = await a.seed({ title: 'Minato no yoru', translation_of: event.id, venue: venue.id }, { lang: 'ja' })
    const series = await a.seed({
      title: 'Weekly walk',
      start_date: '2026-12-02 09:00:00',
      end_date: '2026-12-02 10:00:00',
      recurrence: 'FREQ=WEEKLY;COUNT=3',
      tags: ['outdoor'],
    })
    const members = (await a.get(`/events?post_parent=${series.id}&start_date=2000-01-01&end_date=2100-01-01`, admin)).body.events
    expect(members.length).toBe(2)
    return { venue, draftVenue, organizer, event, hidden, ja, series, members: members as any[] }
  }

  const LIST = '/events?start_date=2000-01-01&end_date=2100-01-01'
  const worldPaths = (w: Awaited<ReturnType<typeof richWorld>>) => [
    LIST,
    `${LIST}&per_page=2&page=2`,
    `/events/${w.event.id}`,
    `/events/by-slug/${w.event.slug}`,
    `/events/${w.hidden.id}`,
    `/events/${w.series.id}`,
    `/events/${w.members[1].id}`,
    '/venues',
    `/venues/${w.venue.id}`,
    `/venues/${w.draftVenue.id}`,
    '/organizers',
    `/organizers/${w.organizer.id}`,
  ]

  describe(`fragment cache [${name}]`, () => {
    it('answers the bytes of the plain representation on every route, first read and cached read alike', async () => {
      const a = await app()
      const w = await richWorld(a)
      const plain = oracle(a.storage)
      for (let pass = 0; pass < 2; pass++) {
        const reads = await same(a, plain, worldPaths(w))
        // The world is as rich as it claims: the comparisons above covered all of it.
        const anonEvent = reads.get(` /events/${w.event.id}`)!.text
        expect(anonEvent).toContain('"venue":{"id":')
        expect(anonEvent).toContain('Friends of the Hall')
        expect(anonEvent).toContain(`"translations":{"ja":${w.ja.id}}`)
        expect(anonEvent).toContain('"json_ld":')
        expect(anonEvent).toContain('"name":"Music"')
        expect(reads.get(` /events/${w.members[1].id}`)!.text).toMatch(/"recurrence":\{"rrule":"FREQ=WEEKLY;COUNT=3".*"series":\{"id":/)
        expect(reads.get(` /events/${w.hidden.id}`)!.text).not.toContain('Secret Barn')
        expect(reads.get(`editor /events/${w.hidden.id}`)!.text).toContain('Secret Barn')
        expect(reads.get(` /events/${w.hidden.id}`)!.text).not.toContain('Secret Club')
        expect(reads.get(`editor /events/${w.hidden.id}`)!.text).toMatch(/"organizer":\[\{.*Friends of the Hall.*\},\{.*Secret Club/)
        expect(reads.get(` ${LIST}`)!.text).not.toContain('Secret Barn')
        expect(reads.get(`editor ${LIST}`)!.text).toContain('Secret Barn')
      }
      await same(a, plain, [LIST, `/events/${w.ja.id}`, '/venues'], [undefined, 'editor'], 'ja')
      expect(a.router.fragmentCacheStats()!.hits).toBeGreaterThan(0)
      expect(plain.fragmentCacheStats()).toBeNull()
    })

    it('write replies are the same bytes as well', async () => {
      const a = await app()
      const w = await richWorld(a)
      const plain = oracle(a.storage)
      // A write answers the record as a list shows it: the oracle's list item, re-serialized
      // (JSON.stringify output survives JSON.parse and JSON.stringify byte for byte).
      const item = async (path: string, id: number) =>
        JSON.stringify(
          Object.values(JSON.parse((await read(plain, path, 'administrator')).text))
            .flat()
            .find((x: any) => x?.id === id),
        )
      const reply = await a.post(`/events/${w.event.id}`, { title: 'Renamed' }, admin)
      expect(reply.status).toBe(200)
      expect(reply.text).toBe(await item(LIST, w.event.id))
      const member = await a.post(`/events/${w.members[0].id}`, { title: 'Moved', recurrence_scope: 'this' }, admin)
      expect(member.text).toBe(await item(LIST, w.members[0].id))
      const venueReply = await a.post(`/venues/${w.venue.id}`, { city: 'Southsea' }, admin)
      expect(venueReply.text).toBe(await item('/venues', w.venue.id))
      const organizerReply = await a.post(`/organizers/${w.organizer.id}`, { phone: '123' }, admin)
      expect(organizerReply.text).toBe(await item('/organizers', w.organizer.id))
    })

    describe('a write through any route is seen by the next read of every URL showing the record', () => {
      type World = Awaited<ReturnType<typeof richWorld>>
      type Reads = Map<string, Read>
      const shows = (re: RegExp) => (_before: Reads, after: Reads) => expect([...after.values()].some((r) => re.test(r.text))).toBe(true)
      const WRITES: Array<[string, (a: App, w: World) => Promise<unknown>, ((before: Reads, after: Reads, w: World) => void) | null]> = [
        ['event update', (a, w) => a.post(`/events/${w.event.id}`, { title: 'Renamed evening' }, admin), shows(/Renamed evening/)],
        ['event trash', (a, w) => a.del(`/events/${w.event.id}`, admin), null],
        ['event delete for good', (a, w) => a.del(`/events/${w.event.id}?force=true`, admin), null],
        ['venue update', (a, w) => a.post(`/venues/${w.venue.id}`, { venue: 'Renamed Hall' }, admin), shows(/Renamed Hall/)],
        ['venue trash', (a, w) => a.del(`/venues/${w.venue.id}`, admin), null],
        ['venue delete for good', (a, w) => a.del(`/venues/${w.venue.id}?force=true`, admin), null],
        ['draft venue published', (a, w) => a.post(`/venues/${w.draftVenue.id}`, { status: 'publish' }, admin), null],
        [
          'organizer update',
          (a, w) => a.post(`/organizers/${w.organizer.id}`, { organizer: 'Renamed Friends' }, admin),
          shows(/Renamed Friends/),
        ],
        ['organizer trash', (a, w) => a.del(`/organizers/${w.organizer.id}`, admin), null],
        [
          'term update',
          async (a, w) => {
            const music = JSON.parse((await read(a.router, `/events/${w.event.id}`)).text).categories[0].id
            return a.post(`/categories/${music}`, { name: 'Renamed Music' }, admin)
          },
          shows(/"name":"Renamed Music"/),
        ],
        [
          'term delete',
          async (a, w) => {
            const music = JSON.parse((await read(a.router, `/events/${w.event.id}`)).text).categories[0].id
            return a.del(`/categories/${music}?force=true`, admin)
          },
          (_b, after, w) => expect(JSON.parse(after.get(` /events/${w.event.id}`)!.text).categories).toEqual([]),
        ],
        [
          'term count (another event takes the tag)',
          (a) => a.seed({ title: 'Third', tags: ['outdoor'] }),
          (before, after, w) => {
            const count = (reads: Reads) => JSON.parse(reads.get(` /events/${w.event.id}`)!.text).tags[0].count
            expect(count(after)).toBe(count(before) + 1)
          },
        ],
        ['translation linking', (a, w) => a.seed({ title: 'Chukje', translation_of: w.event.id }, { lang: 'ko' }), shows(/"ko":\d+/)],
        [
          'series edit, all',
          (a, w) => a.post(`/events/${w.series.id}`, { title: 'Weekly run', recurrence_scope: 'all' }, admin),
          shows(/Weekly run/),
        ],
        [
          'series rule change',
          (a, w) => a.post(`/events/${w.series.id}`, { recurrence: 'FREQ=WEEKLY;COUNT=3;INTERVAL=2', recurrence_scope: 'all' }, admin),
          shows(/INTERVAL=2/),
        ],
        [
          'series member detached',
          (a, w) => a.post(`/events/${w.members[1].id}`, { title: 'Special walk', recurrence_scope: 'this' }, admin),
          shows(/"detached":true/),
        ],
      ]
      for (const [what, write, check] of WRITES) {
        it(what, async () => {
          const a = await app()
          const w = await richWorld(a)
          const plain = oracle(a.storage)
          const paths = worldPaths(w)
          const before = await same(a, plain, paths) // primes the cache for every caller
          const res = (await write(a, w)) as { status?: unknown; text?: string }
          // seed() answers the created body (and fails itself); the others the response.
          if (typeof res.status === 'number') expect(res.status, res.text).toBeLessThan(300)
          const after = await same(a, plain, paths)
          // Something did change where the oracle says so (the comparison above would pass on a no-op).
          expect([...after].some(([k, r]) => before.get(k)!.text !== r.text)).toBe(true)
          check?.(before, after, w)
        })
      }
    })

    it('another origin and another language get their own links, never those of an earlier request', async () => {
      const a = await app()
      const w = await richWorld(a)
      const plain = oracle(a.storage)
      const origins = ['http://one.example', 'https://two.example:8443']
      for (const path of [`/events/${w.event.id}`, LIST, `/venues/${w.venue.id}`]) {
        for (const origin of [...origins, ...origins]) {
          const got = await read(a.router, path, undefined, origin)
          expect(got.text).toBe((await read(plain, path, undefined, origin)).text)
          expect(got.text).toContain(`${origin}/`)
          for (const other of origins) if (other !== origin) expect(got.text).not.toContain(other.replace(/^https?:\/\//, ''))
        }
        const ja = await read(a.router, path, undefined, ORIGIN, 'ja')
        // Venues carry no REST links: only the comparison with the oracle applies to them.
        if (path.startsWith('/events')) expect(ja.text).toContain(`${ORIGIN}/ja${NS_PATH}/`)
        expect(ja.text).toBe((await read(plain, path, undefined, ORIGIN, 'ja')).text)
        const query = `${path}${path.includes('?') ? '&' : '?'}${LANG}=ja`
        expect((await read(a.router, query)).text).toBe(ja.text)
        const back = await read(a.router, path)
        expect(back.text).not.toContain('/ja/')
        expect(back.text).toBe((await read(plain, path)).text)
      }
    })

    it('without language path segments, the language travels in a query parameter of its own links only', async () => {
      const a = await app({ languagePathSegment: false })
      const venue = (await a.post('/venues', { venue: 'Harbour Hall', status: 'publish' }, admin)).body
      const w = { venue, event: await a.seed({ title: 'Harbour evening', venue: venue.id, categories: ['Music'] }) }
      const plain = oracle(a.storage, { languagePathSegment: false })
      for (const path of [`/events/${w.event.id}`, LIST, `/venues/${w.venue.id}`]) {
        const query = `${path}${path.includes('?') ? '&' : '?'}${LANG}=ja`
        for (let round = 0; round < 2; round++) {
          const ja = await read(a.router, query)
          if (path.startsWith('/events')) expect(ja.text).toContain(`${LANG}=ja`)
          expect(ja.text).toBe((await read(plain, query)).text)
          const back = await read(a.router, path)
          expect(back.text).not.toContain(LANG)
          expect(back.text).toBe((await read(plain, path)).text)
        }
      }
    })

    for (const order of [
      ['editor first', ['editor', undefined]],
      ['anonymous first', [undefined, 'editor']],
    ] as const) {
      it(`a draft venue is embedded for an editor and never for anonymous callers (${order[0]})`, async () => {
        const a = await app()
        const w = await richWorld(a)
        const paths = [`/events/${w.hidden.id}`, LIST, `/events/by-slug/${w.hidden.slug}`]
        for (let round = 0; round < 2; round++) {
          for (const as of order[1]) {
            for (const path of paths) {
              const res = await read(a.router, path, as)
              expect(res.status).toBe(200)
              if (as) expect(res.text, path).toContain('Secret Barn')
              else expect(res.text, path).not.toContain('Secret Barn')
              if (!as) expect(res.text, path).not.toContain(`"id":${w.draftVenue.id},"author"`)
            }
          }
        }
        // The single read's json_ld names the first venue the caller sees: none for anonymous.
        const anon = JSON.parse((await read(a.router, `/events/${w.hidden.id}`)).text)
        expect(anon.venue).toEqual([])
        expect(anon.json_ld.location).toBeUndefined()
        const editor = JSON.parse((await read(a.router, `/events/${w.hidden.id}`, 'editor')).text)
        expect(editor.json_ld.location.name).toBe('Secret Barn')
      })
    }

    it('stays within its byte bound, evicting old fragments, and still answers right', async () => {
      const maxBytes = 48 * 1024
      const a = await app({ fragmentCache: { maxBytes } })
      const plain = oracle(a.storage)
      const venue = (await a.post('/venues', { venue: 'Hall', status: 'publish' }, admin)).body
      for (let n = 0; n < 24; n++) {
        await a.seed({ title: `Event ${n}`, description: `<p>${'Long text. '.repeat(150)}</p>`, venue: venue.id })
      }
      const list = `${LIST}&per_page=30`
      await same(a, plain, [list], [undefined])
      const stats = a.router.fragmentCacheStats()!
      expect(stats.maxBytes).toBe(maxBytes)
      expect(stats.bytes).toBeGreaterThan(maxBytes / 2)
      expect(stats.bytes).toBeLessThanOrEqual(maxBytes)
      // 24 events of over 3 KB each (counted twice that) cannot all fit: some were evicted.
      expect(stats.entries).toBeLessThan(24)
      await same(a, plain, [list], [undefined])
      expect(a.router.fragmentCacheStats()!.bytes).toBeLessThanOrEqual(maxBytes)
    })

    it('is on by default with 16 MiB, can be turned off, and rejects a bad bound', async () => {
      const a = await app()
      expect(a.router.fragmentCacheStats()).toMatchObject({ maxBytes: 16 * 1024 * 1024 })
      expect(oracle(a.storage).fragmentCacheStats()).toBeNull()
      for (const bad of [{ maxBytes: 0 }, { maxBytes: -1 }, { maxBytes: 1.5 }, null, 'big'])
        expect(() => createCalendarRouter(a.storage, { fragmentCache: bad as never })).toThrow(/fragmentCache/)
    })

    it('a host storage that keeps no revision gets fresh text on every read, never a stale one', async () => {
      const a = await app()
      // The same storage, its records stripped of `revision` on the way out (as a host's own
      // Storage that predates it would answer).
      const strip = (x: any): any =>
        Array.isArray(x)
          ? x.map(strip)
          : x && typeof x === 'object' && 'revision' in x
            ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'revision'))
            : x && typeof x === 'object' && Array.isArray(x.items)
              ? { ...x, items: strip(x.items) }
              : x
      const bare = withStorageHooks(a.storage, [{ read: async (op, next) => strip(await next(op)) }])
      const router = createCalendarRouter(bare, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS })
      const venue = (await a.post('/venues', { venue: 'Harbour Hall', status: 'publish' }, admin)).body
      const event = await a.seed({ title: 'Harbour evening', venue: venue.id })
      expect((await bare.getPost(event.id))!.revision).toBeUndefined()
      for (const path of [`/events/${event.id}`, LIST]) expect((await read(router, path)).text).toContain('Harbour Hall')
      await a.post(`/events/${event.id}`, { title: 'Renamed evening' }, admin)
      await a.post(`/venues/${venue.id}`, { venue: 'Renamed Hall' }, admin)
      for (const path of [`/events/${event.id}`, LIST]) {
        const text = (await read(router, path)).text
        expect(text).toContain('Renamed evening')
        expect(text).toContain('Renamed Hall')
      }
    })

    it('two routers on one storage: a write through one is seen by the other on its next read', async () => {
      const a = await app()
      const w = await richWorld(a)
      const other = createCalendarRouter(a.storage, { authenticate, now: () => new Date(NOW), ...WIRE_OPTIONS })
      const path = `/events/${w.event.id}`
      await read(other, path)
      await read(other, LIST)
      await a.post(path, { title: 'Seen elsewhere' }, admin)
      await a.post(`/venues/${w.venue.id}`, { venue: 'Moved Hall' }, admin)
      for (const p of [path, LIST]) {
        const again = await read(other, p)
        expect(again.text).toContain('Seen elsewhere')
        expect(again.text).toContain('Moved Hall')
      }
    })
  })
}
