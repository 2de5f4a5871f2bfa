/**
 * URL fields (issue 38, finding 5) over HTTP on every backend: what is stored is the URL
 * standard's serialization of what was sent (`new URL(x).href`, a bare origin keeping no
 * trailing slash), so `"`, `<`, `>`, spaces and the like are percent-encoded; a URL holding a
 * control character (CR, LF, tab, NUL, DEL...) is refused with a 400 naming the field, since the
 * URL parser would silently drop or trim it and store something other than what was sent.
 * Every URL field: an event's website, virtual_url and image, a venue's and an organizer's
 * website (on their own and created inside an event), and custom fields of type url; on create
 * and on update.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import type { Storage } from '../../storage/types.js'
import type { CalendarOptions } from '../../options.js'
import { expectInvalid, makeApp, type App } from './harness.js'

export const OPTIONS: CalendarOptions = { customFields: [{ key: 'ticket_url', label: 'Tickets', type: 'url', for: ['event', 'venue'] }] }

export async function open(makeStorage: () => Storage | Promise<Storage>): Promise<App> {
  const app = await makeApp(makeStorage, OPTIONS)
  onTestFinished(() => app.close())
  return app
}

const EVENT = { title: 'Linked', start_date: '2026-12-01 19:00', end_date: '2026-12-01 21:00', status: 'publish' }

export interface Field {
  name: string
  /** The parameter a refusal names. */
  param: string
  /** What its message says of a control character (a venue made inside an event: TEC's message, naming the field). */
  says?: RegExp
  /** Creates a record with this URL (the raw response). */
  write: (app: App, url: string) => ReturnType<App['post']>
  /** Updates the created record with this URL (the raw response). */
  update: (app: App, created: any, url: string) => ReturnType<App['post']>
  /** The URL as a read of the created record shows it. */
  read: (app: App, created: any) => Promise<unknown>
}

const eventRead = (pick: (e: any) => unknown) => async (app: App, created: any) =>
  pick((await app.get(`/events/${created.id}`, { as: 'administrator' })).body)

export const FIELDS: Field[] = [
  {
    name: 'event website',
    param: 'website',
    write: (app, url) => app.post('/events', { ...EVENT, website: url }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/events/${created.id}`, { website: url }, { as: 'administrator' }),
    read: eventRead((e) => e.website),
  },
  {
    name: 'event virtual_url',
    param: 'virtual_url',
    write: (app, url) => app.post('/events', { ...EVENT, attendance_mode: 'online', virtual_url: url }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/events/${created.id}`, { virtual_url: url }, { as: 'administrator' }),
    read: eventRead((e) => e.virtual_url),
  },
  {
    name: 'event image',
    param: 'image',
    write: (app, url) => app.post('/events', { ...EVENT, image: url }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/events/${created.id}`, { image: url }, { as: 'administrator' }),
    read: eventRead((e) => e.image.url),
  },
  {
    name: 'event custom field of type url',
    param: 'custom_fields[ticket_url]',
    write: (app, url) => app.post('/events', { ...EVENT, custom_fields: { ticket_url: url } }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/events/${created.id}`, { custom_fields: { ticket_url: url } }, { as: 'administrator' }),
    read: eventRead((e) => e.custom_fields.ticket_url.value),
  },
  {
    name: 'venue website',
    param: 'website',
    write: (app, url) => app.post('/venues', { venue: 'Hall', status: 'publish', website: url }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/venues/${created.id}`, { website: url }, { as: 'administrator' }),
    read: async (app, created) => (await app.get(`/venues/${created.id}`, { as: 'administrator' })).body.website,
  },
  {
    name: 'venue custom field of type url',
    param: 'custom_fields[ticket_url]',
    write: (app, url) =>
      app.post('/venues', { venue: 'Hall', status: 'publish', custom_fields: { ticket_url: url } }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/venues/${created.id}`, { custom_fields: { ticket_url: url } }, { as: 'administrator' }),
    read: async (app, created) => (await app.get(`/venues/${created.id}`, { as: 'administrator' })).body.custom_fields.ticket_url.value,
  },
  {
    name: 'organizer website',
    param: 'website',
    write: (app, url) => app.post('/organizers', { organizer: 'Crew', status: 'publish', website: url }, { as: 'administrator' }),
    update: (app, created, url) => app.post(`/organizers/${created.id}`, { website: url }, { as: 'administrator' }),
    read: async (app, created) => (await app.get(`/organizers/${created.id}`, { as: 'administrator' })).body.website,
  },
  {
    name: 'venue website, created inside an event',
    param: 'venue',
    says: /^The venue could not be created from the provided data: Invalid parameter\(s\): website$/,
    write: (app, url) => app.post('/events', { ...EVENT, venue: { venue: 'Inline hall', website: url } }, { as: 'administrator' }),
    // The event moves to another venue made inside the update.
    update: (app, created, url) =>
      app.post(`/events/${created.id}`, { venue: { venue: 'Another hall', website: url } }, { as: 'administrator' }),
    read: async (app, created) => {
      const e = (await app.get(`/events/${created.id}`, { as: 'administrator' })).body
      return (await app.get(`/venues/${e.venue.id}`, { as: 'administrator' })).body.website
    },
  },
]

export function urlFieldsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`URL fields [${name}]`, () => {
    it.each(FIELDS)('$name: stored in its serialized form', async (field) => {
      const app = await open(makeStorage)
      const sent = 'https://Tickets.EXAMPLE/a b/"quoted"/<tag>?q=<x>&r="y" z#frag`<>'
      const res = await field.write(app, sent)
      expect(res.status, res.text).toBe(201)
      const stored = await field.read(app, res.body)
      expect(stored).toBe('https://tickets.example/a%20b/%22quoted%22/%3Ctag%3E?q=%3Cx%3E&r=%22y%22%20z#frag%60%3C%3E')
      // A bare origin keeps no slash (the same URL; what sites show), and serializing is stable.
      const bare = await field.write(app, 'https://Plain.example')
      expect(await field.read(app, bare.body)).toBe('https://plain.example')
      const again = await field.write(app, stored as string)
      expect(await field.read(app, again.body)).toBe(stored)
    })

    it.each(FIELDS)('$name: on update too, stored serialized; a control character is a 400 and the stored URL stays', async (field) => {
      const app = await open(makeStorage)
      const made = await field.write(app, 'https://first.example/a')
      expect(made.status, made.text).toBe(201)
      const res = await field.update(app, made.body, 'https://Second.EXAMPLE/a b/"q"/<t>')
      expect(res.status, res.text).toBe(200)
      const stored = 'https://second.example/a%20b/%22q%22/%3Ct%3E'
      expect(await field.read(app, made.body)).toBe(stored)
      for (const sent of ['https://x.test/\r\nX-INJ:1', 'https://x.test/a\tb', 'https://x.test/\u007f']) {
        const bad = await field.update(app, made.body, sent)
        expectInvalid(bad, [field.param])
        expect(bad.body.data.params[field.param], JSON.stringify(sent)).toMatch(field.says ?? /control character/)
      }
      expect(await field.read(app, made.body)).toBe(stored)
    })

    it.each(FIELDS)('$name: a control character is a 400 naming the field, and nothing is stored', async (field) => {
      const app = await open(makeStorage)
      for (const sent of [
        'https://x.test/\r\nX-INJ:1',
        'https://x.test/a\tb',
        '\nhttps://x.test/',
        'https://x.test/\u007f',
        ' https://x.test/\u001b',
      ]) {
        const res = await field.write(app, sent)
        expectInvalid(res, [field.param])
        expect(res.body.data.params[field.param], JSON.stringify(sent)).toMatch(field.says ?? /control character/)
      }
      // NUL, in any parameter, is refused before any field looks at it (WordPress's rule): the
      // 400 names the parameter that holds it.
      expectInvalid(await field.write(app, 'https://x.test/\u0000'), [field.param.replace(/\[.*$/, '')])
      expect((await app.get('/events', { as: 'administrator' })).body.total ?? 0).toBe(0)
    })
  })
}
