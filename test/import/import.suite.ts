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
import { apiClient } from '../../src/import/client.js'
import { importCalendar, type ImportSource } from '../../src/import/index.js'
import { runImport } from '../../src/import/run.js'
import type { SourceRecord } from '../../src/readers/types.js'
import { HOST_REQUEST } from '../../src/host-request.js'
import type { Change } from '../../src/cache/observed.js'
import { TransactionFailedError } from '../../src/storage/open-transaction.js'
import { overlay } from '../support/overlay.js'
import type { Storage, StorageTx, TransactionOptions } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'

/** The importer's client reads answers as unknown JSON; these tests know their shape. */
type Json = Record<string, any>

const fixture = (name: string) => `test/fixtures/import/${name}`
const text = (name: string) => readFileSync(fixture(name), 'utf8')
const YEAR = '?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,future,draft,pending,private'

/** `make`'s storage with each transaction counted, and `wrap` around what each transaction's function gets. */
function counting(make: () => Storage | Promise<Storage>, wrap: (tx: StorageTx) => StorageTx = (tx) => tx) {
  const counts = { transactions: 0 }
  const storage = async () => {
    const s = await make()
    return overlay(s, {
      transaction: <T>(fn: (tx: StorageTx) => Promise<T>, o?: TransactionOptions) => {
        counts.transactions++
        return s.transaction((tx) => fn(wrap(tx)), o)
      },
    })
  }
  return { counts, storage }
}

/**
 * `make`'s storage where every transaction's function runs twice, the first attempt rolled back
 * as a serialization failure found at COMMIT would have it (what the SQL storage does then).
 */
function rerunning(make: () => Storage | Promise<Storage>) {
  const counts = { transactions: 0, attempts: 0 }
  const conflict = new Error('could not serialize access (simulated at COMMIT)')
  const storage = async () => {
    const s = await make()
    return overlay(s, {
      async transaction<T>(fn: (tx: StorageTx) => Promise<T>, o?: TransactionOptions): Promise<T> {
        counts.transactions++
        try {
          await s.transaction(async (tx) => {
            counts.attempts++
            await fn(tx)
            throw conflict
          })
        } catch (error) {
          if (error !== conflict) throw error
        }
        counts.attempts++
        return s.transaction(fn, o)
      },
    })
  }
  return { counts, storage }
}

const ADMIN = { id: 1, role: 'administrator' } as const

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
        // Through an untrusted role's filter (trustHtml off): the same text, quotes need no escaping there.
        expect(brunch.description).toContain('Second line with a "quote", and a comma')
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

    describe('group commit', () => {
      const day = (d: number, h: number) => `2027-06-${String(d).padStart(2, '0')} ${String(h).padStart(2, '0')}:00`
      const event = (sourceId: string, title: string, d: number, more: Partial<SourceRecord> = {}): SourceRecord => ({
        kind: 'event',
        sourceId,
        ref: `event ${sourceId}`,
        body: { title, start_date: day(d, 10), end_date: day(d, 11), status: 'publish', ...(more.body ?? {}) },
        ...(more.refs ? { refs: more.refs } : {}),
      })
      const readOf = (records: SourceRecord[]) => async () => ({ records, complete: () => true })
      const organizers = async () =>
        (await app.get('/organizers?per_page=100&status=publish,draft,pending,private', { as: 'administrator' })).body.organizers as any[]
      const linksOf = async (source: string) =>
        Object.fromEntries((await app.storage.importLinks!.links(source)).map((l) => [`${l.kind} ${l.sourceId}`, l.recordId]))

      it('records of one group commit in one transaction; batchSize 1 commits each record in its own', async () => {
        const grouped = counting(makeStorage)
        app = await makeApp(grouped.storage)
        const s = await run({ format: 'csv', location: fixture('tec-columns.csv') })
        expect(s.created).toBeGreaterThan(3)
        expect(grouped.counts.transactions).toBe(1)
        await app.close()
        const single = counting(makeStorage)
        app = await makeApp(single.storage)
        const t = await run({ format: 'csv', location: fixture('tec-columns.csv') }, { batchSize: 1 })
        expect([t.created, t.failed, t.warnings]).toEqual([s.created, s.failed, s.warnings])
        expect(single.counts.transactions).toBe(t.created)
      })

      it('a record whose write fails inside the transaction fails alone, with its reason; the others and their links commit, nothing of it is left', async () => {
        const counted = counting(makeStorage)
        app = await makeApp(counted.storage)
        const records: SourceRecord[] = [
          { kind: 'venue', sourceId: 'hall', ref: 'venue hall', body: { venue: 'Group Hall', city: 'Ghent' } },
          event('e1', 'Group first', 1, { refs: { venue: ['hall'] } }),
          // Its new organizer is stored inside the write's transaction before the unknown one is
          // refused (rest_invalid_param, inside the transaction): a write that fails half-way.
          event('e2', 'Group half-written', 2, { body: { organizer: [{ organizer: 'Half-written Org' }, 999999] } }),
          event('e3', 'Group third', 3, { refs: { venue: ['hall'] } }),
        ]
        const s = await runImport(app.router, 'test:group', readOf(records))
        expect(s.created).toBe(3)
        expect(s.failed).toEqual([{ ref: 'event e2', reason: expect.stringMatching(/^400 rest_invalid_param: .*organizer/) }])
        // The group's transaction and, once it rolled back, one per record.
        expect(counted.counts.transactions).toBe(1 + records.length)
        const list = await events()
        expect(list.map((e) => e.title).sort()).toEqual(['Group first', 'Group third'])
        expect((await organizers()).map((o) => o.organizer)).not.toContain('Half-written Org')
        const links = await linksOf('test:group')
        const byTitle = (t: string) => list.find((e) => e.title === t)
        expect(links).toEqual({
          'venue hall': byTitle('Group first').venue.id,
          'event e1': byTitle('Group first').id,
          'event e3': byTitle('Group third').id,
        })
        expect(byTitle('Group third').venue.id).toBe(links['venue hall'])
        const again = await runImport(app.router, 'test:group', readOf(records))
        expect([again.created, again.updated, again.unchanged, again.failed.map((f) => f.ref)]).toEqual([0, 0, 3, ['event e2']])
        expect((await events()).length).toBe(2)
      })

      it('a group that held the server too long makes the next ones smaller, and reads get in between groups', async () => {
        // Each record's link costs at least 5 ms here: a group of 100 would hold everything else
        // for half a second, so after the first the groups hold about GROUP_SLICE_MS (30 ms, run.ts).
        const slow = counting(makeStorage, (tx) =>
          overlay(tx, {
            async putImportLink(link) {
              const until = performance.now() + 5
              while (performance.now() < until);
              await tx.putImportLink!(link)
            },
          }),
        )
        app = await makeApp(slow.storage)
        const records = Array.from({ length: 200 }, (_, i) => event(`s${i}`, `Slow ${i}`, 1 + (i % 28)))
        let ticks = 0
        const timer = setInterval(() => ticks++, 0)
        const s = await runImport(app.router, 'test:slow', readOf(records))
        clearInterval(timer)
        expect([s.created, s.failed]).toEqual([200, []])
        // The first group takes at most 32; the others 8 a group (30 ms / 5 ms is 6, 8 the least).
        expect(slow.counts.transactions).toBeGreaterThanOrEqual(1 + Math.ceil((200 - 32) / 8))
        // Timers ran between groups: the event loop was let in.
        expect(ticks).toBeGreaterThanOrEqual(slow.counts.transactions - 2)
      })

      it("a record whose link cannot be written rolls back with it; the group's other records commit", async () => {
        // The link is written by the importer's hook, last inside the record's transaction.
        const refusing = counting(makeStorage, (tx) =>
          overlay(tx, {
            async putImportLink(link) {
              if (link.sourceId === 'b') throw new Error('link refused')
              await tx.putImportLink!(link)
            },
          }),
        )
        app = await makeApp(refusing.storage)
        const records = [event('a', 'Linked A', 4), event('b', 'Unlinked B', 5), event('c', 'Linked C', 6)]
        const s = await runImport(app.router, 'test:links', readOf(records))
        expect([s.created, s.failed.map((f) => f.ref)]).toEqual([2, ['event b']])
        expect((await events()).map((e) => e.title).sort()).toEqual(['Linked A', 'Linked C'])
        expect(Object.keys(await linksOf('test:links')).sort()).toEqual(['event a', 'event c'])
      })

      it('records of one group that name each other: a venue, an organizer and a category made by the first event, a series and its override', async () => {
        const counted = counting(makeStorage)
        app = await makeApp(counted.storage)
        const ics = [
          'BEGIN:VCALENDAR',
          'VERSION:2.0',
          'PRODID:-//group commit//EN',
          'BEGIN:VEVENT',
          'UID:first@group.test',
          'DTSTART:20270701T180000Z',
          'DTEND:20270701T190000Z',
          'SUMMARY:Opening',
          'LOCATION:Group Cellar',
          'ORGANIZER;CN=Group Org:mailto:org@group.test',
          'CATEGORIES:Group Music',
          'END:VEVENT',
          'BEGIN:VEVENT',
          'UID:series@group.test',
          'DTSTART:20270705T180000Z',
          'DTEND:20270705T190000Z',
          'RRULE:FREQ=WEEKLY;COUNT=3',
          'SUMMARY:Weekly session',
          'LOCATION:Group Cellar',
          'ORGANIZER;CN=Group Org:mailto:org@group.test',
          'CATEGORIES:Group Music',
          'END:VEVENT',
          'BEGIN:VEVENT',
          'UID:series@group.test',
          'RECURRENCE-ID:20270712T180000Z',
          'DTSTART:20270712T200000Z',
          'DTEND:20270712T210000Z',
          'SUMMARY:Weekly session (late)',
          'END:VEVENT',
          'END:VCALENDAR',
          '',
        ].join('\r\n')
        const s = await run({ format: 'ics', text: ics, name: 'group-ics' })
        expect(s.failed).toEqual([])
        expect(counted.counts.transactions).toBe(1)
        const list = await events()
        expect(list.map((e) => [e.title, e.start_date])).toEqual([
          ['Opening', '2027-07-01 18:00:00'],
          ['Weekly session', '2027-07-05 18:00:00'],
          ['Weekly session (late)', '2027-07-12 20:00:00'],
          ['Weekly session', '2027-07-19 18:00:00'],
        ])
        const [opening, head, late] = list
        expect([late.series.detached, late.series.id]).toEqual([true, head.id])
        // One venue, one organizer, one category, made by the first record and found by the others.
        expect(new Set(list.filter((e) => e.venue?.id).map((e) => e.venue.id)).size).toBe(1)
        expect(head.venue.id).toBe(opening.venue.id)
        expect(head.organizer.map((o: any) => o.id)).toEqual(opening.organizer.map((o: any) => o.id))
        expect(head.categories.map((c: any) => c.id)).toEqual(opening.categories.map((c: any) => c.id))
        const music = (await app.get('/categories?hide_empty=false&per_page=100')).body.categories.filter(
          (c: any) => c.name === 'Group Music',
        )
        expect(music).toHaveLength(1)
        const links = await linksOf('group-ics')
        expect(links['event first@group.test']).toBe(opening.id)
        expect(links['event series@group.test']).toBe(head.id)
        expect(Object.entries(links).filter(([k]) => k.startsWith('event series@group.test@'))).toEqual([[expect.any(String), late.id]])
        expect(Object.values(links)).toContain(opening.venue.id)
        const again = await run({ format: 'ics', text: ics, name: 'group-ics' })
        expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
      })

      it('onChange hears of each created record once, after the commit', async () => {
        const changes: Change[] = []
        const visible: boolean[] = []
        const counted = counting(makeStorage)
        app = await makeApp(counted.storage, {
          onChange: async (change) => {
            changes.push(change)
            // Read outside any transaction: only what is committed.
            if (change.type === 'event' || change.type === 'venue' || change.type === 'organizer')
              visible.push((await app.storage.getPost(change.id)) !== null)
          },
        })
        const s = await run({ format: 'csv', location: fixture('tec-columns.csv') })
        // The hooks run after the commit, on their own: wait for their reads.
        const posts = () => changes.filter((c) => c.type === 'event' || c.type === 'venue' || c.type === 'organizer').length
        for (let i = 0; i < 200 && visible.length < posts(); i++) await new Promise((r) => setTimeout(r, 10))
        expect(counted.counts.transactions).toBe(1)
        const created = changes.filter((c) => c.action === 'create').map((c) => `${c.type} ${c.id}`)
        expect(new Set(created).size).toBe(created.length)
        const list = await events()
        const records = new Set([
          ...list.map((e) => `event ${e.id}`),
          ...list.filter((e) => e.venue?.id).map((e) => `venue ${e.venue.id}`),
          ...list.flatMap((e) => e.organizer.map((o: any) => `organizer ${o.id}`)),
          ...list.flatMap((e) => e.categories.map((c: any) => `category ${c.id}`)),
          ...list.flatMap((e) => e.tags.map((t: any) => `tag ${t.id}`)),
        ])
        // Terms named by the events are created by their writes: more records than the source's.
        expect(new Set(created)).toEqual(records)
        expect(created.length).toBeGreaterThan(s.created)
        expect(visible.length).toBe(posts())
        expect(visible.length).toBeGreaterThan(0)
        expect(visible.every(Boolean)).toBe(true)
      })

      it('a sync client sees the imported records, and a re-import that updates', async () => {
        app = await makeApp(makeStorage)
        const sheet = (rows: string[]) => ({
          format: 'csv' as const,
          text: `Event Name,Event Start Date,Event Start Time,Event End Time,id\n${rows.join('\n')}\n`,
          name: 'sync-sheet',
          csv: { key: 'id' },
        })
        const full = await app.get('/events?sync_token=*', { as: 'administrator' })
        expect(full.body.events).toEqual([])
        await run(sheet(['Sync A,2027-08-01,10:00,11:00,1', 'Sync B,2027-08-02,10:00,11:00,2', 'Sync C,2027-08-03,10:00,11:00,3']))
        const first = await app.get(`/events?sync_token=${encodeURIComponent(full.body.sync_token)}`, { as: 'administrator' })
        expect(first.status).toBe(200)
        expect(first.body.events.map((e: any) => e.title).sort()).toEqual(['Sync A', 'Sync B', 'Sync C'])
        const s = await run(
          sheet(['Sync A,2027-08-01,10:00,11:00,1', 'Sync B (moved),2027-08-05,12:00,13:00,2', 'Sync C,2027-08-03,10:00,11:00,3']),
        )
        expect([s.updated, s.unchanged]).toEqual([1, 2])
        const second = await app.get(`/events?sync_token=${encodeURIComponent(first.body.sync_token)}`, { as: 'administrator' })
        expect(second.body.events.map((e: any) => [e.title, e.start_date])).toEqual([['Sync B (moved)', '2027-08-05 12:00:00']])
        expect(second.body.deleted).toEqual([])
      })

      it('a group run again by the storage (a serialization failure at COMMIT) counts each record once', async () => {
        const plain = await makeApp(makeStorage)
        const retried = rerunning(makeStorage)
        app = await makeApp(retried.storage)
        try {
          for (const f of ['google.ics', 'apple.ics', 'bad.ics', 'google.ics']) {
            const expected = await importCalendar(plain.router, { format: 'ics', location: fixture(f) })
            const got = await run({ format: 'ics', location: fixture(f) })
            expect(got).toEqual(expected)
          }
          const csv = await run({ format: 'csv', location: fixture('tec-columns.csv') }, { authority: 'keep-local' })
          expect(csv).toEqual(
            await importCalendar(plain.router, { format: 'csv', location: fixture('tec-columns.csv') }, { authority: 'keep-local' }),
          )
          expect(retried.counts.attempts).toBe(2 * retried.counts.transactions)
          const shape = (list: any[]) => list.map((e) => [e.title, e.start_date, e.venue?.venue ?? null, e.series?.detached ?? null])
          expect(shape(await events())).toEqual(shape((await plain.get(`/events${YEAR}`, { as: 'administrator' })).body.events))
        } finally {
          await plain.close()
        }
      })

      it('a group whose commit reports a failure but landed is not created twice', async () => {
        let lose = true
        app = await makeApp(async () => {
          const s = await makeStorage()
          return overlay(s, {
            async transaction<T>(fn: (tx: StorageTx) => Promise<T>, o?: TransactionOptions): Promise<T> {
              const result = await s.transaction(fn, o)
              // The connection dropped while COMMIT was on its way: committed, reported failed.
              if (lose) {
                lose = false
                throw new Error('Connection terminated unexpectedly')
              }
              return result
            },
          })
        })
        const s = await run({ format: 'ics', location: fixture('google.ics') })
        expect(lose).toBe(false)
        const plain = await makeApp(makeStorage)
        try {
          const { warnings, ...summary } = s
          const expected = await importCalendar(plain.router, { format: 'ics', location: fixture('google.ics') })
          expect(summary).toEqual({ ...expected, warnings: undefined })
          // The failed commit is reported with its cause, besides what a plain run warns of.
          const extra = warnings.filter((w) => !expected.warnings.some((e) => e.ref === w.ref && e.reason === w.reason))
          expect(extra).toEqual([{ ref: expect.any(String), reason: expect.stringContaining('Connection terminated unexpectedly') }])
          expect(warnings).toHaveLength(expected.warnings.length + 1)
          expect((await events()).map((e) => e.title)).toEqual(
            (await plain.get(`/events${YEAR}`, { as: 'administrator' })).body.events.map((e: any) => e.title),
          )
        } finally {
          await plain.close()
        }
      })

      it("the router's batch door: requests see the batch's writes, a failed write rolls all back and stops the batch, caches keep nothing of it", async () => {
        app = await makeApp(makeStorage, { cache: {} })
        const door = app.router[HOST_REQUEST]!
        const outside = apiClient(app.router, ADMIN)
        // What a read of a venue that does not exist answers.
        const missing = (await outside.send('GET', '/venues/999999')).status
        expect(missing).toBeGreaterThanOrEqual(400)
        let hall = 0
        const ok = await door.batch(async (send) => {
          const api = apiClient(app.router, ADMIN, send)
          const made = await api.send('POST', '/venues', { venue: 'Door Hall' })
          hall = (made.body as Json).id
          const inside = await api.send('GET', `/venues/${hall}`)
          // Not committed yet: a request outside the batch does not see it.
          const before = await outside.send('GET', `/venues/${hall}`)
          return [made.status, inside.status, (inside.body as Json).venue, before.status]
        })
        expect(ok).toEqual({ committed: true, result: [201, 200, 'Door Hall', missing] })
        expect(((await outside.send('GET', `/venues/${hall}`)).body as Json).venue).toBe('Door Hall')

        let ghost = 0
        const steps: unknown[] = []
        const failed = await door.batch(async (send, failed) => {
          const api = apiClient(app.router, ADMIN, send)
          const made = await api.send('POST', '/venues', { venue: 'Ghost Hall' })
          ghost = (made.body as Json).id
          // Read inside, with the same URL and caller as the reads below: the cache must not keep it.
          steps.push(
            (await api.send('GET', `/venues/${ghost}`)).status,
            ((await api.send('GET', '/venues?per_page=100')).body as Json).venues.length,
          )
          const bad = await api.send('POST', '/events', {
            title: 'Half',
            start_date: day(9, 10),
            end_date: day(9, 11),
            organizer: [{ organizer: 'Door Half Org' }, 999999],
          })
          steps.push(bad.status, failed())
          steps.push(await api.send('POST', '/venues', { venue: 'Never' }).catch((e) => e instanceof TransactionFailedError))
        })
        expect(failed).toEqual({ committed: false })
        expect(steps).toEqual([200, 2, 400, true, true])
        expect((await outside.send('GET', `/venues/${ghost}`)).status).toBe(missing)
        expect(((await outside.send('GET', '/venues?per_page=100')).body as Json).venues.map((v: any) => v.venue)).toEqual(['Door Hall'])
        expect((await organizers()).map((o) => o.organizer)).not.toContain('Door Half Org')
        // A record committed later (on memory and SQLite under the rolled-back one's id) shows itself,
        // not a representation rendered inside the rolled-back batch.
        const real = await app.post('/venues', { venue: 'Real Hall' }, { as: 'administrator' })
        expect(real.body.venue).toBe('Real Hall')
        expect(((await outside.send('GET', `/venues/${real.body.id}`)).body as Json).venue).toBe('Real Hall')
      })
    })
  })
}
