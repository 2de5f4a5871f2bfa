/**
 * The DST corpus through the iCalendar feed: every series is one VEVENT with RRULE/RDATE/EXDATE
 * in its zone (with VTIMEZONE), edited occurrences carry RECURRENCE-ID, and ical.js's own
 * expander turns the feed into exactly the occurrences (UTC instants, titles) the JSON list has.
 */
import ICAL from 'ical.js'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { CORPUS } from '../recurrence/corpus.js'
import { makeApp, type App } from './harness.js'
import { expandFeed, occurrenceKey } from '../../src/testing/http/ical-expand.js'

const WINDOW = 'start_date=2025-01-01&end_date=2031-12-31'
const admin = { as: 'administrator' as const }

export function recurrenceIcalSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage)
    onTestFinished(() => a.close())
    return a
  }

  describe(`recurring series in iCalendar feeds [${name}]`, () => {
    it(`expands the ${CORPUS.length}-rule DST corpus (ical.js) to exactly the JSON occurrences`, { timeout: 120_000 }, async () => {
      const a = await app()
      const heads: any[] = []
      for (const [i, c] of CORPUS.entries()) {
        const res = await a.post(
          '/events',
          {
            title: `Rule ${i}`,
            start_date: c.start,
            end_date: c.end,
            timezone: c.tz,
            recurrence: { rrule: c.rule, rdate: c.rdate ?? [], exdate: c.exdate ?? [] },
          },
          admin,
        )
        expect(res.status, `${c.rule} in ${c.tz}: ${JSON.stringify(res.body)}`).toBe(201)
        heads.push(res.body)
      }
      // An occurrence edited on its own (RECURRENCE-ID) and one deleted (EXDATE).
      const first = (await a.get(`/events?${WINDOW}&post_parent=${heads[0].id}&per_page=5`)).body.events
      const moved = await a.post(
        `/events/${first[2].id}`,
        {
          title: 'Moved',
          start_date: `${first[2].start_date.slice(0, 10)} 21:00:00`,
          end_date: `${first[2].start_date.slice(0, 10)} 22:00:00`,
        },
        admin,
      )
      expect(moved.status).toBe(200)
      expect((await a.del(`/events/${first[3].id}`, admin)).status).toBe(200)

      const json = new Map<string, string[]>()
      for (let page = 1; ; page++) {
        const res = await a.get(`/events?${WINDOW}&per_page=50&page=${page}`)
        expect(res.status).toBe(200)
        for (const e of res.body.events) {
          const key = String(e.series.id)
          json.set(key, [...(json.get(key) ?? []), occurrenceKey(e)])
        }
        if (page >= res.body.total_pages) break
      }
      const feed = await a.get(`/events?${WINDOW}&format=ics`)
      expect(feed.status).toBe(200)
      expect(feed.text).toContain('BEGIN:VTIMEZONE')
      expect(feed.text).toContain('RECURRENCE-ID;TZID=')
      expect(feed.text).toMatch(/EXDATE;TZID=America\/New_York:/)
      const masters = feed.text.match(/^RRULE:/gm) ?? []
      expect(masters).toHaveLength(CORPUS.length)
      const expanded = expandFeed(feed.text, '2031-12-31T23:59:59Z')
      expect([...expanded.keys()].sort()).toEqual([...json.keys()].sort())
      let occurrences = 0
      for (const [id, list] of json) {
        expect(expanded.get(id), `series ${id}`).toEqual([...list].sort())
        occurrences += list.length
      }
      expect(occurrences).toBeGreaterThan(600)
    })

    it('keeps the feed equal to the list through edits of every scope', { timeout: 60_000 }, async () => {
      const a = await app()
      const check = async (step: string) => {
        const json = new Map<string, string[]>()
        const res = await a.get(`/events?${WINDOW}&per_page=100`)
        for (const e of res.body.events) json.set(String(e.series.id), [...(json.get(String(e.series.id)) ?? []), occurrenceKey(e)])
        const expanded = expandFeed((await a.get(`/events?${WINDOW}&format=ics`)).text, '2031-12-31T23:59:59Z')
        expect([...expanded.keys()].sort(), step).toEqual([...json.keys()].sort())
        for (const [id, list] of json) expect(expanded.get(id), `${step}: series ${id}`).toEqual([...list].sort())
        return res.body.events as any[]
      }
      const head = (
        await a.post(
          '/events',
          {
            title: 'Club',
            start_date: '2027-03-01 18:00:00',
            end_date: '2027-03-01 19:00:00',
            timezone: 'Europe/Berlin',
            recurrence: 'FREQ=WEEKLY;COUNT=10',
          },
          admin,
        )
      ).body
      let events = await check('created')
      expect((await a.post(`/events/${events[2].id}`, { title: 'Club (guest)' }, admin)).status).toBe(200)
      expect((await a.del(`/events/${events[4].id}`, admin)).status).toBe(200)
      events = await check('detached and deleted')
      expect(
        (await a.post(`/events/${head.id}`, { start_date: '2027-03-01 19:30:00', end_date: '2027-03-01 21:00:00' }, admin)).status,
      ).toBe(200)
      events = await check('new time for all')
      expect(events.map((e) => e.start_date.slice(11))).toEqual([
        '19:30:00',
        '19:30:00',
        '18:00:00',
        '19:30:00',
        '19:30:00',
        '19:30:00',
        '19:30:00',
        '19:30:00',
        '19:30:00',
      ])
      expect((await a.post(`/events/${events[5].id}`, { title: 'Club II', recurrence_scope: 'following' }, admin)).status).toBe(200)
      events = await check('split')
      expect((await a.post(`/events/${head.id}`, { recurrence: 'FREQ=WEEKLY;INTERVAL=2;COUNT=3' }, admin)).status).toBe(200)
      events = await check('new rule')
      expect(
        (await a.post(`/events/${events[events.length - 1].id}`, { recurrence: null, recurrence_scope: 'following' }, admin)).status,
      ).toBe(200)
      await check('cut')
    })

    it('expands for each caller to exactly the occurrences its list shows (mixed statuses, windows)', { timeout: 60_000 }, async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          {
            title: 'Open',
            start_date: '2027-05-03 18:00:00',
            end_date: '2027-05-03 19:30:00',
            timezone: 'Europe/Berlin',
            recurrence: 'FREQ=WEEKLY;COUNT=6',
          },
          admin,
        )
      ).body
      const members = (await a.get(`/events?${WINDOW}`, admin)).body.events
      expect(members).toHaveLength(6)
      expect(members[0].id).toBe(head.id)
      // One occurrence drafted on its own, and the first one too (with a title of its own).
      expect((await a.post(`/events/${members[2].id}`, { title: 'Hidden', status: 'draft', recurrence_scope: 'this' }, admin)).status).toBe(
        200,
      )
      expect((await a.post(`/events/${head.id}`, { title: 'Secret head', status: 'draft', recurrence_scope: 'this' }, admin)).status).toBe(
        200,
      )
      const compare = async (query: string, as: { as?: 'editor' }, size: number) => {
        const list = (await a.get(`/events?${query}&per_page=50`, as)).body.events as any[]
        expect(
          list.map((e) => occurrenceKey(e)),
          query,
        ).toHaveLength(size)
        const feed = (await a.get(`/events?${query}&format=ics`, as)).text
        const expanded = expandFeed(feed, '2031-12-31T23:59:59Z')
        expect(expanded.get(String(head.id)) ?? [], `${query} ${as.as ?? 'anonymous'}`).toEqual(list.map((e) => occurrenceKey(e)).sort())
        return feed
      }
      const anonymous = await compare(WINDOW, {}, 4)
      expect(anonymous).not.toContain('Secret head')
      expect(anonymous).not.toContain('Hidden')
      await compare(`${WINDOW}&status=publish,draft`, { as: 'editor' }, 6)
      await compare('start_date=2027-05-12&end_date=2027-05-25', {}, 1)
      await compare('start_date=2027-05-12&end_date=2027-05-25&status=publish,draft', { as: 'editor' }, 2)
      // The public occurrences in a window that misses them: no occurrence at all.
      await compare('start_date=2027-05-15&end_date=2027-05-16', {}, 0)
    })

    it('writes a UTC series in UTC form (every TZID needs a VTIMEZONE, and UTC has none)', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          {
            title: 'Standup',
            start_date: '2027-05-03 09:00:00',
            end_date: '2027-05-03 09:15:00',
            timezone: 'UTC',
            recurrence: { rrule: 'FREQ=DAILY;COUNT=5', exdate: ['2027-05-05'] },
          },
          admin,
        )
      ).body
      const members = (await a.get(`/events?${WINDOW}`)).body.events as any[]
      const sixth = members.find((e) => e.start_date === '2027-05-06 09:00:00')
      expect(
        (
          await a.post(
            `/events/${sixth.id}`,
            { title: 'Moved standup', start_date: '2027-05-06 10:00:00', end_date: '2027-05-06 10:15:00', recurrence_scope: 'this' },
            admin,
          )
        ).status,
      ).toBe(200)
      const feed = (await a.get(`/events?${WINDOW}&format=ics`)).text
      expect(feed).not.toContain('TZID=UTC')
      expect(feed).toContain('DTSTART:20270503T090000Z')
      expect(feed).toMatch(/EXDATE:20270505T090000Z/)
      expect(feed).toMatch(/RECURRENCE-ID:20270506T090000Z/)
      const list = (await a.get(`/events?${WINDOW}`)).body.events as any[]
      expect(expandFeed(feed, '2031-12-31T23:59:59Z').get(String(head.id))).toEqual(list.map((e) => occurrenceKey(e)).sort())
    })
  })
}
