/**
 * The importers over one backend: the fixtures of test/fixtures/import/ (Google, Outlook and
 * Apple export quirks, bad input, TEC's CSV columns and a custom mapping), idempotency, each
 * authority, deleteMissing, dryRun and the round trip of our own feed. Registered for memory,
 * SQLite and PostgreSQL by test/import-*.test.ts.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { importCalendar, type ImportSource } from '../../src/import/index.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'

const fixture = (name: string) => `test/fixtures/import/${name}`
const text = (name: string) => readFileSync(fixture(name), 'utf8')
const YEAR = '?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,future,draft,pending,private'

export function importSuite(backend: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`importers [${backend}]`, () => {
    let app: App
    afterEach(async () => app?.close())

    const events = async () => (await app.get(`/events${YEAR}`, { as: 'administrator' })).body.events as any[]
    const run = (source: ImportSource, o = {}) => importCalendar(app.router, source, o)

    describe('iCalendar', () => {
      it('Google export: UTC times in X-WR-TIMEZONE, escaped commas, folded lines, series with EXDATE and an override, VALUE=DATE, cancelled', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('google.ics') })
        expect(s.failed).toEqual([])
        const list = await events()
        const choir = list.filter((e) => e.title.startsWith('Choir rehearsal'))
        expect(choir.map((e) => e.start_date)).toEqual([
          '2027-01-05 19:00:00',
          '2027-01-12 20:00:00',
          '2027-01-26 19:00:00',
          '2027-02-02 19:00:00',
          '2027-02-09 19:00:00',
        ])
        const first = choir[0]
        expect(first.timezone).toBe('Europe/Berlin')
        expect(first.recurrence.rrule).toBe('FREQ=WEEKLY;BYDAY=TU;COUNT=6')
        expect(first.description).toContain('Weekly rehearsal, bring your scores.')
        expect(first.description).toContain('All welcome &lt;really&gt;.')
        expect(first.venue.venue).toBe('St. Mary')
        expect(first.venue.address).toBe('Hall B, Hauptstr. 1, 10115 Berlin, Germany')
        expect(first.organizer[0].organizer).toBe('Anna Singer')
        expect(first.organizer[0].email).toBe('anna@example.org')
        const late = choir[1]
        expect(late.title).toBe('Choir rehearsal (late start)')
        expect(late.series.detached).toBe(true)
        const retreat = list.find((e) => e.title === 'Choir retreat')
        expect([retreat.all_day, retreat.start_date, retreat.end_date]).toEqual([true, '2027-02-10 00:00:00', '2027-02-11 23:59:59'])
        const concert = list.find((e) => e.title === 'Spring concert')
        expect([concert.event_status, concert.website]).toEqual(['canceled', 'https://example.org/concert'])
      })

      it('Outlook export: Windows zone names (quoted and bare), CATEGORIES, ORGANIZER with an escaped comma', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('outlook.ics') })
        expect(s.failed).toEqual([])
        const list = await events()
        const planning = list.find((e) => e.title === 'Quartalsplanung')
        expect([planning.timezone, planning.start_date, planning.end_date]).toEqual([
          'Europe/Berlin',
          '2027-03-15 10:00:00',
          '2027-03-15 12:00:00',
        ])
        expect(planning.categories.map((c: any) => c.name).sort()).toEqual(['Management', 'Planning'])
        expect(planning.organizer[0].organizer).toBe('Müller, Jonas')
        const standups = list.filter((e) => e.title === 'NY stand-up')
        expect(standups.map((e) => e.start_date)).toEqual(['2027-04-02 09:00:00', '2027-05-07 09:00:00', '2027-06-04 09:00:00'])
        expect(standups[0].timezone).toBe('America/New_York')
      })

      it('Apple export: VTIMEZONE with an IANA TZID, floating time with DURATION, a rule outside our subset expanded and reported', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('apple.ics') })
        expect(s.failed).toEqual([])
        expect(s.warnings.map((w) => w.reason).join()).toMatch(/FREQ=HOURLY.*3 single events/)
        const list = await events()
        const jazz = list.find((e) => e.title === 'Jazz night')
        expect([jazz.timezone, jazz.start_date, jazz.website, jazz.venue.venue]).toEqual([
          'America/New_York',
          '2027-01-20 19:30:00',
          'https://example.com/jazz',
          'Blue Note',
        ])
        const dinner = list.find((e) => e.title === 'Dinner (floating time)')
        expect([dinner.start_date, dinner.end_date]).toEqual(['2027-02-05 18:00:00', '2027-02-05 20:30:00'])
        expect(list.filter((e) => e.title === 'Medication').map((e) => e.start_date)).toEqual([
          '2027-03-01 09:00:00',
          '2027-03-01 11:00:00',
          '2027-03-01 13:00:00',
        ])
      })

      it('bad input: a malformed line, an unknown TZID, an invalid date fail alone, each with its reason', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', location: fixture('bad.ics') })
        expect(s.created).toBe(2)
        expect(s.failed.map((f) => f.reason)).toEqual([
          expect.stringMatching(/malformed: invalid line/),
          expect.stringMatching(/unknown TZID "Mars\/Olympus_Mons"/),
          expect.stringMatching(/DTSTART 2027-02-30 is not a date/),
        ])
        expect((await events()).map((e) => e.title).sort()).toEqual(['Also good', 'The good one'])
      })

      it('an unreachable URL or a file that is not iCalendar is an unreadable source; nothing stored is lost', async () => {
        app = await makeApp(makeStorage)
        await run({ format: 'ics', location: fixture('google.ics') })
        const before = (await events()).length
        const s = await run({ format: 'ics', location: 'http://127.0.0.1:9/cal.ics', timeoutMs: 5000 })
        expect(s.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/unreachable/) }])
        const t = await run({ format: 'ics', text: 'hello', name: 'junk' })
        expect(t.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/not an iCalendar document/) }])
        expect((await events()).length).toBe(before)
      })

      it('a URL feed is fetched with its validators: an unchanged feed costs one 304', async () => {
        app = await makeApp(makeStorage)
        const body = text('google.ics')
        const seen: Array<string | undefined> = []
        const server = createServer((req, res) => {
          seen.push(req.headers['if-none-match'])
          if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304).end()
          res.writeHead(200, { 'content-type': 'text/calendar', etag: '"v1"' }).end(body)
        })
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
        try {
          const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal.ics`
          const first = await run({ format: 'ics', location: url })
          expect(first.created).toBeGreaterThan(0)
          const second = await run({ format: 'ics', location: url })
          expect([second.notModified, second.created, second.updated]).toEqual([true, 0, 0])
          expect(seen).toEqual([undefined, '"v1"'])
        } finally {
          server.close()
        }
      })

      it('round trip: our own feed imported into an empty store gives the same events', async () => {
        const origin = await makeApp(makeStorage)
        await importCalendar(origin.router, { format: 'ics', location: fixture('google.ics') })
        await importCalendar(origin.router, { format: 'ics', location: fixture('outlook.ics') })
        const feed = await origin.get(`/events${YEAR}&format=ics`, { as: 'administrator' })
        expect(feed.status).toBe(200)
        const shape = (list: any[]) =>
          list
            // A feed writes lone events in UTC (their zone is not in iCalendar), all-day ones as dates.
            .map((e) =>
              [
                e.title,
                e.all_day ? `${e.start_date.slice(0, 10)}..${e.end_date.slice(0, 10)}` : `${e.utc_start_date}..${e.utc_end_date}`,
                e.event_status,
                e.venue?.venue ?? null,
                e.description,
              ].join(' | '),
            )
            .sort()
        const expected = shape((await origin.get(`/events${YEAR}`, { as: 'administrator' })).body.events)
        await origin.close()
        app = await makeApp(makeStorage)
        const s = await run({ format: 'ics', text: feed.text, name: 'our-feed' })
        expect(s.failed).toEqual([])
        expect(shape(await events())).toEqual(expected)
      })
    })

    describe('CSV', () => {
      it("TEC's columns: BOM, quoted newlines, HTML kept, venue and organizer, bad rows reported by row", async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'csv', location: fixture('tec-columns.csv') })
        expect(s.failed.map((f) => f.ref)).toEqual(['row 4 (line 6)', 'row 5 (line 7)'])
        expect(s.failed[0]!.reason).toBe('missing event_start_date')
        expect(s.failed[1]!.reason).toMatch(/start_date/)
        const list = await events()
        const brunch = list.find((e) => e.title === 'Jazz brunch')
        expect(brunch.description).toContain('Second line with a &quot;quote&quot;, and a comma')
        expect([brunch.start_date, brunch.timezone, brunch.venue.venue, brunch.venue.city, brunch.organizer[0].email]).toEqual([
          '2027-05-02 11:00:00',
          'Europe/Berlin',
          'Blue Cellar',
          'Berlin',
          'anna@example.org',
        ])
        expect(brunch.categories.map((c: any) => c.name).sort()).toEqual(['Food', 'Music'])
        expect([brunch.show_map, brunch.featured]).toEqual([true, true])
        const fest = list.find((e) => e.title === 'Street festival')
        expect([fest.all_day, fest.description]).toEqual([true, '<p>All <strong>day</strong> long</p>'])
      })

      it('a custom mapping and key column', async () => {
        app = await makeApp(makeStorage)
        const csv = {
          delimiter: ';',
          key: 'id',
          mapping: {
            event_name: 'Title',
            event_start_date: 'Day',
            event_start_time: 'From',
            event_end_time: 'To',
            event_venue_name: 'Place',
          },
        }
        const s = await run({ format: 'csv', location: fixture('custom-mapping.csv'), csv })
        expect([s.created, s.failed]).toEqual([4, []])
        const list = await events()
        expect(list.map((e) => [e.title, e.start_date, e.end_date, e.venue.venue])).toEqual([
          ['Board meeting', '2027-05-10 09:00:00', '2027-05-10 10:30:00', 'Room 1'],
          ['Retro\n(two lines)', '2027-05-11 14:00:00', '2027-05-11 15:00:00', 'Room 2'],
        ])
      })

      it('a file without the required columns is an unreadable source', async () => {
        app = await makeApp(makeStorage)
        const s = await run({ format: 'csv', text: 'Name,When\nx,y\n', name: 'no-columns' })
        expect(s.failed).toEqual([{ ref: 'source', reason: expect.stringMatching(/no column for event_name/) }])
      })
    })

    describe('re-runs', () => {
      it('a second run creates nothing and changes nothing', async () => {
        app = await makeApp(makeStorage)
        for (const f of ['google.ics', 'outlook.ics', 'apple.ics']) await run({ format: 'ics', location: fixture(f) })
        const before = await events()
        for (const f of ['google.ics', 'outlook.ics', 'apple.ics']) {
          const s = await run({ format: 'ics', location: fixture(f) })
          expect([f, s.created, s.updated, s.failed]).toEqual([f, 0, 0, []])
          expect(s.unchanged).toBeGreaterThan(0)
        }
        const csv = await run({ format: 'csv', location: fixture('tec-columns.csv') })
        const again = await run({ format: 'csv', location: fixture('tec-columns.csv') })
        expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, csv.created])
        expect((await events()).length).toBe(before.length + 2)
      })

      const v1 =
        'Event Name,Event Start Date,Event Start Time,Event End Time,Event Description,id\nGig,2027-05-01,20:00,22:00,First,1\nTalk,2027-05-02,18:00,19:00,Words,2\n'
      const v2 =
        'Event Name,Event Start Date,Event Start Time,Event End Time,Event Description,id\nGig (moved),2027-05-01,21:00,23:00,Second,1\n'
      const source = (t: string): ImportSource => ({ format: 'csv', text: t, name: 'sheet', csv: { key: 'id' } })

      it('overwrite: the source wins over a local edit', async () => {
        app = await makeApp(makeStorage)
        await run(source(v1))
        const gig = (await events()).find((e) => e.title === 'Gig')
        await app.patch(`/events/${gig.id}`, { title: 'Gig (local)' }, { as: 'administrator' })
        const s = await run(source(v2), { authority: 'overwrite' })
        expect([s.updated, s.created]).toEqual([1, 0])
        const now = (await app.get(`/events/${gig.id}`, { as: 'administrator' })).body
        expect([now.title, now.start_date, now.description]).toEqual(['Gig (moved)', '2027-05-01 21:00:00', '<p>Second</p>'])
      })

      it('keep-local: fields edited here keep their value, the others follow the source', async () => {
        app = await makeApp(makeStorage)
        await run(source(v1))
        const gig = (await events()).find((e) => e.title === 'Gig')
        await app.patch(`/events/${gig.id}`, { title: 'Gig (local)' }, { as: 'administrator' })
        const s = await run(source(v2), { authority: 'keep-local' })
        expect(s.updated).toBe(1)
        expect(s.warnings).toEqual([{ ref: 'row 2 (line 2)', reason: 'kept the local value of title' }])
        const now = (await app.get(`/events/${gig.id}`, { as: 'administrator' })).body
        expect([now.title, now.start_date, now.description]).toEqual(['Gig (local)', '2027-05-01 21:00:00', '<p>Second</p>'])
      })

      it('skip: records imported before are left alone', async () => {
        app = await makeApp(makeStorage)
        await run(source(v1))
        const s = await run(source(v2), { authority: 'skip' })
        expect([s.skipped, s.updated, s.created]).toEqual([1, 0, 0])
        expect((await events()).map((e) => e.title).sort()).toEqual(['Gig', 'Talk'])
      })

      it('deleteMissing trashes the events that vanished from the source; without it they stay', async () => {
        app = await makeApp(makeStorage)
        await run(source(v1))
        expect((await run(source(v2))).trashed).toBe(0)
        expect((await events()).length).toBe(2)
        const s = await run(source(v2), { deleteMissing: true })
        expect(s.trashed).toBe(1)
        expect((await events()).map((e) => e.title)).toEqual(['Gig (moved)'])
      })

      it('dryRun writes nothing, and counts what a run would do', async () => {
        app = await makeApp(makeStorage)
        const dry = await run({ format: 'ics', location: fixture('google.ics') }, { dryRun: true })
        expect(dry.created).toBeGreaterThan(0)
        expect(dry.dryRun).toBe(true)
        expect(await events()).toEqual([])
        expect(await app.storage.importLinks!.links('ics:' + fixture('google.ics'))).toEqual([])
        await run(source(v1))
        const s = await run(source(v2), { dryRun: true, deleteMissing: true })
        expect([s.updated, s.trashed]).toEqual([1, 1])
        expect((await events()).map((e) => e.title).sort()).toEqual(['Gig', 'Talk'])
      })

      it("imports as the caller it is given: a contributor's HTML is filtered and its events are pending", async () => {
        app = await makeApp(makeStorage)
        const csv =
          'Event Name,Event Start Date,Event Start Time,Event Description\nX,2027-05-01,20:00,<p>hi<script>alert(1)</script></p>\n'
        const s = await run({ format: 'csv', text: csv, name: 'contrib' }, { as: { id: 4, role: 'contributor' } })
        expect(s.failed).toEqual([])
        const [e] = await events()
        expect([e.status, e.description]).toEqual(['pending', '<p>hi</p>'])
      })
    })
  })
}
