/**
 * What real exporters write that the importer must read faithfully (issue 39, findings 3, 7, 8,
 * 12, 17), each with a fixture of its own shaped like those exporters' files. Registered for
 * memory, SQLite and PostgreSQL by test/import-*.test.ts.
 */
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { importCalendar, type ImportSource } from '../../src/import/index.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App } from '../http/harness.js'
import { defaultContent, startTecStub } from '../support/tec-stub.js'

const fixture = (name: string) => `test/fixtures/import/${name}`
const YEAR = '?start_date=2000-01-01&end_date=2100-01-01&per_page=100&status=publish,future,draft,pending,private'

export function fidelitySuite(backend: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`importer fidelity [${backend}]`, () => {
    let app: App
    afterEach(async () => app?.close())
    const events = async () => (await app.get(`/events${YEAR}`, { as: 'administrator' })).body.events as any[]
    const run = (source: ImportSource, o = {}) => importCalendar(app.router, source, o)

    it('dates without VALUE=DATE (a holiday calendar, a date-only EXDATE in a timed series, DTEND a date after a timed DTSTART)', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('dates-without-value.ics') })
      expect(s.failed).toEqual([])
      const list = await events()
      const christmas = list.find((e) => e.title === 'Christmas Day')
      expect([christmas.all_day, christmas.start_date, christmas.end_date]).toEqual([true, '2027-12-25 00:00:00', '2027-12-25 23:59:59'])
      expect(list.filter((e) => e.title === 'Stand-up').map((e) => e.start_date)).toEqual(['2027-01-04 09:30:00', '2027-01-18 09:30:00'])
      const late = list.find((e) => e.title === 'Until midnight')
      expect([late.all_day, late.start_date, late.end_date, late.timezone]).toEqual([
        false,
        '2027-03-01 22:00:00',
        '2027-03-02 00:00:00',
        'Europe/Berlin',
      ])
      expect(s.warnings).toEqual([
        { ref: 'UID mixed@fidelity.test', reason: 'DTEND is a date while DTSTART has a time: it ends at the start of 2027-03-02' },
      ])
    })

    it('an event without UID gets a stable id from its SUMMARY and DTSTART, with a warning; a second run changes nothing', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('copies-and-no-uid.ics') })
      expect(s.failed).toEqual([])
      expect(s.warnings).toContainEqual({
        ref: 'VEVENT at line 5',
        reason: expect.stringMatching(
          /^has no UID: known by its SUMMARY and DTSTART as derived-[0-9a-f]{16}@ics; renaming or moving it imports it anew$/,
        ),
      })
      expect((await events()).map((e) => e.title)).toContain('Team lunch (an old export without UID)')
      const again = await run({ format: 'ics', location: fixture('copies-and-no-uid.ics') })
      expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
      expect((await events()).length).toBe(3)
    })

    it('copies of one UID: the highest SEQUENCE wins, then the latest LAST-MODIFIED (DTSTAMP), whatever their order', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('copies-and-no-uid.ics') })
      expect(s.failed).toEqual([])
      const titles = (await events()).map((e) => [e.title, e.start_date])
      expect(titles).toContainEqual(['Board meeting (moved)', '2027-04-13 11:00:00'])
      expect(titles).toContainEqual(['Reading group (new room)', '2027-04-14 10:00:00'])
      expect(titles.map(([t]) => t)).not.toContain('Board meeting')
      expect(titles.map(([t]) => t)).not.toContain('Reading group')
      expect(s.warnings).toContainEqual({ ref: 'UID board@fidelity.test', reason: 'an older copy at line 19 (SEQUENCE 1) was left out' })
    })

    it('the source key is canonical: team.ics and ./team.ics (an absolute path) are one source; the summary counts each kind apart', async () => {
      app = await makeApp(makeStorage)
      const first = await run({ format: 'ics', location: fixture('google.ics') })
      expect(first.source).toBe(`ics:${resolve(fixture('google.ics'))}`)
      expect(first.kinds.event?.created).toBe((await events()).filter((e) => !e.series || e.series.id === e.id || e.series.detached).length)
      expect(first.kinds.venue?.created).toBe(1)
      expect(first.kinds.organizer?.created).toBe(1)
      const again = await run({ format: 'ics', location: `./${fixture('google.ics')}` })
      expect([again.source, again.created, again.unchanged]).toEqual([first.source, 0, first.created])
      // Links an earlier version made under the location as written are still found.
      const legacy = `ics:${fixture('outlook.ics')}`
      const before = await run({ format: 'ics', location: fixture('outlook.ics'), name: legacy })
      const upgraded = await run({ format: 'ics', location: fixture('outlook.ics') })
      expect([upgraded.source, upgraded.created, upgraded.unchanged]).toEqual([legacy, 0, before.created])
      const url = await run({ format: 'ics', location: 'HTTP://127.0.0.1:9/a/../cal.ics', timeoutMs: 2000 })
      expect(url.source).toBe('ics:http://127.0.0.1:9/cal.ics')
    })

    it('two sources into one calendar: a category or tag that exists by name (and parent) is adopted, not refused', async () => {
      app = await makeApp(makeStorage)
      const csv = 'Event Name,Event Start Date,Event Start Time,Event Category,Event Tags\nPicnic,2027-06-01,12:00,Music,Outdoor\n'
      expect((await run({ format: 'csv', text: csv, name: 'sheet' })).failed).toEqual([])
      const terms = async (kind: string) => (await app.get(`/${kind}?hide_empty=false&per_page=100`)).body[kind] as any[]
      const music = (await terms('categories')).find((c) => c.name === 'Music')
      const outdoor = (await terms('tags')).find((t) => t.name === 'Outdoor')
      const site = await startTecStub()
      try {
        const s = await run({ format: 'tec', location: site.url })
        expect(s.failed).toEqual([])
        expect(s.warnings).toContainEqual({ ref: 'category 2', reason: `adopted the category "Music" that exists here (id ${music.id})` })
        const jazz = (await terms('categories')).find((c) => c.name === 'Jazz')
        expect(jazz.parent).toBe(music.id)
        expect((await terms('categories')).filter((c) => c.name === 'Music')).toHaveLength(1)
        const first = (await events()).find((e) => e.title === 'Event 0')
        expect(first.categories.map((c: any) => c.id)).toEqual([jazz.id])
        expect(first.tags.map((t: any) => t.id)).toEqual([outdoor.id])
        const again = await run({ format: 'tec', location: site.url })
        expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
      } finally {
        await site.close()
      }
    })

    it("imported HTML goes through an untrusted role's filter unless trustHtml; Google's CSV Private column keeps a private event private", async () => {
      app = await makeApp(makeStorage)
      const csv = {
        mapping: {
          event_name: 'Subject',
          event_start_date: 'Start Date',
          event_start_time: 'Start Time',
          event_end_date: 'End Date',
          event_end_time: 'End Time',
          event_description: 'Description',
          event_venue_name: 'Location',
        },
      }
      const s = await run({ format: 'csv', location: fixture('google-calendar.csv'), csv })
      expect(s.failed).toEqual([])
      const list = await events()
      const picnic = list.find((e) => e.title === 'Team picnic')
      expect(picnic.description).toContain('Food')
      expect(picnic.description).not.toMatch(/script|onerror/)
      expect(list.find((e) => e.title === 'Dentist').status).toBe('private')
      expect((await app.get(`/events${YEAR.replace(/&status=.*/, '')}`)).body.events.map((e: any) => e.title)).toEqual(['Team picnic'])
      await run({ format: 'csv', location: fixture('google-calendar.csv'), csv, name: 'trusted' }, { trustHtml: true })
      const trusted = (await events()).filter((e) => e.title === 'Team picnic')
      expect(trusted.map((e) => e.description)).toContainEqual(expect.stringContaining('<script>alert(1)</script>'))
    })

    it('imported HTML from an iCalendar feed and a TEC site goes through the same filter, unless trustHtml', async () => {
      app = await makeApp(makeStorage)
      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//fidelity fixtures//html//EN',
        'BEGIN:VEVENT',
        'UID:html@fidelity.test',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270510T180000Z',
        'DTEND:20270510T190000Z',
        'SUMMARY:Concert <img src=x onerror=alert(1)>',
        'DESCRIPTION:Doors <script>alert(2)</script> at six',
        'LOCATION:Hall <b onmouseover=alert(3)>B</b>',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n')
      expect((await run({ format: 'ics', text: ics, name: 'html-feed' })).failed).toEqual([])
      const content = defaultContent(1)
      content.events[0]!.title = 'Talk <img src=x onerror=alert(4)>'
      content.events[0]!.description = '<p>Talk <script>alert(5)</script><a href="javascript:alert(6)" onclick="alert(7)">more</a></p>'
      const site = await startTecStub(content)
      try {
        expect((await run({ format: 'tec', location: site.url })).failed).toEqual([])
        const served = JSON.stringify((await app.get(`/events${YEAR}`, { as: 'administrator' })).body.events)
        expect(served).toContain('Doors')
        expect(served).toContain('Talk')
        expect(served).not.toMatch(/<script|onerror|onclick|onmouseover|javascript:/i)
        // Anonymous readers get what was stored: nothing of the sources' scripts either.
        const anonymous = await app.get(`/events${YEAR.replace(/&status=.*/, '')}`)
        expect(anonymous.status).toBe(200)
        expect(JSON.stringify(anonymous.body.events)).not.toMatch(/<script|onerror|onclick|javascript:/i)
        // The caller who opts in keeps the sources' HTML as given.
        await run({ format: 'tec', location: site.url, name: 'trusted-site' }, { trustHtml: true })
        const trusted = (await events()).filter((e) => e.title.startsWith('Talk')).map((e) => e.description)
        expect(trusted).toContainEqual(expect.stringContaining('<script>alert(5)</script>'))
      } finally {
        await site.close()
      }
    })

    it('an open-ended rule outside our subset keeps the occurrences around now and ahead, in the series zone, and says what it left out', async () => {
      app = await makeApp(makeStorage)
      const now = new Date('2026-11-21T22:54:48Z')
      const s = await run({ format: 'ics', location: fixture('open-ended.ics'), ics: { now, horizonMonths: 2 } })
      expect(s.failed).toEqual([])
      const list = (await events()).filter((e) => e.title === 'Weekly sync (an hourly rule)')
      expect(list[0].start_date >= '2026-10-21').toBe(true)
      // 09:30 UTC on a Monday in November: 04:30 in New York.
      expect(list.map((e) => [e.start_date, e.timezone])).toContainEqual(['2026-11-23 04:30:00', 'America/New_York'])
      expect(list.at(-1).start_date < '2027-01-22').toBe(true)
      expect(s.warnings.map((w) => w.reason)).toContainEqual(
        expect.stringMatching(/^\d+ occurrences more than 31 days before now were left out$/),
      )
      const again = await run({ format: 'ics', location: fixture('open-ended.ics'), ics: { now, horizonMonths: 2 } })
      expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
    })

    it('a rule expanded into single events stops at budget.occurrences, and says so', async () => {
      app = await makeApp(makeStorage)
      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//fidelity fixtures//many occurrences//EN',
        'BEGIN:VEVENT',
        'UID:every-six-hours@fidelity.test',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270601T000000Z',
        'DTEND:20270601T003000Z',
        'RRULE:FREQ=HOURLY;INTERVAL=6;COUNT=40',
        'SUMMARY:Every six hours',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n')
      const s = await run({ format: 'ics', text: ics, name: 'many', budget: { occurrences: 5 } })
      expect(s.failed).toEqual([])
      expect((await events()).map((e) => e.start_date)).toEqual([
        '2027-06-01 00:00:00',
        '2027-06-01 06:00:00',
        '2027-06-01 12:00:00',
        '2027-06-01 18:00:00',
        '2027-06-02 00:00:00',
      ])
      expect(s.warnings.map((w) => w.reason)).toContainEqual('cut at 5 occurrences (budget.occurrences)')
    })

    it('an hourly rule written in UTC under X-WR-TIMEZONE keeps its instants: 15:00Z is 10:00 in New York, not 15:00 (finding 6)', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('hourly-utc.ics') })
      expect(s.failed).toEqual([])
      const list = (await events()).filter((e) => e.title === 'Every twelve hours from 15:00 UTC')
      // New York moves to summer time at 02:00 on Sunday 14 March 2027: 15:00Z is 11:00 there.
      expect(list.map((e) => [e.start_date, e.end_date, e.timezone])).toEqual([
        ['2027-03-13 10:00:00', '2027-03-13 10:30:00', 'America/New_York'],
        ['2027-03-13 22:00:00', '2027-03-13 22:30:00', 'America/New_York'],
        ['2027-03-14 11:00:00', '2027-03-14 11:30:00', 'America/New_York'],
      ])
      expect(list.map((e) => e.utc_start_date)).toEqual(['2027-03-13 15:00:00', '2027-03-14 03:00:00', '2027-03-14 15:00:00'])
    })

    it('a plain-text SUMMARY with two spaces keeps both in the JSON and in the iCalendar feed (finding 10)', async () => {
      app = await makeApp(makeStorage)
      const ics = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//fidelity fixtures//spaces//EN',
        'BEGIN:VEVENT',
        'UID:spaces@fidelity.test',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270510T180000Z',
        'DTEND:20270510T190000Z',
        'SUMMARY:Quiz  night:   round two & more',
        'LOCATION:Hall  B',
        'DESCRIPTION:Teams of  four.',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n')
      expect((await run({ format: 'ics', text: ics, name: 'spaces' })).failed).toEqual([])
      const [event] = (await events()).filter((e) => e.title.startsWith('Quiz'))
      expect([event.title, event.venue.venue]).toEqual(['Quiz  night:   round two & more', 'Hall  B'])
      const feed = await app.get(`/events${YEAR}&format=ics`, { as: 'administrator' })
      expect(feed.status).toBe(200)
      const lines = feed.text.replace(/\r\n /g, '').split('\r\n')
      expect(lines).toContain('SUMMARY:Quiz  night:   round two & more')
      expect(lines.find((l: string) => l.startsWith('LOCATION:'))).toMatch(/^LOCATION:Hall {2}B/)
    })

    it('CSV: a start in the spring-forward gap keeps its length; an end before the start is warned (finding 11)', async () => {
      app = await makeApp(makeStorage)
      const csv = [
        'Event Name,Event Start Date,Event Start Time,Event End Date,Event End Time,Event Time Zone',
        'In the gap,2027-03-28,02:30,2027-03-28,03:30,Europe/Berlin',
        'Backwards,2027-05-02,18:00,2027-05-02,17:00,Europe/Berlin',
        'Back a day,May 3 2027,6pm,May 2 2027,7pm,Europe/Berlin',
        'Regular,2027-05-04,18:00,2027-05-04,19:00,Europe/Berlin',
        '',
      ].join('\n')
      const s = await run({ format: 'csv', text: csv, name: 'gap-sheet' })
      expect(s.failed).toEqual([])
      const spans = Object.fromEntries((await events()).map((e) => [e.title, [e.start_date, e.end_date]]))
      // Berlin's clocks go from 02:00 to 03:00 on 28 March 2027: the hour it lasts is kept.
      expect(spans['In the gap']).toEqual(['2027-03-28 03:30:00', '2027-03-28 04:30:00'])
      expect(spans['Backwards']).toEqual(['2027-05-02 18:00:00', '2027-05-02 18:00:00'])
      expect(spans['Regular']).toEqual(['2027-05-04 18:00:00', '2027-05-04 19:00:00'])
      expect(s.warnings).toEqual([
        {
          ref: 'row 2 (line 2)',
          reason:
            'the start 2027-03-28 02:30:00 does not exist in Europe/Berlin (the clocks go forward): it starts at 03:30:00 and keeps its length',
        },
        { ref: 'row 3 (line 3)', reason: 'the end 2027-05-02 17:00:00 is before the start 2027-05-02 18:00:00: it ends when it starts' },
        { ref: 'row 4 (line 4)', reason: 'the end 2027-05-02 19:00:00 is before the start 2027-05-03 18:00:00: it ends when it starts' },
      ])
    })

    it('odd shapes: BEGIN:VEVENT with a trailing space, two RRULE lines, DTEND before DTSTART, PT24H across the spring change', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('odd-shapes.ics') })
      expect(s.failed).toEqual([])
      const list = await events()
      expect(list.map((e) => e.title)).toContain('After a BEGIN line with a trailing space')
      expect(list.filter((e) => e.title === 'Two rules').map((e) => e.start_date)).toEqual([
        '2027-06-07 10:00:00',
        '2027-06-09 10:00:00',
        '2027-06-14 10:00:00',
        '2027-06-16 10:00:00',
      ])
      expect(s.warnings).toContainEqual({
        ref: 'UID two-rules@fidelity.test (occurrence 2027-06-07 10:00:00)',
        reason: 'several RRULE lines: imported as 4 single events',
      })
      expect(s.warnings).toContainEqual({
        ref: 'UID backwards@fidelity.test',
        reason: 'DTEND is before DTSTART: the event ends when it starts',
      })
      // 24 real hours: the clocks went forward an hour on 28 March.
      const day = list.find((e) => e.title === 'Twenty-four hours across the spring change')
      expect([day.start_date, day.end_date]).toEqual(['2027-03-27 12:00:00', '2027-03-28 13:00:00'])
    })

    it('a file without events says so; a file that is not UTF-8 is read as Latin-1, with a warning', async () => {
      app = await makeApp(makeStorage)
      const tasks = await run({ format: 'ics', location: fixture('tasks-only.ics') })
      expect([tasks.created, tasks.failed]).toEqual([0, []])
      expect(tasks.warnings).toEqual([{ ref: 'source', reason: 'the file holds no VEVENT (only VTODO): nothing to import' }])
      const latin = await run({ format: 'ics', location: fixture('latin1.ics') })
      expect(latin.warnings).toEqual([{ ref: 'source', reason: 'the file is not UTF-8: read as Latin-1 (windows-1252)' }])
      expect((await events()).map((e) => e.title)).toEqual(['Café München'])
    })

    it('RDATE;VALUE=PERIOD: each period keeps its own length; an RDATE-only event keeps its DTSTART instance', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('rdate-periods.ics') })
      expect(s.failed).toEqual([])
      const list = await events()
      expect(list.filter((e) => e.title.startsWith('Course')).map((e) => [e.start_date, e.end_date])).toEqual([
        ['2027-09-05 09:00:00', '2027-09-05 10:00:00'],
        ['2027-09-12 09:00:00', '2027-09-12 12:00:00'],
        ['2027-09-19 09:00:00', '2027-09-19 11:00:00'],
      ])
      expect(list.filter((e) => e.title === 'Three evenings').map((e) => e.start_date)).toEqual([
        '2027-10-01 18:00:00',
        '2027-10-08 18:00:00',
        '2027-10-15 18:00:00',
      ])
      const again = await run({ format: 'ics', location: fixture('rdate-periods.ics') })
      expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
    })

    it('a zone known only from its VTIMEZONE is the IANA zone with the same transitions, with a warning naming it; a weekday series stays on weekdays across the DST change', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('file-only-zone.ics') })
      expect(s.failed).toEqual([])
      const list = (await events()).filter((e) => e.title === 'Stand-up')
      expect(list[0].timezone).toMatch(/^Australia\//)
      // Sydney leaves summer time on Sunday 4 April 2027: still 09:30, still Monday to Friday.
      expect(list.map((e) => e.start_date)).toEqual([
        '2027-03-29 09:30:00',
        '2027-03-30 09:30:00',
        '2027-03-31 09:30:00',
        '2027-04-01 09:30:00',
        '2027-04-02 09:30:00',
        '2027-04-05 09:30:00',
        '2027-04-06 09:30:00',
        '2027-04-07 09:30:00',
        '2027-04-08 09:30:00',
        '2027-04-09 09:30:00',
      ])
      expect(s.warnings).toContainEqual({
        ref: 'UID standup-sydney@fidelity.test',
        reason: expect.stringMatching(
          /^TZID "Customized Time Zone" is known only from the file: read as Australia\/\S+, the IANA zone with the same transitions$/,
        ),
      })
    })

    it('a file-only zone that matches no IANA zone: its rule is expanded in that VTIMEZONE (the wall clock kept across its own DST change); display names and /Europe/CUSTOM map by their rules', async () => {
      app = await makeApp(makeStorage)
      const s = await run({ format: 'ics', location: fixture('unmatched-zone.ics') })
      expect(s.failed).toEqual([])
      const list = await events()
      // 09:30 at +05:17, then at +06:17 from the zone's own change on Sunday 14 March 2027.
      const guild = list.filter((e) => e.title === 'Guild meeting')
      expect(guild.map((e) => [e.start_date, e.end_date, e.timezone, e.series ?? null])).toEqual([
        ['2027-03-01 04:13:00', '2027-03-01 05:13:00', 'UTC', null],
        ['2027-03-08 04:13:00', '2027-03-08 05:13:00', 'UTC', null],
        ['2027-03-15 03:13:00', '2027-03-15 04:13:00', 'UTC', null],
        ['2027-03-22 03:13:00', '2027-03-22 04:13:00', 'UTC', null],
      ])
      expect(s.warnings).toContainEqual({
        ref: 'UID guild-meeting@fidelity.test (occurrence 2027-03-01 04:13:00)',
        reason:
          'TZID "Ankh-Morpork Time" is known only from the file and matches no IANA zone: its times are taken as instants, shown in UTC',
      })
      expect(s.warnings).toContainEqual({
        ref: 'UID guild-meeting@fidelity.test (occurrence 2027-03-01 04:13:00)',
        reason: 'its rule is expanded in the VTIMEZONE "Ankh-Morpork Time": imported as 4 single events',
      })
      const planning = list.find((e) => e.title === 'Planning (display-name zone)')
      expect([planning.start_date, planning.timezone]).toEqual([
        '2027-04-05 09:00:00',
        expect.stringMatching(/^Australia\/(Melbourne|Sydney|Canberra)$/),
      ])
      const review = list.find((e) => e.title === 'Review (/Europe/CUSTOM)')
      expect([review.start_date, review.timezone]).toEqual(['2027-03-29 10:00:00', expect.stringMatching(/^Europe\//)])
      const again = await run({ format: 'ics', location: fixture('unmatched-zone.ics') })
      expect([again.created, again.updated, again.failed]).toEqual([0, 0, []])
    })
  })
}
