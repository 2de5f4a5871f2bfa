/**
 * What HTML filtering costs on the write path: the same event creates (a formatted ~2 KB
 * description, an excerpt, a title with inline formatting, a new nested venue and organizer and
 * a category) sent through the router as an administrator (unfiltered_html: stored as given)
 * and as an author (every text field filtered), in process (no HTTP).
 *
 *   node --import tsx bench/sanitize.bench.ts
 *
 * Settings (environment):
 *   SANITIZE_ENGINES=memory,sqlite   storages to run on (SQLite: a file in a temporary directory)
 *   SANITIZE_EVENTS=400              measured creates per role, after SANITIZE_WARMUP=50
 *
 * Each role writes into a storage of its own, and the two take turns request by request, so
 * both grow alike and see the same machine load. Also printed: the filter alone on one such
 * event's text (every field, as the write path runs it).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCalendarRouter, type CalendarRouter } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import { createSqlStorage, openSqliteFile } from '../src/storage/sql/index.js'
import type { Storage } from '../src/storage/types.js'
import { filterRecord } from '../src/sanitize/storage.js'
import { defaultFilter } from '../src/sanitize/policy.js'

const env = process.env
const ENGINES = (env.SANITIZE_ENGINES ?? 'memory,sqlite').split(',').map((s) => s.trim())
const EVENTS = Number(env.SANITIZE_EVENTS ?? 400)
const WARMUP = Number(env.SANITIZE_WARMUP ?? 50)

const ROLES = { administrator: { id: 1, role: 'administrator' }, author: { id: 3, role: 'author' } } as const
type BenchRole = keyof typeof ROLES

const DESCRIPTION = [
  '<h2>Programme</h2>',
  '<p>An evening of <strong>improvised jazz</strong> with <em>three</em> quartets. Doors open at 18:30; ',
  'see <a href="https://example.com/festival/programme?day=2&amp;hall=b" title="Programme">the full programme</a> ',
  'or <a href="mailto:tickets@example.com">write to the box office</a>.</p>',
  '<img src="https://example.com/media/poster-2026.jpg" alt="Festival poster" width="640" height="360">',
  '<ul><li>18:30 Doors</li><li>19:00 <b>First set</b></li><li>20:15 Interval</li><li>20:45 Second set</li></ul>',
  '<table><thead><tr><th>Ticket</th><th>Price</th></tr></thead><tbody>',
  '<tr><td>Standard</td><td>€25</td></tr><tr><td>Concession</td><td>€15</td></tr><tr><td colspan="2">Under 12s free</td></tr>',
  '</tbody></table>',
  '<blockquote><p>“The best night of the year.” — <cite>City Paper</cite></p></blockquote>',
  '<p style="text-align: center">Step-free access through the <code>north</code> entrance.</p>',
  '<h3>Getting there</h3><ol><li>Tram 4 to <i>Riverside</i></li><li>Walk 5 minutes along the quay</li></ol>',
  '<p>Please note: bags are checked at the door. Photography without flash is welcome; recording is not.</p>',
].join('\n')
const EXCERPT = '<p>Three quartets, one night: <strong>improvised jazz</strong> by the river.</p>'

function body(i: number) {
  return {
    title: `Jazz by the river <em>night ${i}</em>`,
    description: DESCRIPTION,
    excerpt: EXCERPT,
    start_date: '2027-03-05 19:00:00',
    end_date: '2027-03-05 23:00:00',
    status: 'publish',
    cost: '€15 – €25',
    venue: {
      venue: `Riverside Hall ${i}`,
      address: '1 Quay Street',
      city: 'Springfield',
      country: 'United States',
      state: 'IL',
      zip: '62701',
      description: '<p>A <em>converted</em> warehouse.</p>',
    },
    organizer: [
      { organizer: `Jazz Society ${i}`, email: 'jazz@example.com', phone: '+1 555 0100', description: '<p>Volunteers since 1987.</p>' },
    ],
    categories: ['Music'],
  }
}

function makeRouter(storage: Storage): CalendarRouter {
  return createCalendarRouter(storage, {
    authenticate: (r) => ROLES[(r.headers.get('x-role') ?? '') as BenchRole] ?? null,
    now: () => new Date('2027-01-10T12:00:00Z'),
  })
}

async function create(router: CalendarRouter, role: BenchRole, i: number): Promise<number> {
  const started = performance.now()
  const res = await router.fetch(
    new Request('http://bench.local/wp-json/calendar/events/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-role': role },
      body: JSON.stringify(body(i)),
    }),
  )
  const elapsed = performance.now() - started
  if (res.status !== 201) throw new Error(`${role} create ${i}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer().catch(() => undefined)
  return elapsed
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

async function storageFor(engine: string, dir: string, role: string): Promise<Storage> {
  if (engine === 'memory') return createMemoryStorage()
  if (engine === 'sqlite') return createSqlStorage({ driver: await openSqliteFile(join(dir, `${role}.sqlite`)) })
  throw new Error(`unknown engine ${engine}`)
}

async function run(engine: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sanitize-bench-'))
  try {
    const storages = { administrator: await storageFor(engine, dir, 'administrator'), author: await storageFor(engine, dir, 'author') }
    const routers = { administrator: makeRouter(storages.administrator), author: makeRouter(storages.author) }
    const times: Record<BenchRole, number[]> = { administrator: [], author: [] }
    for (let i = 0; i < WARMUP + EVENTS; i++) {
      // Alternate which role goes first so neither always runs on a warmer cache.
      const order: BenchRole[] = i % 2 ? ['administrator', 'author'] : ['author', 'administrator']
      for (const role of order) {
        const t = await create(routers[role], role, i)
        if (i >= WARMUP) times[role].push(t)
      }
    }
    const admin = times.administrator
    const author = times.author
    console.log(`\n${engine}: ${EVENTS} creates per role (after ${WARMUP} warm-up), rich event with nested venue + organizer`)
    console.log(`  role            mean ms   median ms   creates/s`)
    for (const [role, xs] of [
      ['administrator', admin],
      ['author', author],
    ] as const) {
      console.log(
        `  ${role.padEnd(14)} ${mean(xs).toFixed(3).padStart(8)} ${median(xs).toFixed(3).padStart(11)} ${(1000 / mean(xs)).toFixed(0).padStart(11)}`,
      )
    }
    console.log(
      `  author / administrator: mean ${(mean(author) / mean(admin)).toFixed(2)}x, median ${(median(author) / median(admin)).toFixed(2)}x (+${(mean(author) - mean(admin)).toFixed(3)} ms per create)`,
    )
    for (const s of Object.values(storages)) await s.close?.()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function filterAlone() {
  const b = body(1)
  const records: Array<[Record<string, unknown>, 'event' | 'venue' | 'organizer' | 'term']> = [
    [{ title: b.title, description: b.description, excerpt: b.excerpt, cost: [b.cost] }, 'event'],
    [
      {
        title: b.venue.venue,
        address: b.venue.address,
        city: b.venue.city,
        country: b.venue.country,
        state: b.venue.state,
        zip: b.venue.zip,
        description: b.venue.description,
      },
      'venue',
    ],
    [
      {
        title: b.organizer[0]!.organizer,
        email: b.organizer[0]!.email,
        phone: b.organizer[0]!.phone,
        description: b.organizer[0]!.description,
      },
      'organizer',
    ],
    [{ name: 'Music' }, 'term'],
  ]
  const once = () => records.forEach(([r, kind]) => filterRecord(r, kind, defaultFilter))
  for (let i = 0; i < 200; i++) once()
  const n = 2000
  const started = performance.now()
  for (let i = 0; i < n; i++) once()
  const perEvent = (performance.now() - started) / n
  const desc = () => defaultFilter(DESCRIPTION, { resource: 'event', field: 'description', kind: 'rich' })
  const t2 = performance.now()
  for (let i = 0; i < n; i++) desc()
  console.log(
    `\nfilter alone: ${perEvent.toFixed(3)} ms for one event's text (${DESCRIPTION.length}-char description: ${((performance.now() - t2) / n).toFixed(3)} ms)`,
  )
}

console.log(`Node ${process.version}; sanitize-html on the author's writes only`)
filterAlone()
for (const engine of ENGINES) await run(engine)
