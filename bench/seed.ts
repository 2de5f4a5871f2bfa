/**
 * Shared by the bench servers: the same 200 published rich events (each with a venue, an
 * organizer, a category, a tag and two paragraphs of description: about 5 KB of JSON each, 37 KB for a page of 10),
 * created through the router's public API so every server answers with exactly what the router
 * would. The data comes from a seeded PRNG, so every process builds the same events (only the
 * creation timestamps may differ).
 */
import { createCalendarRouter, type CalendarOptions, type Storage } from '../src/index.js'
import { createMemoryStorage } from '../src/storage/memory.js'
import type { HeadersLike } from '../src/http/types.js'
import http from 'node:http'
import { Session } from 'node:inspector/promises'
import type { AddressInfo } from 'node:net'
import { prng } from './prng.js'

export const EVENTS_PATH = '/wp-json/calendar/events/v1/events'
export const EVENT_COUNT = 200
/** Bearer tokens the bench servers accept: an administrator seeds, an editor writes under load. */
export const ADMIN_TOKEN = 'bench'
export const EDITOR_TOKEN = 'bench-editor'

export interface Ready {
  port: number
  /** The measured routes, as request targets: one event, then a page of the list. */
  paths: [single: string, list: string]
  /** For the mixed workload: 20 read targets (lists, filters, single events) and event ids to edit. */
  mixed: { reads: string[]; writeIds: number[] }
}

export interface Captured {
  status: number
  headers: Record<string, string>
  body: string
}

const HOUR = 3_600_000
const wallClock = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

const VENUES = 20
const ORGANIZERS = 15
const CATEGORIES = ['Concerts', 'Theatre', 'Workshops', 'Talks', 'Family', 'Exhibitions', 'Film', 'Sport']
const TAGS = ['outdoor', 'free', 'late', 'accessible', 'kids', 'jazz', 'classical', 'beginners', 'members', 'festival']
const WORDS = (
  'community evening gallery program seasonal workshop rehearsal ensemble lecture audience tickets ' +
  'riverside garden accessible welcome guided tour refreshments studio musicians artists speakers ' +
  'neighbourhood festival library museum theatre hall courtyard morning afternoon family friendly ' +
  'discussion premiere performance exhibition collection archive season opening closing special guest'
).split(' ')

function sentence(rand: () => number, words: number): string {
  const picked = Array.from({ length: words }, () => WORDS[Math.floor(rand() * WORDS.length)]!)
  const text = picked.join(' ')
  return text[0]!.toUpperCase() + text.slice(1) + '.'
}

/** A few paragraphs with the markup editors typically use: about 600 bytes of HTML. */
function description(rand: () => number, n: number): string {
  const paragraphs = Array.from(
    { length: 2 },
    () => `<p>${Array.from({ length: 2 }, () => sentence(rand, 8 + Math.floor(rand() * 6))).join(' ')}</p>`,
  )
  return (
    `<h2>About event ${n}</h2>` +
    paragraphs.join('\n') +
    `\n<p><strong>Tickets:</strong> <a href="https://tickets.example.org/e/${n}">book online</a>.</p>`
  )
}

export async function seed(extra: CalendarOptions = {}, storage: Storage = createMemoryStorage()) {
  const router = createCalendarRouter(storage, {
    ...extra,
    authenticate: (req: { headers: HeadersLike }) => {
      const header = req.headers.get('authorization')
      if (header === `Bearer ${ADMIN_TOKEN}`) return { id: 1, role: 'administrator' }
      if (header === `Bearer ${EDITOR_TOKEN}`) return { id: 2, role: 'editor' }
      return null
    },
  })
  const post = async (path: string, body: unknown): Promise<{ id: number }> => {
    const res = await router.fetch(
      new Request('http://127.0.0.1' + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify(body),
      }),
    )
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as { id: number }
  }
  const rand = prng(12)
  const base = EVENTS_PATH.replace(/events$/, '')
  const venues: number[] = []
  for (let n = 0; n < VENUES; n++) {
    const venue = await post(base + 'venues', {
      venue: `${['North', 'South', 'East', 'West', 'Old Town'][n % 5]} ${['Hall', 'Gallery', 'Library', 'Park'][n % 4]} ${n}`,
      address: `${10 + n} ${['Market', 'Church', 'Station', 'River'][n % 4]} Street`,
      city: ['Lyon', 'Leeds', 'Porto', 'Ghent'][n % 4],
      country: ['France', 'United Kingdom', 'Portugal', 'Belgium'][n % 4],
    })
    venues.push(venue.id)
  }
  const organizers: number[] = []
  for (let n = 0; n < ORGANIZERS; n++) {
    const organizer = await post(base + 'organizers', {
      organizer: `${['Friends of', 'Society for', 'Collective'][n % 3]} ${['Music', 'Arts', 'Film', 'Books', 'Gardens'][n % 5]} ${n}`,
      email: `team${n}@organizers.example.org`,
    })
    organizers.push(organizer.id)
  }
  const ids: number[] = []
  const first = Date.UTC(2027, 0, 1, 10)
  for (let n = 0; n < EVENT_COUNT; n++) {
    const start = first + n * 7 * HOUR // spreads events over days and hours of day
    const event = await post(EVENTS_PATH, {
      title: `${sentence(rand, 3).slice(0, -1)} ${n}`,
      description: description(rand, n),
      excerpt: sentence(rand, 12),
      start_date: wallClock(start),
      end_date: wallClock(start + 2 * HOUR),
      status: 'publish',
      cost: n % 3 === 0 ? 'Free' : `${5 + (n % 20)}`,
      website: `https://events.example.org/${n}`,
      venue: venues[n % VENUES],
      organizer: [organizers[n % ORGANIZERS]],
      categories: [CATEGORIES[n % CATEGORIES.length]],
      tags: [TAGS[n % TAGS.length]],
    })
    ids.push(event.id)
  }
  const paths: Ready['paths'] = [`${EVENTS_PATH}/${ids[EVENT_COUNT >> 1]}`, `${EVENTS_PATH}?per_page=10`]
  const slug = (name: string) => name.toLowerCase()
  const mixed: Ready['mixed'] = {
    reads: [
      `${EVENTS_PATH}?per_page=10`,
      `${EVENTS_PATH}?per_page=10&page=2`,
      `${EVENTS_PATH}?per_page=10&page=5`,
      `${EVENTS_PATH}?per_page=5&categories=${slug(CATEGORIES[0]!)}`,
      `${EVENTS_PATH}?per_page=10&categories=${slug(CATEGORIES[3]!)}`,
      `${EVENTS_PATH}?per_page=10&tags=${TAGS[1]}`,
      `${EVENTS_PATH}?per_page=10&venue=${venues[2]}`,
      `${EVENTS_PATH}?per_page=10&organizer=${organizers[4]}`,
      `${EVENTS_PATH}?per_page=10&search=garden`,
      `${EVENTS_PATH}?per_page=10&start_date=2027-02-01&end_date=2027-02-10`,
      ...Array.from({ length: 10 }, (_, i) => `${EVENTS_PATH}/${ids[(i * 17 + 3) % EVENT_COUNT]}`),
    ],
    writeIds: Array.from({ length: 20 }, (_, i) => ids[(i * 11 + 5) % EVENT_COUNT]!),
  }

  /**
   * One GET through the router's standard entry, kept as plain data for the raw servers. `origin`
   * is the one the load will use, since links in the JSON are built from the Host header.
   */
  async function capture(origin: string, path: string): Promise<Captured> {
    const res = await router.fetch(new Request(origin + path))
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`)
    const headers: Record<string, string> = {}
    res.headers.forEach((value: string, name: string) => {
      if (name !== 'content-length' && name !== 'date') headers[name] = value
    })
    return { status: res.status, headers, body: await res.text() }
  }

  return { router, ids, paths, mixed, capture }
}

/** Listens, lets the server precompute against its real origin, then tells the parent where it is. */
export async function serve(
  handler: http.RequestListener,
  seeded: Pick<Ready, 'paths' | 'mixed'>,
  prepare?: (origin: string) => Promise<void>,
): Promise<void> {
  // Without a parent (it crashed or was killed) a server would linger; leave with it.
  process.on('disconnect', () => process.exit(0))
  let profiler: Session | null = null
  process.on('message', (message: unknown) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() })
    // bench/profile.ts: a CPU profile of the load only, not of seeding or start-up.
    else if (message === 'profile:start') {
      profiler = new Session()
      profiler.connect()
      void profiler
        .post('Profiler.enable')
        .then(() => profiler!.post('Profiler.start'))
        .then(() => process.send!('profile:started'))
    } else if (message === 'profile:stop' && profiler) {
      void profiler.post('Profiler.stop').then(({ profile }) => process.send!({ profile }))
    }
  })
  const server = http.createServer(handler)
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await prepare?.(`http://127.0.0.1:${port}`)
  const ready: Ready = { port, paths: seeded.paths, mixed: seeded.mixed }
  process.send!(ready)
}
