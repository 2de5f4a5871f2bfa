/**
 * The iCalendar feed in a real browser calendar: FullCalendar's iCalendar plug-in (which parses
 * with ical.js) in headless Chromium (Debian's `chromium` package, installed by .ci/run). A tiny
 * page and the router are served on 127.0.0.1; the page subscribes to `?format=ics` and the test
 * reads the month grid FullCalendar rendered. A screenshot is left in the temp directory (or at
 * $FULLCALENDAR_SCREENSHOT) for a human to look at.
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { toNodeHandler } from '../adapters/node/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { makeApp, NS_PATH, type App } from './http/harness.js'
import { launchChromium } from './support/chromium.js'

const SCREENSHOT = process.env.FULLCALENDAR_SCREENSHOT ?? join(tmpdir(), 'fullcalendar-ical.png')

/** Browser builds of FullCalendar and ical.js, straight from node_modules. */
const VENDOR: Record<string, string> = {
  'ical.js': 'node_modules/ical.js/dist/ical.es5.min.cjs',
  'core.js': 'node_modules/@fullcalendar/core/index.global.min.js',
  'daygrid.js': 'node_modules/@fullcalendar/daygrid/index.global.min.js',
  'icalendar.js': 'node_modules/@fullcalendar/icalendar/index.global.min.js',
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Feed</title>
<script src="/vendor/ical.js"></script>
<script src="/vendor/core.js"></script>
<script src="/vendor/daygrid.js"></script>
<script src="/vendor/icalendar.js"></script>
<style>body { font-family: sans-serif; margin: 16px; } #calendar { max-width: 1000px; }</style>
</head><body><div id="calendar"></div><script>
  const calendar = new FullCalendar.Calendar(document.getElementById('calendar'), {
    initialView: 'dayGridMonth',
    initialDate: '2026-12-01',
    timeZone: 'UTC',
    events: { url: '${NS_PATH}/events?format=ics', format: 'ics' },
    eventSourceFailure: (error) => { document.body.dataset.failure = String(error && error.message || error) },
    eventsSet: (events) => { document.body.dataset.loaded = String(events.length) },
  })
  calendar.render()
</script></body></html>`

let app: App
let server: Server
let origin = ''
let browser: Browser

beforeAll(async () => {
  app = await makeApp(createMemoryStorage)
  const calendar = toNodeHandler(app.router)
  server = createServer((req, res) => {
    const url = req.url ?? '/'
    if (url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE)
    } else if (url.startsWith('/vendor/') && VENDOR[url.slice(8)]) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(readFileSync(VENDOR[url.slice(8)] as string))
    } else calendar(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => server?.close(resolve))
  await app?.close()
})

describe('FullCalendar (iCalendar plug-in) in headless Chromium', () => {
  it('renders every event of the feed in the month grid, with plain-text titles', async () => {
    const titles = ['Rock & Roll’s <night>', 'Board meeting', 'Winter fair', 'Late concert']
    await app.seed({ title: 'Rock &amp; Roll&#8217;s &lt;night&gt;', start_date: '2026-12-04 19:00:00', end_date: '2026-12-04 22:00:00' })
    await app.seed({
      title: '<b>Board</b> meeting',
      start_date: '2026-12-08 09:00:00',
      end_date: '2026-12-08 10:00:00',
      description: '<p>Agenda</p>',
    })
    await app.seed({ title: 'Winter fair', start_date: '2026-12-12', end_date: '2026-12-13', all_day: true })
    await app.seed({
      title: 'Late concert',
      start_date: '2026-12-18 20:00:00',
      end_date: '2026-12-18 23:00:00',
      timezone: 'America/New_York',
    })
    await app.seed({ title: 'Draft only editors see', status: 'draft', start_date: '2026-12-10 10:00:00', end_date: '2026-12-10 11:00:00' })

    const page = await browser.newPage({ viewport: { width: 1100, height: 820 } })
    try {
      await page.goto(`${origin}/`)
      await page.waitForFunction(() => document.body.dataset.loaded !== undefined || document.body.dataset.failure !== undefined, null, {
        timeout: 20_000,
      })
      expect(await page.evaluate(() => document.body.dataset.failure ?? null)).toBeNull()
      await page.locator('.fc-event').first().waitFor({ timeout: 10_000 })
      const shown = await page.locator('.fc-event-title').allTextContents()
      expect([...new Set(shown)].sort()).toEqual([...titles].sort())
      // Saturday 12 to Sunday 13 December: the all-day fair is drawn in both week rows.
      expect(shown.filter((t) => t === 'Winter fair')).toHaveLength(2)
      const dayOf = (title: string) =>
        page
          .locator('td.fc-daygrid-day', { has: page.locator('.fc-event-title', { hasText: title }) })
          .first()
          .getAttribute('data-date')
      expect(await dayOf('Board meeting')).toBe('2026-12-08')
      expect(await dayOf('Winter fair')).toBe('2026-12-12')
      // 20:00 in New York is 01:00 UTC the next day; the page shows UTC.
      expect(await dayOf('Late concert')).toBe('2026-12-19')
      await page.screenshot({ path: SCREENSHOT, fullPage: true })
      console.log(`[fullcalendar] screenshot: ${SCREENSHOT}`)
    } finally {
      await page.close()
    }
  }, 60_000)
})
