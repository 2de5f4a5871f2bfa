/**
 * The TEC-site source over one backend, against the stub TEC site of test/support/tec-stub.ts:
 * events past and future with their venues, organizers, nested categories, tags and image, a
 * draft only with credentials, idempotency, a changed event, a resumed run, 401 and HTML
 * answers. Registered for memory, SQLite and PostgreSQL by test/import-tec.test.ts.
 */
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { toNodeHandler } from '../../adapters/node/index.js'
import { importCalendar, type ImportSource } from '../../src/import/index.js'
import { overlay } from '../support/overlay.js'
import type { Storage, StorageTx, TransactionOptions } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'
import { STUB_AUTH, startTecStub, type StubSite } from '../support/tec-stub.js'

const ALL = '?start_date=1970-01-01&end_date=2100-01-01&per_page=100&status=publish,future,draft,pending,private'

export function tecSuite(backend: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`TEC-site importer [${backend}]`, () => {
    let app: App
    let site: StubSite
    afterEach(async () => {
      await app?.close()
      await site?.close()
    })

    const events = async () => (await app.get(`/events${ALL}`, { as: 'administrator' })).body.events as any[]
    const run = (source: Partial<ImportSource> = {}, o = {}) =>
      importCalendar(app.router, { format: 'tec', location: site.url, ...source } as ImportSource, o)

    it('imports events past and future with venues, organizers, nested categories, tags, an image and the slugs', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      const s = await run()
      expect(s.failed).toEqual([])
      const list = await events()
      expect(list).toHaveLength(30)
      expect(list.map((e) => e.status)).not.toContain('draft')
      const first = list.find((e) => e.title === 'Event 0')
      expect([first.start_date, first.slug, first.timezone]).toEqual(['2026-10-01 10:00:00', 'event-0', 'UTC'])
      expect(first.venue.venue).toBe('Main Hall')
      expect(first.venue.city).toBe('Springfield')
      expect(first.organizer.map((o: any) => o.organizer).sort()).toEqual(['Acme Org', 'Solo Person'])
      expect(first.categories.map((c: any) => c.slug)).toEqual(['jazz-music'])
      expect(first.tags.map((t: any) => t.slug)).toEqual(['outdoor'])
      expect(first.cost_details.values).toEqual(['10', '25'])
      const jazz = (await app.get('/categories?hide_empty=false&per_page=50')).body.categories.find((c: any) => c.slug === 'jazz-music')
      const music = (await app.get('/categories?hide_empty=false&per_page=50')).body.categories.find((c: any) => c.slug === 'music')
      expect(jazz.parent).toBe(music.id)
      expect(music.description).toBe('Music events')
      const poster = list.find((e) => e.title === 'Event 1')
      expect(poster.image.url).toBe('https://images.example.com/poster.jpg')
      expect(poster.timezone).toBe('America/New_York')
      expect(list.find((e) => e.title === 'Event 5').all_day).toBe(true)
      // TEC shows the permalink as the website of an event without one: not copied.
      expect(first.website ?? '').not.toContain(site.url)
      expect(site.requests.some((r) => r.includes('start_date=1970-01-01'))).toBe(true)
      expect(s.created).toBe(30 + 3 + 2 + 3 + 2)
    })

    it('import_source: on the record for administrators and editors, never for anonymous readers; in /doc', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      await run()
      const [first] = (await app.get('/events?start_date=2026-10-01&end_date=2026-10-02', { as: 'editor' })).body.events
      expect(first.import_source).toEqual({
        source: `tec:${site.url}`,
        source_id: `${new URL(site.url).host}?id=100`,
        imported_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      })
      expect((await app.get(`/events/${first.id}`, { as: 'administrator' })).body.import_source.source_id).toBe(
        first.import_source.source_id,
      )
      const anonymous = await app.get(`/events/${first.id}`)
      expect(anonymous.status).toBe(200)
      expect(anonymous.body).not.toHaveProperty('import_source')
      expect((await app.get('/events?start_date=2026-10-01&end_date=2026-10-02')).body.events[0]).not.toHaveProperty('import_source')
      expect((await app.get(`/venues/${first.venue.id}`, { as: 'administrator' })).body.import_source.source_id).toBe(
        `${new URL(site.url).host}?id=4`,
      )
      expect((await app.get(`/venues/${first.venue.id}`)).body).not.toHaveProperty('import_source')
      // A record never imported has none.
      const own = await app.post(
        '/events',
        { title: 'Local', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00' },
        { as: 'administrator' },
      )
      expect(own.body).not.toHaveProperty('import_source')
      expect(JSON.stringify((await app.get('/doc')).body)).toContain('import_source')
    })

    it('a draft comes in only with credentials; a second run creates nothing; a changed event is updated', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      const first = await run({ auth: STUB_AUTH })
      expect(first.failed).toEqual([])
      const draft = (await events()).find((e) => e.title === 'Secret Draft Event')
      expect(draft.status).toBe('draft')
      const again = await run({ auth: STUB_AUTH })
      expect([again.created, again.updated, again.failed.length]).toEqual([0, 0, 0])
      site.events[3]!.title = 'Event 3 (moved)'
      site.events[3]!.start = '2026-10-10 18:00:00'
      site.events[3]!.end = '2026-10-10 19:00:00'
      const third = await run({ auth: STUB_AUTH })
      expect([third.created, third.updated]).toEqual([0, 1])
      const moved = (await events()).filter((e) => e.title.startsWith('Event 3'))
      expect(moved.map((e) => [e.title, e.start_date])).toEqual([['Event 3 (moved)', '2026-10-10 18:00:00']])
    })

    it('each link commits with its record: a run whose batched link writes fail still creates nothing the next time', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      const links = app.storage.importLinks!
      const putLinks = links.putLinks
      links.putLinks = async () => {
        throw new Error('disk full')
      }
      const first = await run()
      links.putLinks = putLinks
      expect([first.created, first.failed]).toEqual([40, []])
      expect(first.warnings.map((w) => w.reason)).toContain('the imported fields of 40 records were not saved: disk full')
      const second = await run()
      expect([second.created, second.unchanged]).toEqual([0, 40])
    })

    it('an interrupted run goes on from the last completed page', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      site.failPage = 3
      const first = await run({ tec: { perPage: 10 } })
      expect(first.failed).toEqual([{ ref: 'events (publish)', reason: expect.stringMatching(/HTTP 500/) }])
      expect((await events()).length).toBe(20)
      site.requests.length = 0
      const second = await run({ tec: { perPage: 10 } })
      expect(second.failed).toEqual([])
      expect(second.created).toBe(10)
      expect(site.requests.filter((r) => r.startsWith('/wp-json/tribe/events/v1/events?')).some((r) => /[?&]page=1(&|$)/.test(r))).toBe(
        false,
      )
      expect((await events()).length).toBe(30)
      // Read to its end: the next run starts from the first page again and finds nothing new.
      const third = await run({ tec: { perPage: 10 } })
      expect([third.created, third.unchanged]).toEqual([0, 40])
    })

    it('taken ahead in groups, records are committed before the resume point passes them', async () => {
      site = await startTecStub()
      site.failPage = 3
      // At the start of every transaction: the events the resume point says are written, and those committed.
      const seen: Array<[number, number]> = []
      app = await makeApp(async () => {
        const storage = await makeStorage()
        const committed = async () =>
          (await storage.listEvents({ language: 'en', statuses: ['publish'], orderBy: 'id', offset: 0, limit: 1 })).total
        return overlay(storage, {
          async transaction<T>(fn: (tx: StorageTx) => Promise<T>, o?: TransactionOptions): Promise<T> {
            const resume = (await storage.importLinks!.sourceState(`tec:${site.url}`))?.resume
            seen.push([resume ? (JSON.parse(resume) as { page: number }).page * 10 : 0, await committed()])
            return storage.transaction(fn, o)
          },
        })
      })
      // Groups of 15 records straddle the pages of 10 events.
      const first = await run({ tec: { perPage: 10 } }, { batchSize: 15 })
      expect(first.failed).toEqual([{ ref: 'events (publish)', reason: expect.stringMatching(/HTTP 500/) }])
      expect(seen.length).toBeGreaterThan(1)
      for (const [claimed, committed] of seen) expect(claimed).toBeLessThanOrEqual(committed)
      expect((await events()).length).toBe(20)
      const second = await run({ tec: { perPage: 10 } }, { batchSize: 15 })
      expect([second.created, second.failed]).toEqual([10, []])
      expect((await events()).length).toBe(30)
    })

    it('a site that wants credentials answers 401: an unreadable source, nothing written', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      site.requireAuth = true
      const s = await run()
      expect(s.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/HTTP 401: rest_forbidden .*credentials/) }])
      expect(await events()).toEqual([])
      const wrong = await run({ auth: 'admin:wrong' })
      expect(wrong.failed[0]!.reason).toMatch(/401: incorrect_password/)
      expect((await run({ auth: STUB_AUTH })).failed).toEqual([])
    })

    it('an HTML page instead of JSON, or no site at all, is reported as such', async () => {
      app = await makeApp(makeStorage)
      site = await startTecStub()
      site.html = true
      const s = await run()
      expect(s.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/an HTML page, not TEC's JSON/) }])
      const gone = await run({ location: 'http://127.0.0.1:9', timeoutMs: 5000 })
      expect(gone.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/unreachable/) }])
    })

    it('our own calendar/events/v1: a series comes in as a series', async () => {
      const origin = await makeApp(makeStorage)
      app = await makeApp(makeStorage)
      try {
        const created = await origin.post(
          '/events',
          { title: 'Weekly', start_date: '2027-01-04 18:00', end_date: '2027-01-04 19:00', recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' } },
          { as: 'administrator' },
        )
        expect(created.status).toBe(201)
        // The origin's router over a real socket: the importer speaks HTTP.
        const server = createServer(toNodeHandler(origin.router))
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
        try {
          const port = (server.address() as { port: number }).port
          const s = await importCalendar(app.router, { format: 'tec', location: `http://127.0.0.1:${port}/wp-json/calendar/events/v1` })
          expect(s.failed).toEqual([])
          const list = await events()
          expect(list.map((e) => e.start_date)).toEqual([
            '2027-01-04 18:00:00',
            '2027-01-11 18:00:00',
            '2027-01-18 18:00:00',
            '2027-01-25 18:00:00',
          ])
          expect(list[0].recurrence.rrule).toBe('FREQ=WEEKLY;COUNT=4')
        } finally {
          server.close()
        }
      } finally {
        await origin.close()
      }
    })
  })
}
