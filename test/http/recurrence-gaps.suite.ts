/**
 * Recurring series, the corners an audit found: occurrences whose time falls in a DST gap or
 * overlap, windowed and capped feeds of open-ended series, hide_subsequent_recurrences with a
 * window, and the edits, deletes and rejections the main suites did not yet cover.
 */
import ICAL from 'ical.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { expandFeed, occurrenceKey } from './recurrence-ical.suite.js'
import { makeApp, type App } from './harness.js'

const WINDOW = 'start_date=2026-01-01&end_date=2031-12-31'
const admin = { as: 'administrator' as const }

/** Start, end and both UTC times of each event, as the JSON shows them. */
const times = (events: any[]) => events.map((e) => `${e.start_date} ${e.end_date} | ${e.utc_start_date} ${e.utc_end_date}`)

export function recurrenceGapsSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(options?: Parameters<typeof makeApp>[1]): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  async function series(a: App, id: number): Promise<any[]> {
    const res = await a.get(`/events?${WINDOW}&per_page=50&status=any`, admin)
    expect(res.status).toBe(200)
    return res.body.events.filter((e: any) => e.series?.id === id)
  }

  /** The feed of `query`, expanded by ical.js, equals the JSON list of `query` (start, end, title). */
  /** The JSON list of `query`: that page when it names one, else every page (as the feed holds the whole window). */
  async function listOf(a: App, query: string): Promise<any[]> {
    if (/(^|&)page=/.test(query)) return (await a.get(`/events?${query}`)).body.events
    const out: any[] = []
    for (let page = 1; ; page++) {
      const res = await a.get(`/events?${query}&per_page=50&page=${page}`)
      expect(res.status).toBe(200)
      out.push(...res.body.events)
      if (page >= res.body.total_pages) return out
    }
  }

  async function feedEqualsList(a: App, query: string, id: number): Promise<string[]> {
    const list = (await listOf(a, query)).filter((e: any) => e.series?.id === id)
    const feed = await a.get(`/events?${query}&format=ics`)
    expect(feed.status).toBe(200)
    const expanded = expandFeed(feed.text, '2099-12-31T23:59:59Z').get(String(id)) ?? []
    expect(expanded, query).toEqual(list.map(occurrenceKey).sort())
    return feed.text.split(/\r?\n/)
  }

  describe(`recurring series: DST gaps and overlaps [${name}]`, () => {
    it('moves an occurrence whose time does not exist that day forward, as a lone event, keeping its length', async () => {
      const a = await app()
      const lone = await a.seed({ title: 'Lone', start_date: '2027-03-14 02:30:00', end_date: '2027-03-14 02:45:00', timezone: 'America/New_York' })
      // The project's rule for a time in the gap: it moves forward by the gap.
      expect(lone.start_date).toBe('2027-03-14 03:30:00')
      expect(lone.utc_start_date).toBe('2027-03-14 07:30:00')

      const ny = await a.post(
        '/events',
        {
          title: 'Night NY',
          start_date: '2027-03-07 02:30:00',
          end_date: '2027-03-07 03:00:00',
          timezone: 'America/New_York',
          recurrence: 'FREQ=WEEKLY;COUNT=3',
        },
        admin,
      )
      expect(ny.status).toBe(201)
      expect(times(await series(a, ny.body.id))).toEqual([
        '2027-03-07 02:30:00 2027-03-07 03:00:00 | 2027-03-07 07:30:00 2027-03-07 08:00:00',
        '2027-03-14 03:30:00 2027-03-14 04:00:00 | 2027-03-14 07:30:00 2027-03-14 08:00:00',
        '2027-03-21 02:30:00 2027-03-21 03:00:00 | 2027-03-21 06:30:00 2027-03-21 07:00:00',
      ])

      const berlin = await a.post(
        '/events',
        {
          title: 'Night Berlin',
          start_date: '2027-03-21 02:30:00',
          end_date: '2027-03-21 03:30:00',
          timezone: 'Europe/Berlin',
          recurrence: 'FREQ=WEEKLY;COUNT=3',
        },
        admin,
      )
      expect(berlin.status).toBe(201)
      const members = await series(a, berlin.body.id)
      expect(times(members)).toEqual([
        '2027-03-21 02:30:00 2027-03-21 03:30:00 | 2027-03-21 01:30:00 2027-03-21 02:30:00',
        '2027-03-28 03:30:00 2027-03-28 04:30:00 | 2027-03-28 01:30:00 2027-03-28 02:30:00',
        '2027-04-04 02:30:00 2027-04-04 03:30:00 | 2027-04-04 00:30:00 2027-04-04 01:30:00',
      ])
      // The single read says the same as the list.
      const read = (await a.get(`/events/${members[1].id}`)).body
      expect([read.start_date, read.end_date, read.utc_start_date, read.utc_end_date]).toEqual([
        '2027-03-28 03:30:00',
        '2027-03-28 04:30:00',
        '2027-03-28 01:30:00',
        '2027-03-28 02:30:00',
      ])
      for (const e of [...(await series(a, ny.body.id)), ...members]) expect(e.utc_end_date > e.utc_start_date).toBe(true)
      await feedEqualsList(a, WINDOW, ny.body.id)
      await feedEqualsList(a, WINDOW, berlin.body.id)
    })

    it('takes the first instant of a time that exists twice, and keeps the length as elapsed time', async () => {
      const a = await app()
      const lone = await a.seed({ title: 'Lone', start_date: '2027-10-31 02:30:00', end_date: '2027-10-31 02:40:00', timezone: 'Europe/Berlin' })
      // Summer time's 02:30 (UTC+2) comes first.
      expect(lone.utc_start_date).toBe('2027-10-31 00:30:00')
      const s = await a.post(
        '/events',
        {
          title: 'Overlap',
          start_date: '2027-10-24 02:30:00',
          end_date: '2027-10-24 03:30:00',
          timezone: 'Europe/Berlin',
          recurrence: 'FREQ=WEEKLY;COUNT=3',
        },
        admin,
      )
      expect(s.status).toBe(201)
      expect(times(await series(a, s.body.id))).toEqual([
        '2027-10-24 02:30:00 2027-10-24 03:30:00 | 2027-10-24 00:30:00 2027-10-24 01:30:00',
        // One hour from the first 02:30 is the second 02:30.
        '2027-10-31 02:30:00 2027-10-31 02:30:00 | 2027-10-31 00:30:00 2027-10-31 01:30:00',
        '2027-11-07 02:30:00 2027-11-07 03:30:00 | 2027-11-07 01:30:00 2027-11-07 02:30:00',
      ])
      await feedEqualsList(a, WINDOW, s.body.id)
    })

    it('places occurrences by the same rule when an edit of the whole series moves them into the gap', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          {
            title: 'Moves',
            start_date: '2027-03-07 10:00:00',
            end_date: '2027-03-07 11:00:00',
            timezone: 'America/New_York',
            recurrence: 'FREQ=WEEKLY;COUNT=3',
          },
          admin,
        )
      ).body
      const res = await a.post(`/events/${head.id}`, { start_date: '2027-03-07 02:15:00', end_date: '2027-03-07 03:15:00' }, admin)
      expect(res.status).toBe(200)
      expect(times(await series(a, head.id))).toEqual([
        '2027-03-07 02:15:00 2027-03-07 03:15:00 | 2027-03-07 07:15:00 2027-03-07 08:15:00',
        '2027-03-14 03:15:00 2027-03-14 04:15:00 | 2027-03-14 07:15:00 2027-03-14 08:15:00',
        '2027-03-21 02:15:00 2027-03-21 03:15:00 | 2027-03-21 06:15:00 2027-03-21 07:15:00',
      ])
      await feedEqualsList(a, WINDOW, head.id)
    })
  })

  describe(`recurring series: windowed and capped feeds of open-ended series [${name}]`, () => {
    /** Open-ended rules (no COUNT or UNTIL), each crossing both DST changes of its zone. */
    const OPEN = [
      { rule: 'FREQ=WEEKLY;BYDAY=TU,TH', start: '2026-12-01 19:00:00', end: '2026-12-01 20:30:00' },
      { rule: 'FREQ=MONTHLY;BYDAY=-1FR', start: '2026-12-25 18:00:00', end: '2026-12-25 21:00:00' },
      { rule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', start: '2026-12-31 09:00:00', end: '2026-12-31 10:00:00' },
      { rule: 'FREQ=WEEKLY;BYDAY=SU', start: '2026-12-06 02:30:00', end: '2026-12-06 03:30:00' },
      { rule: 'FREQ=DAILY;INTERVAL=3', start: '2026-12-01 07:15:00', end: '2026-12-01 08:00:00' },
      { rule: 'FREQ=YEARLY;BYMONTH=3,10;BYDAY=-1SU', start: '2027-03-28 02:30:00', end: '2027-03-28 03:30:00' },
    ]
    const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney']

    it(`expands ${OPEN.length * ZONES.length} open-ended rules (ical.js) to exactly the JSON list, whole, windowed and paged`, { timeout: 120_000 }, async () => {
      const a = await app()
      const ids: number[] = []
      for (const tz of ZONES)
        for (const [i, c] of OPEN.entries()) {
          const res = await a.post('/events', { title: `Open ${i} ${tz}`, start_date: c.start, end_date: c.end, timezone: tz, recurrence: c.rule }, admin)
          expect(res.status, `${c.rule} ${tz}`).toBe(201)
          ids.push(res.body.id)
        }
      for (const query of [
        'start_date=2026-11-01&end_date=2027-03-01',
        'start_date=2027-06-01&end_date=2027-12-31',
        'start_date=2026-11-01&end_date=2028-10-31',
        'start_date=2026-11-01&end_date=2027-06-30&per_page=20&page=3',
      ]) {
        let listed = 0
        const all = await listOf(a, query)
        const feed = (await a.get(`/events?${query}&format=ics`)).text
        const expanded = expandFeed(feed, '2099-12-31T23:59:59Z')
        // Each series' VEVENT: from its UID line to the end of the event.
        const blocks = new Map(feed.split('BEGIN:VEVENT').slice(1).map((b) => [/UID:(\d+)@/.exec(b)?.[1], b.split(/\r?\n/)]))
        for (const id of ids) {
          const list = all.filter((e: any) => e.series?.id === id)
          expect(expanded.get(String(id)) ?? [], `${query} series ${id}`).toEqual(list.map(occurrenceKey).sort())
          listed += list.length
          if (!list.length) continue
          const lines = blocks.get(String(id))!
          // No EXDATE past the last occurrence listed: the master ends there (UNTIL).
          const exdates = lines.filter((l) => l.startsWith('EXDATE')).flatMap((l) => l.split(':')[1]!.split(','))
          const rrule = lines.find((l) => l.startsWith('RRULE:'))!
          expect(rrule, `${query} series ${id}`).toMatch(/UNTIL=\d{8}T\d{6}Z/)
          expect(rrule).not.toContain('COUNT=')
          const localLast = list.map((e: any) => e.start_date).sort().pop()!.slice(0, 10).replace(/-/g, '')
          for (const x of exdates) expect(x.slice(0, 8) <= localLast, `${query}: EXDATE ${x} after ${localLast}`).toBe(true)
        }
        expect(listed, query).toBeGreaterThan(0)
      }
    })

    it('a feed cut by its cap shows exactly the events listed before the cut, and nothing after', async () => {
      const a = await app({ ical: { maxEvents: 40 } })
      const ids: number[] = []
      for (const [i, tz] of ZONES.entries()) {
        const res = await a.post(
          '/events',
          { title: `Daily ${tz}`, start_date: `2026-12-0${i + 1} 08:00:00`, end_date: `2026-12-0${i + 1} 09:00:00`, timezone: tz, recurrence: 'FREQ=DAILY' },
          admin,
        )
        expect(res.status).toBe(201)
        ids.push(res.body.id)
      }
      const query = 'start_date=2026-11-01&end_date=2028-10-31'
      const feed = await a.get(`/events?${query}&format=ics`)
      expect(feed.status).toBe(200)
      const expanded = expandFeed(feed.text, '2099-12-31T23:59:59Z')
      const first = (await listOf(a, query)).slice(0, 40)
      expect([...expanded.values()].flat().sort()).toEqual(first.map(occurrenceKey).sort())
      for (const id of ids) expect(expanded.get(String(id))!.length).toBeGreaterThan(5)
    })

    it('a short window of a monthly open-ended series: exactly its occurrences, no hole and no phantoms after it', async () => {
      const a = await app()
      const head = await a.post(
        '/events',
        {
          title: 'First of the month',
          start_date: '2026-12-01 19:00:00',
          end_date: '2026-12-01 20:00:00',
          timezone: 'Europe/Berlin',
          recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1',
        },
        admin,
      )
      expect(head.status).toBe(201)
      const lines = await feedEqualsList(a, 'start_date=2026-11-01&end_date=2027-03-01', head.body.id)
      expect(lines).toContain('RRULE:FREQ=MONTHLY;BYMONTHDAY=1;UNTIL=20270301T180000Z')
      expect(lines.some((l) => l.startsWith('EXDATE'))).toBe(false)
      // Read far ahead, an independent expander still finds the four and nothing else.
      const root = new ICAL.Component(ICAL.parse((await a.get('/events?start_date=2026-11-01&end_date=2027-03-01&format=ics')).text))
      for (const tz of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz)
      const it = new ICAL.Event(root.getFirstSubcomponent('vevent')!).iterator()
      const days: string[] = []
      for (let n = it.next(); n && days.length < 100; n = it.next()) days.push(n.toJSDate().toISOString().slice(0, 10))
      expect(days).toEqual(['2026-12-01', '2027-01-01', '2027-02-01', '2027-03-01'])
      // A window starting later: the occurrences before it are excluded, none after it produced.
      await feedEqualsList(a, 'start_date=2027-05-01&end_date=2027-08-01', head.body.id)
    })
  })

  describe(`recurring series: hide_subsequent_recurrences within the list's filters [${name}]`, () => {
    async function weekly(a: App, title: string, start: string) {
      const res = await a.post(
        '/events',
        { title, start_date: `${start} 10:00:00`, end_date: `${start} 11:00:00`, recurrence: 'FREQ=WEEKLY;COUNT=10' },
        admin,
      )
      expect(res.status).toBe(201)
      return (await a.get(`/events?${WINDOW}&per_page=50`)).body.events.filter((e: any) => e.series.id === res.body.id) as any[]
    }
    const shown = (res: any) => res.body.events.map((e: any) => `${e.title} ${e.start_date.slice(0, 10)}`)

    it('shows the first occurrence of each series inside the window, even when the window starts after the next one', async () => {
      const a = await app()
      await weekly(a, 'Mondays', '2026-11-23')
      await weekly(a, 'Tuesdays', '2026-11-24')
      await a.seed({ title: 'Lone', start_date: '2027-01-05 12:00:00', end_date: '2027-01-05 13:00:00' })
      const res = await a.get('/events?start_date=2026-12-15&end_date=2027-03-01&hide_subsequent_recurrences=true')
      expect(res.status).toBe(200)
      expect(shown(res)).toEqual(['Tuesdays 2026-12-15', 'Mondays 2026-12-21', 'Lone 2027-01-05'])
      expect(res.body.total).toBe(3)
      // A window holding none of a series' occurrences shows none of it.
      expect(shown(await a.get('/events?start_date=2027-01-26&end_date=2027-03-01&hide_subsequent_recurrences=true'))).toEqual([
        'Tuesdays 2027-01-26',
      ])
      // Pages count the kept events only.
      const second = await a.get('/events?start_date=2026-12-15&end_date=2027-03-01&hide_subsequent_recurrences=true&per_page=2&page=2')
      expect(shown(second)).toEqual(['Lone 2027-01-05'])
      expect([second.body.total, second.body.total_pages]).toEqual([3, 2])
    })

    it('takes the first among the events the other filters select (search, venue, include)', async () => {
      const a = await app()
      const venue = (await a.post('/venues', { venue: 'Crypt' }, admin)).body
      const members = await weekly(a, 'Vespers', '2026-11-23')
      // Two later occurrences become different on their own: one retitled, one at the venue.
      expect((await a.post(`/events/${members[3].id}`, { title: 'Vespers special' }, admin)).status).toBe(200)
      expect((await a.post(`/events/${members[6].id}`, { title: 'Vespers special' }, admin)).status).toBe(200)
      expect((await a.post(`/events/${members[5].id}`, { venue: venue.id }, admin)).status).toBe(200)
      const q = `${WINDOW}&hide_subsequent_recurrences=1`
      expect(shown(await a.get(`/events?${q}`))).toEqual(['Vespers 2026-11-23'])
      expect(shown(await a.get(`/events?${q}&search=special`))).toEqual(['Vespers special 2026-12-14'])
      expect(shown(await a.get(`/events?${q}&venue=${venue.id}`))).toEqual(['Vespers 2026-12-28'])
      // include lists in publication order; the series' first among those included is kept.
      const include = await a.get(`/events?hide_subsequent_recurrences=1&include=${members[8].id},${members[4].id},${members[7].id}`)
      expect(shown(include)).toEqual(['Vespers 2026-12-21'])
      expect(include.body.total).toBe(1)
    })
  })
}
