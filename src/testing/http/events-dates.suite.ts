/**
 * Event dates: time zones and DST, all-day spans, natural and ISO 8601 input, the default list window and date filters.
 * Part of the events suites (test/http/events-*.suite.ts); helpers in events-shared.ts.
 */
import { expect } from './expect.js'
import { type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { type App, expectInvalid } from './harness.js'
import { EVENT_KEYS, LIST, ids, details, eventsOpener } from './events-shared.js'

/** Dates: time zones, all-day spans and natural or ISO 8601 input on writes, and the list window and date filters. */
export function eventsDatesSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  const open = eventsOpener(makeStorage)

  describe(`events over HTTP [${name}]`, () => {
    describe('create', () => {
      it('derives timezone, abbreviation and UTC fields from the event zone, DST included', async () => {
        const app = await open()
        const winter = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:30:00', timezone: 'America/New_York' })
        expect(winter.timezone).toBe('America/New_York')
        expect(winter.timezone_abbr).toBe('EST')
        expect(winter.start_date).toBe('2026-12-01 10:00:00')
        expect(winter.utc_start_date).toBe('2026-12-01 15:00:00')
        expect(winter.utc_end_date).toBe('2026-12-01 17:30:00')
        expect(winter.utc_end_date_details).toEqual(details('2026', '12', '01', '17', '30', '00'))
        const summer = await app.seed({ start_date: '2027-07-04 09:05:07', end_date: '2027-07-04 23:00:00', timezone: 'America/New_York' })
        expect(summer.timezone_abbr).toBe('EDT')
        expect(summer.utc_start_date).toBe('2027-07-04 13:05:07')
        expect(summer.utc_end_date).toBe('2027-07-05 03:00:00')
        expect(summer.start_date_details).toEqual(details('2027', '07', '04', '09', '05', '07'))
        const offset = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', timezone: 'UTC+5' })
        expect(offset.timezone).toBe('UTC+5')
        expect(offset.utc_start_date).toBe('2026-12-01 05:00:00')
      })

      it('uses the site timezone option when none is given', async () => {
        const app = await open({ timezone: 'Europe/Berlin' })
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' })
        expect(e.timezone).toBe('Europe/Berlin')
        expect(e.timezone_abbr).toBe('CET')
        expect(e.utc_start_date).toBe('2026-12-01 09:00:00')
        // Publication date in site time.
        expect(e.date).toBe('2026-11-21 23:54:48')
        expect(e.date_utc).toBe('2026-11-21 22:54:48')
      })

      it('spans whole days for all-day events', async () => {
        const app = await open()
        const e = await app.seed({
          all_day: true,
          start_date: '2026-12-01 10:00:00',
          end_date: '2026-12-03 08:00:00',
          timezone: 'America/New_York',
        })
        expect(e.all_day).toBe(true)
        expect(e.start_date).toBe('2026-12-01 00:00:00')
        expect(e.end_date).toBe('2026-12-03 23:59:59')
        expect(e.utc_start_date).toBe('2026-12-01 05:00:00')
        expect(e.utc_end_date).toBe('2026-12-04 04:59:59')
      })

      it('sets an end before the start to the start', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-02 10:00:00', end_date: '2026-12-01 10:00:00' })
        expect(e.start_date).toBe('2026-12-02 10:00:00')
        expect(e.end_date).toBe('2026-12-02 10:00:00')
        expect(e.utc_end_date).toBe('2026-12-02 10:00:00')
      })

      it('reads natural dates relative to now, in the event zone', async () => {
        const app = await open()
        const e = await app.seed({ start_date: 'tomorrow 9am', end_date: 'tomorrow 11:30am' })
        expect(e.start_date).toBe('2026-11-22 09:00:00')
        expect(e.end_date).toBe('2026-11-22 11:30:00')
        // 22:54 UTC on the 21st is 07:54 on the 22nd in Tokyo: "tomorrow" is the 23rd there.
        const tokyo = await app.seed({ start_date: 'tomorrow 9am', end_date: '+2 days', timezone: 'Asia/Tokyo' })
        expect(tokyo.start_date).toBe('2026-11-23 09:00:00')
        expect(tokyo.utc_start_date).toBe('2026-11-23 00:00:00')
        expect(tokyo.end_date).toBe('2026-11-24 07:54:48')
        const short = await app.seed({ start_date: '2026-12-05', end_date: '2026-12-05 18:30' })
        expect(short.start_date).toBe('2026-12-05 00:00:00')
        expect(short.end_date).toBe('2026-12-05 18:30:00')
      })

      it('converts ISO 8601 dates with an offset into the event zone', async () => {
        const app = await open()
        const e = await app.seed({
          start_date: '2026-12-01T10:00:00+01:00',
          end_date: '2026-12-01T12:00:00Z',
          timezone: 'America/New_York',
        })
        expect(e.start_date).toBe('2026-12-01 04:00:00')
        expect(e.utc_start_date).toBe('2026-12-01 09:00:00')
        expect(e.end_date).toBe('2026-12-01 07:00:00')
        expect(e.utc_end_date).toBe('2026-12-01 12:00:00')
      })
    })

    describe('update', () => {
      it('recomputes the schedule when all_day changes', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00', timezone: 'America/New_York' })
        const res = await app.patch(`/events/${e.id}`, { all_day: true }, { as: 'administrator' })
        expect(res.body.all_day).toBe(true)
        expect(res.body.start_date).toBe('2026-12-01 00:00:00')
        expect(res.body.end_date).toBe('2026-12-01 23:59:59')
        expect(res.body.utc_start_date).toBe('2026-12-01 05:00:00')
        expect(res.body.utc_end_date).toBe('2026-12-02 04:59:59')
        // Omitting all_day later keeps it.
        expect((await app.patch(`/events/${e.id}`, { title: 'x' }, { as: 'administrator' })).body.all_day).toBe(true)
      })

      it('keeps the wall clock and recomputes UTC when the timezone changes', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })
        const res = await app.patch(`/events/${e.id}`, { timezone: 'Asia/Tokyo' }, { as: 'administrator' })
        expect(res.body.timezone).toBe('Asia/Tokyo')
        expect(res.body.timezone_abbr).toBe('JST')
        expect(res.body.start_date).toBe('2026-12-01 10:00:00')
        expect(res.body.utc_start_date).toBe('2026-12-01 01:00:00')
        expect(res.body.utc_end_date).toBe('2026-12-01 03:00:00')
        // "" resets to the site zone.
        const reset = await app.patch(`/events/${e.id}`, { timezone: '' }, { as: 'administrator' })
        expect(reset.body.timezone).toBe('UTC')
        expect(reset.body.utc_start_date).toBe('2026-12-01 10:00:00')
        expectInvalid(await app.patch(`/events/${e.id}`, { timezone: 'Mars/Olympus' }, { as: 'administrator' }), ['timezone'])
      })

      it('applies a lone start_date or end_date, keeping the other unless it would end before it starts', async () => {
        const app = await open()
        const e = await app.seed({ start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })
        const earlier = await app.patch(`/events/${e.id}`, { start_date: '2026-12-01 09:00:00' }, { as: 'administrator' })
        expect([earlier.body.start_date, earlier.body.end_date]).toEqual(['2026-12-01 09:00:00', '2026-12-01 12:00:00'])
        expect(earlier.body.utc_start_date).toBe('2026-12-01 09:00:00')
        const later = await app.patch(`/events/${e.id}`, { start_date: '2026-12-03 15:00:00' }, { as: 'administrator' })
        expect([later.body.start_date, later.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 15:00:00'])
        const end = await app.patch(`/events/${e.id}`, { end_date: '2026-12-03 18:00:00' }, { as: 'administrator' })
        expect([end.body.start_date, end.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 18:00:00'])
        expect(end.body.utc_end_date).toBe('2026-12-03 18:00:00')
        const before = await app.patch(`/events/${e.id}`, { end_date: '2026-12-01 00:00:00' }, { as: 'administrator' })
        expect([before.body.start_date, before.body.end_date]).toEqual(['2026-12-03 15:00:00', '2026-12-03 15:00:00'])
        expectInvalid(await app.patch(`/events/${e.id}`, { start_date: 'garbage' }, { as: 'administrator' }), ['start_date'])
      })
    })

    describe('lists', () => {
      it('applies the default window: from yesterday to 24 months ahead', async () => {
        const app = await open()
        const older = await app.seed({ title: 'Older', start_date: '2026-11-19 10:00', end_date: '2026-11-19 11:00' })
        const yesterday = await app.seed({ title: 'Yesterday', start_date: '2026-11-20 00:00', end_date: '2026-11-20 01:00' })
        const lastDay = await app.seed({ title: 'Last day', start_date: '2028-11-21 10:00', end_date: '2028-11-21 23:59:59' })
        const beyond = await app.seed({ title: 'Beyond', start_date: '2028-11-22 00:00', end_date: '2028-11-22 01:00' })
        const soon = await app.seed({ title: 'Soon', start_date: '2026-11-25 10:00', end_date: '2026-11-25 11:00' })
        const res = await app.get('/events')
        expect(ids(res)).toEqual([yesterday.id, soon.id, lastDay.id])
        expect(res.body.events[0]).not.toHaveProperty('json_ld')
        expect(Object.keys(res.body.events[0])).toEqual(EVENT_KEYS)
        expect(res.body.total).toBe(3)
        expect(res.headers.get('x-tec-total')).toBe('3')
        expect(res.headers.get('x-tec-totalpages')).toBe('1')
        expect([older.id, beyond.id].some((id) => ids(res).includes(id))).toBe(false)
      })

      it('computes the default window per request', async () => {
        let clock = new Date('2026-11-21T22:54:48Z')
        const app = await open({ now: () => clock })
        const e = await app.seed({ start_date: '2026-11-20 10:00', end_date: '2026-11-20 11:00' })
        expect(ids(await app.get('/events'))).toEqual([e.id])
        clock = new Date('2026-11-22T00:00:01Z')
        const later = await app.get('/events')
        expect(ids(later)).toEqual([])
        expect(later.body.rest_url).toBe(
          `${LIST}?page=1&per_page=120&start_date=2026-11-21+00%3A00%3A00&end_date=2028-11-22+23%3A59%3A59&status=publish`,
        )
      })

      describe('date filters', () => {
        /** Whole-day (inclusive) versus strict date bounds (docs/wire-compatibility.md §7.2). */
        async function fourEvents(app: App) {
          return {
            eve: await app.seed({ title: 'Eve', start_date: '2017-12-31 17:00:00', end_date: '2017-12-31 18:00:00' }),
            afternoon: await app.seed({ title: 'Afternoon', start_date: '2018-01-01 16:00:00', end_date: '2018-01-01 16:30:00' }),
            evening: await app.seed({ title: 'Evening', start_date: '2018-01-01 20:00:00', end_date: '2018-01-01 20:30:00' }),
            morning: await app.seed({ title: 'Morning', start_date: '2018-01-02 10:00:00', end_date: '2018-01-02 11:00:00' }),
          }
        }

        it('treats start_date/end_date as whole days unless strict_dates', async () => {
          const app = await open()
          const e = await fourEvents(app)
          const q = 'start_date=2018-01-01%2015:00:00&end_date=2018-01-01%2018:00:00'
          const inclusive = await app.get(`/events?${q}`)
          expect(ids(inclusive)).toEqual([e.afternoon.id, e.evening.id])
          expect(inclusive.body.rest_url).toBe(
            `${LIST}?page=1&per_page=120&start_date=2018-01-01+00%3A00%3A00&end_date=2018-01-01+23%3A59%3A59&status=publish`,
          )
          const strict = await app.get(`/events?${q}&strict_dates=true`)
          expect(ids(strict)).toEqual([e.afternoon.id])
          expect(strict.body.rest_url).toContain('start_date=2018-01-01+15%3A00%3A00&end_date=2018-01-01+18%3A00%3A00')
          expect(ids(await app.get(`/events?${q}&strict_dates=false`))).toEqual([e.afternoon.id, e.evening.id])
        })

        it('accepts dates in any supported form and rejects garbage', async () => {
          const app = await open()
          const e = await fourEvents(app)
          expect(ids(await app.get('/events?start_date=2018-01-01&end_date=2018-01-02'))).toEqual([
            e.afternoon.id,
            e.evening.id,
            e.morning.id,
          ])
          expect(ids(await app.get(`/events?start_date=${Date.UTC(2018, 0, 1, 12) / 1000}&end_date=2018-01-01`))).toEqual([
            e.afternoon.id,
            e.evening.id,
          ])
          expect(ids(await app.get('/events?start_date=2018-01-01T00:00:00Z&end_date=January%201,%202018'))).toEqual([
            e.afternoon.id,
            e.evening.id,
          ])
          // Only start_date: the default end still applies.
          expect(ids(await app.get('/events?start_date=2017-12-31'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id, e.morning.id])
          const bad = await app.get('/events?start_date=before%20my%20birthday')
          expectInvalid(bad, ['start_date'])
          expectInvalid(await app.get('/events?end_date=garbage&starts_after=nope'), ['end_date', 'starts_after'])
        })

        it('filters with starts_before/starts_after/ends_before/ends_after, which drop the default window', async () => {
          const app = await open()
          const e = await fourEvents(app)
          const future = await app.seed({ title: 'Far', start_date: '2030-01-01 10:00', end_date: '2030-01-01 11:00' })
          const now = await app.seed({ title: 'Now', start_date: '2026-11-21 10:00', end_date: '2026-11-21 11:00' })
          // starts_after alone: no 24-month cap.
          const after = await app.get('/events?starts_after=2026-11-20')
          expect(ids(after)).toEqual([now.id, future.id])
          expect(after.body.rest_url).toBe(`${LIST}?page=1&per_page=120&status=publish&starts_after=2026-11-20+23%3A59%3A59`)
          // ends_before alone reaches the past; whole days: "before the end of that day".
          expect(ids(await app.get('/events?ends_before=2017-12-31'))).toEqual([e.eve.id])
          expect(ids(await app.get('/events?ends_before=2018-01-01'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id])
          expect(ids(await app.get('/events?starts_before=2018-01-01'))).toEqual([e.eve.id, e.afternoon.id, e.evening.id])
          expect(ids(await app.get('/events?ends_after=2018-01-01'))).toEqual([e.morning.id, now.id, future.id])
          // Several combine; with an explicit start_date both kinds apply.
          expect(ids(await app.get('/events?ends_after=2017-12-31&starts_before=2018-01-01'))).toEqual([e.afternoon.id, e.evening.id])
          expect(
            ids(await app.get('/events?starts_after=2017-01-01&start_date=2018-01-01&strict_dates=1&end_date=2018-01-01%2017:00')),
          ).toEqual([e.afternoon.id])
          // Strict: exact instants.
          expect(
            ids(await app.get('/events?starts_after=2018-01-01%2016:00:00&starts_before=2018-01-02%2010:00:00&strict_dates=true')),
          ).toEqual([e.evening.id])
          expect(
            ids(await app.get('/events?ends_after=2018-01-01%2016:30:00&ends_before=2018-01-02%2011:00:00&strict_dates=true')),
          ).toEqual([e.evening.id])
        })
      })
    })
  })
}
