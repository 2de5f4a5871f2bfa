/**
 * The CalDAV face over HTTP (docs/caldav.md), in process on the memory storage: discovery,
 * PROPFIND, objects, reports, roles and bad input. The storage is reached only through the REST
 * handlers, so the backends behave alike; test/caldav-clients.test.ts runs real clients against
 * the example server on memory, SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest'
import { createCalendarRouter, type CalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { newEvent } from '../src/testing/fixtures.js'
import { API, authenticate, NOW, ORIGIN, type Caller } from './http/harness.js'

const ROOT = `${ORIGIN}/caldav`
const CAL = `${ROOT}/calendars/en/`

function app(options: Parameters<typeof createCalendarRouter>[1] = {}) {
  const storage = createMemoryStorage()
  const router = createCalendarRouter(storage, {
    authenticate,
    now: () => new Date(NOW),
    caldav: true,
    onError: (e) => console.error(e),
    ...options,
  })
  return { router, storage }
}

interface DavInit {
  as?: Caller | null
  body?: string
  headers?: Record<string, string>
}

async function dav(router: CalendarRouter, method: string, url: string, init: DavInit = {}) {
  const headers: Record<string, string> = { ...init.headers }
  if (init.as !== null) headers.authorization = `Bearer ${init.as ?? 'administrator'}`
  const res = await router.fetch(new Request(url.startsWith('http') ? url : `${ORIGIN}${url}`, { method, headers, body: init.body }))
  return { status: res.status, headers: res.headers, text: await res.text() }
}

async function rest(router: CalendarRouter, method: string, path: string, body?: unknown, as: Caller = 'administrator') {
  const res = await router.fetch(
    new Request(API + path, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  return { status: res.status, body: (await res.json()) as any }
}

/** The hrefs of a multistatus' responses, in order. */
const hrefs = (xml: string) => [...xml.matchAll(/<d:response><d:href>([^<]*)<\/d:href>/g)].map((m) => m[1])

const ics = (uid: string, lines: string[], extra = '') =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    ...lines,
    'END:VEVENT',
    extra,
    'END:VCALENDAR',
  ]
    .filter(Boolean)
    .join('\r\n') + '\r\n'

const timed = (uid: string, title = 'Gig', more: string[] = []) =>
  ics(uid, ['DTSTART:20270105T180000Z', 'DTEND:20270105T200000Z', `SUMMARY:${title}`, ...more])

const put = (router: CalendarRouter, name: string, body: string, init: DavInit = {}, calendar = CAL) =>
  dav(router, 'PUT', `${calendar}${name}`, { ...init, body, headers: { 'content-type': 'text/calendar', ...init.headers } })

const PROPS = `<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"><d:prop>
<d:resourcetype/><d:displayname/><d:current-user-principal/><c:calendar-home-set/><c:supported-calendar-component-set/>
<cs:getctag/><d:sync-token/><d:getetag/><d:getcontenttype/><d:current-user-privilege-set/><d:supported-report-set/></d:prop></d:propfind>`

describe('CalDAV discovery', () => {
  it('redirects /.well-known/caldav to the root and answers OPTIONS with the DAV classes', async () => {
    const { router } = app()
    const wk = await dav(router, 'PROPFIND', '/.well-known/caldav', { as: null })
    expect(wk.status).toBe(301)
    expect(wk.headers.get('location')).toBe('/caldav/')
    const options = await dav(router, 'OPTIONS', `${ROOT}/`, { as: null })
    expect(options.status).toBe(200)
    expect(options.headers.get('dav')).toBe('1, 3, calendar-access')
    expect(options.headers.get('allow')).toContain('PROPFIND')
    expect(options.headers.get('allow')).toContain('REPORT')
  })

  it('refuses bad caldav options when the router is built, and serves another path', async () => {
    expect(() => app({ caldav: { path: '/' } })).toThrow(/caldav.path/)
    expect(() => app({ caldav: { path: 'a b' } })).toThrow(/caldav.path/)
    expect(() => app({ caldav: 'yes' as never })).toThrow(/caldav must be/)
    expect(() => app({ languages: ['en', 'all'] })).toThrow(/"all"/)
    const { router } = app({ caldav: { path: '/dav/' } })
    expect(router.options.caldav).toEqual({ path: '/dav' })
    expect((await dav(router, 'GET', '/.well-known/caldav', { as: null })).headers.get('location')).toBe('/dav/')
    expect((await dav(router, 'PROPFIND', '/dav/calendars/all/', { body: PROPS })).status).toBe(207)
    expect((await dav(router, 'PROPFIND', CAL, { body: PROPS })).status).toBe(404)
  })

  it('asks for a sign-in with 401 and WWW-Authenticate: Basic', async () => {
    const { router } = app()
    const res = await dav(router, 'PROPFIND', `${ROOT}/`, { as: null })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/)
  })

  it('leads from the root to the principal, the home and the calendar', async () => {
    const { router } = app()
    const root = await dav(router, 'PROPFIND', `${ROOT}/`, { body: PROPS, headers: { depth: '0' } })
    expect(root.status).toBe(207)
    expect(root.text).toContain('<d:current-user-principal><d:href>/caldav/principal/</d:href>')
    const principal = await dav(router, 'PROPFIND', `${ROOT}/principal/`, { body: PROPS, headers: { depth: '0' } })
    expect(principal.text).toContain('<c:calendar-home-set><d:href>/caldav/calendars/</d:href>')
    const home = await dav(router, 'PROPFIND', `${ROOT}/calendars/`, { body: PROPS, headers: { depth: '1' } })
    expect(home.status).toBe(207)
    // The calendar of every language only, while no event of another language exists.
    expect(hrefs(home.text)).toEqual(['/caldav/calendars/', '/caldav/calendars/all/'])
    expect(home.text).toContain('<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>')
    expect(home.text).toContain('<c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set>')
    expect(home.text).toContain('<d:sync-token>urn:x-calendar-events-router:sync:')
    expect(home.text).toContain('<c:calendar-multiget/>')
    expect(home.text).toContain('<d:sync-collection/>')
  })

  it('lists the calendar of every language first, then one per language with events', async () => {
    const { router } = app()
    const event = (title: string, day: string) => ({ title, start_date: `${day} 10:00`, end_date: `${day} 12:00` })
    await rest(router, 'POST', '/events?multilingual_language=ja', event('Matsuri', '2027-01-05'))
    const one = await dav(router, 'PROPFIND', `${ROOT}/calendars/`, { body: PROPS, headers: { depth: '1' } })
    expect(hrefs(one.text)).toEqual(['/caldav/calendars/', '/caldav/calendars/all/'])
    await rest(router, 'POST', '/events', event('Fair', '2027-01-06'))
    const home = await dav(router, 'PROPFIND', `${ROOT}/calendars/`, { body: PROPS, headers: { depth: '1' } })
    expect(hrefs(home.text)).toEqual(['/caldav/calendars/', '/caldav/calendars/all/', '/caldav/calendars/en/', '/caldav/calendars/ja/'])
    expect(home.text).toContain('<d:displayname>Events</d:displayname>')
    expect(home.text).toContain('<d:displayname>Events (ja)</d:displayname>')
  })

  it('serves every language in the all calendar: listing, query, sync (paged across languages) and PUT', async () => {
    const { router } = app()
    const ALLCAL = `${ROOT}/calendars/all/`
    const event = (title: string, day: string) => ({ title, start_date: `${day} 10:00`, end_date: `${day} 12:00` })
    await rest(router, 'POST', '/events?multilingual_language=ja', event('Matsuri', '2027-01-05'))
    await rest(router, 'POST', '/events', event('Fair', '2027-01-06'))
    const listing = await dav(router, 'PROPFIND', ALLCAL, { body: PROPS, headers: { depth: '1' } })
    expect(listing.text.match(/\.ics<\/d:href>/g)).toHaveLength(2)
    const query = await dav(router, 'REPORT', ALLCAL, { body: QUERY('<c:time-range start="20270105T000000Z" end="20270105T230000Z"/>') })
    expect(query.text).toContain('SUMMARY:Matsuri')
    expect(query.text).not.toContain('SUMMARY:Fair')
    const first = await dav(router, 'REPORT', ALLCAL, { body: SYNC('', '<d:limit><d:nresults>1</d:nresults></d:limit>') })
    expect(first.text).toContain('507 Insufficient Storage')
    expect(first.text.match(/\.ics<\/d:href>/g)).toHaveLength(1)
    let token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.text)![1]!
    const second = await dav(router, 'REPORT', ALLCAL, { body: SYNC(token) })
    expect(second.text.match(/\.ics<\/d:href>/g)).toHaveLength(1)
    token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(second.text)![1]!
    expect((await put(router, 'new.ics', timed('new@x', 'Into all'), { headers: { 'if-none-match': '*' } }, ALLCAL)).status).toBe(201)
    const third = await dav(router, 'REPORT', ALLCAL, { body: SYNC(token) })
    expect(hrefs(third.text)).toEqual(['/caldav/calendars/all/new.ics'])
    // A new event of the all calendar is in the default language.
    expect((await rest(router, 'GET', '/events?search=Into&status=any&start_date=2027-01-01')).body.events[0].language).toBe('en')
    expect((await dav(router, 'REPORT', ALLCAL, { body: SYNC('urn:x-calendar-events-router:sync:m.bm9wZQ') })).status).toBe(403)
  })

  it('gives readers read privileges only, writers write privileges too', async () => {
    const { router } = app()
    const reader = await dav(router, 'PROPFIND', CAL, { as: 'subscriber', body: PROPS, headers: { depth: '0' } })
    expect(reader.text).toContain('<d:read/>')
    expect(reader.text).not.toContain('<d:write/>')
    const writer = await dav(router, 'PROPFIND', CAL, { as: 'contributor', body: PROPS, headers: { depth: '0' } })
    expect(writer.text).toContain('<d:write/>')
  })

  it('speaks CORS as the REST namespace does, when it is configured: preflights, origins, exposed DAV headers', async () => {
    const off = app()
    const plainRes = await dav(off.router, 'PROPFIND', CAL.replace('/en/', '/all/'), {
      body: PROPS,
      headers: { origin: 'https://web.example' },
    })
    expect(plainRes.headers.get('access-control-allow-origin')).toBeNull()
    const { router } = app({ cors: { origins: ['https://web.example'], maxAge: 120 } })
    const ALLCAL = `${ROOT}/calendars/all/`
    const pre = await dav(router, 'OPTIONS', ALLCAL, {
      as: null,
      headers: {
        origin: 'https://web.example',
        'access-control-request-method': 'PROPFIND',
        'access-control-request-headers': 'authorization, content-type, depth',
      },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://web.example')
    const methods = pre.headers.get('access-control-allow-methods')!.split(', ')
    for (const m of ['PROPFIND', 'REPORT', 'PUT', 'DELETE', 'GET', 'OPTIONS']) expect(methods).toContain(m)
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type, depth')
    expect(pre.headers.get('access-control-max-age')).toBe('120')
    // Without a list of its own the preflight allows the WebDAV request headers.
    const bare = await dav(router, 'OPTIONS', ALLCAL, {
      as: null,
      headers: { origin: 'https://web.example', 'access-control-request-method': 'REPORT' },
    })
    const allowed = bare.headers.get('access-control-allow-headers')!.toLowerCase()
    for (const h of ['authorization', 'content-type', 'depth', 'if-match', 'if-none-match', 'prefer']) expect(allowed).toContain(h)
    const found = await dav(router, 'PROPFIND', ALLCAL, { body: PROPS, headers: { depth: '0', origin: 'https://web.example' } })
    expect(found.status).toBe(207)
    expect(found.headers.get('access-control-allow-origin')).toBe('https://web.example')
    const exposed = found.headers.get('access-control-expose-headers')!.toLowerCase()
    for (const h of ['etag', 'dav', 'www-authenticate', 'location']) expect(exposed).toContain(h)
    expect(found.headers.get('vary')).toContain('Origin')
    // The sign-in answer too, so that a web app can read why it failed.
    const unsigned = await dav(router, 'PROPFIND', ALLCAL, { as: null, body: PROPS, headers: { origin: 'https://web.example' } })
    expect(unsigned.status).toBe(401)
    expect(unsigned.headers.get('access-control-allow-origin')).toBe('https://web.example')
    const other = await dav(router, 'PROPFIND', ALLCAL, { body: PROPS, headers: { origin: 'https://evil.example' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('offers one read-only calendar per category after the calendar of all events, with its own sync', async () => {
    const { router } = app()
    const event = (title: string, day: string, categories: string[]) => ({
      title,
      start_date: `${day} 10:00`,
      end_date: `${day} 12:00`,
      status: 'publish',
      categories,
    })
    await rest(router, 'POST', '/events', event('Concert', '2027-01-05', ['Music']))
    await rest(router, 'POST', '/events', event('Gallery', '2027-01-06', ['Art']))
    const terms = (await rest(router, 'GET', '/categories')).body.categories as any[]
    const music = terms.find((t) => t.name === 'Music').id
    const art = terms.find((t) => t.name === 'Art').id
    const MUSIC = `${ROOT}/calendars/en-category-${music}/`
    const home = await dav(router, 'PROPFIND', `${ROOT}/calendars/`, { body: PROPS, headers: { depth: '1' } })
    // After the calendar of all events, by category name.
    expect(hrefs(home.text)).toEqual([
      '/caldav/calendars/',
      '/caldav/calendars/all/',
      `/caldav/calendars/en-category-${art}/`,
      `/caldav/calendars/en-category-${music}/`,
    ])
    expect(home.text).toContain('<d:displayname>Events: Music</d:displayname>')
    const listing = await dav(router, 'PROPFIND', MUSIC, { body: PROPS, headers: { depth: '1' } })
    expect(listing.status).toBe(207)
    expect(listing.text.match(/\.ics<\/d:href>/g)).toHaveLength(1)
    // Read-only, even for an administrator.
    const own = listing.text.slice(0, listing.text.indexOf('.ics</d:href>'))
    expect(own).toContain('<d:read/>')
    expect(own).not.toContain('<d:write/>')
    const href = /<d:href>([^<]+\.ics)<\/d:href>/.exec(listing.text)![1]!
    const got = await dav(router, 'GET', href)
    expect(got.text).toContain('SUMMARY:Concert')
    const refused = await put(router, 'x.ics', timed('x@x', 'Not here'), {}, MUSIC)
    expect(refused.status).toBe(403)
    expect(refused.text).toContain('<d:need-privileges/>')
    const edit = await dav(router, 'PUT', href, {
      body: got.text.replace('Concert', 'Changed'),
      headers: { 'content-type': 'text/calendar' },
    })
    expect(edit.status).toBe(403)
    expect((await dav(router, 'DELETE', href)).status).toBe(403)
    expect((await rest(router, 'GET', '/events?search=Concert&start_date=2027-01-01')).body.events).toHaveLength(1)
    // Its sync reports the changes of its own events only.
    const first = await dav(router, 'REPORT', MUSIC, { body: SYNC('') })
    const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.text)![1]!
    await rest(router, 'POST', '/events', event('Sculpture', '2027-01-07', ['Art']))
    // Another category's change: no object of this calendar changed. (The REST sync of a filtered
    // list cannot tell "never matched" from "no longer matches": such ids come as removed.)
    expect((await dav(router, 'REPORT', MUSIC, { body: SYNC(token) })).text).not.toContain('<d:propstat>')
    await rest(router, 'POST', '/events', event('Jazz night', '2027-01-08', ['Music']))
    const changes = await dav(router, 'REPORT', MUSIC, { body: SYNC(token) })
    expect(changes.text.match(/\.ics<\/d:href><d:propstat>/g)).toHaveLength(1)
    expect(changes.text).toContain('getetag')
    const query = await dav(router, 'REPORT', MUSIC, { body: QUERY('<c:time-range start="20270101T000000Z" end="20270201T000000Z"/>') })
    expect(query.text.match(/\.ics<\/d:href>/g)).toHaveLength(2)
    expect(query.text).not.toContain('Gallery')
    // An unknown category, or one of another language: nothing is there.
    expect((await dav(router, 'PROPFIND', `${ROOT}/calendars/en-category-999999/`, { body: PROPS })).status).toBe(404)
    expect((await dav(router, 'PROPFIND', `${ROOT}/calendars/xx-category-${music}/`, { body: PROPS })).status).toBe(404)
  })

  it('refuses Depth: infinity', async () => {
    const { router } = app()
    const res = await dav(router, 'PROPFIND', CAL, { body: PROPS, headers: { depth: 'infinity' } })
    expect(res.status).toBe(403)
    expect(res.text).toContain('propfind-finite-depth')
  })
})

describe('CalDAV objects', () => {
  it('serves an event made through REST as {uid}.ics with a strong ETag, and PROPFIND agrees', async () => {
    const { router } = app()
    const e = (
      await rest(router, 'POST', '/events', {
        title: 'Made in REST',
        start_date: '2027-01-05 10:00',
        end_date: '2027-01-05 12:00',
        status: 'publish',
      })
    ).body
    const href = `${CAL}${e.id}@127.0.0.1.ics`
    const got = await dav(router, 'GET', href)
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
    expect(got.text).toContain(`UID:${e.id}@127.0.0.1`)
    expect(got.text).toContain('SUMMARY:Made in REST')
    expect(got.text).not.toContain('METHOD:')
    const etag = got.headers.get('etag')!
    expect(etag).toMatch(/^"[^"]+"$/)
    const listing = await dav(router, 'PROPFIND', CAL, { body: PROPS, headers: { depth: '1' } })
    expect(listing.text).toContain(`<d:href>/caldav/calendars/en/${e.id}@127.0.0.1.ics</d:href>`)
    expect(listing.text).toContain(`<d:getetag>${etag.replace(/"/g, '&quot;')}</d:getetag>`)
  })

  it('creates with PUT (If-None-Match: *), keeps the UID and name, and maps the fields', async () => {
    const { router } = app()
    const body = ics('abc-1@phone.example', [
      'DTSTART;TZID=Europe/Berlin:20270105T180000',
      'DTEND;TZID=Europe/Berlin:20270105T200000',
      'SUMMARY:Concert',
      'DESCRIPTION:Doors at 7',
      'LOCATION:Old Hall\\, Main Street 1',
      'ORGANIZER;CN=Ann:mailto:ann@example.org',
      'URL:https://tickets.example.org/1',
      'CATEGORIES:Music,Jazz',
      'STATUS:CANCELLED',
    ])
    const created = await put(router, 'new-1.ics', body, { headers: { 'if-none-match': '*' } })
    expect(created.status).toBe(201)
    // The stored form is not what was sent: no ETag, the app reads it again (RFC 4791 §5.3.4).
    expect(created.headers.get('etag')).toBeNull()
    const list = (await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')).body.events
    expect(list).toHaveLength(1)
    const e = list[0]
    expect(e).toMatchObject({
      title: 'Concert',
      start_date: '2027-01-05 18:00:00',
      timezone: 'Europe/Berlin',
      website: 'https://tickets.example.org/1',
      event_status: 'canceled',
      status: 'publish',
    })
    expect(e.venue.venue).toBe('Old Hall')
    expect(e.organizer[0]).toMatchObject({ organizer: 'Ann', email: 'ann@example.org' })
    expect(e.categories.map((c: any) => c.name).sort()).toEqual(['Jazz', 'Music'])
    const got = await dav(router, 'GET', `${CAL}new-1.ics`)
    expect(got.status).toBe(200)
    expect(got.text).toContain('UID:abc-1@phone.example')
    expect(got.text).toContain('STATUS:CANCELLED')
    const again = await put(router, 'new-1.ics', body, { headers: { 'if-none-match': '*' } })
    expect(again.status).toBe(412)
  })

  it('updates with If-Match (412 when stale) and leaves unchanged properties alone', async () => {
    const { router } = app()
    await put(router, 'u.ics', timed('u-1@x', 'First', ['LOCATION:Old Hall\\, Main Street 1']))
    const got = await dav(router, 'GET', `${CAL}u.ics`)
    const etag = got.headers.get('etag')!
    const venuesBefore = (await rest(router, 'GET', '/venues')).body.total
    // The app sends back what it got with a new title: the venue's LOCATION line is unchanged.
    const changed = got.text.replace('SUMMARY:First', 'SUMMARY:Second')
    const updated = await put(router, 'u.ics', changed, { headers: { 'if-match': etag } })
    expect(updated.status).toBe(204)
    expect((await rest(router, 'GET', '/venues')).body.total).toBe(venuesBefore)
    const stale = await put(router, 'u.ics', changed.replace('SUMMARY:Second', 'SUMMARY:Third'), { headers: { 'if-match': etag } })
    expect(stale.status).toBe(412)
    expect((await dav(router, 'GET', `${CAL}u.ics`)).text).toContain('SUMMARY:Second')
  })

  it('maps all-day and floating times', async () => {
    const { router } = app({ timezone: 'America/New_York' })
    await put(router, 'a.ics', ics('allday@x', ['DTSTART;VALUE=DATE:20270110', 'DTEND;VALUE=DATE:20270112', 'SUMMARY:Fair']))
    await put(router, 'f.ics', ics('floating@x', ['DTSTART:20270110T090000', 'DTEND:20270110T100000', 'SUMMARY:Floating']))
    const events = (await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')).body.events
    const fair = events.find((e: any) => e.title === 'Fair')
    expect(fair).toMatchObject({ all_day: true, start_date: '2027-01-10 00:00:00', end_date: '2027-01-11 23:59:59' })
    // Floating: the wall clock in the site's zone.
    expect(events.find((e: any) => e.title === 'Floating')).toMatchObject({
      start_date: '2027-01-10 09:00:00',
      timezone: 'America/New_York',
    })
    expect((await dav(router, 'GET', `${CAL}a.ics`)).text).toContain('DTSTART;VALUE=DATE:20270110')
  })

  it('stores a series as one resource, with an edited occurrence (RECURRENCE-ID)', async () => {
    const { router } = app()
    const series = ics(
      'series-1@x',
      [
        'DTSTART;TZID=Europe/Berlin:20270104T180000',
        'DTEND;TZID=Europe/Berlin:20270104T190000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'SUMMARY:Weekly',
      ],
      [
        'BEGIN:VEVENT',
        'UID:series-1@x',
        'DTSTAMP:20260101T000000Z',
        'RECURRENCE-ID;TZID=Europe/Berlin:20270111T180000',
        'DTSTART;TZID=Europe/Berlin:20270111T200000',
        'DTEND;TZID=Europe/Berlin:20270111T210000',
        'SUMMARY:Weekly (moved)',
        'END:VEVENT',
      ].join('\r\n'),
    )
    expect((await put(router, 's.ics', series)).status).toBe(201)
    const events = (await rest(router, 'GET', '/events?status=any&start_date=2027-01-01&end_date=2027-02-01')).body.events
    expect(events.map((e: any) => [e.title, e.start_date])).toEqual([
      ['Weekly', '2027-01-04 18:00:00'],
      ['Weekly (moved)', '2027-01-11 20:00:00'],
      ['Weekly', '2027-01-18 18:00:00'],
      ['Weekly', '2027-01-25 18:00:00'],
    ])
    const listing = await dav(router, 'PROPFIND', CAL, { body: PROPS, headers: { depth: '1' } })
    expect(listing.text.match(/\.ics<\/d:href>/g)).toHaveLength(1)
    const got = (await dav(router, 'GET', `${CAL}s.ics`)).text
    expect(got.match(/BEGIN:VEVENT/g)).toHaveLength(2)
    expect(got).toContain('RRULE:FREQ=WEEKLY;COUNT=4')
    expect(got).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20270111T180000')
    expect(got).toContain('BEGIN:VTIMEZONE')
  })

  it('deletes to the trash (a series whole), with If-Match', async () => {
    const { router } = app()
    await put(
      router,
      'd.ics',
      ics('d@x', ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=DAILY;COUNT=3', 'SUMMARY:Daily']),
    )
    expect((await dav(router, 'DELETE', `${CAL}d.ics`, { headers: { 'if-match': '"nope"' } })).status).toBe(412)
    expect((await dav(router, 'DELETE', `${CAL}d.ics`)).status).toBe(204)
    expect((await dav(router, 'GET', `${CAL}d.ics`)).status).toBe(404)
    expect((await rest(router, 'GET', '/events?status=trash')).body.events).toHaveLength(3)
  })

  it('makes a contributor\u2019s new event a draft and refuses a subscriber\u2019s PUT and DELETE', async () => {
    const { router } = app()
    expect((await put(router, 'c.ics', timed('c@x', 'Proposal'), { as: 'contributor' })).status).toBe(201)
    const drafts = (await rest(router, 'GET', '/events?status=draft')).body.events
    expect(drafts.map((e: any) => e.title)).toEqual(['Proposal'])
    const denied = await put(router, 's.ics', timed('s@x'), { as: 'subscriber' })
    expect(denied.status).toBe(403)
    expect(denied.text).toContain('need-privileges')
    expect((await dav(router, 'DELETE', `${CAL}c.ics`, { as: 'subscriber' })).status).toBe(403)
    expect((await rest(router, 'GET', '/events?status=any')).body.events).toHaveLength(1)
  })

  it('keeps what the model does not hold (VALARM, ATTENDEE, X-) and gives it back, never to REST readers', async () => {
    const { router } = app()
    const kept = [
      'ATTENDEE;CN=Bea;PARTSTAT=ACCEPTED:mailto:bea@private.example',
      'X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC',
      'TRANSP:TRANSPARENT',
    ]
    const alarm = ['BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER:-PT15M', 'DESCRIPTION:Reminder', 'END:VALARM']
    expect((await put(router, 'k.ics', timed('k@x', 'Kept', [...kept, ...alarm]))).status).toBe(201)
    const got = (await dav(router, 'GET', `${CAL}k.ics`)).text
    for (const line of [...kept, ...alarm]) expect(got).toContain(`${line}\r\n`)
    // Once, inside the VEVENT.
    expect(got.match(/BEGIN:VALARM/g)).toHaveLength(1)
    expect(got.indexOf('END:VALARM')).toBeLessThan(got.indexOf('END:VEVENT'))
    // Sent back as it was served: nothing doubles.
    await put(router, 'k.ics', got.replace('SUMMARY:Kept', 'SUMMARY:Kept 2'))
    const again = (await dav(router, 'GET', `${CAL}k.ics`)).text
    expect(again.match(/BEGIN:VALARM/g)).toHaveLength(1)
    expect(again.match(/ATTENDEE/g)).toHaveLength(1)
    // REST readers, the feed and search never see it.
    const listed = await router.fetch(new Request(`${API}/events?start_date=2027-01-01`))
    const text = await listed.text()
    expect(text).toContain('Kept 2')
    expect(text).not.toContain('caldav_extra')
    expect(text).not.toContain('bea@private')
    const feed = await (await router.fetch(new Request(`${API}/events?format=ics&start_date=2027-01-01`))).text()
    expect(feed).toContain('SUMMARY:Kept 2')
    expect(feed).not.toContain('ATTENDEE')
    expect((await rest(router, 'GET', '/events?search=bea&start_date=2027-01-01')).body.events).toHaveLength(0)
  })

  it('keeps an edited occurrence\u2019s own alarm, and ignores a kept value that is not its own', async () => {
    const { router } = app()
    const series = ics(
      'alarm@x',
      ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=3', 'SUMMARY:Weekly'],
      [
        'BEGIN:VEVENT',
        'UID:alarm@x',
        'RECURRENCE-ID:20270111T180000Z',
        'DTSTART:20270111T190000Z',
        'DTEND:20270111T200000Z',
        'SUMMARY:Later',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'TRIGGER:-PT5M',
        'DESCRIPTION:Only this one',
        'END:VALARM',
        'END:VEVENT',
      ].join('\r\n'),
    )
    expect((await put(router, 'alarm.ics', series)).status).toBe(201)
    const got = (await dav(router, 'GET', `${CAL}alarm.ics`)).text
    const override = got.slice(got.indexOf('RECURRENCE-ID'))
    expect(override).toContain('DESCRIPTION:Only this one')
    expect(got.match(/BEGIN:VALARM/g)).toHaveLength(1)
    // The field is writable through REST: a value that would break the object is not used.
    const id = (await rest(router, 'GET', '/events?search=Weekly&status=any&start_date=2027-01-01')).body.events[0].id
    const injected = btoa('END:VEVENT\nBEGIN:VEVENT\nUID:evil')
    expect((await rest(router, 'POST', `/events/${id}`, { custom_fields: { caldav_extra: injected } })).status).toBe(200)
    const after = (await dav(router, 'GET', `${CAL}alarm.ics`)).text
    expect(after).not.toContain('UID:evil')
    expect(after.match(/BEGIN:VEVENT/g)).toHaveLength(2)
  })

  it('reads a calendar longer than one page of the REST sync', async () => {
    const { router, storage } = app()
    // Seeded in the storage: 205 REST creates would only make the test slower.
    await storage.transaction(async (tx) => {
      for (let i = 0; i < 205; i++) await tx.insertPost(newEvent({ title: `E${i}`, slug: `e${i}`, status: 'publish' }))
    })
    const listing = await dav(router, 'PROPFIND', CAL, { body: PROPS, headers: { depth: '1' } })
    expect(listing.status, listing.text).toBe(207)
    expect(listing.text.match(/\.ics<\/d:href>/g)).toHaveLength(205)
    const sync = await dav(router, 'REPORT', CAL, { body: SYNC('', '<d:limit><d:nresults>150</d:nresults></d:limit>') })
    expect(sync.text.match(/\.ics<\/d:href>/g)).toHaveLength(150)
    const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(sync.text)![1]!
    const rest2 = await dav(router, 'REPORT', CAL, { body: SYNC(token) })
    expect(rest2.text.match(/\.ics<\/d:href>/g)).toHaveLength(55)
  })

  it('lists what REST writes after a calendar was read, and never one caller\u2019s calendar to another', async () => {
    const { router } = app()
    const count = async (as: Caller) =>
      ((await dav(router, 'PROPFIND', CAL, { as, body: PROPS, headers: { depth: '1' } })).text.match(/\.ics<\/d:href>/g) ?? []).length
    expect(await count('contributor')).toBe(0)
    await put(router, 'draft.ics', timed('draft@x', 'Draft'), { as: 'contributor' })
    expect(await count('contributor')).toBe(1)
    expect(await count('subscriber')).toBe(0)
    await rest(router, 'POST', '/events', {
      title: 'Public',
      start_date: '2027-01-05 10:00',
      end_date: '2027-01-05 12:00',
      status: 'publish',
    })
    expect(await count('subscriber')).toBe(1)
    expect(await count('contributor')).toBe(2)
  })

  it('lists ETags that follow REST edits, though listings of ETags alone reuse those known', async () => {
    const { router } = app()
    await put(router, 'e1.ics', timed('e1@x', 'Before'))
    await put(router, 'e2.ics', timed('e2@x', 'Other'))
    const ETAGS = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>'
    const etagOf = (xml: string, name: string) => new RegExp(`${name}</d:href><d:propstat><d:prop><d:getetag>([^<]+)<`).exec(xml)?.[1]
    const first = (await dav(router, 'PROPFIND', CAL, { body: ETAGS, headers: { depth: '1' } })).text
    const again = (await dav(router, 'PROPFIND', CAL, { body: ETAGS, headers: { depth: '1' } })).text
    expect(again).toBe(first)
    const id = (await rest(router, 'GET', '/events?search=Before&status=any&start_date=2027-01-01')).body.events[0].id
    await rest(router, 'POST', `/events/${id}`, { title: 'After' })
    const after = (await dav(router, 'PROPFIND', CAL, { body: ETAGS, headers: { depth: '1' } })).text
    expect(etagOf(after, 'e1.ics')).not.toBe(etagOf(first, 'e1.ics'))
    expect(etagOf(after, 'e2.ics')).toBe(etagOf(first, 'e2.ics'))
    expect(etagOf(after, 'e1.ics')!.replace(/&quot;/g, '"')).toBe((await dav(router, 'GET', `${CAL}e1.ics`)).headers.get('etag'))
  })

  it('serves texts it rendered before only while unchanged: a venue renamed over REST shows in the next GET and multiget', async () => {
    const { router } = app()
    await put(router, 'v.ics', timed('v@x', 'Gig', ['LOCATION:Old Hall']))
    const MULTIGET = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${CAL}v.ics</d:href></c:calendar-multiget>`
    const ETAGS = '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>'
    expect((await dav(router, 'PROPFIND', CAL, { body: ETAGS, headers: { depth: '1' } })).text).toContain('v.ics')
    const got = await dav(router, 'GET', `${CAL}v.ics`)
    expect(got.text).toContain('LOCATION:Old Hall')
    expect((await dav(router, 'REPORT', CAL, { body: MULTIGET })).text).toContain('LOCATION:Old Hall')
    const venue = (await rest(router, 'GET', '/venues?search=Old%20Hall')).body.venues[0].id
    expect((await rest(router, 'POST', `/venues/${venue}`, { venue: 'New Hall' })).status).toBe(200)
    const after = await dav(router, 'GET', `${CAL}v.ics`)
    expect(after.text).toContain('LOCATION:New Hall')
    expect(after.headers.get('etag')).not.toBe(got.headers.get('etag'))
    const multiget = (await dav(router, 'REPORT', CAL, { body: MULTIGET })).text
    expect(multiget).toContain('LOCATION:New Hall')
    expect(multiget).not.toContain('Old Hall')
  })

  it('sees REST edits: the ETag changes', async () => {
    const { router } = app()
    await put(router, 'r.ics', timed('r@x', 'Before'))
    const before = await dav(router, 'GET', `${CAL}r.ics`)
    const id = (await rest(router, 'GET', '/events?search=Before&status=any&start_date=2027-01-01')).body.events[0].id
    await rest(router, 'POST', `/events/${id}`, { title: 'After' })
    const after = await dav(router, 'GET', `${CAL}r.ics`)
    expect(after.text).toContain('SUMMARY:After')
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
  })
})

const QUERY = (
  range: string,
) => `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`

const SYNC = (token: string, extra = '') =>
  `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>${extra}<d:prop><d:getetag/></d:prop></d:sync-collection>`

describe('CalDAV reports', () => {
  it('calendar-query with a time-range finds a series by its occurrences', async () => {
    const { router } = app()
    await put(
      router,
      'weekly.ics',
      ics('w@x', ['DTSTART:20270104T180000Z', 'DTEND:20270104T190000Z', 'RRULE:FREQ=WEEKLY;COUNT=4', 'SUMMARY:Weekly']),
    )
    await put(router, 'lone.ics', ics('l@x', ['DTSTART:20270301T180000Z', 'DTEND:20270301T190000Z', 'SUMMARY:Lone']))
    // The third occurrence only (18 January).
    const third = await dav(router, 'REPORT', CAL, {
      body: QUERY('<c:time-range start="20270117T000000Z" end="20270119T000000Z"/>'),
      headers: { depth: '1' },
    })
    expect(third.status).toBe(207)
    expect(hrefs(third.text)).toEqual(['/caldav/calendars/en/weekly.ics'])
    expect(third.text).toContain('RRULE:FREQ=WEEKLY;COUNT=4')
    const none = await dav(router, 'REPORT', CAL, { body: QUERY('<c:time-range start="20270201T000000Z" end="20270210T000000Z"/>') })
    expect(none.text).not.toContain('<d:response>')
    const all = await dav(router, 'REPORT', CAL, { body: QUERY('') })
    expect(all.text.match(/\.ics<\/d:href>/g)).toHaveLength(2)
  })

  it('calendar-query with a time-range finds long events begun long before it, overnight ones, not those ending at its start', async () => {
    const { router } = app()
    const event = (name: string, start: string, end: string) =>
      put(router, `${name}.ics`, ics(`${name}@x`, [`DTSTART:${start}`, `DTEND:${end}`, `SUMMARY:${name}`]))
    await event('season', '20261201T000000Z', '20270301T000000Z')
    await event('overnight', '20270109T220000Z', '20270110T020000Z')
    await event('before', '20270109T100000Z', '20270110T000000Z')
    await event('inside', '20270110T120000Z', '20270110T130000Z')
    await event('after', '20270111T000000Z', '20270111T010000Z')
    const query = async (range: string) =>
      hrefs((await dav(router, 'REPORT', CAL, { body: QUERY(range), headers: { depth: '1' } })).text).map((h) =>
        h!.slice(CAL.length - ORIGIN.length),
      )
    expect(await query('<c:time-range start="20270110T000000Z" end="20270111T000000Z"/>')).toEqual([
      'season.ics',
      'overnight.ics',
      'inside.ics',
    ])
    expect(await query('<c:time-range start="20270110T000000Z"/>')).toEqual(['season.ics', 'overnight.ics', 'inside.ics', 'after.ics'])
    expect(await query('<c:time-range end="20270109T120000Z"/>')).toEqual(['season.ics', 'before.ics'])
    expect(await query('<c:time-range start="20270401T000000Z" end="20270501T000000Z"/>')).toEqual([])
  })

  it('calendar-multiget answers the hrefs asked for, 404 for unknown ones', async () => {
    const { router } = app()
    await put(router, 'm.ics', timed('m@x', 'Multi'))
    const res = await dav(router, 'REPORT', CAL, {
      body: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
<d:href>/caldav/calendars/en/m.ics</d:href><d:href>/caldav/calendars/en/missing.ics</d:href></c:calendar-multiget>`,
    })
    expect(res.status).toBe(207)
    expect(res.text).toContain('SUMMARY:Multi')
    expect(res.text).toMatch(/missing\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/)
  })

  it('sync-collection: everything first, then changes and removals, paged with DAV:limit', async () => {
    const { router } = app()
    await put(router, 'a.ics', timed('a@x', 'A'))
    await put(router, 'b.ics', timed('b@x', 'B'))
    const first = await dav(router, 'REPORT', CAL, { body: SYNC('') })
    expect(first.status).toBe(207)
    expect(first.text.match(/\.ics<\/d:href>/g)).toHaveLength(2)
    const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.text)![1]!
    const nothing = await dav(router, 'REPORT', CAL, { body: SYNC(token) })
    expect(nothing.text).not.toContain('.ics')
    const b = await dav(router, 'GET', `${CAL}b.ics`)
    await put(router, 'b.ics', b.text.replace('SUMMARY:B', 'SUMMARY:B2'))
    await dav(router, 'DELETE', `${CAL}a.ics`)
    await put(router, 'c.ics', timed('c@x', 'C'))
    const changes = await dav(router, 'REPORT', CAL, { body: SYNC(token) })
    expect(changes.text).toMatch(/b\.ics<\/d:href><d:propstat><d:prop><d:getetag>/)
    expect(changes.text).toMatch(/c\.ics<\/d:href><d:propstat>/)
    expect(changes.text).toMatch(/a\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/)
    // Paged: one record a page, each page's token continues.
    const paged = await dav(router, 'REPORT', CAL, { body: SYNC(token, '<d:limit><d:nresults>1</d:nresults></d:limit>') })
    expect(paged.text).toContain('HTTP/1.1 507 Insufficient Storage')
    expect(paged.text.match(/\.ics<\/d:href>/g)).toHaveLength(1)
  })

  it('answers valid-sync-token for unknown tokens and supported-report for unknown reports', async () => {
    const { router } = app()
    for (const token of ['urn:x-calendar-events-router:sync:bogus', 'http://elsewhere/token']) {
      const res = await dav(router, 'REPORT', CAL, { body: SYNC(token) })
      expect(res.status).toBe(403)
      expect(res.text).toContain('<d:valid-sync-token/>')
    }
    const unknown = await dav(router, 'REPORT', CAL, { body: '<x:free-busy-query xmlns:x="urn:ietf:params:xml:ns:caldav"/>' })
    expect(unknown.status).toBe(403)
    expect(unknown.text).toContain('supported-report')
  })
})

describe('CalDAV bad input', () => {
  const eventsStored = async (router: CalendarRouter) =>
    (await rest(router, 'GET', '/events?status=any&start_date=2000-01-01')).body.events.length

  it('refuses malformed XML, DOCTYPEs (billion laughs), deep and huge bodies with 4xx', async () => {
    const { router } = app()
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>' +
      '<d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&lol2;</d:displayname></d:prop></d:propfind>'
    const bodies = [
      '<d:propfind xmlns:d="DAV:"><d:prop>',
      laughs,
      '<d:propfind xmlns:d="DAV:">&xxe;</d:propfind>',
      '<a>'.repeat(100) + '</a>'.repeat(100),
      `<d:propfind xmlns:d="DAV:">${' '.repeat(1_100_000)}</d:propfind>`,
      '<x:propfind xmlns:x="urn:other"/>',
    ]
    for (const body of bodies) {
      const res = await dav(router, 'PROPFIND', CAL, { body, headers: { depth: '0' } })
      expect(res.status, body.slice(0, 60)).toBeGreaterThanOrEqual(400)
      expect(res.status, body.slice(0, 60)).toBeLessThan(500)
    }
    expect((await dav(router, 'REPORT', CAL, { body: laughs })).status).toBe(400)
  })

  it('refuses PUTs that are not one calendar object, and stores nothing', async () => {
    const { router } = app()
    const two = ics(
      'one@x',
      ['DTSTART:20270104T180000Z', 'SUMMARY:One'],
      ['BEGIN:VEVENT', 'UID:two@x', 'DTSTART:20270105T180000Z', 'SUMMARY:Two', 'END:VEVENT'].join('\r\n'),
    )
    const cases: Array<[string, string, number, string]> = [
      ['text.ics', 'hello', 400, 'valid-calendar-data'],
      ['two.ics', two, 403, 'valid-calendar-object-resource'],
      [
        'todo.ics',
        'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t@x\r\nEND:VTODO\r\nEND:VCALENDAR\r\n',
        403,
        'supported-calendar-component',
      ],
      ['nouid.ics', ics('', ['DTSTART:20270104T180000Z', 'SUMMARY:No UID']).replace('UID:\r\n', ''), 400, 'valid-calendar-data'],
      ['baddate.ics', ics('bad@x', ['DTSTART:20270231T180000Z', 'SUMMARY:Bad']), 400, 'valid-calendar-data'],
      ['odd<name>.ics', timed('odd@x'), 400, ''],
    ]
    for (const [name, body, status, condition] of cases) {
      const res = await put(router, encodeURIComponent(name), body)
      expect(res.status, name).toBe(status)
      if (condition) expect(res.text, name).toContain(condition)
    }
    const json = await put(router, 'json.ics', timed('j@x'), { headers: { 'content-type': 'application/json' } })
    expect(json.status).toBe(415)
    expect(await eventsStored(router)).toBe(0)
  })

  it('refuses a UID that disagrees with its resource or belongs to another', async () => {
    const { router } = app()
    await put(router, 'first.ics', timed('first@x'))
    const changed = await put(router, 'first.ics', timed('other@x'))
    expect(changed.status).toBe(403)
    expect(changed.text).toContain('no-uid-conflict')
    const taken = await put(router, 'second.ics', timed('first@x'))
    expect(taken.status).toBe(403)
    expect(taken.text).toContain('no-uid-conflict')
    expect(await eventsStored(router)).toBe(1)
  })

  it('keeps serving after bad input, and leaves REST alone', async () => {
    const { router } = app()
    await dav(router, 'PROPFIND', CAL, { body: '<<<' })
    expect((await dav(router, 'PROPFIND', CAL, { body: PROPS })).status).toBe(207)
    expect((await rest(router, 'GET', '/events')).status).toBe(200)
    // Outside the CalDAV root and the namespace: still not found.
    expect((await router.fetch(new Request(`${ORIGIN}/elsewhere`))).status).toBe(404)
  })
})
