/**
 * Round-trip: what a GET returns, sent back unchanged as the body of PUT, PATCH or POST to the
 * same record, is accepted and changes nothing (no new modified, revision, journal entry or
 * onChange). Events with venue, organizers, terms, image, cost, status and a recurrence; venues,
 * organizers, categories and tags. A write of unknown keys only changes nothing either.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Change } from '../../cache/observed.js'
import type { Storage } from '../../storage/types.js'
import { makeApp, type App } from './harness.js'

async function open(makeStorage: () => Storage | Promise<Storage>, seen: Change[]): Promise<App> {
  const app = await makeApp(makeStorage, { onChange: (c) => void seen.push(c) })
  onTestFinished(() => app.close())
  return app
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

/** Sends the read back with each update method; the record must read the same after, and nothing be reported. */
async function roundTrip(app: App, seen: Change[], path: string) {
  const read = await app.get(path, { as: 'administrator' })
  expect(read.status).toBe(200)
  const head = await app.storage.journalHead()
  await tick()
  seen.length = 0
  for (const method of ['put', 'patch', 'post'] as const) {
    const res = await app[method](path, read.body, { as: 'administrator' })
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(200)
  }
  await tick()
  expect(seen, path).toEqual([])
  expect((await app.storage.readJournal(head, 10)).entries, path).toEqual([])
  const after = await app.get(path, { as: 'administrator' })
  expect(after.text).toBe(read.text)
  expect(after.headers.get('etag')).toBe(read.headers.get('etag'))
}

export function roundTripSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`round-trip of reads [${name}]`, () => {
    it('an event with venue, organizers, terms, image, cost, status and a series: its read sent back changes nothing', async () => {
      const seen: Change[] = []
      const app = await open(makeStorage, seen)
      const e = await app.seed({
        title: 'Round trip',
        description: '<p>Twice</p>',
        venue: { venue: 'Hall', city: 'Oslo' },
        organizer: [{ organizer: 'Org A' }, { organizer: 'Org B', email: 'b@example.com' }],
        categories: ['Music', 'Jazz'],
        tags: ['Loud'],
        cost: '$10 - $25',
        image: 'https://img.example.com/a.jpg',
        event_status: 'postponed',
        event_status_reason: 'Rain',
        attendance_mode: 'mixed',
        virtual_url: 'https://meet.example.com/x',
        recurrence: 'FREQ=WEEKLY;COUNT=3',
      })
      await roundTrip(app, seen, `/events/${e.id}`)
      // A later occurrence too (its read carries the series' recurrence).
      const later = (await app.get(`/events?post_parent=${e.id}`, { as: 'administrator' })).body.events[0]
      await roundTrip(app, seen, `/events/${later.id}`)
      const plain = await app.seed({ title: 'Plain' })
      await roundTrip(app, seen, `/events/${plain.id}`)
      await roundTrip(app, seen, `/events/by-slug/${plain.slug}`)
      await roundTrip(app, seen, `/venues/${e.venue.id}`)
      await roundTrip(app, seen, `/organizers/${e.organizer[0].id}`)
      await roundTrip(app, seen, `/categories/${e.categories[0].id}`)
      await roundTrip(app, seen, `/tags/${e.tags[0].id}`)
    })

    it('a write of unknown or unchanged parameters changes nothing; a real change still does', async () => {
      const seen: Change[] = []
      const app = await open(makeStorage, seen)
      const e = await app.seed({ title: 'Same' })
      await tick()
      seen.length = 0
      const before = await app.get(`/events/${e.id}`, { as: 'administrator' })
      const unknown = await app.patch(`/events/${e.id}`, { ticket_price_tier: 'gold', whatever: 1 }, { as: 'administrator' })
      expect(unknown.status).toBe(200)
      const same = await app.patch(`/events/${e.id}`, { title: 'Same' }, { as: 'administrator' })
      expect(same.status).toBe(200)
      await tick()
      expect(seen).toEqual([])
      expect((await app.get(`/events/${e.id}`, { as: 'administrator' })).body.modified).toBe(before.body.modified)
      const changed = await app.patch(`/events/${e.id}`, { title: 'Different' }, { as: 'administrator' })
      expect(changed.body.title).toBe('Different')
      await tick()
      expect(seen.map((c) => `${c.type}:${c.action}`)).toEqual(['event:update'])
      // image: false clears an image, as a read of an event without one shows.
      const withImage = await app.seed({ title: 'Pictured', image: 'https://img.example.com/b.jpg' })
      expect((await app.patch(`/events/${withImage.id}`, { image: false }, { as: 'administrator' })).body.image).toBe(false)
    })
  })
}
