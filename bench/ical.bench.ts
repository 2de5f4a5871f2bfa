/**
 * Size and time of a whole-window iCalendar feed (`/events?format=ics`, no paging) of 2,000
 * events, through the router in process (no HTTP), on the memory, SQLite and PostgreSQL
 * storages. Events carry a venue, two organizers (one with an e-mail), two categories and an
 * HTML description of about 600 characters, so the plain-text conversion has real work.
 *
 *   npm run bench:ical
 *
 * Settings (environment):
 *   ICAL_EVENTS=2000                 events in the window (the default feed cap is 2,000)
 *   ICAL_REQUESTS=20                 measured feeds per storage, after 3 warm-up feeds
 *   ICAL_ENGINES=memory,sqlite,postgres
 *   CALENDAR_BENCH_DATABASE_URL      PostgreSQL to use (a schema of its own); else a throwaway
 *                                    server from Debian's binaries, or PostgreSQL is left out
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createCalendarRouter } from '../src/router.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openPostgres, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { newEvent, newOrganizer, newTerm, newVenue } from '../src/testing/index.js'
import { findPostgresBin, startPostgres, type PgServer } from '../test/support/postgres-server.js'

const EVENTS = Number(process.env.ICAL_EVENTS ?? 2000)
const REQUESTS = Number(process.env.ICAL_REQUESTS ?? 20)
const ENGINES = (process.env.ICAL_ENGINES ?? 'memory,sqlite,postgres').split(',')
const NOW = new Date('2026-11-21T12:00:00Z')
const URL_ = 'http://bench.example/wp-json/calendar/events/v1/events?format=ics'

const DESCRIPTION =
  '<p>Join us for an evening of <strong>live music</strong> &amp; conversation. Doors open at 6&nbsp;pm; ' +
  'the first set starts at 7.</p><p>Tickets: <a href="https://tickets.example/">tickets.example</a>. ' +
  'Children under 12 go free &#8211; bring the whole family.</p><ul><li>Food trucks</li><li>Bar</li>' +
  '<li>Cloakroom</li></ul><p>Accessibility: step-free access via the side entrance; ask our staff for ' +
  'help. Please note that the programme may change at short notice.</p>'

const pad = (n: number) => String(n).padStart(2, '0')

async function seed(storage: Storage): Promise<void> {
  await storage.transaction(async (tx) => {
    const venues = []
    for (let i = 0; i < 20; i++) {
      venues.push(
        await tx.insertPost(
          newVenue({
            slug: `venue-${i}`,
            title: `Hall ${i} &amp; Annex`,
            address: `${i} Main St`,
            city: 'Springfield',
            zip: '12345',
            country: 'US',
          }),
        ),
      )
    }
    const organizers = []
    for (let i = 0; i < 10; i++) {
      organizers.push(
        await tx.insertPost(
          newOrganizer({ slug: `org-${i}`, title: `Organizer ${i}`, email: i % 2 ? `org${i}@example.com` : '', phone: '555-0100' }),
        ),
      )
    }
    const terms = []
    for (let i = 0; i < 10; i++) terms.push(await tx.insertTerm(newTerm({ slug: `cat-${i}`, name: `Category ${i}` })))
    for (let i = 0; i < EVENTS; i++) {
      // Spread over the default window (yesterday to 24 months ahead).
      const day = new Date(Date.UTC(2026, 10, 23) + (i % 700) * 86_400_000)
      const date = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`
      const start = `${date} ${pad(10 + (i % 8))}:00:00`
      const end = `${date} ${pad(12 + (i % 8))}:00:00`
      await tx.insertPost(
        newEvent({
          slug: `event-${i}`,
          title: `Concert ${i}: Rock &amp; Roll&#8217;s night`,
          description: DESCRIPTION,
          startDate: start,
          endDate: end,
          startDateUtc: start,
          endDateUtc: end,
          allDay: i % 20 === 0,
          venueIds: [venues[i % venues.length]!.id],
          organizerIds: [organizers[i % organizers.length]!.id, organizers[(i + 1) % organizers.length]!.id],
          categoryIds: [terms[i % terms.length]!.id, terms[(i + 3) % terms.length]!.id],
        }),
      )
    }
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number

async function measure(name: string, storage: Storage) {
  const seedStart = performance.now()
  await seed(storage)
  const seedMs = performance.now() - seedStart
  const router = createCalendarRouter(storage, { now: () => new Date(NOW) })
  const feed = async () => {
    const res = await router.fetch(new Request(URL_))
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`)
    return { text: await res.text(), truncated: res.headers.get('x-calendar-truncated') }
  }
  for (let i = 0; i < 3; i++) await feed()
  const times: number[] = []
  let text = ''
  let truncated: string | null = null
  const heapBefore = process.memoryUsage().heapUsed
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now()
    ;({ text, truncated } = await feed())
    times.push(performance.now() - t0)
  }
  const events = text.split('BEGIN:VEVENT').length - 1
  const bytes = new TextEncoder().encode(text).length
  return {
    storage: name,
    events,
    truncated: truncated ?? 'no',
    'feed KiB': (bytes / 1024).toFixed(0),
    'bytes/event': (bytes / events).toFixed(0),
    'median ms': median(times).toFixed(1),
    'p90 ms': percentile(times, 0.9).toFixed(1),
    'µs/event': ((median(times) * 1000) / events).toFixed(0),
    'seed s': (seedMs / 1000).toFixed(1),
    'heap Δ MiB': ((process.memoryUsage().heapUsed - heapBefore) / 1048576).toFixed(1),
  }
}

async function main() {
  const rows = []
  const cleanup: Array<() => Promise<void>> = []
  try {
    if (ENGINES.includes('memory')) rows.push(await measure('memory', createMemoryStorage()))
    if (ENGINES.includes('sqlite')) {
      const dir = mkdtempSync(join(tmpdir(), 'ical-bench-'))
      cleanup.push(async () => rmSync(dir, { recursive: true, force: true }))
      const storage = createSqlStorage({ driver: await openSqliteFile(join(dir, 'bench.sqlite')) })
      cleanup.push(() => storage.close())
      rows.push(await measure('sqlite (file)', storage))
    }
    if (ENGINES.includes('postgres')) {
      let url = process.env.CALENDAR_BENCH_DATABASE_URL
      let server: PgServer | null = null
      const bin = url ? null : findPostgresBin()
      if (!url && bin) {
        server = await startPostgres(bin)
        cleanup.push(() => server!.destroy())
        url = server.url
      }
      if (url) {
        const schema = `ical_bench_${process.pid}`
        const admin = new pg.Pool({ connectionString: url, max: 1 })
        await admin.query(`CREATE SCHEMA ${schema}`)
        cleanup.push(async () => {
          await admin.query(`DROP SCHEMA ${schema} CASCADE`)
          await admin.end()
        })
        const storage = createSqlStorage({ driver: await openPostgres(url, { options: `-c search_path=${schema}` }) })
        cleanup.push(() => storage.close())
        rows.push(await measure('postgres', storage))
      } else console.log('PostgreSQL left out: no CALENDAR_BENCH_DATABASE_URL and no Debian binaries')
    }
  } finally {
    for (const c of cleanup.reverse()) await c().catch((e) => console.error(e))
  }
  console.log(`\niCalendar feed of the whole default window, ${EVENTS} events, ${REQUESTS} feeds per storage (in process, no HTTP)\n`)
  console.table(rows)
}

await main()
