/**
 * iCalendar feeds where calendar apps are least forgiving: a recurring series' SEQUENCE and
 * LAST-MODIFIED move whenever its occurrences or what it shows change (apps otherwise keep their
 * stale copy), the unpaged feed holds every event past one storage batch and stops exactly at
 * the cap, and a 503 on a read says when to retry.
 */
import ICAL from 'ical.js'
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { CalendarOptions } from '../../options.js'
import { StorageUnavailableError, type Storage } from '../../storage/types.js'
import { withStorageHooks } from '../../storage/pipeline.js'
import { newEvent } from '../fixtures.js'
import { makeApp, NOW, type App } from './harness.js'

const admin = { as: 'administrator' as const }
const WINDOW = 'start_date=2026-11-01&end_date=2027-12-31'

interface Vevent {
  uid: string
  recurrenceId: string | null
  sequence: number
  lastModified: string
  exdates: string[]
  summary: string
}

function vevents(text: string): Vevent[] {
  const root = new ICAL.Component(ICAL.parse(text))
  return root.getAllSubcomponents('vevent').map((c) => ({
    uid: String(c.getFirstPropertyValue('uid')),
    recurrenceId: c.hasProperty('recurrence-id') ? String(c.getFirstPropertyValue('recurrence-id')) : null,
    sequence: Number(c.getFirstPropertyValue('sequence')),
    lastModified: String(c.getFirstPropertyValue('last-modified')),
    exdates: c.getAllProperties('exdate').flatMap((p) => p.getValues().map((v) => String(v).slice(0, 10))),
    summary: String(c.getFirstPropertyValue('summary')),
  }))
}

export function icalReliabilitySuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(options: CalendarOptions = {}, make = makeStorage): Promise<App> {
    const a = await makeApp(make, options)
    onTestFinished(() => a.close())
    return a
  }

  describe(`iCalendar series versions [${name}]`, () => {
    /** An app whose clock moves a minute per call of `tick`, so LAST-MODIFIED can move. */
    async function clocked() {
      let at = NOW.getTime()
      const a = await app({ now: () => new Date(at) })
      return { a, tick: () => (at += 60_000) }
    }

    async function feed(a: App) {
      const res = await a.get(`/events?format=ics&${WINDOW}`, admin)
      expect(res.status, res.text.slice(0, 300)).toBe(200)
      return vevents(res.text)
    }
    const masterOf = (list: Vevent[], headId: number) => {
      const m = list.filter((v) => v.uid.startsWith(`${headId}@`) && v.recurrenceId === null)
      expect(m, 'one master VEVENT').toHaveLength(1)
      return m[0]!
    }
    const detachedOf = (list: Vevent[], headId: number, day: string) =>
      list.find((v) => v.uid.startsWith(`${headId}@`) && v.recurrenceId?.startsWith(day))

    async function weekly(a: App, count = 6) {
      const res = await a.post(
        '/events',
        {
          title: 'Weekly',
          start_date: '2026-12-01 10:00:00',
          end_date: '2026-12-01 11:00:00',
          timezone: 'Europe/Paris',
          recurrence: `FREQ=WEEKLY;COUNT=${count}`,
        },
        admin,
      )
      expect(res.status, res.text).toBe(201)
      const members = (await a.get(`/events?${WINDOW}&post_parent=${res.body.id}&per_page=50`, admin)).body.events
      return { head: res.body, members: [res.body, ...members] as any[] }
    }

    it('deleting, trashing and restoring an occurrence raise the series SEQUENCE and move LAST-MODIFIED, with the EXDATE', async () => {
      const { a, tick } = await clocked()
      const { head, members } = await weekly(a)
      const before = masterOf(await feed(a), head.id)
      expect(before.exdates).toEqual([])

      tick()
      expect((await a.del(`/events/${members[2].id}`, admin)).status).toBe(200)
      const deleted = masterOf(await feed(a), head.id)
      expect(deleted.exdates).toEqual(['2026-12-15'])
      expect(deleted.sequence).toBe(before.sequence + 1)
      expect(deleted.lastModified > before.lastModified, `${deleted.lastModified} after ${before.lastModified}`).toBe(true)

      // Trashing through an update with scope `this` is an exception as well.
      tick()
      const trashed = await a.post(`/events/${members[3].id}`, { status: 'trash' }, admin)
      expect(trashed.status, trashed.text).toBe(200)
      const second = masterOf(await feed(a), head.id)
      expect(second.exdates).toEqual(['2026-12-15', '2026-12-22'])
      expect(second.sequence).toBe(deleted.sequence + 1)
      expect(second.lastModified > deleted.lastModified).toBe(true)

      // Restoring brings the occurrence back: the EXDATE goes, the SEQUENCE still grows.
      tick()
      const restored = await a.post(`/events/${members[2].id}`, { status: 'publish' }, admin)
      expect(restored.status, restored.text).toBe(200)
      const back = await feed(a)
      const third = masterOf(back, head.id)
      expect(third.exdates).toEqual(['2026-12-22'])
      expect(third.sequence).toBe(second.sequence + 1)
      expect(third.lastModified > second.lastModified).toBe(true)
      // The restored occurrence is detached (edited on its own): its own VEVENT.
      expect(detachedOf(back, head.id, '2026-12-15')).toBeDefined()
    })

    it('detaching and editing an occurrence raise its own SEQUENCE and the series SEQUENCE', async () => {
      const { a, tick } = await clocked()
      const { head, members } = await weekly(a)
      const start = masterOf(await feed(a), head.id)

      tick()
      expect((await a.post(`/events/${members[1].id}`, { title: 'Moved once' }, admin)).status).toBe(200)
      const once = await feed(a)
      const d1 = detachedOf(once, head.id, '2026-12-08')!
      expect(d1.summary).toBe('Moved once')
      const m1 = masterOf(once, head.id)
      expect(m1.sequence).toBeGreaterThan(start.sequence)
      expect(m1.lastModified > start.lastModified).toBe(true)

      tick()
      expect((await a.post(`/events/${members[1].id}`, { title: 'Moved twice' }, admin)).status).toBe(200)
      const twice = await feed(a)
      const d2 = detachedOf(twice, head.id, '2026-12-08')!
      expect(d2.summary).toBe('Moved twice')
      expect(d2.sequence).toBe(d1.sequence + 1)
      expect(d2.lastModified > d1.lastModified).toBe(true)
      expect(masterOf(twice, head.id).sequence).toBeGreaterThan(m1.sequence)

      // An edit that changes nothing a calendar shows leaves both alone.
      tick()
      expect((await a.post(`/events/${members[1].id}`, { featured: true }, admin)).status).toBe(200)
      const same = await feed(a)
      expect(detachedOf(same, head.id, '2026-12-08')!.sequence).toBe(d2.sequence)
      expect(masterOf(same, head.id).sequence).toBe(masterOf(twice, head.id).sequence)
    })

    it('a rule change, a content change for all and a split raise the series SEQUENCE; it never goes down', async () => {
      const { a, tick } = await clocked()
      const { head, members } = await weekly(a)
      let last = masterOf(await feed(a), head.id)
      const step = async (what: string, path: string, body: unknown) => {
        tick()
        const res = await a.post(path, body, admin)
        expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(200)
        const now = masterOf(await feed(a), head.id)
        expect(now.sequence, what).toBeGreaterThan(last.sequence)
        expect(now.lastModified > last.lastModified, `${what}: LAST-MODIFIED ${now.lastModified}`).toBe(true)
        last = now
      }
      await step('rule change (all)', `/events/${head.id}`, { recurrence: 'FREQ=WEEKLY;COUNT=5', recurrence_scope: 'all' })
      await step('extra date (all)', `/events/${head.id}`, {
        recurrence: { rrule: 'FREQ=WEEKLY;COUNT=5', rdate: ['2026-12-03 10:00:00'] },
        recurrence_scope: 'all',
      })
      await step('title (all)', `/events/${head.id}`, { title: 'Weekly, renamed', recurrence_scope: 'all' })
      await step('time of day (all)', `/events/${head.id}`, {
        start_date: '2026-12-01 11:00:00',
        end_date: '2026-12-01 12:00:00',
        recurrence_scope: 'all',
      })
      // A split: the series ends before the fourth occurrence, which heads a new series.
      const fourth = (await a.get(`/events?${WINDOW}&post_parent=${head.id}&per_page=50`, admin)).body.events.find((e: any) =>
        e.start_date.startsWith('2026-12-22'),
      )
      expect(fourth, JSON.stringify(members.map((m) => m.start_date))).toBeDefined()
      await step('split (following)', `/events/${fourth.id}`, { title: 'Later part', recurrence_scope: 'following' })
      const after = await feed(a)
      expect(masterOf(after, fourth.id).summary).toBe('Later part')
    })

    it('a feed whose window leaves out the first occurrence shows the same SEQUENCE and LAST-MODIFIED', async () => {
      const { a, tick } = await clocked()
      const { head, members } = await weekly(a)
      const later = async () => {
        const res = await a.get('/events?format=ics&start_date=2026-12-10&end_date=2027-12-31', admin)
        expect(res.status).toBe(200)
        return masterOf(vevents(res.text), head.id)
      }
      const before = await later()
      tick()
      expect((await a.del(`/events/${members[4].id}`, admin)).status).toBe(200)
      const windowed = await later()
      const full = masterOf(await feed(a), head.id)
      expect(windowed.sequence).toBe(before.sequence + 1)
      expect([windowed.sequence, windowed.lastModified]).toEqual([full.sequence, full.lastModified])
      expect(windowed.exdates).toContain('2026-12-29')
    })

    it('is the same number on every backend for the same history', async () => {
      const { a } = await clocked()
      const { head, members } = await weekly(a)
      expect((await a.del(`/events/${members[2].id}`, admin)).status).toBe(200)
      expect((await a.post(`/events/${members[1].id}`, { title: 'Own' }, admin)).status).toBe(200)
      expect((await a.post(`/events/${head.id}`, { title: 'All', recurrence_scope: 'all' }, admin)).status).toBe(200)
      const list = await feed(a)
      // The event written, then made the first occurrence of its series (1); the EXDATE (2); an
      // occurrence detached (3); a title for all (4). The detached one: written with the series
      // (0), then its title and its detachment in one write (1).
      expect(masterOf(list, head.id).sequence).toBe(4)
      expect(detachedOf(list, head.id, '2026-12-08')!.sequence).toBe(1)
    })
  })

  describe(`unpaged iCalendar feed past one batch [${name}]`, () => {
    /** Published events `Bulk {from}`… a day apart from 2027-01-01, written through the storage API (fast on every backend). */
    async function seedMany(a: App, n: number, from = 0) {
      const records = Array.from({ length: n }, (_, k) => {
        const i = from + k
        const day = new Date(Date.UTC(2027, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
        const at = (h: number) => `${day} ${String(h).padStart(2, '0')}:00:00`
        return newEvent({
          slug: `bulk-${i}`,
          title: `Bulk ${i}`,
          startDate: at(10),
          endDate: at(11),
          startDateUtc: at(10),
          endDateUtc: at(11),
        })
      })
      await a.storage.transaction(async (tx) => {
        if (tx.insertEvents) await tx.insertEvents(records)
        else for (const r of records) await tx.insertPost(r)
      })
    }
    const BULK_WINDOW = 'start_date=2027-01-01&end_date=2032-12-31'

    it(
      'holds all 600 events (three storage batches) with unique UIDs, stops exactly at a cap of 520, and at the default cap of 2000',
      { timeout: 60_000 },
      async () => {
        const a = await app()
        await seedMany(a, 600)
        const full = await a.get(`/events?format=ics&${BULK_WINDOW}`)
        expect(full.status).toBe(200)
        const all = vevents(full.text)
        expect(all).toHaveLength(600)
        expect(new Set(all.map((v) => v.uid)).size).toBe(600)
        expect(new Set(all.map((v) => v.summary))).toEqual(new Set(Array.from({ length: 600 }, (_, i) => `Bulk ${i}`)))
        // 600 is below the default cap: nothing says the feed was cut.
        expect(full.headers.get('x-calendar-truncated')).toBeNull()
        expect(full.text).not.toContain('X-CALENDAR-TRUNCATED')
        expect(full.headers.get('x-wp-total')).toBe('600')

        // A second router on the same rows (closed with the first app's storage).
        const capped = await makeApp(() => Promise.resolve(a.storage), { ical: { maxEvents: 520 } })
        const res = await capped.get(`/events?format=ics&${BULK_WINDOW}`)
        expect(res.status).toBe(200)
        const some = vevents(res.text)
        expect(some).toHaveLength(520)
        expect(new Set(some.map((v) => v.uid)).size).toBe(520)
        // The first 520 in list order (by start): the feed stops where the cap falls, not at random.
        expect(some.map((v) => v.summary)).toEqual(Array.from({ length: 520 }, (_, i) => `Bulk ${i}`))
        expect(res.headers.get('x-calendar-truncated')).toBe('520 of 600')
        expect(res.text).toMatch(/^X-CALENDAR-TRUNCATED:520 of 600 events\./m)

        // The default cap, by behaviour: 1,401 more events make 2,001, one past it (bulk writes
        // keep this under a few seconds on PostgreSQL too).
        await seedMany(a, 1401, 600)
        const over = await a.get(`/events?format=ics&${BULK_WINDOW}`)
        expect(over.status).toBe(200)
        const most = vevents(over.text)
        expect(most).toHaveLength(2000)
        expect(new Set(most.map((v) => v.uid)).size).toBe(2000)
        expect(most.at(-1)!.summary).toBe('Bulk 1999')
        expect(over.headers.get('x-calendar-truncated')).toBe('2000 of 2001')
        expect(over.text).toMatch(/^X-CALENDAR-TRUNCATED:2000 of 2001 events\./m)
      },
    )
  })

  describe(`503 on reads [${name}]`, () => {
    it('answers a read that meets a storage outage with 503 and Retry-After', async () => {
      const failing = async () => {
        const storage = await makeStorage()
        const down = new Set(['listEvents', 'getPost', 'getPostBySlug'])
        return withStorageHooks(storage, [
          { read: (op, next) => (down.has(op.name) ? Promise.reject(new StorageUnavailableError()) : next(op)) },
        ])
      }
      const a = await app({}, failing)
      for (const path of ['/events', '/events/1', '/events?format=ics']) {
        const res = await a.get(path)
        expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(503)
        expect(res.body).toMatchObject({ code: 'storage_unavailable', data: { status: 503 } })
        const retry = Number(res.headers.get('retry-after'))
        expect(Number.isInteger(retry) && retry > 0, `Retry-After ${res.headers.get('retry-after')}`).toBe(true)
      }
    })
  })
}
