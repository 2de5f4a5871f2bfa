/**
 * A stub TEC site for the importer's tests and bench: a node:http server answering
 * `/wp-json/tribe/events/v1/` (root, events, venues, organizers, categories, tags) in the wire
 * shapes of real TEC responses (docs/importing.md, "TEC's wire shape", restates what the
 * importer relies on): events with embedded venue, organizers and term objects, `image: false`
 * or an object with `url`, pages with `total`, `total_pages`, `next_rest_url` and the
 * X-TEC-Total headers, 404 `event-archive-page-not-found` past the last page, only upcoming
 * events without `start_date`, `status` other than publish refused (400 rest_invalid_param)
 * without credentials and taken one at a time with them, drafts only with Basic auth.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface StubTerm {
  id: number
  name: string
  slug: string
  parent?: number
  description?: string
}
export interface StubVenue {
  id: number
  venue: string
  slug: string
  address?: string
  city?: string
  country?: string
  zip?: string
}
export interface StubOrganizer {
  id: number
  organizer: string
  slug: string
  email?: string
  phone?: string
}
export interface StubEvent {
  id: number
  title: string
  slug: string
  status: 'publish' | 'draft' | 'future' | 'pending' | 'private'
  start: string
  end: string
  timezone: string
  allDay?: boolean
  description?: string
  venue?: number
  organizers?: number[]
  categories?: number[]
  tags?: number[]
  image?: string
  cost?: string[]
  website?: string
  featured?: boolean
}

export interface StubSite {
  url: string
  events: StubEvent[]
  venues: StubVenue[]
  organizers: StubOrganizer[]
  categories: StubTerm[]
  tags: StubTerm[]
  /** Every request's path and query, in order. */
  requests: string[]
  /** Every request without valid credentials answers 401 (a site behind a REST auth plugin). */
  requireAuth: boolean
  /** Every request answers an HTML page (a login wall, a maintenance page). */
  html: boolean
  /** Answer HTTP 500 to this events page once (an interrupted run). */
  failPage?: number
  close(): Promise<void>
}

/** The credentials the stub accepts (an application password has spaces). */
export const STUB_AUTH = 'admin:abcd efgh ijkl mnop'
const TODAY = '2026-11-21 00:00:00'

const details = (d: string) => ({
  year: d.slice(0, 4),
  month: d.slice(5, 7),
  day: d.slice(8, 10),
  hour: d.slice(11, 13),
  minutes: d.slice(14, 16),
  seconds: d.slice(17, 19),
})

/** The default site: 30 events (past and future), 3 venues, 2 organizers, nested categories, tags, an image, a draft. */
export function defaultContent(n = 30): Pick<StubSite, 'events' | 'venues' | 'organizers' | 'categories' | 'tags'> {
  const venues: StubVenue[] = [
    { id: 4, venue: 'Main Hall', slug: 'main-hall', address: '1 Main St', city: 'Springfield', country: 'United States', zip: '62701' },
    { id: 5, venue: 'Side Room', slug: 'side-room' },
    { id: 9, venue: 'Inline Venue', slug: 'inline-venue', address: '2 Side Rd', city: 'Shelbyville', country: 'US' },
  ]
  const organizers: StubOrganizer[] = [
    { id: 6, organizer: 'Acme Org', slug: 'acme-org', email: 'events@acme.example.com', phone: '555-0199' },
    { id: 7, organizer: 'Solo Person', slug: 'solo-person' },
  ]
  const categories: StubTerm[] = [
    // The child first, as TEC lists by name: the importer must still create the parent first.
    { id: 3, name: 'Jazz', slug: 'jazz-music', parent: 2 },
    { id: 2, name: 'Music', slug: 'music', description: 'Music events' },
    { id: 8, name: 'Sports', slug: 'sports' },
  ]
  const tags: StubTerm[] = [
    { id: 4, name: 'Outdoor', slug: 'outdoor' },
    { id: 5, name: 'Free Entry', slug: 'free-entry', description: 'no cost' },
  ]
  const events: StubEvent[] = []
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2026, 9, 1) + i * 3 * 86_400_000).toISOString().slice(0, 10)
    const h = String(10 + (i % 8)).padStart(2, '0')
    events.push({
      id: 100 + i,
      title: `Event ${i}`,
      slug: `event-${i}`,
      status: 'publish',
      start: `${day} ${h}:00:00`,
      end: `${day} ${h}:30:00`,
      timezone: i % 2 ? 'America/New_York' : 'UTC',
      description: `<p>Event number ${i}</p>`,
      venue: i % 4 === 3 ? undefined : venues[i % 3]!.id,
      organizers: i % 5 === 0 ? [6, 7] : i % 5 === 1 ? [6] : [],
      categories: i % 3 === 0 ? [3] : i % 3 === 1 ? [8] : [],
      tags: i % 2 === 0 ? [4] : [4, 5],
      cost: i % 3 === 0 ? ['10', '25'] : [],
      featured: i === 2,
      ...(i === 1 ? { image: 'https://images.example.com/poster.jpg', allDay: false } : {}),
      ...(i === 5 ? { allDay: true, start: `${day} 00:00:00`, end: `${day} 23:59:59` } : {}),
    })
  }
  events.push({
    id: 17,
    title: 'Secret Draft Event',
    slug: '',
    status: 'draft',
    start: '2026-11-25 10:00:00',
    end: '2026-11-25 11:00:00',
    timezone: 'UTC',
  })
  return { events, venues, organizers, categories, tags }
}

/**
 * @example
 * const site = await startTecStub()
 * await importCalendar({ storage }, { format: 'tec', location: site.url })
 * await site.close()
 */
export async function startTecStub(content = defaultContent()): Promise<StubSite> {
  let server: Server
  const site: StubSite = {
    url: '',
    ...content,
    requests: [],
    requireAuth: false,
    html: false,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  server = createServer((req, res) => handle(site, req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return site
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(body))
}

const error = (res: ServerResponse, status: number, code: string, message: string, params?: Record<string, string>) =>
  send(res, status, { code, message, data: { status, ...(params ? { params, details: [] } : {}) } })

function handle(site: StubSite, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', site.url)
  site.requests.push(url.pathname + url.search)
  if (site.html)
    return res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' }).end('<!DOCTYPE html><html><body>Log in</body></html>')
  const header = req.headers.authorization
  let authed = false
  if (header) {
    const given = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : ''
    if (given !== STUB_AUTH) return error(res, 401, 'incorrect_password', 'The provided password is an invalid application password.')
    authed = true
  }
  if (site.requireAuth && !authed) return error(res, 401, 'rest_forbidden', 'Sorry, you are not allowed to do that.')
  const base = '/wp-json/tribe/events/v1'
  if (!url.pathname.startsWith(base)) return error(res, 404, 'rest_no_route', 'No route was found matching the URL and request method.')
  const route = url.pathname.slice(base.length).replace(/\/$/, '')
  const q = url.searchParams
  switch (route) {
    case '':
      return send(res, 200, { namespace: 'tribe/events/v1', routes: {} })
    case '/events':
      return events(site, q, authed, res)
    case '/venues':
      return page(
        site,
        res,
        q,
        'venues',
        site.venues.map((v) => venueJson(site, v)),
      )
    case '/organizers':
      return page(
        site,
        res,
        q,
        'organizers',
        site.organizers.map((o) => organizerJson(site, o)),
      )
    case '/categories':
      return page(
        site,
        res,
        q,
        'categories',
        site.categories.map((t) => termJson(site, 'categories', t)),
      )
    case '/tags':
      return page(
        site,
        res,
        q,
        'tags',
        site.tags.map((t) => termJson(site, 'tags', t)),
      )
    default:
      return error(res, 404, 'rest_no_route', 'No route was found matching the URL and request method.')
  }
}

function events(site: StubSite, q: URLSearchParams, authed: boolean, res: ServerResponse) {
  const status = q.get('status') ?? 'publish'
  // TEC validates `status` as one post status the caller may read.
  if (!['publish', 'future', 'draft', 'pending', 'private'].includes(status) || (status !== 'publish' && !authed))
    return error(res, 400, 'rest_invalid_param', 'Invalid parameter(s): status', { status: 'Invalid parameter.' })
  const from = q.get('start_date') ?? TODAY
  const to = q.get('end_date') ?? '2028-11-21 23:59:59'
  const list = site.events
    .filter((e) => e.status === status && e.end >= from && e.start <= to)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id - b.id))
  if (q.get('page') === String(site.failPage)) {
    site.failPage = undefined
    return error(res, 500, 'internal_server_error', 'There has been a critical error on this website.')
  }
  return page(
    site,
    res,
    q,
    'events',
    list.map((e) => eventJson(site, e)),
    'event-archive-page-not-found',
  )
}

function page(site: StubSite, res: ServerResponse, q: URLSearchParams, key: string, all: unknown[], notFound?: string) {
  const perPage = Math.min(Math.max(Number(q.get('per_page') ?? 10) || 10, 1), 50)
  const pageNo = Math.max(Number(q.get('page') ?? 1) || 1, 1)
  const totalPages = Math.ceil(all.length / perPage)
  if (notFound && pageNo > Math.max(totalPages, 1)) return error(res, 404, notFound, 'The requested event archive page does not exist')
  const self = new URL(`/wp-json/tribe/events/v1/${key}/`, site.url)
  for (const [k, v] of q) if (k !== 'page') self.searchParams.set(k, v)
  const at = (n: number) => {
    const u = new URL(self)
    u.searchParams.set('page', String(n))
    return u.toString()
  }
  const body: Record<string, unknown> = {
    [key]: all.slice((pageNo - 1) * perPage, pageNo * perPage),
    rest_url: at(pageNo),
    total: all.length,
    total_pages: totalPages,
  }
  if (pageNo < totalPages) body.next_rest_url = at(pageNo + 1)
  if (pageNo > 1) body.previous_rest_url = at(pageNo - 1)
  send(res, 200, body, { 'X-TEC-Total': String(all.length), 'X-TEC-TotalPages': String(totalPages) })
}

const host = (site: StubSite) => new URL(site.url).host

function venueJson(site: StubSite, v: StubVenue) {
  return {
    id: v.id,
    author: '1',
    status: 'publish',
    date: '2026-11-21 22:54:48',
    date_utc: '2026-11-21 22:54:48',
    modified: '2026-11-21 22:54:48',
    modified_utc: '2026-11-21 22:54:48',
    url: `${site.url}/venue/${v.slug}/`,
    venue: v.venue,
    slug: v.slug,
    ...(v.address ? { address: v.address, city: v.city, country: v.country, zip: v.zip } : {}),
    show_map: true,
    show_map_link: true,
    global_id: `${host(site)}?id=${v.id}`,
    global_id_lineage: [`${host(site)}?id=${v.id}`],
  }
}

function organizerJson(site: StubSite, o: StubOrganizer) {
  return {
    id: o.id,
    author: '1',
    status: 'publish',
    date: '2026-11-21 22:54:48',
    date_utc: '2026-11-21 22:54:48',
    modified: '2026-11-21 22:54:48',
    modified_utc: '2026-11-21 22:54:48',
    url: `${site.url}/organizer/${o.slug}/`,
    organizer: o.organizer,
    slug: o.slug,
    ...(o.email ? { email: o.email } : {}),
    ...(o.phone ? { phone: o.phone } : {}),
    global_id: `${host(site)}?id=${o.id}`,
    global_id_lineage: [`${host(site)}?id=${o.id}`],
  }
}

function termJson(site: StubSite, key: 'categories' | 'tags', t: StubTerm) {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    term_group: 0,
    term_taxonomy_id: t.id,
    taxonomy: key === 'categories' ? 'tribe_events_cat' : 'post_tag',
    description: t.description ?? '',
    parent: t.parent ?? 0,
    count: 1,
    filter: 'raw',
    urls: {
      self: `${site.url}/wp-json/tribe/events/v1/${key}/${t.id}`,
      collection: `${site.url}/wp-json/tribe/events/v1/${key}`,
      ...(t.parent ? { up: `${site.url}/wp-json/tribe/events/v1/${key}/${t.parent}` } : {}),
    },
  }
}

function eventJson(site: StubSite, e: StubEvent) {
  const permalink = e.status === 'publish' ? `${site.url}/event/${e.slug}/` : `${site.url}/?post_type=tribe_events&p=${e.id}`
  const venue = site.venues.find((v) => v.id === e.venue)
  const values = e.cost ?? []
  return {
    id: e.id,
    global_id: `${host(site)}?id=${e.id}`,
    global_id_lineage: [`${host(site)}?id=${e.id}`],
    author: '1',
    status: e.status,
    date: '2026-11-21 22:54:49',
    date_utc: e.status === 'draft' ? '0000-00-00 00:00:00' : '2026-11-21 22:54:49',
    modified: '2026-11-21 22:54:49',
    modified_utc: '2026-11-21 22:54:49',
    url: permalink,
    rest_url: `${site.url}/wp-json/tribe/events/v1/events/${e.id}`,
    title: e.title,
    description: e.description ?? '',
    excerpt: '',
    slug: e.slug,
    image: e.image ? { url: e.image, id: 900 + e.id, extension: 'jpg', width: 1200, height: 800, filesize: 51234, sizes: {} } : false,
    all_day: e.allDay === true,
    start_date: e.start,
    start_date_details: details(e.start),
    end_date: e.end,
    end_date_details: details(e.end),
    // The stub does not convert zones: the UTC fields are not what the importer reads.
    utc_start_date: e.start,
    utc_end_date: e.end,
    timezone: e.timezone,
    timezone_abbr: e.timezone === 'UTC' ? 'UTC' : 'EST',
    cost: values.length ? `$${values[0]}${values.length > 1 ? ` – $${values[values.length - 1]}` : ''}` : '',
    cost_details: {
      currency_symbol: values.length ? '$' : '',
      currency_code: '',
      currency_position: values.length ? 'prefix' : '',
      values,
    },
    website: e.website ?? permalink,
    show_map: false,
    show_map_link: false,
    hide_from_listings: false,
    sticky: false,
    featured: e.featured === true,
    categories: site.categories.filter((t) => e.categories?.includes(t.id)).map((t) => termJson(site, 'categories', t)),
    tags: site.tags.filter((t) => e.tags?.includes(t.id)).map((t) => termJson(site, 'tags', t)),
    venue: venue ? venueJson(site, venue) : [],
    organizer: site.organizers.filter((o) => e.organizers?.includes(o.id)).map((o) => organizerJson(site, o)),
    custom_fields: [],
  }
}
