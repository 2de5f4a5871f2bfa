/**
 * The window a calendar view asks for: every event overlapping a month, `ends_after` its first
 * day and `starts_before` its last (FullCalendar's month grid). The SQL lists bound the walk of
 * such a window by the earliest start of an event ending in or after it (event_day_counts); the
 * answers must stay those of the rule itself, applied here to the events as the API stored them:
 * start_date < starts_before's day end and end_date > ends_after's day end, in start order, with
 * exact totals, for long events starting years before the window, per status (an editor's list),
 * after an event is moved to start earlier, and for a month no event reaches.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App, type Caller } from './harness.js'

interface Stored {
  id: number
  status: string
  start_date: string
  end_date: string
}

const MARCH = { endsAfter: '2027-03-01', startsBefore: '2027-03-31' }

/** The events around March 2027: inside, on its edges, outside, and long ones starting years before. */
const EVENTS: Array<Record<string, unknown>> = [
  { title: 'Long exhibition', start_date: '2025-01-10 09:00:00', end_date: '2027-03-05 17:00:00' },
  { title: 'Ends as the first day ends', start_date: '2027-03-01 00:00:00', end_date: '2027-03-01 23:59:59' },
  { title: 'Second day', start_date: '2027-03-02 00:00:00', end_date: '2027-03-02 23:59:59' },
  { title: 'Across the first night', start_date: '2027-02-28 22:00:00', end_date: '2027-03-02 02:00:00' },
  { title: 'Mid month', start_date: '2027-03-15 10:00:00', end_date: '2027-03-15 11:00:00' },
  { title: 'Last second', start_date: '2027-03-31 23:59:59', end_date: '2027-04-01 01:00:00' },
  { title: 'Last evening', start_date: '2027-03-31 20:00:00', end_date: '2027-04-01 01:00:00' },
  { title: 'April', start_date: '2027-04-02 10:00:00', end_date: '2027-04-02 11:00:00' },
  { title: 'Winter before', start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' },
  { title: 'Draft in March', status: 'draft', start_date: '2027-03-10 10:00:00', end_date: '2027-03-10 11:00:00' },
  { title: 'Draft season', status: 'draft', start_date: '2024-02-01 10:00:00', end_date: '2027-03-03 11:00:00' },
]

export function overlapWindowSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`events overlapping a window (ends_after + starts_before) [${name}]`, () => {
    const open = async (): Promise<{ app: App; stored: Stored[] }> => {
      const app = await makeApp(makeStorage)
      onTestFinished(() => app.close())
      const stored: Stored[] = []
      for (const e of EVENTS) stored.push((await app.seed({ status: 'publish', ...e })) as Stored)
      return { app, stored }
    }

    /** What the rule selects: the stored dates against the bounds' day ends, in start order. */
    const expected = (stored: Stored[], statuses: string[], endsAfter: string, startsBefore?: string) =>
      stored
        .filter((e) => statuses.includes(e.status))
        .filter((e) => e.end_date > `${endsAfter} 23:59:59` && (startsBefore === undefined || e.start_date < `${startsBefore} 23:59:59`))
        .sort((a, b) => (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id - b.id))
        .map((e) => e.id)

    /** Every page of the list, 2 a page: the ids in order, and the total (each page reports the same). */
    async function listed(app: App, query: string, as?: Caller) {
      const ids: number[] = []
      let total = -1
      for (let page = 1; total < 0 || (page - 1) * 2 < total; page++) {
        const res = await app.get(`/events?${query}&per_page=2&page=${page}`, as ? { as } : {})
        expect(res.status, res.text).toBe(200)
        expect(res.headers.get('x-tec-total')).toBe(String(res.body.total ?? 0))
        if (total >= 0) expect(res.body.total).toBe(total)
        total = Number(res.body.total ?? 0)
        ids.push(...((res.body.events ?? []) as Array<{ id: number }>).map((e) => e.id))
      }
      return { ids, total }
    }

    const month = (m: { endsAfter: string; startsBefore: string }) => `ends_after=${m.endsAfter}&starts_before=${m.startsBefore}`

    it('lists every event overlapping the month, long ones from years before included, with the exact total', async () => {
      const { app, stored } = await open()
      const want = expected(stored, ['publish'], MARCH.endsAfter, MARCH.startsBefore)
      expect(want.length).toBeGreaterThan(4)
      const got = await listed(app, month(MARCH))
      expect(got.ids).toEqual(want)
      expect(got.total).toBe(want.length)
    })

    it('an editor sees each status bounded by its own events (a draft season starting earliest)', async () => {
      const { app, stored } = await open()
      const want = expected(stored, ['publish', 'draft'], MARCH.endsAfter, MARCH.startsBefore)
      const got = await listed(app, `${month(MARCH)}&status=publish,draft`, 'administrator')
      expect(got.ids).toEqual(want)
      expect(got.ids).toContain(stored.find((e) => e.status === 'draft' && e.start_date.startsWith('2024'))!.id)
      expect(got.total).toBe(want.length)
    })

    it('ends_after alone lists everything ending after the day', async () => {
      const { app, stored } = await open()
      const want = expected(stored, ['publish'], '2027-03-14')
      const got = await listed(app, 'ends_after=2027-03-14')
      expect(got.ids).toEqual(want)
      expect(got.total).toBe(want.length)
    })

    it('an event moved to start years earlier and end inside the month joins the list', async () => {
      const { app, stored } = await open()
      const winter = stored.find((e) => e.start_date === '2026-12-01 10:00:00')!
      const res = await app.post(
        `/events/${winter.id}`,
        { start_date: '2023-06-01 10:00:00', end_date: '2027-03-20 11:00:00' },
        { as: 'administrator' },
      )
      expect(res.status, res.text).toBe(200)
      const moved = stored.map((e) => (e.id === winter.id ? (res.body as Stored) : e))
      const got = await listed(app, month(MARCH))
      expect(got.ids[0]).toBe(winter.id)
      expect(got.ids).toEqual(expected(moved, ['publish'], MARCH.endsAfter, MARCH.startsBefore))
    })

    it('a month no event reaches is empty, with a total of 0', async () => {
      const { app } = await open()
      const res = await app.get(`/events?${month({ endsAfter: '2031-05-01', startsBefore: '2031-05-31' })}`)
      expect(res.status, res.text).toBe(200)
      expect(res.body.events ?? []).toEqual([])
      expect(res.body.total ?? 0).toBe(0)
      expect(res.headers.get('x-tec-total')).toBe('0')
    })
  })
}
