/**
 * Recurring series at their edges: occurrences whose time falls in a DST gap or overlap,
 * windowed and capped feeds of open-ended series, hide_subsequent_recurrences within a list's
 * filters, scoped edits and deletes with their rejections, series writes that happen all or not
 * at all, and draft series in the leak matrix.
 */
import fc from 'fast-check'
import ICAL from 'ical.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage, StorageTx } from '../../src/storage/types.js'
import { hostileStats } from './hostile.suite.js'
import { leakStats } from '../../src/testing/http/leaks.suite.js'
import { expandFeed, occurrenceKey } from '../../src/testing/http/ical-expand.js'
import { hostileRecurrence } from './recurrence-reliability.suite.js'
import { NS, makeApp, type App, type Caller } from './harness.js'

const WINDOW = 'start_date=2026-01-01&end_date=2031-12-31'
const admin = { as: 'administrator' as const }

/** Start, end and both UTC times of each event, as the JSON shows them. */
const times = (events: any[]) => events.map((e) => `${e.start_date} ${e.end_date} | ${e.utc_start_date} ${e.utc_end_date}`)

export function recurrenceEdgeCasesSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
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
  /** Every stored event (any status) as "id title start", to compare before and after a write. */
  async function snapshot(a: App): Promise<string[]> {
    const out: string[] = []
    for (let page = 1; ; page++) {
      const res = await a.get(`/events?${WINDOW}&per_page=50&status=any&page=${page}`, admin)
      if (res.status === 404) break
      expect(res.status).toBe(200)
      for (const e of res.body.events) out.push(`${e.id} ${e.title} ${e.start_date} ${e.status} ${JSON.stringify(e.recurrence ?? null)}`)
      if (page >= res.body.total_pages) break
    }
    return out
  }

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
      const lone = await a.seed({
        title: 'Lone',
        start_date: '2027-03-14 02:30:00',
        end_date: '2027-03-14 02:45:00',
        timezone: 'America/New_York',
      })
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
      const lone = await a.seed({
        title: 'Lone',
        start_date: '2027-10-31 02:30:00',
        end_date: '2027-10-31 02:40:00',
        timezone: 'Europe/Berlin',
      })
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

    it(
      `expands ${OPEN.length * ZONES.length} open-ended rules (ical.js) to exactly the JSON list, whole, windowed and paged`,
      { timeout: 120_000 },
      async () => {
        const a = await app()
        const ids: number[] = []
        for (const tz of ZONES)
          for (const [i, c] of OPEN.entries()) {
            const res = await a.post(
              '/events',
              { title: `Open ${i} ${tz}`, start_date: c.start, end_date: c.end, timezone: tz, recurrence: c.rule },
              admin,
            )
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
          const blocks = new Map(
            feed
              .split('BEGIN:VEVENT')
              .slice(1)
              .map((b) => [/UID:(\d+)@/.exec(b)?.[1], b.split(/\r?\n/)]),
          )
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
            const localLast = list
              .map((e: any) => e.start_date)
              .sort()
              .pop()!
              .slice(0, 10)
              .replace(/-/g, '')
            for (const x of exdates) expect(x.slice(0, 8) <= localLast, `${query}: EXDATE ${x} after ${localLast}`).toBe(true)
          }
          expect(listed, query).toBeGreaterThan(0)
        }
      },
    )

    it('a feed cut by its cap shows exactly the events listed before the cut, and nothing after', async () => {
      const a = await app({ ical: { maxEvents: 40 } })
      const ids: number[] = []
      for (const [i, tz] of ZONES.entries()) {
        const res = await a.post(
          '/events',
          {
            title: `Daily ${tz}`,
            start_date: `2026-12-0${i + 1} 08:00:00`,
            end_date: `2026-12-0${i + 1} 09:00:00`,
            timezone: tz,
            recurrence: 'FREQ=DAILY',
          },
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

  describe(`recurring series: edits, deletes and rejections [${name}]`, () => {
    async function daily(a: App, title: string, count = 6, extra: Record<string, unknown> = {}) {
      const res = await a.post(
        '/events',
        { title, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', recurrence: `FREQ=DAILY;COUNT=${count}`, ...extra },
        admin,
      )
      expect(res.status).toBe(201)
      return res.body
    }
    it('an update with a bad rule is a 400 naming recurrence and changes nothing, on a lone event and on a series', async () => {
      const a = await app()
      const lone = await a.seed({ title: 'Lone', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00' })
      const head = await daily(a, 'Series', 4)
      const before = await snapshot(a)
      for (const [id, rec] of [
        [lone.id, 'FREQ=DAILY;UNTIL=20261201'],
        [lone.id, { rrule: 'FREQ=DAILY;COUNT=3', exdate: ['2027-05-05'] }],
        [lone.id, 'FREQ=DAILY;COUNT=5000'],
        [lone.id, 'FREQ=DAILY;UNTIL=20400101'],
        [lone.id, 'FREQ=HOURLY'],
        [head.id, { rrule: 'FREQ=DAILY;COUNT=4', exdate: ['2030-01-01'] }],
        [head.id, 'FREQ=DAILY;BYHOUR=10'],
        [head.id, 'FREQ=DAILY;UNTIL=20261101'],
      ] as const) {
        const res = await a.post(`/events/${id}`, { title: 'Changed', recurrence: rec }, admin)
        expect(res.status, JSON.stringify(rec)).toBe(400)
        expect(Object.keys(res.body.data.params)).toEqual(['recurrence'])
        expect(await snapshot(a)).toEqual(before)
      }
    })

    it('occurrences store the text of the first one, lone surrogates, backslashes and quotes included', async () => {
      // The later occurrences are written in bulk (PostgreSQL: one jsonb parameter), the first
      // one alone: a lone surrogate or a literal `\ud800` must come out the same either way.
      const a = await app()
      const title = 'Odd \ud800 and \\ud800 "quoted" \u{1F600} \\\\ \udfff end'
      const head = await daily(a, title, 4, { description: "<p>\udc00 \\u0041 'single' \u2028</p>", excerpt: 'x\ud83d' })
      const listed = await series(a, head.id)
      expect(listed).toHaveLength(4)
      for (const e of listed) {
        const one = (await a.get(`/events/${e.id}`, admin)).body
        expect([one.title, one.description, one.excerpt], `occurrence ${e.id}`).toEqual([head.title, head.description, head.excerpt])
      }
      expect(head.title).toContain('\\ud800 "quoted" \u{1F600}')
    })

    it('recurrence "" on an update ends the series: the first occurrence stays, the others go', async () => {
      const a = await app()
      const head = await daily(a, 'Ends', 4)
      const res = await a.post(`/events/${head.id}`, { recurrence: '' }, admin)
      expect(res.status).toBe(200)
      expect(res.body.series).toBeUndefined()
      expect(res.body.recurrence).toBeUndefined()
      const left = (await a.get(`/events?${WINDOW}&status=any`, admin)).body.events
      expect(left.map((e: any) => [e.id, e.start_date])).toEqual([[head.id, '2026-12-01 10:00:00']])
      expect((await a.get(`/events?${WINDOW}&post_parent=${head.id}`)).body.total ?? 0).toBe(0)
    })

    it('DELETE recurrence_scope=following trashes this and later occurrences and ends the rule before them', async () => {
      const a = await app()
      const head = await daily(a, 'Cut')
      const members = (await a.get(`/events?${WINDOW}`)).body.events
      const res = await a.del(`/events/${members[3].id}?recurrence_scope=following`, admin)
      expect(res.status).toBe(200)
      const left = (await a.get(`/events?${WINDOW}`)).body.events
      expect(left.map((e: any) => e.start_date.slice(0, 10))).toEqual(['2026-12-01', '2026-12-02', '2026-12-03'])
      expect(left[0].recurrence.rrule).toBe('FREQ=DAILY;UNTIL=20261204T095959Z')
      const trash = (await a.get(`/events?${WINDOW}&status=trash`, admin)).body.events
      expect(trash.map((e: any) => e.id).sort()).toEqual(
        members
          .slice(3)
          .map((e: any) => e.id)
          .sort(),
      )
      // The feed agrees.
      expect(expandFeed((await a.get(`/events?${WINDOW}&format=ics`)).text, '2099-01-01T00:00:00Z').get(String(head.id))).toEqual(
        left.map(occurrenceKey).sort(),
      )
    })

    it('DELETE force=true with recurrence_scope=all deletes every occurrence for good', async () => {
      const a = await app()
      const head = await daily(a, 'Gone')
      const members = (await a.get(`/events?${WINDOW}`)).body.events
      const res = await a.del(`/events/${head.id}?recurrence_scope=all&force=true`, admin)
      expect(res.status).toBe(200)
      expect((await a.get(`/events?${WINDOW}&status=any`, admin)).body.total ?? 0).toBe(0)
      for (const m of members) expect((await a.get(`/events/${m.id}`, admin)).status).toBe(404)
    })

    it('DELETE force=true of the first occurrence alone (scope this) is a 400 naming recurrence_scope; nothing is deleted', async () => {
      const a = await app()
      const head = await daily(a, 'Held')
      const before = await snapshot(a)
      for (const query of ['force=true', 'force=true&recurrence_scope=this']) {
        const res = await a.del(`/events/${head.id}?${query}`, admin)
        expect(res.status, query).toBe(400)
        expect(Object.keys(res.body.data.params)).toEqual(['recurrence_scope'])
        expect(await snapshot(a)).toEqual(before)
      }
    })

    it('organizer and tags follow the following and this scopes', async () => {
      const a = await app()
      const org = (await a.post('/organizers', { organizer: 'Org' }, admin)).body
      const org2 = (await a.post('/organizers', { organizer: 'Other org' }, admin)).body
      const head = await daily(a, 'Links')
      let members = (await a.get(`/events?${WINDOW}`)).body.events
      const links = async () =>
        ((await a.get(`/events?${WINDOW}`)).body.events as any[]).map(
          (e) =>
            `${e.start_date.slice(5, 10)} org=${(e.organizer ?? []).map((o: any) => o.organizer).join('+')} tags=${(e.tags ?? [])
              .map((t: any) => t.name)
              .join('+')} ${e.series.id === head.id ? 'old' : 'new'}/${e.series.position}`,
        )
      const following = await a.post(`/events/${members[2].id}`, { organizer: [org.id], tags: ['x'], recurrence_scope: 'following' }, admin)
      expect(following.status).toBe(200)
      expect(await links()).toEqual([
        '12-01 org= tags= old/1',
        '12-02 org= tags= old/2',
        '12-03 org=Org tags=x new/1',
        '12-04 org=Org tags=x new/2',
        '12-05 org=Org tags=x new/3',
        '12-06 org=Org tags=x new/4',
      ])
      members = (await a.get(`/events?${WINDOW}`)).body.events
      const one = await a.post(`/events/${members[4].id}`, { organizer: [org2.id], tags: ['y'], recurrence_scope: 'this' }, admin)
      expect(one.status).toBe(200)
      expect(await links()).toEqual([
        '12-01 org= tags= old/1',
        '12-02 org= tags= old/2',
        '12-03 org=Org tags=x new/1',
        '12-04 org=Org tags=x new/2',
        '12-05 org=Other org tags=y new/3',
        '12-06 org=Org tags=x new/4',
      ])
      // The lists filtered by those links agree.
      expect((await a.get(`/events?${WINDOW}&organizer=${org.id}`)).body.total).toBe(3)
      expect((await a.get(`/events?${WINDOW}&tags=y`)).body.total).toBe(1)
    })

    it('the venue filter lists occurrences like any event, following the scopes', async () => {
      const a = await app()
      const hall = (await a.post('/venues', { venue: 'Hall' }, admin)).body
      const barn = (await a.post('/venues', { venue: 'Barn' }, admin)).body
      const head = await daily(a, 'Dance', 6, { venue: hall.id })
      await a.seed({ title: 'Elsewhere', venue: barn.id, start_date: '2026-12-02 12:00:00', end_date: '2026-12-02 13:00:00' })
      const at = async (v: number) =>
        ((await a.get(`/events?${WINDOW}&venue=${v}`)).body.events as any[]).map((e) => `${e.title} ${e.start_date.slice(5, 10)}`)
      expect(await at(hall.id)).toEqual(['Dance 12-01', 'Dance 12-02', 'Dance 12-03', 'Dance 12-04', 'Dance 12-05', 'Dance 12-06'])
      const members = (await a.get(`/events?${WINDOW}&post_parent=${head.id}`)).body.events
      expect((await a.post(`/events/${members[3].id}`, { venue: barn.id, recurrence_scope: 'following' }, admin)).status).toBe(200)
      expect((await a.post(`/events/${members[0].id}`, { venue: barn.id, recurrence_scope: 'this' }, admin)).status).toBe(200)
      expect(await at(hall.id)).toEqual(['Dance 12-01', 'Dance 12-03', 'Dance 12-04'])
      expect(await at(barn.id)).toEqual(['Dance 12-02', 'Elsewhere 12-02', 'Dance 12-05', 'Dance 12-06'])
      expect((await a.get(`/events?${WINDOW}&venue=${hall.id}&hide_subsequent_recurrences=1`)).body.total).toBe(1)
    })

    it(
      'answers hostile recurrence values on updates with 200 or a 400 naming recurrence, never changing a rejected write',
      { timeout: 240_000 },
      async () => {
        const a = await app({ recurrence: { maxOccurrences: 60 } })
        const lone = await a.seed({
          title: 'Fuzz 0',
          start_date: '2026-12-10 10:00:00',
          end_date: '2026-12-10 11:00:00',
          timezone: 'Europe/Berlin',
        })
        let n = 0
        await fc.assert(
          fc.asyncProperty(hostileRecurrence, async (value) => {
            hostileStats.requests++
            const before = await snapshot(a)
            const res = await a.post(`/events/${lone.id}`, { title: `Fuzz ${++n}`, recurrence: value }, admin)
            expect([200, 400]).toContain(res.status)
            if (res.status === 400) {
              expect(Object.keys(res.body.data.params)).toEqual(['recurrence'])
              expect(await snapshot(a)).toEqual(before)
              return
            }
            expect(res.body.title).toBe(`Fuzz ${n}`)
            const members = (
              await a.get(`/events?start_date=1900-01-01&end_date=9999-12-31&status=any&per_page=1&post_parent=${lone.id}`, admin)
            ).body
            if (res.body.series) expect(res.body.recurrence.description).toMatch(/\w/)
            else expect(members.total ?? 0).toBe(0)
            expect((members.total ?? 0) + 1).toBeLessThanOrEqual(60)
          }),
          { numRuns: Number(process.env.HOSTILE_RUNS ?? 150) / 3 },
        )
        hostileStats.properties++
      },
    )
  })

  describe(`recurring series: all or nothing [${name}]`, () => {
    /**
     * The storage of the test with a fault armed: once `failAfter` occurrences (rows written by
     * insertPost or insertEvents inside a transaction) are in, the next write throws, as a full
     * disk or a dropped connection would mid-series.
     */
    function faulty(inner: () => Storage | Promise<Storage>) {
      const fault = { armed: false, failAfter: 0, written: 0 }
      const wrapTx = (tx: StorageTx): StorageTx =>
        new Proxy(tx, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver)
            if (typeof value !== 'function') return value
            if (prop !== 'insertPost' && prop !== 'insertEvents') return value.bind(target)
            return async (...args: unknown[]) => {
              const rows = prop === 'insertEvents' ? (args[0] as unknown[]).length : 1
              if (fault.armed && fault.written + rows > fault.failAfter) {
                // Bulk: write the part that fits first, so the failure comes after rows are in.
                if (prop === 'insertEvents' && fault.failAfter > fault.written)
                  await value.call(target, (args[0] as unknown[]).slice(0, fault.failAfter - fault.written))
                throw new Error('disk full (test fault)')
              }
              fault.written += rows
              return value.apply(target, args)
            }
          },
        })
      const make = async (): Promise<Storage> => {
        const storage = await inner()
        return new Proxy(storage, {
          get(target, prop, receiver) {
            const value = Reflect.get(target, prop, receiver)
            if (prop === 'transaction')
              return (fn: (tx: StorageTx) => Promise<unknown>, ...rest: unknown[]) =>
                (value as Function).call(target, (tx: StorageTx) => fn(wrapTx(tx)), ...rest)
            return typeof value === 'function' ? value.bind(target) : value
          },
        })
      }
      return { fault, make }
    }

    it('a series whose creation fails part way stores nothing; an update making a series leaves the event as it was', async () => {
      const { fault, make } = faulty(makeStorage)
      const errors: unknown[] = []
      const a = await makeApp(make, { onError: (e: unknown) => void errors.push(e) })
      onTestFinished(() => a.close())
      const lone = await a.seed({ title: 'Lone', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00' })
      const before = await snapshot(a)
      for (const failAfter of [0, 1, 250]) {
        fault.armed = true
        fault.written = 0
        fault.failAfter = failAfter
        const res = await a.post(
          '/events',
          {
            title: `Half ${failAfter}`,
            start_date: '2027-01-04 10:00:00',
            end_date: '2027-01-04 11:00:00',
            recurrence: 'FREQ=WEEKLY;COUNT=500',
          },
          admin,
        )
        // The update's series has 19 later occurrences: fail within them.
        fault.written = 0
        fault.failAfter = Math.min(failAfter, 10)
        const update = await a.post(`/events/${lone.id}`, { title: 'Lone changed', recurrence: 'FREQ=DAILY;COUNT=20' }, admin)
        fault.armed = false
        expect(res.status, `create, fault after ${failAfter}`).toBe(500)
        expect(update.status, `update, fault after ${failAfter}`).toBe(500)
        expect(await snapshot(a)).toEqual(before)
        expect((await a.get(`/events?${WINDOW}&search=Half&status=any`, admin)).body.total ?? 0).toBe(0)
      }
      expect(errors.length).toBeGreaterThanOrEqual(6)
      // Unarmed, the same writes succeed in full.
      const ok = await a.post(
        '/events',
        { title: 'Whole', start_date: '2027-01-04 10:00:00', end_date: '2027-01-04 11:00:00', recurrence: 'FREQ=WEEKLY;COUNT=500' },
        admin,
      )
      expect(ok.status).toBe(201)
      expect((await a.get(`/events?start_date=2027-01-01&end_date=2037-12-31&per_page=1&post_parent=${ok.body.id}`)).body.total).toBe(499)
    })
  })

  describe(`recurring series: draft series in the leak matrix [${name}]`, () => {
    const STATUSES = ['draft', 'pending', 'private', 'future', 'trash'] as const
    const READERS: Array<Caller | undefined> = [undefined, 'subscriber', 'contributor', 'author']

    it(
      'shows nothing of a non-public series (title, rule, series fields) to callers who may not see it, on any read',
      { timeout: 60_000 },
      async () => {
        const a = await app()
        const owner = { as: 'editor' as const }
        const made: Array<{ status: string; head: any; members: any[] }> = []
        for (const [i, status] of STATUSES.entries()) {
          const res = await a.post(
            '/events',
            {
              title: `SECRET-series-${status}`,
              status: status === 'trash' ? 'publish' : status,
              start_date: '2026-12-10 10:00:00',
              end_date: '2026-12-10 11:00:00',
              recurrence: `FREQ=WEEKLY;INTERVAL=${7 + i};COUNT=3`,
            },
            owner,
          )
          expect(res.status).toBe(201)
          const members = (await a.get(`/events?${WINDOW}&status=any&post_parent=${res.body.id}`, owner)).body.events
          expect(members).toHaveLength(2)
          if (status === 'trash') expect((await a.del(`/events/${res.body.id}?recurrence_scope=all`, owner)).status).toBe(200)
          made.push({ status, head: res.body, members })
        }
        // A public series with one occurrence drafted on its own, under a secret title.
        const open = await a.post(
          '/events',
          { title: 'Open series', start_date: '2026-12-10 12:00:00', end_date: '2026-12-10 13:00:00', recurrence: 'FREQ=DAILY;COUNT=3' },
          owner,
        )
        const openMembers = (await a.get(`/events?${WINDOW}&post_parent=${open.body.id}`)).body.events
        expect(
          (
            await a.post(
              `/events/${openMembers[0].id}`,
              { title: 'SECRET-occurrence-draft', status: 'draft', recurrence_scope: 'this' },
              owner,
            )
          ).status,
        ).toBe(200)
        const secretRule = /INTERVAL=(7|8|9|10|11)\b/
        for (const as of READERS) {
          const opts = as ? { as } : {}
          const paths = [
            `/events?${WINDOW}`,
            `/events?${WINDOW}&status=publish`,
            `/events?${WINDOW}&hide_subsequent_recurrences=1`,
            `/events?${WINDOW}&search=secret`,
            `/events?${WINDOW}&format=ics`,
            `/events?${WINDOW}&post_parent=${open.body.id}`,
            ...made.map((m) => `/events?${WINDOW}&post_parent=${m.head.id}`),
            ...made.map((m) => `/events?${WINDOW}&include=${[m.head.id, ...m.members.map((x) => x.id)].join(',')}`),
          ]
          for (const path of paths) {
            const res = await a.get(path, opts)
            leakStats.checks++
            expect(res.text, `${as ?? 'anonymous'} ${path}`).not.toContain('SECRET')
            expect(res.text, `${as ?? 'anonymous'} ${path}`).not.toMatch(secretRule)
            if (res.body?.events)
              for (const e of res.body.events)
                expect(
                  made.some((m) => m.head.id === e.series?.id),
                  `${path}: series of ${e.id}`,
                ).toBe(false)
          }
          for (const m of [...made.flatMap((x) => [x.head, ...x.members]), openMembers[0]]) {
            for (const path of [`/events/${m.id}`, `/events/by-slug/${m.slug}`, `/events/${m.id}?format=ics`]) {
              const res = await a.get(path, opts)
              leakStats.checks++
              expect(res.status, `${as ?? 'anonymous'} ${path}`).not.toBe(200)
              expect(res.text).not.toContain('SECRET')
              expect(res.text).not.toMatch(secretRule)
            }
          }
        }
      },
    )
  })
}

/** Storage-free: discovery (the namespace index) lists the recurring-series parameters. */
export function recurrenceEdgeCasesDocSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`recurring series in the namespace index [${name}]`, () => {
    it('lists recurrence, recurrence_scope and hide_subsequent_recurrences on the routes that take them', async () => {
      const a = await makeApp(makeStorage)
      onTestFinished(() => a.close())
      const res = await a.get('/')
      expect(res.status).toBe(200)
      const args = (route: string, method: string) =>
        Object.keys(res.body.routes[`/${NS}${route}`].endpoints.find((e: any) => e.methods.includes(method)).args)
      expect(args('/events', 'GET')).toContain('hide_subsequent_recurrences')
      expect(args('/events', 'POST')).toContain('recurrence')
      expect(args('/events', 'POST')).not.toContain('recurrence_scope')
      for (const route of ['/events/(?P<id>\\d+)', '/events/by-slug/(?P<slug>[^/]+)']) {
        expect(args(route, 'POST')).toEqual(expect.arrayContaining(['recurrence', 'recurrence_scope']))
        expect(args(route, 'DELETE')).toContain('recurrence_scope')
      }
      // The API index (/wp-json/) carries the namespace's routes too.
      const index = await a.fetch('http://127.0.0.1:8080/wp-json/')
      expect(index.status).toBe(200)
      for (const name of ['"recurrence"', '"recurrence_scope"', '"hide_subsequent_recurrences"']) expect(index.text).toContain(name)
    })
  })
}
