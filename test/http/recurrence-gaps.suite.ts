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

const WINDOW = 'start_date=2026-01-01&end_date=2031-12-31&per_page=50'
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
    const res = await a.get(`/events?${WINDOW}&status=any`, admin)
    expect(res.status).toBe(200)
    return res.body.events.filter((e: any) => e.series?.id === id)
  }

  /** The feed of `query`, expanded by ical.js, equals the JSON list of `query` (start, end, title). */
  async function feedEqualsList(a: App, query: string, id: number): Promise<string[]> {
    const list = (await a.get(`/events?${query}`)).body.events.filter((e: any) => e.series?.id === id)
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
}
