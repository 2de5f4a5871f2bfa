/**
 * Custom fields (the `customFields` option, docs/custom-fields.md) over HTTP on every backend:
 * each type written, refused, cleared and partly updated; TEC's read shape and the round trip of
 * a read; the list filter (values of a key ORed, keys ANDed, with other filters and paging);
 * search over text values; a removed declaration; series; the HTML filter of textareas per role;
 * discovery and /doc; iCalendar (ical.js); sync and onChange seeing edits, not no-ops.
 */
import { expect } from './expect.js'
import { onTestFinished, type SuiteApi } from './api.js'
import ICAL from 'ical.js'
import type { Storage } from '../../storage/types.js'
import type { CalendarOptions } from '../../options.js'
import type { Change } from '../../cache/observed.js'
import { NS, expectInvalid, makeApp, type App } from './harness.js'

const FIELDS: NonNullable<CalendarOptions['customFields']> = [
  { key: 'ticket_url', label: 'Tickets', type: 'url' },
  { key: 'notes', label: 'Notes', type: 'textarea' },
  { key: 'dress', label: 'Dress code', type: 'text' },
  { key: 'contact', label: 'Contact', type: 'email' },
  { key: 'capacity', label: 'Capacity', type: 'number' },
  { key: 'doors', label: 'Doors open', type: 'date' },
  { key: 'accessible', label: 'Step-free', type: 'checkbox', for: ['event', 'venue'] },
  { key: 'genre', label: 'Genre', type: 'dropdown', options: ['jazz', 'folk', 'rock'] },
  { key: 'seating', label: 'Seating', type: 'radio', options: ['seated', 'standing'] },
  { key: 'parking', label: 'Parking', type: 'text', for: 'venue' },
]

async function open(makeStorage: () => Storage | Promise<Storage>, options: CalendarOptions = {}): Promise<App> {
  const app = await makeApp(makeStorage, { customFields: FIELDS, ...options })
  onTestFinished(() => app.close())
  return app
}

const ids = (res: { body: { events?: Array<{ id: number }> } }) => (res.body.events ?? []).map((e) => e.id).sort((a, b) => a - b)
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)

export function customFieldsSuite(t: SuiteApi, name: string, makeStorage: () => Storage | Promise<Storage>) {
  const { describe, it } = t
  describe(`custom fields [${name}]`, () => {
    it('stores every type and reads it in TEC’s shape; an event without values reads []', async () => {
      const app = await open(makeStorage)
      const plain = await app.seed({ title: 'Plain' })
      expect(plain.custom_fields).toEqual([])
      const e = await app.seed({
        title: 'Full',
        custom_fields: {
          ticket_url: 'https://tickets.example/42',
          notes: '<p>Bring <strong>boots</strong></p>',
          dress: 'Smart',
          contact: 'box@example.org',
          capacity: 120.5,
          doors: '2026-11-28',
          accessible: true,
          genre: 'jazz',
          seating: 'standing',
        },
      })
      expect(e.custom_fields).toEqual({
        ticket_url: { label: 'Tickets', value: 'https://tickets.example/42' },
        notes: { label: 'Notes', value: '<p>Bring <strong>boots</strong></p>' },
        dress: { label: 'Dress code', value: 'Smart' },
        contact: { label: 'Contact', value: 'box@example.org' },
        capacity: { label: 'Capacity', value: 120.5 },
        doors: { label: 'Doors open', value: '2026-11-28' },
        accessible: { label: 'Step-free', value: true },
        genre: { label: 'Genre', value: 'jazz' },
        seating: { label: 'Seating', value: 'standing' },
      })
      // Declaration order, whatever order they were sent in.
      expect(Object.keys(e.custom_fields)).toEqual(FIELDS.filter((f) => !f.for || f.for !== 'venue').map((f) => f.key))
      expect((await app.get(`/events/${e.id}`)).body.custom_fields).toEqual(e.custom_fields)
      // Form bodies carry numbers and checkboxes as text.
      const form = await app.post(
        '/events',
        { title: 'Form', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00', custom_fields: { capacity: '12', accessible: '0' } },
        { as: 'administrator', form: true },
      )
      expect(form.status, form.text).toBe(201)
      expect(form.body.custom_fields).toEqual({
        capacity: { label: 'Capacity', value: 12 },
        accessible: { label: 'Step-free', value: false },
      })
    })

    it('refuses a wrong value or an undeclared key with a 400 naming custom_fields[key], and writes nothing', async () => {
      const app = await open(makeStorage)
      const bad: Array<[string, unknown]> = [
        ['ticket_url', 'javascript:alert(1)'],
        ['ticket_url', 'ftp://files.example/x'],
        ['contact', 'not-an-email'],
        ['capacity', 'many'],
        ['capacity', true],
        ['doors', '2026-02-30'],
        ['doors', 'next friday'],
        ['accessible', 'maybe'],
        ['genre', 'polka'],
        ['seating', 'SEATED'],
        ['dress', 42],
        ['notes', { html: true }],
        ['nope', 'x'],
        ['parking', 'P1'], // a venue's field, not an event's
      ]
      for (const [key, value] of bad) {
        const res = await app.post(
          '/events',
          { title: 'Bad', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00', custom_fields: { [key]: value } },
          { as: 'administrator' },
        )
        expectInvalid(res, [`custom_fields[${key}]`])
        expect(res.body.data.params[`custom_fields[${key}]`]).toMatch(new RegExp(`^custom_fields\\[${key}\\] `))
      }
      expectInvalid(
        await app.post(
          '/events',
          { title: 'Bad', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00', custom_fields: 'x' },
          { as: 'administrator' },
        ),
        ['custom_fields'],
      )
      expect(Number((await app.get('/events?start_date=2000-01-01', { as: 'administrator' })).headers.get('x-wp-total'))).toBe(0)
      const e = await app.seed({ custom_fields: { genre: 'folk' } })
      expectInvalid(await app.patch(`/events/${e.id}`, { custom_fields: { genre: 'polka' } }, { as: 'administrator' }), [
        'custom_fields[genre]',
      ])
      expect((await app.get(`/events/${e.id}`)).body.custom_fields).toEqual({ genre: { label: 'Genre', value: 'folk' } })
    })

    it('updates partly: a key not sent keeps its value, null and "" clear it', async () => {
      const app = await open(makeStorage)
      const e = await app.seed({ custom_fields: { genre: 'folk', capacity: 10, dress: 'Casual', ticket_url: 'https://t.example/1' } })
      const one = await app.patch(`/events/${e.id}`, { custom_fields: { capacity: 11 } }, { as: 'administrator' })
      expect(one.body.custom_fields).toEqual({
        ticket_url: { label: 'Tickets', value: 'https://t.example/1' },
        dress: { label: 'Dress code', value: 'Casual' },
        capacity: { label: 'Capacity', value: 11 },
        genre: { label: 'Genre', value: 'folk' },
      })
      const cleared = await app.patch(
        `/events/${e.id}`,
        { custom_fields: { capacity: null, dress: '', genre: null } },
        { as: 'administrator' },
      )
      expect(cleared.body.custom_fields).toEqual({ ticket_url: { label: 'Tickets', value: 'https://t.example/1' } })
      const other = await app.patch(`/events/${e.id}`, { title: 'Renamed' }, { as: 'administrator' })
      expect(other.body.custom_fields).toEqual(cleared.body.custom_fields)
      const all = await app.patch(`/events/${e.id}`, { custom_fields: { ticket_url: null } }, { as: 'administrator' })
      expect(all.body.custom_fields).toEqual([])
    })

    it('a read sent back, or unchanged values, change nothing: no modified, no onChange; a real edit is a change sync sees', async () => {
      const seen: Change[] = []
      const app = await open(makeStorage, { onChange: (c) => void seen.push(c) })
      const e = await app.seed({ custom_fields: { genre: 'rock', capacity: 300, ticket_url: 'https://t.example/2' } })
      const start = await app.get(`/events?sync_token=*`, { as: 'administrator' })
      expect(start.status, start.text).toBe(200)
      const token = start.body.sync_token as string
      const read = await app.get(`/events/${e.id}`, { as: 'administrator' })
      seen.length = 0
      const put = await app.put(`/events/${e.id}`, read.body, { as: 'administrator' })
      expect(put.status, put.text).toBe(200)
      expect(put.body.modified).toBe(read.body.modified)
      expect(put.body.custom_fields).toEqual(read.body.custom_fields)
      const same = await app.patch(`/events/${e.id}`, { custom_fields: { genre: 'rock', capacity: '300' } }, { as: 'administrator' })
      expect(same.body.modified).toBe(read.body.modified)
      expect(seen).toEqual([])
      const quiet = await app.get(`/events?sync_token=${encodeURIComponent(token)}`, { as: 'administrator' })
      expect(quiet.body.events).toEqual([])

      const edit = await app.patch(`/events/${e.id}`, { custom_fields: { genre: 'jazz' } }, { as: 'administrator' })
      expect(edit.body.custom_fields.genre.value).toBe('jazz')
      expect(seen.length).toBe(1)
      const changed = await app.get(`/events?sync_token=${encodeURIComponent(token)}`, { as: 'administrator' })
      expect(changed.body.events.map((x: { id: number }) => x.id)).toEqual([e.id])
    })

    it('filters the list: exact match, values of one key ORed, keys ANDed, with other filters and paging', async () => {
      const app = await open(makeStorage)
      const a = await app.seed({ title: 'A', custom_fields: { genre: 'jazz', accessible: true, capacity: 100 }, featured: true })
      const b = await app.seed({ title: 'B', custom_fields: { genre: 'folk', accessible: true, capacity: 100.0 } })
      const c = await app.seed({ title: 'C', custom_fields: { genre: 'jazz', accessible: false } })
      const d = await app.seed({ title: 'D', custom_fields: { genre: 'rock', dress: 'Smart, black tie' } })
      await app.seed({ title: 'E' })
      expect(ids(await app.get('/events?custom_fields[genre]=jazz'))).toEqual(sorted([a.id, c.id]))
      expect(ids(await app.get('/events?custom_fields[genre][]=jazz&custom_fields[genre][]=folk'))).toEqual(sorted([a.id, b.id, c.id]))
      expect(ids(await app.get('/events?custom_fields[genre]=jazz&custom_fields[accessible]=1'))).toEqual([a.id])
      expect(ids(await app.get('/events?custom_fields[accessible]=false'))).toEqual([c.id])
      expect(ids(await app.get('/events?custom_fields[capacity]=100.0'))).toEqual(sorted([a.id, b.id]))
      // A comma is part of a value, not a list.
      expect(ids(await app.get(`/events?custom_fields[dress]=${encodeURIComponent('Smart, black tie')}`))).toEqual([d.id])
      expect(ids(await app.get('/events?custom_fields[dress]=Smart'))).toEqual([])
      expect(ids(await app.get('/events?custom_fields[genre]=jazz&featured=1'))).toEqual([a.id])
      expect(ids(await app.get('/events?custom_fields[genre]=rock&search=tie'))).toEqual([d.id])
      expect(ids(await app.get('/events?custom_fields[genre]=jazz&search=tie'))).toEqual([])
      const page1 = await app.get('/events?custom_fields[genre][]=jazz&custom_fields[genre][]=folk&per_page=2')
      expect(page1.headers.get('x-wp-total')).toBe('3')
      expect(page1.body.events.length).toBe(2)
      expect(page1.body.next_rest_url).toContain('custom_fields')
      const page2 = await app.get('/events?custom_fields[genre][]=jazz&custom_fields[genre][]=folk&per_page=2&page=2')
      expect(page2.body.events.length).toBe(1)
      expect(sorted([...ids(page1), ...ids(page2)])).toEqual(sorted([a.id, b.id, c.id]))
      expectInvalid(await app.get('/events?custom_fields[nope]=1'), ['custom_fields[nope]'])
      expectInvalid(await app.get('/events?custom_fields[genre]=polka'), ['custom_fields[genre]'])
      expectInvalid(await app.get('/events?custom_fields[capacity]=lots'), ['custom_fields[capacity]'])
      expectInvalid(await app.get('/events?custom_fields=jazz'), ['custom_fields'])
    })

    it('filters series by custom fields and shares them across a series edited with scope all', async () => {
      const app = await open(makeStorage)
      const s = await app.seed({ title: 'Weekly', recurrence: 'FREQ=WEEKLY;COUNT=3', custom_fields: { genre: 'folk' } })
      const members = await app.get('/events?custom_fields[genre]=folk')
      expect(members.body.events.length).toBe(3)
      const edit = await app.patch(
        `/events/${s.id}`,
        { custom_fields: { genre: 'rock' }, recurrence_scope: 'all' },
        { as: 'administrator' },
      )
      expect(edit.status, edit.text).toBe(200)
      const after = await app.get('/events?custom_fields[genre]=rock')
      expect(after.body.events.length).toBe(3)
      for (const ev of after.body.events) expect(ev.custom_fields.genre.value).toBe('rock')
      expect((await app.get('/events?custom_fields[genre]=folk')).body.events).toEqual([])
    })

    it('search finds text values', async () => {
      const app = await open(makeStorage)
      const e = await app.seed({ title: 'Evening', custom_fields: { notes: '<p>Bring your own kazoo</p>', dress: 'Velvet tuxedo' } })
      await app.seed({ title: 'Other', description: 'nothing here' })
      expect(ids(await app.get('/events?search=kazoo'))).toEqual([e.id])
      expect(ids(await app.get('/events?search=velvet%20tux'))).toEqual([e.id])
      await app.patch(`/events/${e.id}`, { custom_fields: { notes: null } }, { as: 'administrator' })
      expect(ids(await app.get('/events?search=kazoo'))).toEqual([])
    })

    it('a removed declaration hides its values and refuses its filter; declared again, they are back', async () => {
      const storage = await makeStorage()
      const first = await makeApp(() => storage, { customFields: FIELDS })
      onTestFinished(() => first.close())
      const e = await first.seed({ custom_fields: { genre: 'jazz', capacity: 5 } })
      const without = await makeApp(() => storage, { customFields: FIELDS.filter((f) => f.key !== 'genre') })
      expect((await without.get(`/events/${e.id}`)).body.custom_fields).toEqual({ capacity: { label: 'Capacity', value: 5 } })
      expectInvalid(await without.get('/events?custom_fields[genre]=jazz'), ['custom_fields[genre]'])
      // An update of another key keeps the hidden value.
      await without.patch(`/events/${e.id}`, { custom_fields: { capacity: 6 } }, { as: 'administrator' })
      const none = await makeApp(() => storage, {})
      expect((await none.get(`/events/${e.id}`)).body.custom_fields).toEqual([])
      const again = await makeApp(() => storage, { customFields: FIELDS })
      expect((await again.get(`/events/${e.id}`)).body.custom_fields).toEqual({
        capacity: { label: 'Capacity', value: 6 },
        genre: { label: 'Genre', value: 'jazz' },
      })
      expect(ids(await again.get('/events?custom_fields[genre]=jazz'))).toEqual([e.id])
    })

    it('filters textarea and text HTML by role, like descriptions and titles', async () => {
      const app = await open(makeStorage)
      const html = '<p onclick="x()">Hi <script>alert(1)</script><em>there</em></p>'
      const byAuthor = await app.post(
        '/events',
        {
          title: 'Mine',
          start_date: '2026-12-01 10:00',
          end_date: '2026-12-01 11:00',
          custom_fields: { notes: html, dress: '<p>Smart</p>' },
        },
        { as: 'author' },
      )
      expect(byAuthor.status, byAuthor.text).toBe(201)
      const notes = byAuthor.body.custom_fields.notes.value as string
      expect(notes).not.toContain('script')
      expect(notes).not.toContain('onclick')
      expect(notes).toContain('<em>there</em>')
      expect(byAuthor.body.custom_fields.dress.value).toBe('Smart')
      const byAdmin = await app.seed({ custom_fields: { notes: html } })
      expect(byAdmin.custom_fields.notes.value).toBe(html)
    })

    it('venues and organizers: fields declared for them only', async () => {
      const app = await open(makeStorage)
      const v = await app.post('/venues', { venue: 'Hall', custom_fields: { parking: 'Lot B', accessible: true } }, { as: 'administrator' })
      expect(v.status, v.text).toBe(201)
      expect(v.body.custom_fields).toEqual({
        accessible: { label: 'Step-free', value: true },
        parking: { label: 'Parking', value: 'Lot B' },
      })
      expectInvalid(await app.post('/venues', { venue: 'Hall 2', custom_fields: { genre: 'jazz' } }, { as: 'administrator' }), [
        'custom_fields[genre]',
      ])
      const upd = await app.patch(`/venues/${v.body.id}`, { custom_fields: { parking: null } }, { as: 'administrator' })
      expect(upd.body.custom_fields).toEqual({ accessible: { label: 'Step-free', value: true } })
      const o = await app.post('/organizers', { organizer: 'Org', custom_fields: { parking: 'x' } }, { as: 'administrator' })
      expect(o.status, o.text).toBe(201) // organizers declare none: the key is ignored like any unknown one
      expect(o.body.custom_fields).toBeUndefined()
    })

    it('a required field must be given on create and cannot be cleared', async () => {
      const app = await open(makeStorage, { customFields: [{ key: 'room', label: 'Room', type: 'text', required: true }] })
      expectInvalid(
        await app.post('/events', { title: 'X', start_date: '2026-12-01 10:00', end_date: '2026-12-01 11:00' }, { as: 'administrator' }),
        ['custom_fields[room]'],
      )
      const e = await app.seed({ custom_fields: { room: 'B2' } })
      expectInvalid(await app.patch(`/events/${e.id}`, { custom_fields: { room: null } }, { as: 'administrator' }), ['custom_fields[room]'])
      expect((await app.patch(`/events/${e.id}`, { title: 'Y' }, { as: 'administrator' })).status).toBe(200)
    })

    it('discovery and /doc type each declared field', async () => {
      const app = await open(makeStorage)
      const doc = (await app.get('/doc')).body
      const event = doc.components.schemas.Event.properties.custom_fields
      const shown = event.anyOf.find((s: { type: string }) => s.type === 'object')
      expect(shown.properties.ticket_url.properties.value).toEqual({ type: 'string', format: 'uri' })
      expect(shown.properties.capacity.properties.value).toEqual({ type: 'number' })
      expect(shown.properties.genre.properties.value).toEqual({ type: 'string', enum: ['jazz', 'folk', 'rock'] })
      expect(shown.properties.parking).toBeUndefined()
      expect(doc.components.schemas.Venue.properties.custom_fields.anyOf[0].properties.parking).toBeDefined()
      expect(doc.components.schemas.Organizer.properties.custom_fields).toBeUndefined()
      const list = doc.paths['/events'].get.parameters.find((p: { name: string }) => p.name === 'custom_fields')
      expect(list.schema.properties.accessible.anyOf[0]).toMatchObject({ type: 'boolean' })
      const index = (await app.get('/')).body
      const args = index.routes[`/${NS}/events`].endpoints.find((x: { methods: string[] }) => x.methods.includes('POST')).args
      expect(args.custom_fields.properties.ticket_url.anyOf[0]).toEqual({ type: 'string', format: 'uri' })
    })

    it('iCalendar shows URL fields: a line of the description and a LINK each', async () => {
      const app = await open(makeStorage)
      const e = await app.seed({
        description: 'Great show',
        custom_fields: { ticket_url: 'https://tickets.example/7?a=1&b=2', genre: 'jazz' },
      })
      const res = await app.get(`/events/${e.id}?format=ics`)
      expect(res.status, res.text).toBe(200)
      const vevent = new ICAL.Component(ICAL.parse(res.text)).getFirstSubcomponent('vevent')!
      expect(vevent.getFirstPropertyValue('description')).toBe('Great show\nTickets: https://tickets.example/7?a=1&b=2')
      const link = vevent.getFirstProperty('link')!
      expect(link.getFirstValue()).toBe('https://tickets.example/7?a=1&b=2')
      expect(link.getParameter('label')).toBe('Tickets')
      // A change of a URL field raises SEQUENCE: calendars take the new version.
      const seq = Number(vevent.getFirstPropertyValue('sequence'))
      await app.patch(`/events/${e.id}`, { custom_fields: { ticket_url: 'https://tickets.example/8' } }, { as: 'administrator' })
      const again = new ICAL.Component(ICAL.parse((await app.get(`/events/${e.id}?format=ics`)).text)).getFirstSubcomponent('vevent')!
      expect(Number(again.getFirstPropertyValue('sequence'))).toBeGreaterThan(seq)
    })
  })
}
