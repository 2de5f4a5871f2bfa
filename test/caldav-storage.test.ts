/**
 * The CalDAV face on each storage backend (memory, SQLite, PostgreSQL), in process: what depends
 * on the backend's transactions and journal. test/caldav-protocol.test.ts covers the protocol on
 * memory; test/caldav-clients.test.ts runs real clients against the example server.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { API, authenticate, NOW, ORIGIN } from './http/harness.js'
import { admin, reason, schemaStorage, url as pgUrl } from './support/pg-schema.js'

const dir = mkdtempSync(join(tmpdir(), 'calendar-caldav-storage-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(() => admin?.end())
let n = 0

const CAL = `${ORIGIN}/caldav/calendars/en/`

const BACKENDS: Array<[string, () => Promise<Storage>]> = [
  ['memory', async () => createMemoryStorage()],
  [
    'SQLite',
    async () => {
      const file = join(dir, `caldav-${++n}.sqlite`)
      return Object.assign(createSqlStorage({ driver: await openSqliteFile(file) }), { file })
    },
  ],
]
if (pgUrl) BACKENDS.push(['PostgreSQL', () => schemaStorage()])
// Skip reason: no PostgreSQL server here (outside CI only; in CI the globalSetup fails instead).
else describe.skip(`CalDAV on PostgreSQL: ${reason}`, () => {})

/**
 * Two routers on one store, as two processes on one database: on SQLite the file opened twice,
 * on PostgreSQL the schema through a second pool, on memory the one store.
 */
async function twins(make: () => Promise<Storage>): Promise<[CalendarRouter, CalendarRouter]> {
  const storage = await make()
  onTestFinished(() => storage.close?.())
  let other = storage
  const file = (storage as { file?: string }).file
  const schema = (storage as { schema?: string }).schema
  if (file || schema) {
    other = file ? createSqlStorage({ driver: await openSqliteFile(file) }) : await schemaStorage(schema)
    onTestFinished(() => other.close?.())
  }
  const options = { authenticate, now: () => new Date(NOW), caldav: true, onError: (e: unknown) => console.error(e) }
  return [createCalendarRouter(storage, options), createCalendarRouter(other, options)]
}

async function app(make: () => Promise<Storage>) {
  const storage = await make()
  onTestFinished(() => storage.close?.())
  return createCalendarRouter(storage, { authenticate, now: () => new Date(NOW), caldav: true, onError: (e) => console.error(e) })
}

async function dav(router: CalendarRouter, method: string, href: string, body?: string, headers: Record<string, string> = {}) {
  const res = await router.fetch(
    new Request(href.startsWith('http') ? href : `${ORIGIN}${href}`, {
      method,
      headers: {
        authorization: 'Bearer administrator',
        ...(body !== undefined && method === 'PUT' ? { 'content-type': 'text/calendar' } : {}),
        ...headers,
      },
      body,
    }),
  )
  return { status: res.status, headers: res.headers, text: await res.text() }
}

async function rest(router: CalendarRouter, method: string, path: string, body?: unknown) {
  const res = await router.fetch(
    new Request(`${API}${path}`, {
      method,
      headers: { authorization: 'Bearer administrator', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  return { status: res.status, body: (await res.json()) as any }
}

const hrefs = (xml: string) => [...xml.matchAll(/<d:response><d:href>([^<]*)<\/d:href>/g)].map((m) => m[1])

const QUERY = (start: string, end: string) =>
  `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${start}" end="${end}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`

const SYNC = (token: string) =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`

export const ics = (uid: string, lines: string[], extra: string[] = []) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    ...lines,
    'END:VEVENT',
    ...extra,
    'END:VCALENDAR',
    '',
  ].join('\r\n')

describe.each(BACKENDS)('CalDAV on %s', (_name, make) => {
  it('If-Match is checked in the transaction that writes: of racing PUTs with one ETag exactly one wins', { timeout: 60_000 }, async () => {
    const router = await app(make)
    const body = ics('race@x', ['DTSTART:20270105T180000Z', 'DTEND:20270105T200000Z', 'SUMMARY:Start'])
    expect((await dav(router, 'PUT', `${CAL}race.ics`, body)).status).toBe(201)
    const got = await dav(router, 'GET', `${CAL}race.ics`)
    const etag = got.headers.get('etag')!
    const racers = ['One', 'Two', 'Three', 'Four']
    const answers = await Promise.all(
      racers.map((title) =>
        dav(router, 'PUT', `${CAL}race.ics`, got.text.replace('SUMMARY:Start', `SUMMARY:${title}`), { 'if-match': etag }),
      ),
    )
    const statuses = answers.map((a) => a.status)
    expect(
      statuses.filter((s) => s === 204),
      statuses.join(),
    ).toHaveLength(1)
    expect(
      statuses.filter((s) => s === 412),
      statuses.join(),
    ).toHaveLength(racers.length - 1)
    const winner = racers[statuses.indexOf(204)]!
    expect((await dav(router, 'GET', `${CAL}race.ics`)).text).toContain(`SUMMARY:${winner}\r\n`)
    // Racing deletes with the winner's ETag: one removes it, the other finds it changed or gone.
    const now = (await dav(router, 'GET', `${CAL}race.ics`)).headers.get('etag')!
    const deletes = await Promise.all([0, 1].map(() => dav(router, 'DELETE', `${CAL}race.ics`, undefined, { 'if-match': now })))
    expect(deletes.map((d) => d.status).sort()).toEqual([204, 412])
  })

  it(
    'If-None-Match: * is checked in the transaction that writes: of racing creates of one name exactly one wins',
    { timeout: 60_000 },
    async () => {
      const router = await app(make)
      // The calendar has been read (as an app's sync does) before the creates race.
      expect((await dav(router, 'REPORT', CAL, SYNC(''))).status).toBe(207)
      const answers = await Promise.all(
        ['One', 'Two', 'Three'].map((title) =>
          dav(router, 'PUT', `${CAL}new.ics`, ics('new@x', ['DTSTART:20270105T180000Z', 'DTEND:20270105T190000Z', `SUMMARY:${title}`]), {
            'if-none-match': '*',
          }),
        ),
      )
      const statuses = answers.map((a) => a.status)
      expect(
        statuses.filter((s) => s === 201),
        statuses.join(),
      ).toHaveLength(1)
      expect(
        statuses.filter((s) => s === 412),
        statuses.join(),
      ).toHaveLength(2)
      const stored = await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')
      expect(stored.body.events).toHaveLength(1)
    },
  )

  it('rolls back the whole PUT when a later part of it is refused: nothing half-written', { timeout: 60_000 }, async () => {
    const router = await app(make)
    const series = ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=3']
    expect((await dav(router, 'PUT', `${CAL}half.ics`, ics('half@x', [...series, 'SUMMARY:Before']))).status).toBe(201)
    const stray = [
      'BEGIN:VEVENT',
      'UID:half@x',
      'RECURRENCE-ID:20270105T180000Z',
      'DTSTART:20270105T200000Z',
      'SUMMARY:Nowhere',
      'END:VEVENT',
    ]
    const refused = await dav(router, 'PUT', `${CAL}half.ics`, ics('half@x', [...series, 'SUMMARY:After'], stray))
    expect(refused.status).toBe(403)
    expect(refused.text).toContain('valid-calendar-object-resource')
    const got = await dav(router, 'GET', `${CAL}half.ics`)
    expect(got.text).toContain('SUMMARY:Before')
    expect(got.text).not.toContain('SUMMARY:After')
  })

  it(
    'puts an occurrence back to the rule\u2019s form when the app sends the series without its RECURRENCE-ID',
    { timeout: 60_000 },
    async () => {
      const router = await app(make)
      const series = ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=4', 'SUMMARY:Weekly']
      const moved = [
        'BEGIN:VEVENT',
        'UID:rev@x',
        'RECURRENCE-ID:20270111T180000Z',
        'DTSTART:20270111T200000Z',
        'DTEND:20270111T210000Z',
        'SUMMARY:Moved',
        'END:VEVENT',
      ]
      expect((await dav(router, 'PUT', `${CAL}rev.ics`, ics('rev@x', series, moved))).status).toBe(201)
      const got = await dav(router, 'GET', `${CAL}rev.ics`)
      expect(got.text.match(/BEGIN:VEVENT/g)).toHaveLength(2)
      // The app drops the edited occurrence: its VEVENT is cut out of what it was served.
      const at = got.text.lastIndexOf('BEGIN:VEVENT', got.text.indexOf('RECURRENCE-ID'))
      const end = got.text.indexOf('END:VEVENT\r\n', at) + 'END:VEVENT\r\n'.length
      const without = got.text.slice(0, at) + got.text.slice(end)
      expect(without.match(/BEGIN:VEVENT/g)).toHaveLength(1)
      const put = await dav(router, 'PUT', `${CAL}rev.ics`, without, { 'if-match': got.headers.get('etag')! })
      expect(put.status, put.text).toBe(204)
      const after = await dav(router, 'GET', `${CAL}rev.ics`)
      expect(after.text.match(/BEGIN:VEVENT/g)).toHaveLength(1)
      expect(after.text).not.toContain('RECURRENCE-ID')
      expect(after.text).not.toContain('EXDATE')
      const list = await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')
      expect(list.body.events.map((e: any) => [e.title, e.start_date, e.series.detached])).toEqual([
        ['Weekly', '2027-01-04 18:00:00', false],
        ['Weekly', '2027-01-11 18:00:00', false],
        ['Weekly', '2027-01-18 18:00:00', false],
        ['Weekly', '2027-01-25 18:00:00', false],
      ])
      // A later series edit reaches it again.
      const renamed = after.text.replace('SUMMARY:Weekly', 'SUMMARY:Renamed')
      expect((await dav(router, 'PUT', `${CAL}rev.ics`, renamed, { 'if-match': after.headers.get('etag')! })).status).toBe(204)
      const titles = await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')
      expect(titles.body.events.map((e: any) => e.title)).toEqual(['Renamed', 'Renamed', 'Renamed', 'Renamed'])
    },
  )

  it('serves a series of more than 500 stored occurrences as one whole VEVENT, and takes it back', { timeout: 120_000 }, async () => {
    const router = await app(make)
    const body = ics('long@x', ['DTSTART:20270101T090000Z', 'DTEND:20270101T100000Z', 'RRULE:FREQ=DAILY;COUNT=600', 'SUMMARY:Daily'])
    expect((await dav(router, 'PUT', `${CAL}long.ics`, body)).status).toBe(201)
    // An occurrence past the 500th edited through REST is part of the object too.
    const late = await rest(router, 'GET', '/events?status=any&start_date=2028-08-01&end_date=2028-08-01')
    expect(late.body.events).toHaveLength(1)
    expect((await rest(router, 'POST', `/events/${late.body.events[0].id}?recurrence_scope=this`, { title: 'Late one' })).status).toBe(200)
    const got = await dav(router, 'GET', `${CAL}long.ics`)
    expect(got.status).toBe(200)
    expect(got.text.match(/BEGIN:VEVENT/g)).toHaveLength(2)
    expect(got.text).toContain('RRULE:FREQ=DAILY;COUNT=600')
    expect(got.text).not.toContain('EXDATE')
    expect(got.text).toContain('RECURRENCE-ID:20280801T090000Z')
    expect(got.text).toContain('SUMMARY:Late one')
    const query = await dav(router, 'REPORT', CAL, QUERY('20280801T000000Z', '20280802T000000Z'))
    expect(hrefs(query.text)).toEqual(['/caldav/calendars/en/long.ics'])
    // Sent back with a new title: every occurrence but the one edited on its own takes it.
    const put = await dav(router, 'PUT', `${CAL}long.ics`, got.text.replace('SUMMARY:Daily', 'SUMMARY:Every day'), {
      'if-match': got.headers.get('etag')!,
    })
    expect(put.status, put.text).toBe(204)
    const all = await rest(router, 'GET', '/events?status=any&search=Every&start_date=2027-01-01&end_date=2029-01-01&per_page=1')
    expect(all.body.total).toBe(599)
    expect((await dav(router, 'GET', `${CAL}long.ics`)).text).toContain('SUMMARY:Late one')
  })

  it('answers 404 for an object deleted for good, and reports its own href as removed', { timeout: 60_000 }, async () => {
    const router = await app(make)
    expect(
      (await dav(router, 'PUT', `${CAL}gone.ics`, ics('gone@x', ['DTSTART:20270105T180000Z', 'DTEND:20270105T190000Z', 'SUMMARY:Gone'])))
        .status,
    ).toBe(201)
    // Each caller's app has synced the calendar before.
    const tokens: Record<string, string> = {}
    for (const as of ['administrator', 'subscriber']) {
      const first = await dav(router, 'REPORT', CAL, SYNC(''), { authorization: `Bearer ${as}` })
      expect(first.text).toContain('gone.ics')
      tokens[as] = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.text)![1]!
    }
    const id = (await rest(router, 'GET', '/events?status=any&search=Gone&start_date=2027-01-01')).body.events[0].id
    expect((await rest(router, 'DELETE', `/events/${id}?force=true`)).status).toBe(200)
    expect((await dav(router, 'GET', `${CAL}gone.ics`)).status).toBe(404)
    for (const as of ['administrator', 'subscriber'] as const) {
      const changes = await dav(router, 'REPORT', CAL, SYNC(tokens[as]!), { authorization: `Bearer ${as}` })
      expect(changes.status).toBe(207)
      expect(changes.text, as).toMatch(/<d:href>\/caldav\/calendars\/en\/gone\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/)
      expect(changes.text, as).not.toContain(`${id}@`)
    }
  })

  it(
    'a change then a sync reports the object\u2019s current ETag; a query and each role follow the changes',
    { timeout: 60_000 },
    async () => {
      const storage = await make()
      onTestFinished(() => storage.close?.())
      const options = { authenticate, now: () => new Date(NOW), caldav: true, onError: (e: unknown) => console.error(e) }
      const router = createCalendarRouter(storage, options)
      const put = (name: string, uid: string, start: string, title: string) =>
        dav(router, 'PUT', `${CAL}${name}`, ics(uid, [`DTSTART:${start}`, 'DTEND:20270105T235900Z', `SUMMARY:${title}`]))
      expect((await put('a.ics', 'a@x', '20270105T180000Z', 'A')).status).toBe(201)
      expect((await put('b.ics', 'b@x', '20270105T190000Z', 'B')).status).toBe(201)
      const tokenOf = (xml: string) => /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(xml)![1]!
      const etagIn = (xml: string, name: string) =>
        new RegExp(`${name}</d:href><d:propstat><d:prop><d:getetag>([^<]+)<`).exec(xml)?.[1]?.replace(/&quot;/g, '"')
      const tokens: Record<string, string> = {}
      for (const as of ['administrator', 'subscriber'])
        tokens[as] = tokenOf((await dav(router, 'REPORT', CAL, SYNC(''), { authorization: `Bearer ${as}` })).text)
      const id = (await rest(router, 'GET', '/events?status=any&search=A&start_date=2027-01-01')).body.events.find(
        (e: any) => e.title === 'A',
      ).id
      // A REST edit after the calendar was read: a new title and a day later.
      expect(
        (await rest(router, 'POST', `/events/${id}`, { title: 'A2', start_date: '2027-01-06 18:00:00', end_date: '2027-01-06 19:00:00' }))
          .status,
      ).toBe(200)
      const changes = await dav(router, 'REPORT', CAL, SYNC(tokens.administrator!))
      expect(hrefs(changes.text)).toEqual(['/caldav/calendars/en/a.ics'])
      const got = await dav(router, 'GET', `${CAL}a.ics`)
      expect(got.text).toContain('SUMMARY:A2')
      expect(etagIn(changes.text, 'a.ics')).toBe(got.headers.get('etag'))
      // The query follows the new date; the other object is as it was.
      expect(hrefs((await dav(router, 'REPORT', CAL, QUERY('20270106T000000Z', '20270107T000000Z'), { depth: '1' })).text)).toEqual([
        '/caldav/calendars/en/a.ics',
      ])
      expect(hrefs((await dav(router, 'REPORT', CAL, QUERY('20270105T000000Z', '20270105T200000Z'), { depth: '1' })).text)).toEqual([
        '/caldav/calendars/en/b.ics',
      ])
      // Made a draft: gone for a subscriber (reported removed), still there for the administrator.
      expect((await rest(router, 'POST', `/events/${id}`, { status: 'draft' })).status).toBe(200)
      const sub = await dav(router, 'REPORT', CAL, SYNC(tokens.subscriber!), { authorization: 'Bearer subscriber' })
      expect(sub.text).toMatch(/<d:href>\/caldav\/calendars\/en\/a\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/)
      expect((await dav(router, 'GET', `${CAL}a.ics`, undefined, { authorization: 'Bearer subscriber' })).status).toBe(404)
      const mine = await dav(router, 'REPORT', CAL, SYNC(tokens.administrator!))
      expect(etagIn(mine.text, 'a.ics')).toBe((await dav(router, 'GET', `${CAL}a.ics`)).headers.get('etag'))
      // Published again: back for the subscriber with the ETag a GET gives now.
      expect((await rest(router, 'POST', `/events/${id}`, { status: 'publish' })).status).toBe(200)
      const back = await dav(router, 'REPORT', CAL, SYNC(tokenOf(sub.text)), { authorization: 'Bearer subscriber' })
      expect(hrefs(back.text)).toEqual(['/caldav/calendars/en/a.ics'])
      expect(etagIn(back.text, 'a.ics')).toBe(
        (await dav(router, 'GET', `${CAL}a.ics`, undefined, { authorization: 'Bearer subscriber' })).headers.get('etag'),
      )
      // Deleted over CalDAV: no longer listed.
      expect((await dav(router, 'DELETE', `${CAL}a.ics`)).status).toBe(204)
      const listed = await dav(router, 'PROPFIND', CAL, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', {
        depth: '1',
      })
      expect(hrefs(listed.text)).toEqual(['/caldav/calendars/en/', '/caldav/calendars/en/b.ics'])
      // Another router (a restart) has no calendar held: the same token goes through the REST sync
      // (an administrator sees the trashed event's name).
      const other = await dav(createCalendarRouter(storage, options), 'REPORT', CAL, SYNC(tokenOf(mine.text)))
      expect(other.text).toMatch(/<d:href>\/caldav\/calendars\/en\/a\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/)
      expect(hrefs(other.text)).toEqual(['/caldav/calendars/en/a.ics'])
    },
  )

  it(
    'a removed event keeps the name its app gave across routers: deleted through one, sync-collection through another reports that href as 404',
    { timeout: 120_000 },
    async () => {
      const [first, second] = await twins(make)
      const put = (name: string, uid: string, as: string) =>
        dav(first, 'PUT', `${CAL}${name}`, ics(uid, ['DTSTART:20270105T180000Z', 'DTEND:20270105T190000Z', `SUMMARY:${uid}`]), {
          authorization: `Bearer ${as}`,
        })
      expect((await put('trashed.ics', 'trashed@x', 'administrator')).status).toBe(201)
      expect((await put('purged.ics', 'purged@x', 'administrator')).status).toBe(201)
      // A contributor's PUT makes a draft: a subscriber never saw it, nor may learn its name.
      expect((await put('draft.ics', 'draft@x', 'contributor')).status).toBe(201)
      const tokens: Record<string, string> = {}
      for (const as of ['administrator', 'subscriber'])
        tokens[as] = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(
          (await dav(first, 'REPORT', CAL, SYNC(''), { authorization: `Bearer ${as}` })).text,
        )![1]!
      const idOf = async (title: string) =>
        (await rest(first, 'GET', `/events?status=any&search=${title}&start_date=2027-01-01`)).body.events[0].id as number
      const [purged, draft] = [await idOf('purged'), await idOf('draft')]
      // Through the first router: one to the trash over CalDAV, two deleted for good over REST.
      expect((await dav(first, 'DELETE', `${CAL}trashed.ics`)).status).toBe(204)
      expect((await rest(first, 'DELETE', `/events/${purged}?force=true`)).status).toBe(200)
      expect((await rest(first, 'DELETE', `/events/${draft}?force=true`)).status).toBe(200)
      // The second router (another process, or the first after a restart) never read the calendar.
      const removed = (xml: string) => [...xml.matchAll(/<d:href>([^<]*)<\/d:href><d:status>HTTP\/1.1 404 Not Found/g)].map((m) => m[1])
      const admin = await dav(second, 'REPORT', CAL, SYNC(tokens.administrator!))
      expect(admin.status).toBe(207)
      expect(removed(admin.text).sort()).toEqual(['draft.ics', 'purged.ics', 'trashed.ics'].map((n) => `/caldav/calendars/en/${n}`))
      const sub = await dav(second, 'REPORT', CAL, SYNC(tokens.subscriber!), { authorization: 'Bearer subscriber' })
      expect(sub.status).toBe(207)
      expect(removed(sub.text)).toContain('/caldav/calendars/en/trashed.ics')
      expect(removed(sub.text)).toContain('/caldav/calendars/en/purged.ics')
      expect(sub.text).not.toContain('draft.ics')
    },
  )

  it('an occurrence deleted over REST: the sync reports its series as changed, never as removed', { timeout: 60_000 }, async () => {
    const router = await app(make)
    const series = ics('weekly@x', ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=4', 'SUMMARY:Weekly'])
    expect((await dav(router, 'PUT', `${CAL}weekly.ics`, series)).status).toBe(201)
    const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec((await dav(router, 'REPORT', CAL, SYNC(''))).text)![1]!
    const events = (await rest(router, 'GET', '/events?status=any&search=Weekly&start_date=2027-01-01')).body.events
    expect(events).toHaveLength(4)
    expect((await rest(router, 'DELETE', `/events/${events[2].id}?force=true`)).status).toBe(200)
    const changes = await dav(router, 'REPORT', CAL, SYNC(token))
    expect(changes.text).not.toContain('404 Not Found')
    expect(hrefs(changes.text)).toEqual(['/caldav/calendars/en/weekly.ics'])
    const etag = new RegExp('weekly.ics</d:href><d:propstat><d:prop><d:getetag>([^<]+)<').exec(changes.text)?.[1]?.replace(/&quot;/g, '"')
    expect(etag).toBe((await dav(router, 'GET', `${CAL}weekly.ics`)).headers.get('etag'))
  })
})
