/**
 * Titles and dates the way the reference computes them: Latin titles get WordPress's slugs
 * (accents spelled out, German rules for German records), other scripts keep their letters;
 * relative dates as PHP's strtotime reads them, and the inputs it silently misreads refused.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import { makeApp } from './harness.js'

const admin = { as: 'administrator' as const }

export function referenceInputsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`${name}: slugs and dates as the reference computes them`, () => {
    async function open() {
      const app = await makeApp(makeStorage, { languages: ['en', 'de', 'ja'] })
      onTestFinished(() => app.close())
      return app
    }

    it('gives Latin titles WordPress slugs and finds them by slug', async () => {
      const app = await open()
      const e = await app.seed({ title: 'Straße Fest' })
      expect(e.slug).toBe('strasse-fest')
      const found = await app.get('/events/by-slug/strasse-fest')
      expect(found.status).toBe(200)
      expect(found.body.id).toBe(e.id)
      expect((await app.seed({ title: 'Łódź' })).slug).toBe('lodz')
      expect((await app.seed({ title: 'Straße Fest' })).slug).toBe('strasse-fest-2')

      const venue = await app.post('/venues', { venue: 'Ærø Øl' }, admin)
      expect(venue.status).toBe(201)
      expect(venue.body.slug).toBe('aero-ol')
      const organizer = await app.post('/organizers', { organizer: 'Œuvre Þing' }, admin)
      expect(organizer.status).toBe(201)
      expect(organizer.body.slug).toBe('oeuvre-thing')
      const tag = await app.post('/tags', { name: 'Crème Brûlée' }, admin)
      expect(tag.status).toBe(201)
      expect(tag.body.slug).toBe('creme-brulee')
    })

    it('spells umlauts the German way for German records only', async () => {
      const app = await open()
      const de = await app.seed({ title: 'Müller Straße' }, { lang: 'de' })
      expect(de.slug).toBe('mueller-strasse')
      const en = await app.seed({ title: 'Müller Straße' })
      expect(en.slug).toBe('muller-strasse')
      expect((await app.get('/events/by-slug/mueller-strasse', { lang: 'de' })).body.id).toBe(de.id)
    })

    it('keeps the letters of other scripts', async () => {
      const app = await open()
      const e = await app.seed({ title: '東京 イベント' }, { lang: 'ja' })
      expect(e.slug).toBe('東京-イベント')
    })

    it('reads weekday arithmetic and "first monday of" as PHP does', async () => {
      const app = await open()
      // Now is Saturday 2026-11-21 22:54:48 in the site zone (UTC).
      const a = await app.seed({ start_date: '+2 weekdays', end_date: '+3 weekdays' })
      expect([a.start_date, a.end_date]).toEqual(['2026-11-24 22:54:48', '2026-11-25 22:54:48'])
      const b = await app.seed({ start_date: 'first monday of january 2027 19:00', end_date: 'last friday of january 2027 noon' })
      expect([b.start_date, b.end_date]).toEqual(['2027-01-04 19:00:00', '2027-01-29 12:00:00'])
      const c = await app.seed({ start_date: 'tomorrow noon', end_date: 'monday next week 9am' })
      expect([c.start_date, c.end_date]).toEqual(['2026-11-22 12:00:00', '2026-11-23 09:00:00'])
    })

    it('refuses a time before a day word, which PHP silently turns into midnight, and stores nothing', async () => {
      const app = await open()
      const before = (await app.get('/events')).body.total
      for (const [start, end] of [
        ['7pm tomorrow', 'tomorrow 9pm'],
        ['tomorrow 7pm', 'noon tomorrow'],
      ]) {
        const res = await app.post('/events', { title: 'Misread', start_date: start, end_date: end }, admin)
        expect(res.status).toBe(400)
        expect(res.body.code).toBe('rest_invalid_param')
        expect(Object.keys(res.body.data.params)).toEqual([start === '7pm tomorrow' ? 'start_date' : 'end_date'])
      }
      expect((await app.get('/events')).body.total).toBe(before)
    })
  })
}
