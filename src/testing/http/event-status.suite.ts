/**
 * Event status (scheduled, canceled, postponed, and rescheduled when a postponed event gets new
 * dates) and attendance (offline, online, mixed with a virtual URL): in JSON, in JSON-LD, in
 * iCalendar (read back with ical.js), as a list filter, and their 400s.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import ICAL from 'ical.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage)
  onTestFinished(() => app.close())
  return app
}

/** The VEVENT of an event's own calendar, read by ical.js. */
async function vevent(app: App, id: number) {
  const res = await app.get(`/events/${id}?format=ics`)
  expect(res.status, res.text).toBe(200)
  return new ICAL.Component(ICAL.parse(res.text)).getFirstSubcomponent('vevent')!
}

export function eventStatusSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`event status and attendance [${name}]`, () => {
    it('a cancelled event stays listed, says so in JSON and JSON-LD, and calendars strike it with a new SEQUENCE', async () => {
      const app = await open(makeStorage)
      const e = await app.seed({ title: 'Gala' })
      expect(e).toMatchObject({ event_status: 'scheduled', event_status_reason: '', attendance_mode: 'offline', virtual_url: null })
      const before = await vevent(app, e.id)
      expect(before.getFirstPropertyValue('status')).toBe('CONFIRMED')
      const res = await app.patch(
        `/events/${e.id}`,
        { event_status: 'canceled', event_status_reason: 'Storm <b>warning</b>' },
        { as: 'author' },
      )
      expect(res.status, res.text).toBe(403) // not theirs: nothing written
      const cancelled = await app.patch(
        `/events/${e.id}`,
        { event_status: 'canceled', event_status_reason: 'Storm warning' },
        { as: 'administrator' },
      )
      expect(cancelled.body).toMatchObject({ event_status: 'canceled', event_status_reason: 'Storm warning' })
      const read = (await app.get(`/events/${e.id}`)).body
      expect(read.json_ld.eventStatus).toBe('https://schema.org/EventCancelled')
      expect((await app.get('/events')).body.events.map((x: { id: number }) => x.id)).toContain(e.id)
      const after = await vevent(app, e.id)
      expect(after.getFirstPropertyValue('status')).toBe('CANCELLED')
      expect(Number(after.getFirstPropertyValue('sequence'))).toBeGreaterThan(Number(before.getFirstPropertyValue('sequence')))
    })

    it('filters lists by event_status (several values ORed) and names the allowed values in its 400', async () => {
      const app = await open(makeStorage)
      const on = await app.seed({ title: 'On' })
      const off = await app.seed({ title: 'Off', event_status: 'canceled' })
      const later = await app.seed({ title: 'Later', event_status: 'postponed' })
      const ids = async (q: string) => ((await app.get(`/events?${q}`)).body.events as Array<{ id: number }>).map((x) => x.id).sort()
      expect(await ids('event_status=canceled')).toEqual([off.id])
      expect(await ids('event_status=canceled,postponed')).toEqual([off.id, later.id].sort())
      expect(await ids('event_status[]=scheduled')).toEqual([on.id])
      const bad = await app.get('/events?event_status=cancelled')
      expect(bad.status).toBe(400)
      expect(bad.body.data.params.event_status).toBe('event_status is not one of scheduled, canceled, postponed.')
      const badWrite = await app.post(
        '/events',
        { title: 'X', start_date: '2026-12-01', end_date: '2026-12-01', event_status: 'cancelled' },
        { as: 'administrator' },
      )
      expect(badWrite.status).toBe(400)
      expect(badWrite.body.data.params.event_status).toMatch(/^event_status is not one of scheduled, canceled,? (and )?postponed\.$/)
    })

    it('a postponed event given new dates is rescheduled: JSON-LD EventRescheduled with previousStartDate', async () => {
      const app = await open(makeStorage)
      const e = await app.seed({ title: 'Concert', event_status: 'postponed', event_status_reason: 'Venue flooded' })
      expect((await app.get(`/events/${e.id}`)).body.json_ld.eventStatus).toBe('https://schema.org/EventPostponed')
      const moved = await app.patch(
        `/events/${e.id}`,
        { start_date: '2027-01-15 19:00:00', end_date: '2027-01-15 21:00:00' },
        { as: 'administrator' },
      )
      expect(moved.body.event_status).toBe('scheduled')
      const ld = (await app.get(`/events/${e.id}`)).body.json_ld
      expect(ld.eventStatus).toBe('https://schema.org/EventRescheduled')
      expect(ld.previousStartDate).toMatch(/^2026-11-28T10:00:00/)
      expect(ld.startDate).toMatch(/^2027-01-15T19:00:00/)
    })

    it('online and mixed events: a VirtualLocation in JSON-LD, CONFERENCE in iCalendar, an http(s) URL or a 400', async () => {
      const app = await open(makeStorage)
      const venue = (await app.post('/venues', { venue: 'Hall', status: 'publish' }, { as: 'administrator' })).body
      const online = await app.seed({ title: 'Webinar', attendance_mode: 'online', virtual_url: 'https://meet.example.com/abc' })
      const ldOnline = (await app.get(`/events/${online.id}`)).body.json_ld
      expect(ldOnline.eventAttendanceMode).toBe('https://schema.org/OnlineEventAttendanceMode')
      expect(ldOnline.location).toEqual({ '@type': 'VirtualLocation', url: 'https://meet.example.com/abc' })
      const ics = await vevent(app, online.id)
      const conference = ics.getFirstProperty('conference')
      expect(conference?.getFirstValue()).toBe('https://meet.example.com/abc')
      const mixed = await app.seed({
        title: 'Hybrid',
        venue: venue.id,
        attendance_mode: 'mixed',
        virtual_url: 'https://meet.example.com/h',
      })
      const ldMixed = (await app.get(`/events/${mixed.id}`)).body.json_ld
      expect(ldMixed.eventAttendanceMode).toBe('https://schema.org/MixedEventAttendanceMode')
      expect(ldMixed.location.map((l: { '@type': string }) => l['@type'])).toEqual(['Place', 'VirtualLocation'])
      for (const url of ['ftp://meet.example.com', 'javascript:alert(1)', 'meet.example.com']) {
        const res = await app.patch(`/events/${mixed.id}`, { virtual_url: url }, { as: 'administrator' })
        expect(res.status, url).toBe(400)
        expect(Object.keys(res.body.data.params)).toEqual(['virtual_url'])
      }
      const cleared = await app.patch(`/events/${mixed.id}`, { virtual_url: '', attendance_mode: 'offline' }, { as: 'administrator' })
      expect(cleared.body).toMatchObject({ virtual_url: null, attendance_mode: 'offline' })
      expect((await app.get(`/events/${mixed.id}`)).body.json_ld.location['@type']).toBe('Place')
    })
  })
}
