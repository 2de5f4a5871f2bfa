/**
 * The JSON-LD of single reads (docs/wire-compatibility.md §2.5, §7.9) checked with a schema.org
 * validator from npm (@adobe/structured-data-validator, test/support/structured-data.ts): every
 * kind of event a calendar shows (scheduled, cancelled, postponed, rescheduled, online, mixed,
 * with venue, organizer, image and cost, free) and the venues and organizers read alone.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Storage } from '../../src/storage/types.js'
import { structuredDataIssues } from '../support/structured-data.js'
import { createOk, makeApp, type App } from './harness.js'

const admin = { as: 'administrator' as const }

async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage)
  onTestFinished(() => app.close())
  return app
}

/** A venue with every field JSON-LD shows, an organizer likewise, and the events below. */
async function world(app: App) {
  const venue = await createOk(app, '/venues', {
    venue: 'Harbour Hall',
    description: '<p>By the water</p>',
    address: '1 Quay Street',
    city: 'Springfield',
    state: 'IL',
    zip: '62701',
    country: 'United States',
    phone: '555-0100',
    website: 'https://hall.example.com',
    geo_lat: 39.8,
    geo_lng: -89.65,
    status: 'publish',
  })
  const organizer = await createOk(app, '/organizers', {
    organizer: 'Acme Concerts',
    description: '<p>Organizes things</p>',
    phone: '555-0199',
    website: 'https://acme.example.com',
    email: 'events@acme.example.com',
    status: 'publish',
  })
  const full = { venue: venue.id, organizer: [organizer.id], cost: '$10 - $25', image: 'https://img.example.com/poster.jpg' }
  const postponed = await app.seed({ title: 'Postponed', ...full, event_status: 'postponed', event_status_reason: 'Flooded' })
  const rescheduled = await app.seed({ title: 'Rescheduled', ...full, event_status: 'postponed' })
  const moved = await app.patch(`/events/${rescheduled.id}`, { start_date: '2027-01-15 19:00:00', end_date: '2027-01-15 21:00:00' }, admin)
  expect(moved.status, moved.text).toBe(200)
  const events = {
    scheduled: await app.seed({ title: 'Concert', excerpt: 'An evening of music', ...full }),
    canceled: await app.seed({ title: 'Cancelled', ...full, event_status: 'canceled', event_status_reason: 'Illness' }),
    postponed,
    rescheduled,
    online: await app.seed({ title: 'Webinar', attendance_mode: 'online', virtual_url: 'https://meet.example.com/abc', cost: 'Free' }),
    mixed: await app.seed({ title: 'Hybrid talk', ...full, attendance_mode: 'mixed', virtual_url: 'https://meet.example.com/h' }),
    bare: await app.seed({ title: 'Nothing but dates' }),
  }
  return { venue, organizer, events }
}

const STATUS = {
  scheduled: 'EventScheduled',
  canceled: 'EventCancelled',
  postponed: 'EventPostponed',
  rescheduled: 'EventRescheduled',
  online: 'EventScheduled',
  mixed: 'EventScheduled',
  bare: 'EventScheduled',
} as const

export function jsonLdSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  describe(`JSON-LD against schema.org [${name}]`, () => {
    it('every kind of event validates, with the status, attendance mode and location schema.org names', async () => {
      const app = await open(makeStorage)
      const { events } = await world(app)
      for (const [kind, event] of Object.entries(events) as Array<[keyof typeof STATUS, { id: number }]>) {
        const ld = (await app.get(`/events/${event.id}`)).body.json_ld
        expect(await structuredDataIssues(ld), `${kind}: ${JSON.stringify(ld)}`).toEqual([])
        expect(ld).toMatchObject({ '@type': 'Event', eventStatus: `https://schema.org/${STATUS[kind]}` })
        const mode = kind === 'online' ? 'Online' : kind === 'mixed' ? 'Mixed' : 'Offline'
        expect(ld.eventAttendanceMode).toBe(`https://schema.org/${mode}EventAttendanceMode`)
        const locations = [ld.location ?? []].flat().map((l: { '@type': string }) => l['@type'])
        expect(locations, kind).toEqual(
          kind === 'online' ? ['VirtualLocation'] : kind === 'mixed' ? ['Place', 'VirtualLocation'] : kind === 'bare' ? [] : ['Place'],
        )
        if (kind === 'rescheduled') expect(ld.previousStartDate).toMatch(/^2026-11-28T10:00:00[+-]\d\d:\d\d$/)
        else expect(ld.previousStartDate).toBeUndefined()
        expect(ld.startDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/)
      }
    })

    it('the full event carries its place, organizer, image and offer, all valid', async () => {
      const app = await open(makeStorage)
      const { events } = await world(app)
      const ld = (await app.get(`/events/${events.scheduled.id}`)).body.json_ld
      expect(ld).toMatchObject({
        '@context': 'http://schema.org',
        name: 'Concert',
        image: 'https://img.example.com/poster.jpg',
        location: { '@type': 'Place', name: 'Harbour Hall', geo: { '@type': 'GeoCoordinates', latitude: 39.8, longitude: -89.65 } },
        organizer: { '@type': 'Person', name: 'Acme Concerts', email: 'events@acme.example.com' },
        offers: { '@type': 'Offer', price: '10', priceCurrency: 'USD' },
      })
      expect(ld.location.address).toMatchObject({ '@type': 'PostalAddress', addressLocality: 'Springfield', postalCode: '62701' })
    })

    it('an offer in pounds or euros names its currency; a dollar or unknown symbol stays TEC’s USD', async () => {
      const app = await open(makeStorage)
      const when = { start_date: '2026-12-05 19:00:00', end_date: '2026-12-05 21:00:00', status: 'publish' }
      const cases: Array<[string | undefined, string]> = [
        ['£', 'GBP'],
        ['€', 'EUR'],
        ['$', 'USD'],
        ['Kr', 'USD'],
        [undefined, 'USD'],
      ]
      for (const [symbol, code] of cases) {
        // The symbol comes with the cost, as TEC reads it (a prefix here).
        const body = { title: `Priced ${symbol ?? 'plain'}`, cost: `${symbol ?? ''}12`, ...when }
        const made = await app.post('/events', body, { as: 'administrator' })
        expect(made.status, made.text).toBe(201)
        const ld = (await app.get(`/events/${made.body.id}`)).body.json_ld
        expect(ld.offers.priceCurrency, String(symbol)).toBe(code)
        expect(await structuredDataIssues(ld)).toEqual([])
      }
    })

    it('a venue and an organizer read alone validate too', async () => {
      const app = await open(makeStorage)
      const { venue, organizer } = await world(app)
      for (const path of [`/venues/${venue.id}`, `/organizers/${organizer.id}`]) {
        const ld = (await app.get(path)).body.json_ld
        expect(ld, path).toBeDefined()
        expect(await structuredDataIssues(ld), `${path}: ${JSON.stringify(ld)}`).toEqual([])
      }
    })

    it('the validator is not a rubber stamp: it names an unknown type and a property its type lacks', async () => {
      const issues = await structuredDataIssues({ '@context': 'http://schema.org', '@type': 'Event', name: 'x', startTime: '2026-01-01' })
      expect(issues.map((i) => i.fieldNames)).toEqual([['startTime']])
      expect(await structuredDataIssues({ '@type': 'Happening', name: 'x' })).toMatchObject([{ severity: 'ERROR', fieldNames: ['@type'] }])
      const nested = await structuredDataIssues({ '@type': 'Event', name: 'x', location: { '@type': 'Place', hall: 'B' } })
      expect(nested.map((i) => i.fieldNames)).toEqual([['hall']])
    })
  })
}
