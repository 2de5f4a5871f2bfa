/**
 * The `npm start` server's pages as a person sees them, in headless Chromium (Debian's
 * `chromium`, driven by playwright-core as test/fullcalendar.test.ts does): the home page and
 * its links, the month calendar, the event page with its JSON-LD, the editor with the API's 400
 * messages, axe-core on every page (no violation at all on our own pages; none serious or
 * critical in the reference page's Swagger UI), every page at 375×740,
 * 390×844 and 1280×800 without horizontal scrolling, and the bad input: unknown slugs, drafts,
 * HTML in titles.
 * Screenshots of every page go to .ci-out/screenshots/ (CI artifacts, looked at by a person);
 * axe's findings to .ci-out/axe-pages.json. JSON-LD: @adobe/structured-data-validator
 * (test/support/structured-data.ts) and the rich-result rules checked here by hand.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../examples/node-server/server.js'
import { structuredDataIssues } from './support/structured-data.js'
import { launchChromium } from './support/chromium.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SHOTS = join(ROOT, '.ci-out', 'screenshots')
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const TOKEN = 'pages-admin-token'
const HOSTILE = '<img src=x onerror="window.__pwned=1">Bad <script>window.__pwned=2</script>title'

// Dates in next month: always ahead (the home page lists upcoming events), never stale.
const today = new Date()
const monthStart = (offset: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1 + offset, 1))
const YM = monthStart(0).toISOString().slice(0, 7)
const day = (d: number) => `${YM}-${String(d).padStart(2, '0')}`
const monthTitle = (offset: number) =>
  new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(monthStart(offset))
const longDay = (d: number) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${day(d)}T00:00:00Z`),
  )
/** `+01:00` from a wall time and the API's UTC time of the same instant. */
const offsetOf = (wall: string, utc: string) => {
  const minutes = (Date.parse(`${wall.replace(' ', 'T')}Z`) - Date.parse(`${utc.replace(' ', 'T')}Z`)) / 60_000
  const abs = Math.abs(minutes)
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
const compactUtc = (utc: string) => utc.replace(/[-:]/g, '').replace(' ', 'T') + 'Z'

let server: Awaited<ReturnType<typeof startServer>>
let site = ''
let api = ''
let browser: Browser
const axeFindings: Record<string, Array<{ id: string; impact: string; nodes: number; help: string }>> = {}

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${api}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

const seeded: Record<string, any> = {}

beforeAll(async () => {
  // An empty database (no demo data): the test knows every event it shows.
  server = await startServer({
    PORT: '0',
    HOST: '127.0.0.1',
    CALENDAR_STORAGE: 'memory',
    CALENDAR_DEMO: 'off',
    CALENDAR_API_TOKENS: `${TOKEN}:administrator`,
    CALENDAR_TIMEZONE: 'Europe/Berlin',
  })
  site = `http://127.0.0.1:${server.port}`
  api = `${site}/wp-json/calendar/events/v1`
  seeded.venue = await post('/venues', {
    venue: 'Konzerthaus',
    address: 'Gendarmenmarkt 2',
    city: 'Berlin',
    zip: '10117',
    country: 'Germany',
    geo_lat: 52.5137,
    geo_lng: 13.3918,
  })
  seeded.organizer = await post('/organizers', { organizer: 'Berlin Winter Music', email: 'info@winter-music.example' })
  seeded.concert = await post('/events', {
    title: 'Winter Concert',
    description: '<p>Bach and <em>Vivaldi</em>.</p><script>window.__pwned = 3</script>',
    excerpt: 'Bach and Vivaldi by candlelight.',
    start_date: `${day(4)} 19:00:00`,
    end_date: `${day(4)} 21:30:00`,
    timezone: 'Europe/Berlin',
    venue: seeded.venue.id,
    organizer: [seeded.organizer.id],
    categories: ['Music'],
    cost: '25',
    status: 'publish',
  })
  seeded.online = await post('/events', {
    title: 'Online Talk',
    start_date: `${day(9)} 18:00:00`,
    end_date: `${day(9)} 19:00:00`,
    timezone: 'Europe/Berlin',
    attendance_mode: 'online',
    virtual_url: 'https://meet.example/talk',
    event_status: 'canceled',
    event_status_reason: 'The speaker is ill.',
    categories: ['Talks'],
    status: 'publish',
  })
  seeded.hostile = await post('/events', {
    title: HOSTILE,
    start_date: `${day(15)} 12:00:00`,
    end_date: `${day(15)} 13:00:00`,
    timezone: 'Europe/Berlin',
    status: 'publish',
  })
  seeded.draft = await post('/events', {
    title: 'Secret Draft',
    start_date: `${day(5)} 10:00:00`,
    end_date: `${day(5)} 11:00:00`,
    timezone: 'Europe/Berlin',
    status: 'draft',
  })
  mkdirSync(SHOTS, { recursive: true })
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  if (server) {
    server.server.closeAllConnections()
    await new Promise((resolve) => server.server.close(resolve))
    await server.storage.close?.()
  }
  mkdirSync(join(ROOT, '.ci-out'), { recursive: true })
  writeFileSync(join(ROOT, '.ci-out', 'axe-pages.json'), JSON.stringify(axeFindings, null, 2))
})

const path = (url: string) => new URL(url).pathname

/** A page in a fresh context: desktop size unless a phone is asked for. Page errors fail the test. */
async function open(
  url: string,
  options: { phone?: boolean; allowStatus?: number | number[]; size?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.size ?? (options.phone ? { width: 375, height: 740 } : { width: 1200, height: 900 }),
    deviceScaleFactor: 1,
    isMobile: options.phone ?? false,
    hasTouch: options.phone ?? false,
  })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(String(error)))
  page.on('console', (message) => {
    // The 404 pages are asked for on purpose, and the editor's 400s (allowStatus) are the point.
    const expected =
      /status of 404 \(Not Found\)/.test(message.text()) ||
      [options.allowStatus ?? []].flat().some((status) => message.text().includes(`status of ${status}`))
    if (message.type() === 'error' && !expected) errors.push(message.text())
  })
  ;(page as Page & { errors: string[] }).errors = errors
  await page.goto(`${site}${url}`)
  return page
}

async function close(page: Page): Promise<void> {
  const errors = (page as Page & { errors?: string[] }).errors ?? []
  await page.context().close()
  expect(errors).toEqual([])
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
}

/** axe-core's source evaluated in the page (CSP forbids inline script tags; evaluation is the test's). */
async function axeCheck(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      help: v.help,
      targets: v.nodes.map((n: any) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`.slice(0, 300)).slice(0, 5),
    }))
  })
  axeFindings[name] = violations
  // Our own pages have no finding of any impact. The reference page is Swagger UI's markup: its
  // minor and moderate findings (a second <main> given a region role, its tag headings under our
  // h1) are its own; a serious or critical one still fails.
  const tolerated = name.startsWith('reference') ? ['minor', 'moderate'] : []
  const grave = violations.filter((v: { impact: string }) => !tolerated.includes(v.impact))
  expect(grave, `${name}: ${JSON.stringify(grave, null, 1)}`).toEqual([])
}

async function noHorizontalScroll(page: Page, name: string): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }))
  expect(scrollWidth, name).toBeLessThanOrEqual(clientWidth)
}

async function calendarReady(page: Page): Promise<void> {
  await page.waitForFunction(() => /event/.test(document.getElementById('calendar-status')?.textContent ?? ''), null, { timeout: 20_000 })
}

describe('example pages: home', () => {
  it('says what this is and links to the calendar, the API root, the reference and the feed', async () => {
    const page = await open('/')
    try {
      expect(await page.locator('html').getAttribute('lang')).toBe('en')
      expect(await page.locator('h1').textContent()).toBe('Events calendar')
      const hrefs = await page.locator('main a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))
      expect(hrefs).toEqual(
        expect.arrayContaining([
          '/calendar/',
          '/wp-json/calendar/events/v1/',
          '/reference/',
          `webcal://127.0.0.1:${server.port}/wp-json/calendar/events/v1/events?format=ics`,
          `${api}/events?format=ics`,
          path(seeded.concert.url),
        ]),
      )
      // The draft is not listed for an anonymous visitor.
      expect(await page.locator('main').textContent()).not.toContain('Secret Draft')
      await shot(page, 'home')
      await axeCheck(page, 'home')
    } finally {
      await close(page)
    }
  }, 60_000)
})

describe('example pages: calendar', () => {
  it('shows a known event on its day in the month view and navigates between months', async () => {
    const page = await open(`/calendar/?date=${day(1)}&view=dayGridMonth`)
    try {
      await calendarReady(page)
      const dayOf = (title: string) =>
        page
          .locator('td.fc-daygrid-day', { has: page.locator('.fc-event-title', { hasText: title }) })
          .first()
          .getAttribute('data-date')
      expect(await dayOf('Winter Concert')).toBe(day(4))
      expect(await page.locator('.fc-toolbar-title').textContent()).toBe(monthTitle(0))
      // The event links to its page.
      const link = page.locator('a.fc-event', { hasText: 'Winter Concert' }).first()
      expect(await link.getAttribute('href')).toBe(path(seeded.concert.url))
      // Drafts are the editors' business: not in an anonymous calendar.
      expect(await page.locator('.fc-event-title', { hasText: 'Secret Draft' }).count()).toBe(0)
      await shot(page, 'calendar-month')
      await axeCheck(page, 'calendar-month')

      await page.getByRole('button', { name: 'Next month' }).click()
      await expect.poll(() => page.locator('.fc-toolbar-title').textContent()).toBe(monthTitle(1))
      await page.getByRole('button', { name: 'Previous month' }).click()
      await page.getByRole('button', { name: 'Previous month' }).click()
      await expect.poll(() => page.locator('.fc-toolbar-title').textContent()).toBe(monthTitle(-1))
      expect(new URL(page.url()).searchParams.get('date')).toBe(monthStart(-1).toISOString().slice(0, 10))
    } finally {
      await close(page)
    }
  }, 60_000)

  it('filters by category, and has week and list views', async () => {
    const page = await open(`/calendar/?date=${day(1)}&view=dayGridMonth`)
    try {
      await calendarReady(page)
      await page.getByLabel('Category').selectOption('talks')
      await expect.poll(() => page.locator('.fc-event-title').allTextContents()).toEqual(['Cancelled: Online Talk'])
      await page.getByLabel('Category').selectOption('')
      await expect.poll(() => page.locator('.fc-event-title', { hasText: 'Winter Concert' }).count()).toBe(1)
      await page.getByRole('button', { name: 'List' }).click()
      await expect.poll(() => page.locator('.fc-list-event-title').allTextContents()).toContain('Winter Concert')
      // A cancelled event is struck through here too, as in the month, week and agenda.
      const struck = (title: string) =>
        page
          .locator('.fc-list-event', { hasText: title })
          .locator('.fc-list-event-title a')
          .evaluate((a) => getComputedStyle(a).textDecorationLine)
      expect(await struck('Online Talk')).toBe('line-through')
      expect(await struck('Winter Concert')).not.toContain('line-through')
      await shot(page, 'calendar-list')
      await axeCheck(page, 'calendar-list')
      await page.goto(`${site}/calendar/?date=${day(4)}&view=timeGridWeek`)
      await calendarReady(page)
      await expect.poll(() => page.locator('.fc-timegrid-event .fc-event-title').allTextContents()).toContain('Winter Concert')
      await shot(page, 'calendar-week')
      await axeCheck(page, 'calendar-week')
    } finally {
      await close(page)
    }
  }, 60_000)
})

/**
 * What Google's rich results need of an Event (schema.org/Event), checked by hand: the page's
 * side (an offset on dates, a Place with an address or a VirtualLocation), beside the validator.
 */
function eventProblems(ld: any): string[] {
  const problems: string[] = []
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?([+-]\d{2}:\d{2}|Z))?$/
  if (!/^https?:\/\/schema\.org\/?$/.test(ld['@context'] ?? '')) problems.push('@context is not schema.org')
  if (ld['@type'] !== 'Event') problems.push('@type is not Event')
  if (typeof ld.name !== 'string' || !ld.name) problems.push('name missing')
  if (!iso.test(ld.startDate ?? '')) problems.push(`startDate ${ld.startDate} is not ISO 8601 with an offset`)
  if (ld.endDate !== undefined && !iso.test(ld.endDate)) problems.push(`endDate ${ld.endDate} is not ISO 8601`)
  const location = ld.location
  if (!location) problems.push('location missing')
  else if (location['@type'] === 'Place') {
    if (!location.name) problems.push('location.name missing')
    if (!location.address || location.address['@type'] !== 'PostalAddress') problems.push('location.address is not a PostalAddress')
  } else if (location['@type'] !== 'VirtualLocation' || !location.url)
    problems.push(`location ${JSON.stringify(location)} is neither a Place nor a VirtualLocation with a url`)
  if (
    ld.eventStatus !== undefined &&
    !/^https?:\/\/schema\.org\/Event(Scheduled|Cancelled|Postponed|Rescheduled|MovedOnline)$/.test(ld.eventStatus)
  )
    problems.push(`eventStatus ${ld.eventStatus}`)
  if (
    ld.eventAttendanceMode !== undefined &&
    !/^https?:\/\/schema\.org\/(Offline|Online|Mixed)EventAttendanceMode$/.test(ld.eventAttendanceMode)
  )
    problems.push(`eventAttendanceMode ${ld.eventAttendanceMode}`)
  if (ld.offers !== undefined && (ld.offers['@type'] !== 'Offer' || ld.offers.price === undefined))
    problems.push('offers is not an Offer with a price')
  return problems
}

async function jsonLdOf(page: Page): Promise<any[]> {
  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents()
  return blocks.map((text) => JSON.parse(text))
}

describe('example pages: event, venue and organizer', () => {
  it('shows title, date in the event zone, venue and organizer, with JSON-LD of a schema.org Event', async () => {
    const page = await open(path(seeded.concert.url))
    try {
      expect(await page.locator('h1').textContent()).toBe('Winter Concert')
      const when = await page.locator('.fact', { hasText: 'When' }).textContent()
      expect(when).toContain(`${longDay(4)}, 19:00`)
      expect(when).toContain('21:30')
      expect(when).toContain('Europe/Berlin')
      const startIso = `${day(4)}T19:00:00${offsetOf(seeded.concert.start_date, seeded.concert.utc_start_date)}`
      expect(await page.locator('time').first().getAttribute('datetime')).toBe(startIso)
      const venue = page.locator('.fact', { hasText: 'Venue' })
      expect(await venue.locator('a').first().textContent()).toBe('Konzerthaus')
      expect(await venue.locator('a').first().getAttribute('href')).toBe(path(seeded.venue.url))
      expect(await venue.locator('a', { hasText: 'Map' }).getAttribute('href')).toContain('mlat=52.51370&mlon=13.39180')
      expect(await page.locator('.fact', { hasText: 'Organizer' }).textContent()).toContain('Berlin Winter Music')
      expect(await page.locator('.fact', { hasText: 'Cost' }).textContent()).toContain('25')
      // Add to calendar: the API's own .ics of this event, and a Google Calendar template.
      const ics = await page.getByRole('link', { name: 'iCalendar file (.ics)' }).getAttribute('href')
      expect(ics).toBe(`/wp-json/calendar/events/v1/events/${seeded.concert.id}?format=ics`)
      const icsBody = await (await fetch(`${site}${ics}`)).text()
      expect(icsBody).toContain('SUMMARY:Winter Concert')
      const google = new URL((await page.getByRole('link', { name: 'Google Calendar' }).getAttribute('href'))!)
      expect(google.searchParams.get('dates')).toBe(
        `${compactUtc(seeded.concert.utc_start_date)}/${compactUtc(seeded.concert.utc_end_date)}`,
      )
      expect(google.searchParams.get('location')).toContain('Konzerthaus')
      // The description is the filtered HTML: its markup stays, its script is gone.
      expect(await page.locator('.description em').textContent()).toBe('Vivaldi')
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined()

      const [ld, ...more] = await jsonLdOf(page)
      expect(more).toEqual([])
      expect(eventProblems(ld)).toEqual([])
      // And the project's structured-data validator (schema.org vocabulary + Google's rules).
      expect(await structuredDataIssues(ld)).toEqual([])
      expect(ld).toMatchObject({ name: 'Winter Concert', startDate: startIso, location: { name: 'Konzerthaus' } })
      await shot(page, 'event')
      await axeCheck(page, 'event')
    } finally {
      await close(page)
    }
  }, 60_000)

  it('shows a cancelled online event as such, with its join link', async () => {
    const page = await open(path(seeded.online.url))
    try {
      expect(await page.locator('.status').textContent()).toBe('Cancelled. The speaker is ill.')
      expect(await page.getByRole('link', { name: 'Join online' }).getAttribute('href')).toBe('https://meet.example/talk')
      const [ld] = await jsonLdOf(page)
      expect(eventProblems(ld)).toEqual([])
      expect(await structuredDataIssues(ld)).toEqual([])
      expect(ld.eventStatus).toMatch(/EventCancelled$/)
      await shot(page, 'event-cancelled-online')
      await axeCheck(page, 'event-cancelled-online')
    } finally {
      await close(page)
    }
  }, 60_000)

  it('has venue and organizer pages at their permalinks, listing their events', async () => {
    for (const [name, record, heading] of [
      ['venue', seeded.venue, 'Konzerthaus'],
      ['organizer', seeded.organizer, 'Berlin Winter Music'],
    ] as const) {
      const page = await open(path(record.url))
      try {
        expect(await page.locator('h1').textContent()).toBe(heading)
        expect(await page.locator('.event-list a').allTextContents()).toEqual(['Winter Concert'])
        const [ld] = await jsonLdOf(page)
        expect(ld['@type']).toBe(name === 'venue' ? 'Place' : 'Person')
        await shot(page, name)
        await axeCheck(page, name)
      } finally {
        await close(page)
      }
    }
  }, 60_000)
})

describe('example pages: API reference', () => {
  it('renders /doc with the OpenAPI viewer from node_modules', async () => {
    const page = await open('/reference/')
    try {
      await page.locator('.opblock-tag').first().waitFor({ timeout: 20_000 })
      expect(await page.locator('.opblock-tag', { hasText: /events/i }).count()).toBeGreaterThan(0)
      await shot(page, 'reference')
      await axeCheck(page, 'reference')
    } finally {
      await close(page)
    }
  }, 60_000)
})

describe('example pages: editor', () => {
  it("signs in with the token, shows a 400's messages next to their fields, creates and edits an event", async () => {
    const page = await open('/editor/', { allowStatus: 400 })
    try {
      await axeCheck(page, 'editor-sign-in')
      await page.getByLabel('API token').fill('not-a-token')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.locator('#error-token').textContent()).toContain('not one this server accepts')
      await page.getByLabel('API token').fill(TOKEN)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('#event-form').waitFor()

      // An empty title and a link that is not one: the API answers 400 and names both.
      await page.getByLabel('Starts').fill(`${day(10)}T18:00`)
      await page.getByLabel('Ends').fill(`${day(10)}T20:00`)
      await page.getByLabel('Online link').fill('not a link')
      await page.getByRole('button', { name: 'Create event' }).click()
      const titleError = page.locator('[data-field="title"] .field-error')
      await titleError.waitFor({ state: 'visible' })
      expect(await titleError.textContent()).toBe('Invalid parameter.')
      expect(await page.locator('[data-field="virtual_url"] .field-error').textContent()).toBe('Invalid parameter.')
      expect(await page.getByLabel('Title', { exact: true }).getAttribute('aria-invalid')).toBe('true')
      expect(await page.getByLabel('Title', { exact: true }).getAttribute('aria-describedby')).toContain('error-title')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-title')
      await shot(page, 'editor-400')
      await axeCheck(page, 'editor-400')

      await page.getByLabel('Title', { exact: true }).fill('Editor <b>launch</b>')
      await page.getByLabel('Online link').fill('')
      // A category is created explicitly: typed, then added to the choices (checked).
      await page.getByLabel('New category').fill('Launches')
      await page.getByRole('button', { name: 'Add category' }).click()
      expect(await page.getByRole('checkbox', { name: 'Launches' }).isChecked()).toBe(true)
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#form-status').textContent()).toContain('Event created')
      expect(await page.locator('[data-field="title"] .field-error').isHidden()).toBe(true)
      const id = Number(new URL(page.url()).searchParams.get('id'))
      const created = (await (await fetch(`${api}/events/${id}`)).json()) as { title: string; start_date: string; timezone: string }
      expect(created).toMatchObject({ title: 'Editor <b>launch</b>', start_date: `${day(10)} 18:00:00`, timezone: 'Europe/Berlin' })

      // Edit: the form reloads it, a change is saved.
      await page.goto(`${site}/editor/?id=${id}`)
      await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Editor launch')
      await page.getByLabel('Title', { exact: true }).fill('Editor launch, renamed')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await expect.poll(() => page.locator('#form-status').textContent()).toContain('Changes saved')
      expect(((await (await fetch(`${api}/events/${id}`)).json()) as { title: string }).title).toBe('Editor launch, renamed')
      await shot(page, 'editor-saved')
      await axeCheck(page, 'editor-saved')
    } finally {
      await close(page)
    }
  }, 90_000)
})

describe('example pages: bad input', () => {
  it('answers an unknown slug with an HTML 404 page', async () => {
    for (const url of ['/event/no-such-event/', '/venue/nowhere/', '/organizer/nobody/', '/no/such/page', '/?p=999999']) {
      const res = await fetch(`${site}${url}`)
      expect([url, res.status, res.headers.get('content-type')]).toEqual([url, 404, 'text/html; charset=utf-8'])
      expect(await res.text()).toContain('<h1>Not found</h1>')
    }
    const page = await open('/event/no-such-event/')
    try {
      await shot(page, 'not-found')
      await axeCheck(page, 'not-found')
    } finally {
      await close(page)
    }
  }, 60_000)

  it("does not show a draft's page to anonymous visitors, only to a signed-in editor", async () => {
    expect(seeded.draft.url).toBe(`${site}/?p=${seeded.draft.id}`)
    const anonymous = await fetch(seeded.draft.url)
    expect(anonymous.status).toBe(404)
    expect(await anonymous.text()).not.toContain('Secret Draft')
    expect((await fetch(`${site}/event/${seeded.draft.slug}/`)).status).toBe(404)
    // The editor's cookie: the page reads the API with the visitor's token.
    const signedIn = await fetch(seeded.draft.url, { headers: { cookie: `calendar_token=${TOKEN}` } })
    expect(signedIn.status).toBe(200)
    expect(await signedIn.text()).toContain('<h1>Secret Draft</h1>')
    expect((await fetch(seeded.draft.url, { headers: { cookie: 'calendar_token=wrong' } })).status).toBe(404)
  })

  it('never runs HTML from titles or descriptions: shown as text on every page', async () => {
    for (const url of [path(seeded.hostile.url), '/', `/calendar/?date=${day(1)}&view=listMonth`]) {
      const page = await open(url)
      try {
        if (url.startsWith('/calendar/')) await calendarReady(page)
        await page.waitForTimeout(200)
        expect(await page.evaluate(() => (window as any).__pwned), url).toBeUndefined()
        expect(await page.locator('main img').count(), url).toBe(0)
        expect(await page.locator('main').textContent(), url).toContain('Bad window.__pwned=2title')
      } finally {
        await close(page)
      }
    }
    // The JSON-LD keeps the title as the API gave it, without closing its script element.
    const page = await open(path(seeded.hostile.url))
    try {
      expect(await page.locator('h1').textContent()).toBe('Bad window.__pwned=2title')
      const [ld] = await jsonLdOf(page)
      expect(ld.name).toBe(HOSTILE)
      expect(await page.locator('script').count()).toBe(1)
    } finally {
      await close(page)
    }
  }, 60_000)
})

describe('example pages: every page at 375×740, 390×844 and 1280×800', () => {
  // Issue 37's sizes (a 390×844 phone, a 1280×800 desktop) and the narrowest common phone: no
  // horizontal scrolling, axe clean, a screenshot of each in .ci-out/screenshots/.
  const SIZES = [
    { width: 375, size: { width: 375, height: 740 }, phone: true },
    { width: 390, size: { width: 390, height: 844 }, phone: true },
    { width: 1280, size: { width: 1280, height: 800 }, phone: false },
  ]
  it.each(SIZES)(
    'renders every page at $width px without horizontal scrolling, axe clean',
    async ({ width, size, phone }) => {
      const pages: Array<[string, string]> = [
        ['home', '/'],
        ['calendar', `/calendar/?date=${day(1)}`],
        ['calendar-month', `/calendar/?date=${day(1)}&view=dayGridMonth`],
        ['calendar-week', `/calendar/?date=${day(4)}&view=timeGridWeek`],
        ['calendar-list', `/calendar/?date=${day(1)}&view=listMonth`],
        ['event', path(seeded.concert.url)],
        ['venue', path(seeded.venue.url)],
        ['organizer', path(seeded.organizer.url)],
        ['reference', '/reference/'],
        ['editor', '/editor/'],
        ['not-found', '/event/no-such-event/'],
      ]
      for (const [name, url] of pages) {
        const page = await open(url, { phone, size })
        try {
          if (url.startsWith('/calendar/')) await calendarReady(page)
          if (url === '/reference/') await page.locator('.opblock-tag').first().waitFor({ timeout: 20_000 })
          await noHorizontalScroll(page, `${name} at ${width}`)
          await shot(page, `${width}-${name}`)
          await axeCheck(page, `${name}-${width}`)
        } finally {
          await close(page)
        }
      }
    },
    180_000,
  )
})

/**
 * The sizes of issue 37: a 1280×800 desktop and a 390×844 phone. Titles wrap between words,
 * never inside one; the phone's month is dots with an agenda below, its week has headers that
 * fit; the week opens at its first event; a list mixing zones labels them.
 */
describe('example pages: the calendar at 1280×800 and 390×844', () => {
  const DESKTOP = { width: 1280, height: 800 }
  const PHONE = { width: 390, height: 844 }
  // A month no other test shows: these events change no count elsewhere.
  const ym = monthStart(2).toISOString().slice(0, 7)
  const on = (d: number) => `${ym}-${String(d).padStart(2, '0')}`
  // In the order the agenda lists them: the third is long enough to need two lines in a week's
  // column on a desktop (and to be cut to one on a phone).
  const TITLES = [
    'Repair Café for Newcomers and Neighbours',
    'Breakfast Briefing',
    'Annual General Meeting of the Allotment Holders Association',
    'Evening Recital',
  ] as const
  const [REPAIR, BREAKFAST, MEETING, RECITAL] = TITLES

  beforeAll(async () => {
    // The same Wednesday: 09:00 in New York (15:00 in Berlin) and 19:00 in Berlin.
    await post('/events', {
      title: REPAIR,
      start_date: `${on(10)} 14:00:00`,
      end_date: `${on(10)} 17:00:00`,
      timezone: 'Europe/Berlin',
      status: 'publish',
    })
    await post('/events', {
      title: BREAKFAST,
      start_date: `${on(12)} 09:00:00`,
      end_date: `${on(12)} 10:00:00`,
      timezone: 'America/New_York',
      status: 'publish',
    })
    await post('/events', {
      title: MEETING,
      start_date: `${on(12)} 11:00:00`,
      end_date: `${on(12)} 13:00:00`,
      timezone: 'America/New_York',
      status: 'publish',
    })
    // The next month's first day is in this month's grid (six weeks): on a phone it must not
    // show a dot the agenda ("This month's events") has no title for.
    await post('/events', {
      title: 'Next Month Opening',
      start_date: `${monthStart(3).toISOString().slice(0, 10)} 10:00:00`,
      end_date: `${monthStart(3).toISOString().slice(0, 10)} 11:00:00`,
      timezone: 'Europe/Berlin',
      status: 'publish',
    })
    await post('/events', {
      title: RECITAL,
      start_date: `${on(12)} 19:00:00`,
      end_date: `${on(12)} 21:00:00`,
      timezone: 'Europe/Berlin',
      status: 'publish',
    })
  })

  /** Words of the titles shown that span more than one line box (a word broken mid-word). */
  async function brokenWords(page: Page, selector: string): Promise<string[]> {
    return page.evaluate((sel) => {
      const broken: string[] = []
      for (const el of Array.from(document.querySelectorAll(sel))) {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? ''
          for (const m of text.matchAll(/\S+/g)) {
            const range = document.createRange()
            range.setStart(node, m.index!)
            range.setEnd(node, m.index! + m[0].length)
            const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)))
            if (lines.size > 1) broken.push(m[0])
          }
        }
      }
      return broken
    }, selector)
  }

  /**
   * How a week's event shows its title: the text, the lines it takes, and whether any of the
   * title or of the time line above it (with its zone) is hidden: cut sideways, as an ellipsis
   * does, or below the event's box.
   */
  async function eventText(event: Locator): Promise<{ cut: string[]; lines: number; text: string }> {
    return event.evaluate((box) => {
      const title = box.querySelector('.fc-event-title')!
      const range = document.createRange()
      range.selectNodeContents(title)
      const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size
      const bottom = box.getBoundingClientRect().bottom
      const cut = Array.from(box.querySelectorAll('.fc-event-title, .fc-event-time'))
        .filter(
          (el) =>
            el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1 || el.getBoundingClientRect().bottom > bottom + 1,
        )
        .map((el) => (el.classList.contains('fc-event-title') ? 'title' : 'time'))
      return { cut, lines, text: title.textContent ?? '' }
    })
  }

  it('desktop: the month shows whole words, the week opens at its first event and wraps long titles', async () => {
    const page = await open(`/calendar/?date=${on(1)}&view=dayGridMonth`, { size: DESKTOP })
    try {
      await calendarReady(page)
      await expect.poll(() => page.locator('.fc-event-title').allTextContents()).toEqual(expect.arrayContaining([...TITLES]))
      await shot(page, 'calendar-month-1280')
      expect(await brokenWords(page, '.fc-event-title')).toEqual([])
      await axeCheck(page, 'calendar-month-1280')
      await page.goto(`${site}/calendar/?date=${on(12)}&view=timeGridWeek`)
      await calendarReady(page)
      const first = page.locator('.fc-timegrid-event', { hasText: BREAKFAST })
      await first.waitFor()
      // The first event of the week (09:00) is in sight without scrolling.
      await expect.poll(() => first.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(DESKTOP.height)
      expect(await first.evaluate((el) => el.getBoundingClientRect().bottom)).toBeGreaterThan(0)
      // Long titles wrap between words and show whole, times with their zones too: the one-line
      // ellipsis is the phone's.
      const meeting = page.locator('.fc-timegrid-event', { hasText: MEETING })
      await meeting.scrollIntoViewIfNeeded()
      await shot(page, 'calendar-week-1280')
      expect((await eventText(meeting)).lines).toBeGreaterThanOrEqual(2)
      const events = await page.locator('.fc-timegrid-event').all()
      // Breakfast, meeting and recital; the repair café too when its Wednesday is in the same week.
      expect(events.length).toBeGreaterThanOrEqual(3)
      for (const event of events) expect(await eventText(event)).toMatchObject({ cut: [], text: expect.stringMatching(/\w/) })
      expect(await brokenWords(page, '.fc-timegrid-event .fc-event-title')).toEqual([])
      // The grid's own labels too ("all-day" once wrapped at its hyphen), and the day headers
      // name the month: "Thu, 11/12" reads as 11 December on a European site.
      expect(await brokenWords(page, '.fc-timegrid-axis, .fc-col-header-cell-cushion, .fc-timegrid-slot-label')).toEqual([])
      const headers = await page.locator('.fc-col-header-cell-cushion').allTextContents()
      expect(headers).toHaveLength(7)
      for (const h of headers) expect(h).toMatch(/^[A-Z][a-z]{2},? (\d{1,2} [A-Z][a-z]{2}|[A-Z][a-z]{2} \d{1,2})$/)
      await axeCheck(page, 'calendar-week-1280')
    } finally {
      await close(page)
    }
  }, 60_000)

  it('phone: the month is dots with an agenda of whole titles below, the week headers fit', async () => {
    const page = await open(`/calendar/?date=${on(1)}&view=dayGridMonth`, { size: PHONE, phone: true })
    try {
      await calendarReady(page)
      const agenda = page.locator('#calendar-agenda')
      await expect.poll(() => agenda.locator('a').allTextContents()).toEqual([...TITLES])
      // Every dot in the grid is an event the agenda lists: none for the next month's days.
      expect(await page.locator('.fc-daygrid-dot-event').count()).toBe(TITLES.length)
      expect(await brokenWords(page, '#calendar-agenda a, .fc-event-title:not(.fc-daygrid-dot-event .fc-event-title)')).toEqual([])
      // The day's heading and the time (with the zone, as the month mixes them) come with each title.
      expect(await agenda.locator('h3').allTextContents()).toHaveLength(2)
      expect(await agenda.locator('li', { hasText: BREAKFAST }).textContent()).toMatch(/09:00 New York/)
      await noHorizontalScroll(page, 'calendar-month-390')
      await shot(page, 'calendar-month-390')
      await axeCheck(page, 'calendar-month-390')

      await page.goto(`${site}/calendar/?date=${on(12)}&view=timeGridWeek`)
      await calendarReady(page)
      // Seven day headers side by side, none wider than its column, none over another.
      const headers = await page.locator('.fc-col-header-cell').evaluateAll((cells) =>
        cells.map((c) => ({
          cell: c.getBoundingClientRect().toJSON(),
          text: c.querySelector('.fc-col-header-cell-cushion')!.getBoundingClientRect().toJSON(),
        })),
      )
      expect(headers).toHaveLength(7)
      for (const h of headers) expect(h.text.width).toBeLessThanOrEqual(h.cell.width + 0.5)
      expect(await brokenWords(page, '.fc-timegrid-axis, .fc-col-header-cell-cushion, .fc-timegrid-slot-label')).toEqual([])
      await expect.poll(() => agenda.locator('a').allTextContents()).toEqual(expect.arrayContaining([BREAKFAST, MEETING, RECITAL]))
      // The narrow column keeps the long title to one line, cut with an ellipsis (the agenda has it whole).
      const meeting = await eventText(page.locator('.fc-timegrid-event', { hasText: MEETING }))
      expect(meeting).toMatchObject({ lines: 1, text: MEETING })
      expect(meeting.cut).toContain('title')
      await noHorizontalScroll(page, 'calendar-week-390')
      await shot(page, 'calendar-week-390')
      await axeCheck(page, 'calendar-week-390')
    } finally {
      await close(page)
    }
  }, 60_000)

  it('list: events of different zones say which zone their time is in', async () => {
    const page = await open(`/calendar/?date=${on(1)}&view=listMonth`, { size: PHONE, phone: true })
    try {
      await calendarReady(page)
      const row = (title: string) => page.locator('.fc-list-event', { hasText: title }).locator('.fc-list-event-time')
      await expect.poll(() => row(BREAKFAST).textContent()).toMatch(/^09:00.*New York$/)
      expect(await row(RECITAL).textContent()).toMatch(/^19:00.*Berlin$/)
      await shot(page, 'calendar-list-390')
      await axeCheck(page, 'calendar-list-390')
    } finally {
      await close(page)
    }
  }, 60_000)
})

describe('example pages: the editor as an editor uses it', () => {
  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('API token').fill(TOKEN)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#event-form').waitFor()
  }

  it('lists events with drafts, searches them, edits and trashes from the list', async () => {
    const page = await open('/editor/', { size: { width: 1280, height: 800 } })
    try {
      await signIn(page)
      const list = page.locator('#event-list')
      // Drafts are listed for an editor, with their state.
      await expect.poll(() => list.locator('li', { hasText: 'Secret Draft' }).textContent()).toContain('Draft')
      await page.getByLabel('Search events').fill('Winter')
      await expect.poll(() => list.locator('li').allTextContents()).toEqual([expect.stringContaining('Winter Concert')])
      await list.getByRole('button', { name: 'Edit Winter Concert' }).click()
      await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Winter Concert')
      expect(await page.getByRole('checkbox', { name: 'Music' }).isChecked()).toBe(true)
      expect(await page.locator('#form-heading').textContent()).toBe('Edit event')
      await shot(page, 'editor-1280')
      await axeCheck(page, 'editor-list')

      const doomed = await post('/events', {
        title: 'Doomed Draft',
        start_date: `${day(20)} 10:00:00`,
        end_date: `${day(20)} 11:00:00`,
        status: 'draft',
      })
      await page.getByLabel('Search events').fill('Doomed')
      await list.getByRole('button', { name: 'Move Doomed Draft to the trash' }).click()
      await expect.poll(() => page.locator('#form-status').textContent()).toContain('moved to the trash')
      expect(await list.locator('li', { hasText: 'Doomed Draft' }).count()).toBe(0)
      const trashed = await fetch(`${api}/events?status=trash&search=Doomed`, { headers: { authorization: `Bearer ${TOKEN}` } })
      expect(((await trashed.json()) as { events: Array<{ id: number }> }).events.map((e) => e.id)).toEqual([doomed.id])
    } finally {
      await close(page)
    }
  }, 90_000)

  it('refuses an end before the start without asking the API, creates a venue inline', async () => {
    const page = await open('/editor/', { size: { width: 390, height: 844 }, phone: true })
    try {
      await signIn(page)
      const sent: string[] = []
      page.on('request', (r) => {
        if (r.method() === 'POST') sent.push(r.url())
      })
      await page.getByLabel('Title', { exact: true }).fill('Backwards')
      await page.getByLabel('Starts').fill(`${day(11)}T20:00`)
      await page.getByLabel('Ends').fill(`${day(11)}T18:00`)
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#error-end_date').textContent()).toBe('The end is before the start.')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-end_date')
      expect(sent).toEqual([])

      await page.getByLabel('Ends').fill(`${day(11)}T22:00`)
      await page.getByLabel('Venue', { exact: true }).selectOption('new')
      await page.getByLabel("New venue's name").fill('Harbour Hall')
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#form-status').textContent()).toContain('Event created')
      const id = Number(new URL(page.url()).searchParams.get('id'))
      const created = (await (await fetch(`${api}/events/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as any
      expect(created.venue.venue).toBe('Harbour Hall')
      await noHorizontalScroll(page, 'editor-390')
      await shot(page, 'editor-390')
      await axeCheck(page, 'editor-390')
    } finally {
      await close(page)
    }
  }, 90_000)

  it("creates a venue and an organizer inline with their details, checked first, the API's refusals next to their fields", async () => {
    // The 400: the API refusing the new venue's postal code (longer than it allows).
    const page = await open('/editor/', { size: { width: 1280, height: 800 }, allowStatus: 400 })
    try {
      await signIn(page)
      const sent: string[] = []
      page.on('request', (r) => {
        if (r.method() === 'POST') sent.push(new URL(r.url()).pathname.replace(/.*\/v1/, ''))
      })
      await page.getByLabel('Title', { exact: true }).fill('Quayside Printmaking')
      await page.getByLabel('Starts').fill(`${day(14)}T10:00`)
      await page.getByLabel('Ends').fill(`${day(14)}T16:00`)
      await page.getByLabel('Venue', { exact: true }).selectOption('new')
      await page.getByLabel("New venue's name").fill('Dockside Studio')
      await page.getByLabel('Venue address').fill('1 Quay Street')
      await page.getByLabel('Venue city').fill('Bristol')
      await page.getByLabel('Venue country').fill('United Kingdom')
      await page.getByLabel('Venue postal code').fill('BS1 4RN '.repeat(8))
      await page.getByLabel('Venue website').fill('dockside.example')
      await page.getByLabel('Organizer', { exact: true }).selectOption('new')
      await page.getByLabel("New organizer's name").fill('Quay Arts Collective')
      await page.getByLabel('Organizer email').fill('quay-arts.example')
      await page.getByLabel('Organizer phone').fill('+44 117 496 0000')
      await page.getByLabel('Organizer website').fill('https://quay-arts.example/')
      await page.getByRole('button', { name: 'Create event' }).click()

      // Checked before anything is sent: each mistake next to its field, the first one focused.
      await expect.poll(() => page.locator('#error-new_venue_website').textContent()).toMatch(/https:\/\//)
      expect(await page.locator('#error-new_organizer_email').textContent()).toMatch(/email address/)
      expect(await page.getByLabel('Organizer email').getAttribute('aria-invalid')).toBe('true')
      expect(await page.getByLabel('Organizer email').getAttribute('aria-describedby')).toContain('error-new_organizer_email')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-new_venue_website')
      expect(sent).toEqual([])
      await shot(page, 'editor-linked-1280')
      await axeCheck(page, 'editor-linked-1280')

      // The API's own refusal (the postal code's length) lands next to that field; nothing is created.
      await page.getByLabel('Venue website').fill('https://dockside.example/')
      await page.getByLabel('Organizer email').fill('hello@quay-arts.example')
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#error-new_venue_zip').textContent()).not.toBe('')
      expect(await page.locator('#error-new_venue_zip').isVisible()).toBe(true)
      expect(await page.getByLabel('Venue postal code').getAttribute('aria-invalid')).toBe('true')
      expect(await page.locator('#error-new_venue_website').isVisible()).toBe(false)
      expect(await page.locator('#form-status').textContent()).toMatch(/new venue could not be created/)
      expect(sent).toEqual(['/venues'])
      await page.locator('#new-venue-field').screenshot({ path: join(SHOTS, 'editor-venue-refused-1280.png') })
      const venues = await fetch(`${api}/venues?search=Dockside`, { headers: { authorization: `Bearer ${TOKEN}` } })
      expect(venues.status).toBe(200)
      expect(((await venues.json()) as { venues: unknown[] }).venues).toEqual([])

      await page.getByLabel('Venue postal code').fill('BS1 4RN')
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#form-status').textContent()).toContain('Event created')
      expect(sent).toEqual(['/venues', '/venues', '/organizers', '/events'])
      const id = Number(new URL(page.url()).searchParams.get('id'))
      const created = (await (await fetch(`${api}/events/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as any
      expect(created.venue).toMatchObject({
        venue: 'Dockside Studio',
        address: '1 Quay Street',
        city: 'Bristol',
        country: 'United Kingdom',
        zip: 'BS1 4RN',
        website: 'https://dockside.example/',
      })
      expect(created.organizer).toEqual([
        expect.objectContaining({
          organizer: 'Quay Arts Collective',
          email: 'hello@quay-arts.example',
          phone: '+44 117 496 0000',
          website: 'https://quay-arts.example/',
        }),
      ])
      // The new records are now in the pickers, chosen; their detail boxes are closed and empty.
      expect(await page.getByLabel('Venue', { exact: true }).locator('option:checked').textContent()).toBe('Dockside Studio')
      expect(await page.locator('#new-venue-field').isVisible()).toBe(false)
      expect(await page.getByLabel('Venue city').inputValue()).toBe('')
    } finally {
      await close(page)
    }

    // On a phone the detail fields fit the screen.
    const phone = await open('/editor/', { size: { width: 390, height: 844 }, phone: true })
    try {
      await signIn(phone)
      await phone.getByLabel('Venue', { exact: true }).selectOption('new')
      await phone.getByLabel('Organizer', { exact: true }).selectOption('new')
      await phone.getByLabel('Organizer email').fill('not an address')
      await phone.getByLabel('Title', { exact: true }).fill('Phone check')
      await phone.getByLabel('Starts').fill(`${day(15)}T10:00`)
      await phone.getByLabel('Ends').fill(`${day(15)}T11:00`)
      await phone.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => phone.locator('#error-new_organizer_email').textContent()).toMatch(/email address/)
      await noHorizontalScroll(phone, 'editor-linked-390')
      await phone.locator('#new-venue-field').scrollIntoViewIfNeeded()
      await shot(phone, 'editor-linked-390')
      await axeCheck(phone, 'editor-linked-390')
    } finally {
      await close(phone)
    }
  }, 120_000)

  it('picks an existing venue and terms (a name in another case reuses the term), and opens ?id= at the form', async () => {
    const event = await post('/events', {
      title: 'Picking Practice',
      start_date: `${day(21)} 18:00:00`,
      end_date: `${day(21)} 19:00:00`,
      status: 'publish',
    })
    for (const [width, size] of [
      ['1280', { width: 1280, height: 800 }],
      ['390', { width: 390, height: 844 }],
    ] as const) {
      // Arriving from an event page's "Edit this event" link: the event's form is what is in
      // view and focused, not the top of the list of events above it.
      const page = await open(`/editor/?id=${event.id}`, { size, phone: width === '390' })
      try {
        await signIn(page)
        await expect.poll(() => page.getByLabel('Title', { exact: true }).inputValue()).toBe('Picking Practice')
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('field-title')
        const heading = await page.locator('#form-heading').boundingBox()
        expect(heading!.y).toBeGreaterThanOrEqual(0)
        expect(heading!.y).toBeLessThan(size.height)
        await shot(page, `editor-edit-${width}`)
        await axeCheck(page, `editor-edit-${width}`)
        if (width === '390') continue

        await page.getByLabel('Venue', { exact: true }).selectOption(String(seeded.venue.id))
        // "music" is the existing Music, checked; no second box appears.
        const boxes = await page.locator('#choices-categories input').count()
        await page.getByLabel('New category').fill('music')
        await page.getByRole('button', { name: 'Add category' }).click()
        expect(await page.getByRole('checkbox', { name: 'Music' }).isChecked()).toBe(true)
        expect(await page.locator('#choices-categories input').count()).toBe(boxes)
        await page.getByLabel('New tag').fill('Candlelight')
        await page.getByRole('button', { name: 'Add tag' }).click()
        await page.getByRole('button', { name: 'Save changes' }).click()
        await expect.poll(() => page.locator('#form-status').textContent()).toContain('Changes saved')
        const saved = (await (await fetch(`${api}/events/${event.id}`)).json()) as any
        expect(saved.venue.id).toBe(seeded.venue.id)
        expect(saved.categories.map((c: { name: string }) => c.name)).toEqual(['Music'])
        expect(saved.tags.map((t: { name: string }) => t.name)).toEqual(['Candlelight'])
        const music = (await (await fetch(`${api}/categories?search=music&hide_empty=false`)).json()) as { categories: unknown[] }
        expect(music.categories).toHaveLength(1)
      } finally {
        await close(page)
      }
    }
  }, 90_000)

  it('says why a token is refused, and asks to sign in again when a saved one stops working', async () => {
    // 400: the drafts' list refusing an unknown token; 401: the write with the stale one.
    const page = await open('/editor/', { allowStatus: [400, 401] })
    try {
      await page.getByLabel('API token').fill('not-a-token')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.locator('#error-token').textContent()).toMatch(/not one this server accepts.*restart/)
      expect(await page.locator('#error-token').textContent()).not.toMatch(/HTTP 400/)
      await signIn(page)
      // The server restarted with a new generated token: the saved one no longer works.
      await page.evaluate(() => sessionStorage.setItem('calendar-token', 'stale-token'))
      await page.getByLabel('Title', { exact: true }).fill('After a restart')
      await page.getByLabel('Starts').fill(`${day(12)}T18:00`)
      await page.getByLabel('Ends').fill(`${day(12)}T19:00`)
      await page.getByRole('button', { name: 'Create event' }).click()
      await expect.poll(() => page.locator('#error-token').textContent()).toMatch(/no longer accepted/)
      expect(await page.locator('#sign-in').isVisible()).toBe(true)
      // What was typed is kept for after signing in again.
      await signIn(page)
      expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('After a restart')
    } finally {
      await close(page)
    }
  }, 90_000)
})
