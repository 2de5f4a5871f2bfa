/**
 * iCalendar subscriptions as calendar apps use them: the whole window in one feed (up to a cap
 * that is announced), plain text, one ORGANIZER, a SEQUENCE that follows what a calendar shows,
 * refresh hints, and Accept quality values. Every feed is read with two independent parsers:
 * ical.js (Mozilla's) and node-ical.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import ICAL from 'ical.js'
import nodeIcal from 'node-ical'
import type { CalendarOptions } from '../../src/options.js'
import type { Storage } from '../../src/storage/types.js'
import { makeApp, type App } from './harness.js'

// X-WR-CALNAME (Apple's) and our X-CALENDAR-TRUNCATED are TEXT: tell ical.js, which otherwise
// keeps unknown X- values escaped.
for (const name of ['x-wr-calname', 'x-calendar-truncated'])
  (ICAL.design.icalendar.property as Record<string, unknown>)[name] = { defaultType: 'text' }

interface Parsed {
  calendar: ICAL.Component
  events: ICAL.Event[]
  /** node-ical's view: VEVENTs in document order. */
  other: nodeIcal.VEvent[]
}

/** Both parsers must accept the text, and must agree on what each event is. */
function parseBoth(text: string): Parsed {
  const calendar = new ICAL.Component(ICAL.parse(text))
  const events = calendar.getAllSubcomponents('vevent').map((c) => new ICAL.Event(c))
  const other = Object.values(nodeIcal.sync.parseICS(text)).filter((c): c is nodeIcal.VEvent => c?.type === 'VEVENT')
  expect(other.map((e) => e.uid)).toEqual(events.map((e) => e.uid))
  other.forEach((o, i) => {
    const e = events[i]!
    expect(o.summary).toBe(e.summary)
    expect((o.start as Date).getTime()).toBe(
      e.startDate.toJSDate().getTime() + (e.startDate.isDate ? -e.startDate.toJSDate().getTimezoneOffset() * 60_000 : 0),
    )
    expect(o.description ?? '').toBe(e.description ?? '')
    expect(o.location ?? '').toBe(e.location ?? '')
  })
  return { calendar, events, other }
}

/** Every content line ends in CRLF and fits 75 octets (RFC 5545 §3.1). */
function expectWellFormed(text: string) {
  expect(text.endsWith('\r\n')).toBe(true)
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
  for (const line of text.split('\r\n')) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75)
}

const seq = (e: ICAL.Event) => Number(e.component.getFirstPropertyValue('sequence'))

export function icalFeedSuite(name: string, makeStorage: () => Storage | Promise<Storage>) {
  async function app(options: CalendarOptions = {}): Promise<App> {
    const a = await makeApp(makeStorage, options)
    onTestFinished(() => a.close())
    return a
  }
  /** n events a day apart from 2026-12-01, titled `Event 01`... */
  async function seedDays(a: App, n: number) {
    for (let i = 1; i <= n; i++) {
      const day = `2026-12-${String(i).padStart(2, '0')}`
      await a.seed({ title: `Event ${String(i).padStart(2, '0')}`, start_date: `${day} 10:00:00`, end_date: `${day} 11:00:00` })
    }
  }
  const titles = (p: Parsed) => p.events.map((e) => e.summary)

  describe(`iCalendar subscriptions [${name}]`, () => {
    it('holds the whole window without page/per_page, and pages exactly like JSON with them', async () => {
      const a = await app({ perPage: 5 })
      await seedDays(a, 12)
      expect(a.router.options.ical.maxEvents).toBe(2000)

      const json = await a.get('/events')
      expect(json.body.events).toHaveLength(5)
      const feed = await a.get('/events?format=ics')
      expect(feed.status).toBe(200)
      expectWellFormed(feed.text)
      const all = parseBoth(feed.text)
      expect(titles(all)).toEqual(Array.from({ length: 12 }, (_, i) => `Event ${String(i + 1).padStart(2, '0')}`))
      expect(feed.headers.get('x-tec-total')).toBe('12')
      expect(feed.headers.get('x-calendar-truncated')).toBeNull()
      expect(feed.text).not.toContain('X-CALENDAR-TRUNCATED')
      // The same window filters apply: a narrower window is a smaller feed.
      expect(titles(parseBoth((await a.get('/events?format=ics&start_date=2026-12-03&end_date=2026-12-04')).text))).toEqual([
        'Event 03',
        'Event 04',
      ])

      const paged = await a.get('/events?format=ics&per_page=4&page=2')
      expect(titles(parseBoth(paged.text))).toEqual(['Event 05', 'Event 06', 'Event 07', 'Event 08'])
      expect(paged.headers.get('x-tec-totalpages')).toBe('3')
      // `page` alone pages with the default page size, as JSON does.
      const pageOnly = await a.get('/events?format=ics&page=3')
      expect(titles(parseBoth(pageOnly.text))).toEqual(['Event 11', 'Event 12'])
      expect(pageOnly.headers.get('x-tec-totalpages')).toBe(json.headers.get('x-tec-totalpages'))
      expect((await a.get('/events?format=ics&per_page=4&page=4')).status).toBe(404)
    })

    it('stops at the cap and says so in the feed and in a header', async () => {
      const a = await app({ ical: { maxEvents: 7 }, cors: { origins: '*' } })
      await seedDays(a, 9)
      const feed = await a.get('/events', { headers: { accept: 'text/calendar', origin: 'https://app.example' } })
      expect(feed.status).toBe(200)
      expect(feed.headers.get('x-calendar-truncated')).toBe('7 of 9')
      // Browser calendars (FullCalendar and the like) may read it across origins.
      expect(feed.headers.get('access-control-expose-headers')).toContain('X-Calendar-Truncated')
      expect(feed.headers.get('x-tec-total')).toBe('9')
      const p = parseBoth(feed.text)
      expect(titles(p)).toEqual(['Event 01', 'Event 02', 'Event 03', 'Event 04', 'Event 05', 'Event 06', 'Event 07'])
      expect(p.calendar.getFirstPropertyValue('x-calendar-truncated')).toBe(
        '7 of 9 events. Narrow the window with start_date and end_date or page with per_page.',
      )
      // An explicit page is not cut by the feed cap.
      expect(parseBoth((await a.get('/events?format=ics&per_page=9')).text).events).toHaveLength(9)
      await expect(makeApp(makeStorage, { ical: { maxEvents: 0 } })).rejects.toThrow(/ical.maxEvents/)
    })

    it('writes text fields as plain text: no tags, no script or style contents, entities decoded', async () => {
      const a = await app()
      const venue = await a.post(
        '/venues',
        { venue: 'Smith &amp; Sons <b>Hall</b>', address: '1 Main St', city: 'Springfield' },
        { as: 'administrator' },
      )
      await a.seed({
        title: 'Rock &amp; Roll&#8217;s <em>night</em>  &lt;live&gt;',
        description:
          '<style>p { color: red }</style><script>alert("x")</script><p>First&nbsp;paragraph,\n   with   spaces.</p>' +
          '<p>Line one<br>Line two</p><!-- a comment --><ul><li>One</li><li>Two &eacute;</li></ul>',
        venue: venue.body.id,
        categories: ['Arts &amp; Crafts'],
      })
      const res = await a.get('/events?format=ics')
      expectWellFormed(res.text)
      const [e] = parseBoth(res.text).events
      expect(e!.summary).toBe('Rock & Roll’s night <live>')
      expect(e!.description).toBe('First paragraph, with spaces.\n\nLine one\nLine two\n\nOne\nTwo é')
      expect(e!.location).toBe('Smith & Sons Hall, 1 Main St, Springfield')
      expect([...e!.component.getFirstProperty('categories')!.getValues()]).toEqual(['Arts & Crafts'])
      for (const leak of ['&amp;', '&#8217;', '&nbsp;', '&lt;', 'alert', 'color', 'comment']) expect(res.text).not.toContain(leak)
      expect(res.text).not.toMatch(/<\/?(p|b|em|li|ul|br|script|style)\b/)
    })

    it('has one ORGANIZER (the first organizer with an e-mail) and the others as CONTACT', async () => {
      const a = await app()
      const noMail = await a.post('/organizers', { organizer: 'Box Office', phone: '555-0100' }, { as: 'administrator' })
      const first = await a.post('/organizers', { organizer: 'Acme "Events"', email: 'events@acme.example' }, { as: 'administrator' })
      const second = await a.post('/organizers', { organizer: 'Other Org', email: 'hello@other.example' }, { as: 'administrator' })
      await a.seed({ title: 'Shared', organizer: [noMail.body.id, first.body.id, second.body.id] })
      const res = await a.get('/events?format=ics')
      const p = parseBoth(res.text)
      const vevent = p.events[0]!.component
      expect(vevent.getAllProperties('organizer')).toHaveLength(1)
      expect(vevent.getFirstPropertyValue('organizer')).toBe('mailto:events@acme.example')
      expect(vevent.getFirstProperty('organizer')!.getParameter('cn')).toBe("Acme 'Events'")
      expect(vevent.getAllProperties('contact').map((c) => c.getFirstValue())).toEqual([
        'Box Office, 555-0100',
        'Other Org, hello@other.example',
      ])
      const other = p.other[0]! as unknown as { organizer: { val: string; params: { CN: string } } }
      expect(other.organizer.val).toBe('mailto:events@acme.example')
      expect(other.organizer.params.CN).toBe("Acme 'Events'")
    })

    it('raises SEQUENCE whenever something a calendar shows changes, and only then', async () => {
      const a = await app()
      const venue = await a.post('/venues', { venue: 'Hall', city: 'Springfield' }, { as: 'administrator' })
      const other = await a.post('/venues', { venue: 'Park', city: 'Shelbyville' }, { as: 'administrator' })
      const org = await a.post('/organizers', { organizer: 'Acme', email: 'a@acme.example' }, { as: 'administrator' })
      const e = await a.seed({ title: 'Moving', venue: venue.body.id, organizer: [org.body.id], categories: ['Music'] })
      const sequence = async () => seq(parseBoth((await a.get(`/events/${e.id}?format=ics`, { as: 'administrator' })).text).events[0]!)
      expect(await sequence()).toBe(0)
      const steps: Array<[string, () => Promise<unknown>, number]> = [
        ['title', () => a.post(`/events/${e.id}`, { title: 'Moved' }, { as: 'administrator' }), 1],
        ['same title again', () => a.post(`/events/${e.id}`, { title: 'Moved' }, { as: 'administrator' }), 1],
        ['featured (not shown)', () => a.post(`/events/${e.id}`, { featured: true }, { as: 'administrator' }), 1],
        ['start date', () => a.post(`/events/${e.id}`, { start_date: '2026-11-28 11:00:00' }, { as: 'administrator' }), 2],
        ['all day', () => a.post(`/events/${e.id}`, { all_day: true }, { as: 'administrator' }), 3],
        ['description', () => a.post(`/events/${e.id}`, { description: 'Now with words' }, { as: 'administrator' }), 4],
        ['venue link', () => a.post(`/events/${e.id}`, { venue: other.body.id }, { as: 'administrator' }), 5],
        ["the venue's address", () => a.post(`/venues/${other.body.id}`, { address: '2 Park Rd' }, { as: 'administrator' }), 6],
        ["an unrelated venue's address", () => a.post(`/venues/${venue.body.id}`, { address: '9 Elm St' }, { as: 'administrator' }), 6],
        ["the organizer's e-mail", () => a.post(`/organizers/${org.body.id}`, { email: 'b@acme.example' }, { as: 'administrator' }), 7],
        [
          'category name',
          async () => {
            const cat = (await a.get('/categories?search=Music')).body.categories[0]
            return a.post(`/categories/${cat.id}`, { name: 'Live music' }, { as: 'administrator' })
          },
          8,
        ],
        ['status', () => a.post(`/events/${e.id}`, { status: 'draft' }, { as: 'administrator' }), 9],
      ]
      for (const [what, change, expected] of steps) {
        const res = (await change()) as { status: number }
        expect(res.status, what).toBe(200)
        expect(await sequence(), what).toBe(expected)
      }
      const draft = parseBoth((await a.get(`/events/${e.id}?format=ics`, { as: 'administrator' })).text).events[0]!
      expect(draft.component.getFirstPropertyValue('status')).toBe('TENTATIVE')
      expect(draft.location).toBe('Park, 2 Park Rd, Shelbyville')
    })

    it('writes the calendar properties calendar apps read, with the refresh hint as an option', async () => {
      const a = await app({ timezone: 'Europe/Berlin' })
      const venue = await a.post('/venues', { venue: 'Hall' }, { as: 'administrator' })
      // Venues take coordinates from the host (geocoding); set them the way a host would.
      await a.storage.transaction((tx) => tx.updatePost(venue.body.id, 'venue', { geoLat: 52.52, geoLng: 13.405 }))
      const e = await a.seed({ title: 'Berlin', venue: venue.body.id, categories: ['Music'] })
      const res = await a.get('/events?format=ics')
      const p = parseBoth(res.text)
      expect(p.calendar.getFirstPropertyValue('x-wr-calname')).toBe('Events')
      expect(p.calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Berlin')
      expect(res.text).toContain('\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n')
      expect(p.calendar.getFirstProperty('refresh-interval')!.type).toBe('duration')
      expect(String(p.calendar.getFirstPropertyValue('refresh-interval'))).toBe('PT1H')
      expect(String(p.calendar.getFirstPropertyValue('x-published-ttl'))).toBe('PT1H')
      const v = p.events[0]!.component
      expect(v.getFirstPropertyValue('url')).toBe(e.url)
      expect(v.getFirstPropertyValue('status')).toBe('CONFIRMED')
      expect(v.getFirstPropertyValue('last-modified')!.toString()).toBe('2026-11-21T22:54:48Z')
      expect(v.getFirstPropertyValue('geo')).toEqual([52.52, 13.405])
      expect((p.other[0] as unknown as { geo: { lat: number; lon: number } }).geo).toEqual({ lat: 52.52, lon: 13.405 })

      const custom = await app({ ical: { refreshSeconds: 900, name: 'Springfield, events' } })
      const text = (await custom.get('/events?format=ics')).text
      expect(text).toContain('REFRESH-INTERVAL;VALUE=DURATION:PT15M\r\n')
      expect(text).toContain('X-PUBLISHED-TTL:PT15M\r\n')
      expect(parseBoth(text).calendar.getFirstPropertyValue('x-wr-calname')).toBe('Springfield, events')
      expect((nodeIcal.sync.parseICS(text).vcalendar as unknown as Record<string, string>)['WR-CALNAME']).toBe('Springfield, events')
    })

    it('negotiates with Accept quality values: highest q wins, q=0 excludes, JSON on ties and by default', async () => {
      const a = await app()
      const e = await a.seed({ title: 'Negotiated' })
      const cases: Array<[string | null, 'ics' | 'json']> = [
        [null, 'json'],
        ['', 'json'],
        ['text/calendar', 'ics'],
        ['TEXT/Calendar; Q=1', 'ics'],
        ['text/calendar;q=0', 'json'],
        ['text/calendar;q=0, */*', 'json'],
        ['text/calendar;q=0.000', 'json'],
        ['application/json;q=0.5, text/calendar', 'ics'],
        ['application/json, text/calendar;q=0.9', 'json'],
        ['text/calendar, application/json', 'json'],
        ['application/json;q=0.7, text/calendar;q=0.7', 'json'],
        ['text/*', 'ics'],
        ['text/*;q=0.3, application/json;q=0.2', 'ics'],
        ['text/*;q=0.9, text/calendar;q=0', 'json'],
        ['*/*;q=0.1, text/calendar;q=0.2', 'ics'],
        ['*/*', 'json'],
        ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
        ['text/calendar;charset="utf-8, really";q=0.8, application/json;q=0.5', 'ics'],
        ['application/json;q=0, text/calendar;q=0.001', 'ics'],
        ['text/calendar;q=1.5', 'json'],
      ]
      for (const [accept, expected] of cases) {
        const headers = accept === null ? undefined : { accept }
        for (const path of ['/events', `/events/${e.id}`]) {
          const res = await a.get(path, headers ? { headers } : {})
          expect(res.status, `${accept} ${path}`).toBe(200)
          expect(res.headers.get('content-type'), `${accept} ${path}`).toBe(
            expected === 'ics' ? 'text/calendar; charset=UTF-8' : 'application/json; charset=UTF-8',
          )
          expect(res.headers.get('vary'), `${accept} ${path}`).toContain('Accept')
        }
      }
      // `format` overrides the header; an unknown one is still a 400.
      expect((await a.get('/events?format=json', { headers: { accept: 'text/calendar' } })).headers.get('content-type')).toContain('json')
      expect((await a.get('/events?format=ics', { headers: { accept: 'application/json' } })).headers.get('content-type')).toContain(
        'text/calendar',
      )
      const bad = await a.get('/events?format=vcs', { headers: { accept: 'text/calendar' } })
      expect(bad.status).toBe(400)
      expect(bad.body.code).toBe('rest_invalid_param')
    })

    it('shows callers only what they may read, with drafts TENTATIVE to their editors', async () => {
      const a = await app()
      await a.seed({ title: 'Public' })
      await a.seed({ title: 'Editors only', status: 'draft' })
      const anon = parseBoth((await a.get('/events?format=ics')).text)
      expect(titles(anon)).toEqual(['Public'])
      const admin = parseBoth((await a.get('/events?format=ics', { as: 'administrator' })).text)
      expect(admin.events.map((e) => [e.summary, e.component.getFirstPropertyValue('status')])).toEqual([
        ['Public', 'CONFIRMED'],
        ['Editors only', 'TENTATIVE'],
      ])
      const gone = await a.seed({ title: 'Called off' })
      expect((await a.del(`/events/${gone.id}`, { as: 'administrator' })).status).toBe(200)
      const trash = parseBoth((await a.get('/events?format=ics&status=trash', { as: 'administrator' })).text)
      expect(trash.events.map((e) => [e.summary, e.component.getFirstPropertyValue('status')])).toEqual([['Called off', 'CANCELLED']])
    })
  })
}
