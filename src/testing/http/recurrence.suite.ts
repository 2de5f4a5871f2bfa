/**
 * Recurring series over HTTP: writing a series, its occurrences as ordinary events, the list
 * filters, editing and deleting with recurrence_scope, and bad input (400 naming the parameter,
 * nothing stored).
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { extendSeries } from '../../resources/series-horizon.js'
import { makeApp, type App } from './harness.js'
import { sync } from './sync-pages.js'

const WINDOW = 'start_date=2026-01-01&end_date=2030-12-31&per_page=50'

export function recurrenceSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options?: Parameters<typeof makeApp>[1]): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }
  const admin = { as: 'administrator' as const }

  async function all(a: App, extra = ''): Promise<any[]> {
    const out: any[] = []
    for (let page = 1; ; page++) {
      const res = await a.get(`/events?${WINDOW}&status=any&page=${page}${extra}`, admin)
      if (res.status === 404) break
      expect(res.status).toBe(200)
      out.push(...res.body.events)
      if (page >= res.body.total_pages) break
    }
    return out
  }

  describe(`recurring series [${name}]`, () => {
    it('writes a weekly series as events of their own, keeping 19:00 New York time across the DST change', async () => {
      const a = await app()
      const res = await a.post(
        '/events',
        {
          title: 'Choir',
          start_date: '2027-02-02 19:00:00',
          end_date: '2027-02-02 20:30:00',
          timezone: 'America/New_York',
          categories: ['Music'],
          recurrence: 'RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=16',
        },
        admin,
      )
      expect(res.status).toBe(201)
      const head = res.body
      expect(head.recurrence).toEqual({
        rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=16',
        rdate: [],
        exdate: [],
        description: 'Every Tuesday and Thursday, 16 times',
      })
      expect(head.series).toEqual({ id: head.id, position: 1, detached: false })
      const keys = Object.keys(head)
      expect(keys.slice(-4)).toEqual(['language', 'translations', 'recurrence', 'series'])

      const events = await all(a)
      expect(events).toHaveLength(16)
      expect(events.map((e) => e.start_date.slice(11))).toEqual(Array(16).fill('19:00:00'))
      expect(events.map((e) => e.end_date.slice(11))).toEqual(Array(16).fill('20:30:00'))
      // Before 2027-03-14 New York is UTC-5, after it UTC-4.
      expect(events[0].utc_start_date).toBe('2027-02-03 00:00:00')
      expect(events[15].start_date).toBe('2027-03-25 19:00:00')
      expect(events[15].utc_start_date).toBe('2027-03-25 23:00:00')
      expect(events[4].start_date).toBe('2027-02-16 19:00:00')
      expect(events[4].slug).toBe('choir-2027-02-16')
      expect(events.slice(1).every((e) => e.categories[0]?.name === 'Music' && e.title === 'Choir')).toBe(true)
      expect(events.map((e) => e.series.position)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1))
      expect(new Set(events.map((e) => e.id)).size).toBe(16)

      // Filtered lists (category and venue indexes) find every occurrence, counted exactly.
      const byCategory = await a.get(`/events?${WINDOW}&categories=music&per_page=5`)
      expect(byCategory.body.total).toBe(16)
      expect(byCategory.body.events.map((e: any) => e.start_date)).toEqual(events.slice(0, 5).map((e) => e.start_date))
      expect((await a.get(`/events?${WINDOW}&categories=music&search=choir&per_page=1`)).body.total).toBe(16)
      const children = await a.get(`/events?${WINDOW}&post_parent=${head.id}`)
      expect(children.body.total).toBe(15)
      expect(children.body.events.every((e: any) => e.series.id === head.id && e.recurrence.rrule === head.recurrence.rrule)).toBe(true)
      const one = await a.get(`/events/${events[3].id}`)
      expect(one.body.series).toEqual({ id: head.id, position: 4, detached: false })
    })

    it('takes the object form with rdate and exdate, and starts at the first day the rule produces', async () => {
      const a = await app()
      const res = await a.post(
        '/events',
        {
          title: 'Last Friday',
          start_date: '2027-01-02 18:00:00',
          end_date: '2027-01-02 21:00:00',
          timezone: 'Europe/Berlin',
          recurrence: { rrule: 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=4', rdate: ['2027-02-14 18:00:00'], exdate: ['2027-02-26'] },
        },
        admin,
      )
      expect(res.status).toBe(201)
      expect(res.body.start_date).toBe('2027-01-29 18:00:00')
      expect(res.body.recurrence.exdate).toEqual(['2027-02-26 18:00:00'])
      expect(res.body.recurrence.rdate).toEqual(['2027-02-14 18:00:00'])
      expect(res.body.recurrence.description).toBe('Monthly on the last Friday, 4 times')
      const starts = (await all(a)).map((e) => e.start_date)
      expect(starts).toEqual(['2027-01-29 18:00:00', '2027-02-14 18:00:00', '2027-03-26 18:00:00', '2027-04-30 18:00:00'])
    })

    it('writes open-ended rules up to the horizon option', async () => {
      const a = await app({ recurrence: { horizonMonths: 3 } })
      const res = await a.post(
        '/events',
        { title: 'Standup', start_date: '2026-12-01 09:00:00', end_date: '2026-12-01 09:15:00', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' },
        admin,
      )
      expect(res.status).toBe(201)
      // Now is 2026-11-21: three months ahead is 2027-02-21.
      const within = await a.get('/events?start_date=2026-01-01&end_date=2027-02-20', admin)
      expect(within.body.events.map((e: any) => e.start_date.slice(0, 10))).toEqual(['2026-12-01', '2027-01-01', '2027-02-01'])
    })

    it('extends open-ended series when the host calls extendSeries', async () => {
      const a = await app({ recurrence: { horizonMonths: 3 } })
      const head = (
        await a.post(
          '/events',
          { title: 'Standup', start_date: '2026-12-01 09:00:00', end_date: '2026-12-01 09:15:00', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' },
          admin,
        )
      ).body
      expect(await a.router.extendSeries()).toEqual({ added: 0 })
      const added = await extendSeries(a.storage, { now: new Date('2027-01-15T00:00:00Z'), horizonMonths: 3, languages: ['en'] })
      expect(added).toBe(2)
      const events = (await a.get('/events?start_date=2026-01-01&end_date=2027-04-20', admin)).body.events as any[]
      expect(events.map((e) => e.start_date.slice(0, 10))).toEqual(['2026-12-01', '2027-01-01', '2027-02-01', '2027-03-01', '2027-04-01'])
      expect(events.every((e) => e.series.id === head.id)).toBe(true)
      expect(events.map((e) => e.series.position)).toEqual([1, 2, 3, 4, 5])
      expect(await extendSeries(a.storage, { now: new Date('2027-01-15T00:00:00Z'), horizonMonths: 3, languages: ['en'] })).toBe(0)
    })

    it('shows open-ended series past the horizon without writing, under the ids they are written with later', async () => {
      const a = await app({ recurrence: { horizonMonths: 3 } })
      const head = (
        await a.post(
          '/events',
          { title: 'Monthly', start_date: '2026-12-01 09:00:00', end_date: '2026-12-01 09:15:00', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' },
          admin,
        )
      ).body
      const before = await sync(a, '/events', '*', { as: 'administrator' })
      expect((await a.get('/events?start_date=2026-11-01&end_date=2027-02-28')).body.total).toBe(3)
      const far = await a.get('/events?start_date=2026-11-01&end_date=2027-07-15&per_page=50')
      expect(far.status).toBe(200)
      const shown = far.body.events as any[]
      expect(shown.map((e) => e.start_date.slice(0, 10))).toEqual([
        '2026-12-01',
        '2027-01-01',
        '2027-02-01',
        '2027-03-01',
        '2027-04-01',
        '2027-05-01',
        '2027-06-01',
        '2027-07-01',
      ])
      expect(far.body.total).toBe(8)
      expect(shown.map((e) => e.series.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      expect(shown.every((e) => e.series.id === head.id)).toBe(true)
      // Paging merges the stored and the computed occurrences in start order.
      const page2 = await a.get('/events?start_date=2026-11-01&end_date=2027-07-15&per_page=3&page=2')
      expect(page2.body.events.map((e: any) => e.id)).toEqual(shown.slice(3, 6).map((e) => e.id))
      expect(page2.body.total_pages).toBe(3)

      // The read wrote nothing: the sync that follows reports no change.
      const after = await sync(a, '/events', before.token, { as: 'administrator' })
      expect(after.items).toEqual([])
      expect(after.deleted).toEqual([])
      expect((await a.get('/events?start_date=2026-11-01&end_date=2027-02-28')).body.total).toBe(3)

      // One of them read alone answers as the list showed it.
      const later = shown[5]
      const alone = await a.get(`/events/${later.id}`)
      expect(alone.status).toBe(200)
      const { json_ld: _ld, ...listed } = alone.body
      expect(listed).toEqual(later)
      expect((await a.get(`/events/${later.id + 1000}`)).status).toBe(404)

      // Written later by the host task, each keeps the id, link and slug it was shown with.
      const added = await extendSeries(a.storage, { now: new Date('2027-05-01T00:00:00Z'), horizonMonths: 3, languages: ['en'] })
      // Through 2027-08-01 now: March to August.
      expect(added).toBe(6)
      const written = (await a.get('/events?start_date=2026-11-01&end_date=2027-07-15&per_page=50')).body.events as any[]
      expect(written.map((e) => [e.id, e.url, e.slug, e.start_date])).toEqual(shown.map((e) => [e.id, e.url, e.slug, e.start_date]))
      const synced = await sync(a, '/events', before.token, { as: 'administrator' })
      // The six written and the head (its horizon moved).
      const changed = synced.items.map((e) => e.id)
      expect(changed).toHaveLength(7)
      expect(changed).toEqual(expect.arrayContaining([head.id, ...shown.slice(3).map((e) => e.id)]))
    })

    it('writes a shown occurrence past the horizon when a write names it', async () => {
      const a = await app({ recurrence: { horizonMonths: 3 } })
      await a.post(
        '/events',
        { title: 'Monthly', start_date: '2026-12-01 09:00:00', end_date: '2026-12-01 09:15:00', recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' },
        admin,
      )
      const shown = (await a.get('/events?start_date=2027-05-01&end_date=2027-07-15')).body.events as any[]
      expect(shown.map((e) => e.start_date.slice(0, 10))).toEqual(['2027-05-01', '2027-06-01', '2027-07-01'])
      expect((await a.post(`/events/${shown[1].id}`, { title: 'June special' }, { as: 'subscriber' })).status).toBe(403)
      const edited = await a.post(`/events/${shown[1].id}`, { title: 'June special', recurrence_scope: 'this' }, admin)
      expect(edited.status, edited.text).toBe(200)
      expect(edited.body.id).toBe(shown[1].id)
      expect(edited.body.title).toBe('June special')
      const now = (await a.get('/events?start_date=2027-05-01&end_date=2027-07-15')).body.events as any[]
      expect(now.map((e) => [e.id, e.title])).toEqual([
        [shown[0].id, 'Monthly'],
        [shown[1].id, 'June special'],
        [shown[2].id, 'Monthly'],
      ])
    })

    it.each([
      ['FREQ=HOURLY', /HOURLY is not supported/],
      ['FREQ=WEEKLY;BYHOUR=9', /BYHOUR is not supported/],
      ['FREQ=WEEKLY;BYDAY=ZZ', /weekday/],
      ['nonsense', /NAME=VALUE/],
      ['FREQ=DAILY;UNTIL=20261201', /UNTIL is before the start/],
      ['FREQ=DAILY;COUNT=1001', /1000 occurrences/],
      ['FREQ=DAILY;UNTIL=20300101', /more than the 1000/],
      [{ rrule: 'FREQ=WEEKLY;COUNT=3', exdate: ['2027-01-02'] }, /exdate 2027-01-02 is not an occurrence/],
      [{ rrule: 'FREQ=WEEKLY;COUNT=3', rdate: ['not a date'] }, /not a date/],
      [{ rrule: 'FREQ=WEEKLY;COUNT=3', extra: 1 }, /Invalid parameter/],
      [42, /Invalid parameter/],
    ])('refuses recurrence %j with a 400 naming it, storing nothing', async (recurrence, reason) => {
      const a = await app()
      const res = await a.post(
        '/events',
        { title: 'Bad', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00', recurrence },
        admin,
      )
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.data.params)).toEqual(['recurrence'])
      expect(res.body.data.params.recurrence).toMatch(reason)
      expect(await all(a)).toHaveLength(0)
    })

    it('has a per-series cap option', async () => {
      const a = await app({ recurrence: { maxOccurrences: 5 } })
      const res = await a.post(
        '/events',
        { title: 'Too many', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00', recurrence: 'FREQ=DAILY;COUNT=6' },
        admin,
      )
      expect(res.status).toBe(400)
      expect(res.body.data.params.recurrence).toMatch(/5 occurrences/)
      expect(
        (
          await a.post(
            '/events',
            { title: 'Fits', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00', recurrence: 'FREQ=DAILY;COUNT=5' },
            admin,
          )
        ).status,
      ).toBe(201)
    })

    it('refuses recurrence_scope on an event that is not recurring', async () => {
      const a = await app()
      const e = await a.seed({ title: 'Lone' })
      const res = await a.post(`/events/${e.id}`, { title: 'Changed', recurrence_scope: 'all' }, admin)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.data.params)).toEqual(['recurrence_scope'])
      expect((await a.get(`/events/${e.id}`)).body.title).toBe('Lone')
      expect((await a.del(`/events/${e.id}?recurrence_scope=this`, admin)).status).toBe(400)
      expect((await a.get(`/events/${e.id}`)).body.status).toBe('publish')
    })

    it('shows only the next occurrence of each series with hide_subsequent_recurrences', async () => {
      const a = await app()
      await a.post(
        '/events',
        { title: 'Weekly', start_date: '2026-11-02 10:00:00', end_date: '2026-11-02 11:00:00', recurrence: 'FREQ=WEEKLY;COUNT=6' },
        admin,
      )
      await a.seed({ title: 'Lone', start_date: '2026-12-20 10:00:00', end_date: '2026-12-20 11:00:00' })
      // The default window starts now (2026-11-21 22:54 UTC): the series' first there is the 23rd.
      const res = await a.get(`/events?hide_subsequent_recurrences=true`)
      expect(res.status).toBe(200)
      expect(res.body.events.map((e: any) => [e.title, e.start_date])).toEqual([
        ['Weekly', '2026-11-23 10:00:00'],
        ['Lone', '2026-12-20 10:00:00'],
      ])
      expect(res.body.total).toBe(2)
      expect(res.body.rest_url).toContain('hide_subsequent_recurrences=1')
      expect((await a.get(`/events?${WINDOW}`)).body.total).toBe(7)
    })

    it('edits with recurrence_scope this, all and following; links follow the scope', async () => {
      const a = await app()
      const venue = (await a.post('/venues', { venue: 'Hall' }, admin)).body
      const head = (
        await a.post(
          '/events',
          { title: 'Class', start_date: '2026-12-07 18:00:00', end_date: '2026-12-07 19:00:00', recurrence: 'FREQ=WEEKLY;COUNT=6' },
          admin,
        )
      ).body
      let events = await all(a)
      // An occurrence alone (the default for a later occurrence): it becomes an exception.
      const own = await a.post(`/events/${events[1].id}`, { title: 'Class (room change)' }, admin)
      expect(own.status).toBe(200)
      expect(own.body.series.detached).toBe(true)
      // The whole series (the default for the first occurrence), with a venue.
      const allRes = await a.post(`/events/${head.id}`, { title: 'Class v2', venue: venue.id }, admin)
      expect(allRes.status).toBe(200)
      events = await all(a)
      expect(events.map((e) => e.title)).toEqual(['Class v2', 'Class (room change)', 'Class v2', 'Class v2', 'Class v2', 'Class v2'])
      expect(events.map((e) => e.venue?.id ?? null)).toEqual([venue.id, null, venue.id, venue.id, venue.id, venue.id])
      // This and following: a new series from the 4th on, with a new time.
      const split = await a.post(
        `/events/${events[3].id}`,
        { title: 'Class v3', start_date: '2026-12-28 19:00:00', end_date: '2026-12-28 20:00:00', recurrence_scope: 'following' },
        admin,
      )
      expect(split.status).toBe(200)
      expect(split.body.series).toEqual({ id: events[3].id, position: 1, detached: false })
      expect(split.body.recurrence.rrule).toBe('FREQ=WEEKLY;COUNT=3')
      events = await all(a)
      expect(events.map((e) => [e.title, e.start_date, e.series.id])).toEqual([
        ['Class v2', '2026-12-07 18:00:00', head.id],
        ['Class (room change)', '2026-12-14 18:00:00', head.id],
        ['Class v2', '2026-12-21 18:00:00', head.id],
        ['Class v3', '2026-12-28 19:00:00', events[3].id],
        ['Class v3', '2027-01-04 19:00:00', events[3].id],
        ['Class v3', '2027-01-11 19:00:00', events[3].id],
      ])
      expect(events[0].recurrence.rrule).toMatch(/^FREQ=WEEKLY;UNTIL=20261228T\d{6}Z$/)
      expect((await a.get(`/events?${WINDOW}&post_parent=${events[3].id}`)).body.total).toBe(2)
    })

    it('changes the rule of the whole series and ends a series with null', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          { title: 'Yoga', start_date: '2026-12-07 08:00:00', end_date: '2026-12-07 09:00:00', recurrence: 'FREQ=WEEKLY;COUNT=4' },
          admin,
        )
      ).body
      const before = await all(a)
      const res = await a.post(`/events/${head.id}`, { recurrence: 'FREQ=WEEKLY;INTERVAL=2;COUNT=3' }, admin)
      expect(res.status).toBe(200)
      const after = await all(a)
      expect(after.map((e) => e.start_date)).toEqual(['2026-12-07 08:00:00', '2026-12-21 08:00:00', '2027-01-04 08:00:00'])
      // Occurrences on days the new rule keeps keep their ids.
      expect(after[1].id).toBe(before[2].id)
      const ended = await a.post(`/events/${head.id}`, { recurrence: null }, admin)
      expect(ended.status).toBe(200)
      expect(ended.body.recurrence).toBeUndefined()
      expect(ended.body.series).toBeUndefined()
      expect((await all(a)).map((e) => e.id)).toEqual([head.id])
      expect((await a.post(`/events/${after[1].id}`, { recurrence_scope: 'this' }, admin)).status).toBe(404)
    })

    it('deletes an occurrence as an exception, and the first with scope all as the whole series', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          { title: 'Talk', start_date: '2026-12-01 12:00:00', end_date: '2026-12-01 13:00:00', recurrence: 'FREQ=DAILY;COUNT=5' },
          admin,
        )
      ).body
      const events = await all(a)
      const del = await a.del(`/events/${events[2].id}`, admin)
      expect(del.status).toBe(200)
      expect(del.body.status).toBe('trash')
      const h = await a.get(`/events/${head.id}`)
      expect(h.body.recurrence.exdate).toEqual(['2026-12-03 12:00:00'])
      // A later whole-series edit that re-expands does not bring it back.
      expect(
        (await a.post(`/events/${head.id}`, { start_date: '2026-12-01 13:00:00', end_date: '2026-12-01 14:00:00' }, admin)).status,
      ).toBe(200)
      const live = (await a.get(`/events?${WINDOW}`)).body.events
      expect(live.map((e: any) => e.start_date)).toEqual([
        '2026-12-01 13:00:00',
        '2026-12-02 13:00:00',
        '2026-12-04 13:00:00',
        '2026-12-05 13:00:00',
      ])
      const gone = await a.del(`/events/${head.id}?recurrence_scope=all`, admin)
      expect(gone.status).toBe(200)
      expect((await a.get(`/events?${WINDOW}`)).body.total).toBe(0)
      expect((await a.get(`/events?${WINDOW}&status=trash`, admin)).body.total).toBe(5)
    })

    it('takes trashing one occurrence by update as an exception, and restoring it back', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          { title: 'Run', start_date: '2026-12-01 07:00:00', end_date: '2026-12-01 08:00:00', recurrence: 'FREQ=DAILY;COUNT=3' },
          admin,
        )
      ).body
      const events = await all(a)
      expect((await a.post(`/events/${events[1].id}`, { status: 'trash' }, admin)).status).toBe(200)
      expect((await a.get(`/events/${head.id}`)).body.recurrence.exdate).toEqual(['2026-12-02 07:00:00'])
      const restored = await a.post(`/events/${events[1].id}`, { status: 'publish' }, admin)
      expect(restored.status).toBe(200)
      expect(restored.body.recurrence.exdate).toEqual([])
      expect((await a.get(`/events?${WINDOW}`)).body.total).toBe(3)
    })
  })
}

/** Storage-free, run once (test/http-once.test.ts): /doc is built from the schemas. */
export function recurrenceDocSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options?: Parameters<typeof makeApp>[1]): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`recurring series [${name}]`, () => {
    it('lists the new fields in /doc', async () => {
      const a = await app()
      const doc = await a.get('/doc')
      const text = JSON.stringify(doc.body)
      for (const name of ['recurrence', 'recurrence_scope', 'hide_subsequent_recurrences']) expect(text).toContain(name)
    })
  })
}
