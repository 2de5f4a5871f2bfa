/**
 * Moving a whole series to another day keeps the n-th occurrence as the n-th: same ids, edited
 * occurrences stay edited and anchored to their new counterpart, exceptions stay excluded, and
 * the iCalendar feed still expands to exactly the list.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'
import { expandFeed, occurrenceKey } from './ical-expand.js'

const WINDOW = 'start_date=2026-01-01&end_date=2030-12-31&per_page=50'
const admin = { as: 'administrator' as const }

export function recurrenceShiftSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage)
    onTestFinished(() => a.close())
    return a
  }

  describe(`moving a recurring series [${name}]`, () => {
    it('keeps ids, edited occurrences and exceptions one-to-one when the series moves to another day', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          {
            title: 'Standup',
            start_date: '2027-03-01 10:00:00',
            end_date: '2027-03-01 10:30:00',
            timezone: 'Europe/Berlin',
            recurrence: 'FREQ=WEEKLY;COUNT=5',
          },
          admin,
        )
      ).body
      const before = (await a.get(`/events?${WINDOW}`, admin)).body.events as any[]
      expect(before.map((e) => e.start_date.slice(0, 10))).toEqual(['2027-03-01', '2027-03-08', '2027-03-15', '2027-03-22', '2027-03-29'])
      expect((await a.post(`/events/${before[2].id}`, { title: 'Guest', recurrence_scope: 'this' }, admin)).status).toBe(200)
      expect((await a.del(`/events/${before[3].id}`, admin)).status).toBe(200)

      const moved = await a.post(`/events/${head.id}`, { start_date: '2027-03-02 11:00:00', end_date: '2027-03-02 11:45:00' }, admin)
      expect(moved.status).toBe(200)
      const after = (await a.get(`/events?${WINDOW}`, admin)).body.events as any[]
      expect(after.map((e) => `${e.id} ${e.start_date} ${e.end_date} ${e.title}`)).toEqual([
        `${head.id} 2027-03-02 11:00:00 2027-03-02 11:45:00 Standup`,
        `${before[1].id} 2027-03-09 11:00:00 2027-03-09 11:45:00 Standup`,
        // Edited on its own: it keeps its own dates.
        `${before[2].id} 2027-03-15 10:00:00 2027-03-15 10:30:00 Guest`,
        `${before[4].id} 2027-03-30 11:00:00 2027-03-30 11:45:00 Standup`,
      ])
      // The old ids of the moved occurrences are the only ones: nothing was inserted or left behind.
      expect((await a.get(`/events?${WINDOW}&status=any`, admin)).body.total).toBe(4)

      const json = after.map((e) => occurrenceKey(e)).sort()
      const feed = await a.get(`/events?${WINDOW}&format=ics`, admin)
      expect(feed.text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270316T110000')
      expect(expandFeed(feed.text, '2030-12-31T23:59:59Z').get(String(head.id))).toEqual(json)

      // A later change of the time of day alone keeps every id too.
      expect(
        (await a.post(`/events/${head.id}`, { start_date: '2027-03-02 09:00:00', end_date: '2027-03-02 09:45:00' }, admin)).status,
      ).toBe(200)
      const again = (await a.get(`/events?${WINDOW}`, admin)).body.events as any[]
      expect(again.map((e) => e.id)).toEqual(after.map((e) => e.id))
      expect(again.map((e) => e.start_date.slice(11))).toEqual(['09:00:00', '09:00:00', '10:00:00', '09:00:00'])
    })

    it('keeps occurrences by day, not by place, when the rule itself changes', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          { title: 'Yoga', start_date: '2027-03-01 08:00:00', end_date: '2027-03-01 09:00:00', recurrence: 'FREQ=WEEKLY;COUNT=4' },
          admin,
        )
      ).body
      const before = (await a.get(`/events?${WINDOW}`, admin)).body.events as any[]
      const res = await a.post(
        `/events/${head.id}`,
        { start_date: '2027-03-08 08:00:00', end_date: '2027-03-08 09:00:00', recurrence: 'FREQ=WEEKLY;COUNT=2' },
        admin,
      )
      expect(res.status).toBe(200)
      const after = (await a.get(`/events?${WINDOW}`, admin)).body.events as any[]
      expect(after.map((e) => `${e.id} ${e.start_date}`)).toEqual([`${head.id} 2027-03-08 08:00:00`, `${before[2].id} 2027-03-15 08:00:00`])
    })
  })
}
