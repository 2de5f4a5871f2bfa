/**
 * Recurring series under stress: hostile `recurrence` and `recurrence_scope` values (never a
 * 5xx; a 400 names the parameter and stores nothing), what series show to callers who may not
 * see them (leaks), and two editors changing one series with different scopes at once.
 */
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POST_STATUSES, type Storage } from '../../src/storage/types.js'
import { concurrencyStats } from '../../src/testing/http/concurrency.suite.js'
import { hostileStats } from './hostile.suite.js'
import { makeApp, type App } from './harness.js'
import { leakStats } from '../../src/testing/http/leaks.suite.js'
import { expandFeed, occurrenceKey } from '../../src/testing/http/ical-expand.js'

const RUNS = Number(process.env.HOSTILE_RUNS ?? 150) / 3
const admin = { as: 'administrator' as const }
const WINDOW = 'start_date=2025-01-01&end_date=2031-12-31'

const partName = fc.constantFrom(
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYDAY',
  'BYMONTHDAY',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
  'BYHOUR',
  'BYWEEKNO',
  'X-FOO',
  'freq',
  '',
  'RRULE:FREQ',
)
const partValue = fc.oneof(
  fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY', 'HOURLY', 'SECONDLY', 'MO', 'TU,TH', '-1FR', '53MO', '+2SA', '0MO', 'XX', ''),
  fc.integer({ min: -400, max: 400 }).map(String),
  fc.constantFrom(
    '99999999999999999999',
    '1e3',
    '0x10',
    '1,2,,3',
    '-0',
    '20270101',
    '20270101T000000Z',
    '20270231',
    '19000101T000000',
    '99991231',
  ),
  fc.string({ maxLength: 12 }),
)
const rule = fc
  .array(
    fc.tuple(partName, partValue).map(([n, v]) => `${n}=${v}`),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(';'))
const dateish = fc.oneof(
  fc.constantFrom('2026-12-10', '2026-12-17 10:00:00', 'tomorrow', '', 'not a date', '9999-12-31', '2026-02-30'),
  fc.string({ maxLength: 10 }),
  fc.integer(),
)
/** Hostile `recurrence` values: rules built from (mostly wrong) parts, objects, and odd JSON. */
export const hostileRecurrence = fc.oneof(
  rule,
  fc.record(
    { rrule: rule, rdate: fc.array(dateish, { maxLength: 4 }), exdate: fc.array(dateish, { maxLength: 4 }) },
    { requiredKeys: ['rrule'] },
  ),
  fc.constantFrom(null, '', 0, true, [], {}, { rrule: 1 }, { rrule: 'FREQ=DAILY', __proto__: { x: 1 } }, 'x'.repeat(10_000)),
)

export function recurrenceReliabilitySuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage, { recurrence: { maxOccurrences: 60 } })
    onTestFinished(() => a.close())
    return a
  }
  const stored = async (a: App) =>
    (await a.storage.listEvents({ language: 'en', statuses: POST_STATUSES, orderBy: 'start', offset: 0, limit: 1 })).total

  describe(`recurring series under stress [${name}]`, () => {
    it(
      'answers hostile recurrence values with 201 or a 400 naming recurrence, never storing a rejected write',
      { timeout: 240_000 },
      async () => {
        const a = await app()
        await fc.assert(
          fc.asyncProperty(hostileRecurrence, async (value) => {
            hostileStats.requests++
            const before = await stored(a)
            const res = await a.post(
              '/events',
              {
                title: 'Fuzz',
                start_date: '2026-12-10 10:00:00',
                end_date: '2026-12-10 11:00:00',
                timezone: 'Europe/Berlin',
                recurrence: value,
              },
              admin,
            )
            expect([201, 400]).toContain(res.status)
            if (res.status === 400) {
              expect(Object.keys(res.body.data.params)).toEqual(['recurrence'])
              expect(await stored(a)).toBe(before)
              return
            }
            const made = (await stored(a)) - before
            expect(made).toBeGreaterThanOrEqual(1)
            expect(made).toBeLessThanOrEqual(60)
            if (res.body.series) {
              expect(res.body.recurrence.description).toMatch(/\w/)
              // A list reaching past the horizon shows an open-ended series' later occurrences
              // without writing them (a GET never writes): the rows stored stay as the write left
              // them, and the list holds at least those and never more than the occurrence cap.
              const listed =
                (await a.get(`/events?start_date=1900-01-01&end_date=9999-12-31&status=any&per_page=1&post_parent=${res.body.id}`, admin))
                  .body.total + 1
              expect((await stored(a)) - before).toBe(made)
              expect(listed).toBeGreaterThanOrEqual(made)
              expect(listed).toBeLessThanOrEqual(60)
            } else expect(made).toBe(1)
          }),
          // Open-ended rules whose written horizon holds fewer than the cap (CI run of stop 40).
          { numRuns: RUNS, examples: [['FREQ=MONTHLY'], ['FREQ=YEARLY;INTERVAL=2']] },
        )
        hostileStats.properties++
      },
    )

    it('answers hostile recurrence_scope values with 200 or a 400 naming it', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          { title: 'Scope', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00', recurrence: 'FREQ=DAILY;COUNT=3' },
          admin,
        )
      ).body
      for (const scope of ['', 'THIS', 'any', 1, ['all'], { all: 1 }, 'all ', 'following;']) {
        hostileStats.requests++
        const res = await a.post(`/events/${head.id}`, { title: 'Changed', recurrence_scope: scope }, admin)
        expect(res.status).toBe(400)
        expect(Object.keys(res.body.data.params)).toEqual(['recurrence_scope'])
      }
      for (const scope of ['THIS', 'any', 'all ', 'following;', '1', '%00']) {
        hostileStats.requests++
        const del = await a.del(`/events/${head.id}?recurrence_scope=${encodeURIComponent(scope)}`, admin)
        expect(del.status).toBe(400)
        expect(Object.keys(del.body.data.params)).toEqual(['recurrence_scope'])
      }
      expect((await a.get(`/events?${WINDOW}&post_parent=${head.id}`)).body.events.map((e: any) => e.title)).toEqual(['Scope', 'Scope'])
      hostileStats.properties++
    })

    it('shows nothing of a draft series to callers who may not see it', async () => {
      const a = await app()
      const head = (
        await a.post(
          '/events',
          {
            title: 'Secret',
            status: 'draft',
            start_date: '2026-12-10 10:00:00',
            end_date: '2026-12-10 11:00:00',
            recurrence: 'FREQ=WEEKLY;COUNT=4',
          },
          admin,
        )
      ).body
      const members = (await a.get(`/events?${WINDOW}&post_parent=${head.id}&status=draft`, admin)).body.events
      expect(members).toHaveLength(3)
      for (const as of [undefined, 'subscriber', 'contributor'] as const) {
        const opts = as ? { as } : {}
        for (const path of [
          `/events?${WINDOW}`,
          `/events?${WINDOW}&post_parent=${head.id}`,
          `/events?${WINDOW}&hide_subsequent_recurrences=1`,
          `/events?${WINDOW}&format=ics`,
        ]) {
          const res = await a.get(path, opts)
          leakStats.checks++
          expect(res.text).not.toContain('Secret')
          expect(res.text).not.toContain('FREQ=WEEKLY')
        }
        for (const m of members) {
          const res = await a.get(`/events/${m.id}`, opts)
          leakStats.checks++
          expect([401, 403]).toContain(res.status)
          expect(res.text).not.toContain('FREQ=WEEKLY')
        }
      }
    })

    it('keeps a series consistent when two editors change it with different scopes at once', { timeout: 60_000 }, async () => {
      const a = await app()
      for (let round = 0; round < 3; round++) {
        const head = (
          await a.post(
            '/events',
            {
              title: `Series ${round}`,
              start_date: '2027-01-04 18:00:00',
              end_date: '2027-01-04 19:00:00',
              timezone: 'America/New_York',
              recurrence: 'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=20',
            },
            admin,
          )
        ).body
        const members = (await a.get(`/events?${WINDOW}&post_parent=${head.id}&per_page=50`)).body.events
        const results = await Promise.all([
          a.post(`/events/${head.id}`, { title: `All ${round}`, recurrence_scope: 'all' }, { as: 'editor' }),
          a.post(
            `/events/${members[8].id}`,
            {
              title: `Following ${round}`,
              start_date: `${members[8].start_date.slice(0, 10)} 20:00:00`,
              end_date: `${members[8].start_date.slice(0, 10)} 21:00:00`,
              recurrence_scope: 'following',
            },
            admin,
          ),
          a.post(`/events/${members[3].id}`, { title: `This ${round}`, recurrence_scope: 'this' }, { as: 'editor' }),
          a.del(`/events/${members[12].id}`, admin),
        ])
        concurrencyStats.operations += results.length
        for (const r of results) expect([200, 409]).toContain(r.status)
      }
      // Whatever the order: every live event is in a series whose head exists, no series has two
      // occurrences on one day, and the feed expands to exactly the list.
      const json = new Map<string, string[]>()
      for (let page = 1; ; page++) {
        const res = await a.get(`/events?${WINDOW}&per_page=50&page=${page}`)
        for (const e of res.body.events) {
          expect(e.series).toBeDefined()
          const head = await a.get(`/events/${e.series.id}`, admin)
          expect(head.status).toBe(200)
          json.set(String(e.series.id), [...(json.get(String(e.series.id)) ?? []), occurrenceKey(e)])
        }
        if (page >= res.body.total_pages) break
      }
      for (const list of json.values()) expect(new Set(list.map((s) => s.slice(0, 10))).size).toBe(list.length)
      const expanded = expandFeed((await a.get(`/events?${WINDOW}&format=ics`)).text, '2031-12-31T23:59:59Z')
      for (const [id, list] of json) expect(expanded.get(id), `series ${id}`).toEqual([...list].sort())
    })
  })
}
