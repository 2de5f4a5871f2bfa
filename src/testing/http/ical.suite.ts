/**
 * iCalendar feeds, parsed with ical.js (Mozilla's parser, not ours): the same filters and
 * visibility as the JSON list, exact instants, all-day dates, escaping and folding.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import ICAL from 'ical.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

function parse(text: string) {
  const root = new ICAL.Component(ICAL.parse(text))
  return root.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c))
}

export function icalSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  async function app(): Promise<App> {
    const a = await makeApp(makeStorage)
    onTestFinished(() => a.close())
    return a
  }

  describe(`iCalendar feeds [${name}]`, () => {
    it('answers the events list as text/calendar with one VEVENT per event, for ?format=ics and Accept', async () => {
      const a = await app()
      const venue = await a.post(
        '/venues',
        { venue: 'Main Hall', address: '1 Main St', city: 'Springfield', country: 'United States', state: 'IL' },
        { as: 'administrator' },
      )
      const org = await a.post('/organizers', { organizer: 'Acme, Inc.', email: 'events@acme.example' }, { as: 'administrator' })
      const e1 = await a.seed({
        title: 'Concert; with, specials \\ and a very long title that certainly needs folding past seventy-five octets — ünïcödé',
        description: '<p>Great <b>music</b></p><p>Second line</p>',
        start_date: '2026-11-26 19:00:00',
        end_date: '2026-11-26 22:00:00',
        timezone: 'America/New_York',
        venue: venue.body.id,
        organizer: [org.body.id],
        categories: ['Music', 'Jazz'],
      })
      const e2 = await a.seed({ title: 'Fair', start_date: '2026-11-28', end_date: '2026-11-29', all_day: true })
      await a.seed({ title: 'Hidden draft', status: 'draft' })

      const res = await a.get('/events?format=ics')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/calendar; charset=UTF-8')
      expect(res.headers.get('x-tec-total')).toBe('2')
      expect(res.text).toMatch(/\r\n/)
      expect(res.text.split('\r\n').every((line) => new TextEncoder().encode(line).length <= 75)).toBe(true)
      const events = parse(res.text)
      expect(events.map((e) => e.summary)).toEqual([e1.title, 'Fair'])

      const concert = events[0]!
      expect(concert.uid).toBe(`${e1.id}@127.0.0.1`)
      // 19:00 in New York in November is 00:00 UTC the next day.
      expect(concert.startDate.toJSDate().toISOString()).toBe('2026-11-27T00:00:00.000Z')
      expect(concert.endDate.toJSDate().toISOString()).toBe('2026-11-27T03:00:00.000Z')
      expect(concert.description).toBe('Great music\n\nSecond line')
      expect(concert.location).toBe('Main Hall, 1 Main St, Springfield, IL, United States')
      expect(concert.organizer).toBe('mailto:events@acme.example')
      expect(concert.component.getFirstPropertyValue('url')).toBe(e1.url)
      expect([...concert.component.getFirstProperty('categories')!.getValues()].sort()).toEqual(['Jazz', 'Music'])

      const fair = events[1]!
      expect(fair.startDate.isDate).toBe(true)
      expect(fair.startDate.toString()).toBe('2026-11-28')
      // DTEND of an all-day event is exclusive: the day after the last day.
      expect(fair.endDate.toString()).toBe('2026-11-30')
      expect(e2.all_day).toBe(true)

      const viaAccept = await a.get('/events', { headers: { accept: 'text/calendar' } })
      expect(viaAccept.headers.get('content-type')).toBe('text/calendar; charset=UTF-8')
      expect(viaAccept.headers.get('vary')).toContain('Accept')
      expect(parse(viaAccept.text)).toHaveLength(2)
      expect((await a.get('/events', { headers: { accept: 'application/json, text/calendar' } })).headers.get('content-type')).toContain(
        'application/json',
      )
    })

    it('applies the list filters and visibility to the feed', async () => {
      const a = await app()
      await a.seed({ title: 'Music night', categories: ['Music'] })
      await a.seed({ title: 'Sports day' })
      await a.seed({ title: 'Private draft', status: 'draft' })
      expect(parse((await a.get('/events?format=ics&categories=music')).text).map((e) => e.summary)).toEqual(['Music night'])
      expect(parse((await a.get('/events?format=ics&search=sports')).text).map((e) => e.summary)).toEqual(['Sports day'])
      const anon = (await a.get('/events?format=ics')).text
      expect(anon).not.toContain('Private draft')
      expect(parse((await a.get('/events?format=ics', { as: 'administrator' })).text)).toHaveLength(3)
      expect((await a.get('/events?format=ics&page=9')).status).toBe(404)
      expect((await a.get('/events?format=xml')).status).toBe(400)
    })

    it('serves a single event as a calendar, with the same access rules as JSON', async () => {
      const a = await app()
      const e = await a.seed({ title: 'Solo' })
      const draft = await a.seed({ title: 'Draft', status: 'draft' })
      const one = await a.get(`/events/${e.id}?format=ics`)
      expect(one.status).toBe(200)
      expect(parse(one.text).map((x) => x.summary)).toEqual(['Solo'])
      const bySlug = await a.get(`/events/by-slug/${e.slug}`, { headers: { accept: 'text/calendar' } })
      expect(parse(bySlug.text).map((x) => x.uid)).toEqual([`${e.id}@127.0.0.1`])
      const denied = await a.get(`/events/${draft.id}?format=ics`)
      expect(denied.status).toBe(403)
      expect(denied.headers.get('content-type')).toContain('application/json')
    })
  })
}
