/** Router options with their documented defaults. */
import type { Principal } from './auth/principal.js'
import type { ImageRef, PostRecord, TermRecord } from './storage/types.js'
import type { HeadersLike } from './http/types.js'
import { canonicalTimezone, isValidTimezone } from './time/zone.js'
import { resolveCors, type Cors, type CorsOptions } from './http/cors.js'
import { hasControl, httpUrlText } from './http/url.js'
import { DEFAULT_POLL_MS, type CacheOptions } from './cache/response-cache.js'
import type { Change } from './cache/observed.js'
import { resolveSanitize, type SanitizeOption, type SanitizePolicy } from './sanitize/policy.js'
import { resolveCustomFields, type CustomField, type CustomFieldDeclaration } from './custom-fields/declarations.js'
import { OWN_NAMES, TEC_NAMES, type WireNames } from './wire-names.js'

/** What `authenticate` sees: a standard Request under `fetch`, the adapter's lazy request on Node. */
/** An endpoint the host declares in code (kept in the storage, shown at /webhooks, not editable there). */
export interface DeclaredWebhook {
  url: string
  /** Default `['*']`. */
  events?: string[]
  /** `whsec_...`; default: one is generated once and kept. */
  secret?: string
  description?: string
}

export interface WebhookOptions {
  /** Deliver in the background of this process (default false: call `router.webhooks.start()`, or `router.webhooks.run()` from a scheduler). */
  background?: boolean
  /** Allow endpoints on loopback, private and link-local addresses (development and tests only). Default false. */
  allowPrivate?: boolean
  /** How long one delivery attempt may take, in milliseconds. Default 15000. */
  timeoutMs?: number
  /** Seconds before each retry after a failed attempt (the first is immediate). Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  retrySchedule?: number[]
  /** An endpoint whose attempts all failed for this many days is disabled. Default 5. */
  disableAfterDays?: number
  /** Deliveries in flight at once (each to a different endpoint). Default 8. */
  concurrency?: number
  /** How often the background runner looks for work besides this process's own commits. Default 1000 ms. */
  pollMs?: number
  /** How long the old secret keeps signing after a rotation. Default 24 hours. */
  secretOverlapHours?: number
  /** Bytes of each receiver's answer kept in the delivery log. Default 1024. */
  keepBytes?: number
  /** How long a claimed delivery is held before another runner may take it (a runner that died). Default timeoutMs + 30 s. */
  leaseMs?: number
  /**
   * Days a finished (succeeded or failed) delivery stays in the delivery log after its last
   * attempt; `router.compactJournal()` removes older ones. Default 7. Pending ones always stay.
   */
  retentionDays?: number
  /** Finished deliveries kept per endpoint at most (the newest), whatever their age. Default 1000. */
  keepPerEndpoint?: number
  /**
   * Deliveries of one endpoint a runner claims at once, sends in order and records in one write
   * transaction. Default 25. After a crash, up to this many are sent again (same webhook-id).
   */
  batchSize?: number
  endpoints?: DeclaredWebhook[]
}

export interface AuthRequest {
  readonly method: string
  readonly url: string
  readonly headers: HeadersLike
  /**
   * The host's own request object: the standard `Request` under `fetch`, the `IncomingMessage`
   * under the Node adapter, the Express `req` under the Express adapter (so a session set up by
   * the host is `(request.raw as express.Request).session`).
   */
  readonly raw?: unknown
}

/** The host's user directory, as far as the router needs it. */
export interface UserDirectory {
  /** Whether a user with this id exists (may be async, e.g. a database look-up). */
  exists(id: number): boolean | Promise<boolean>
}

/** The address a `geocode` hook receives: the venue's fields, and them joined on one line. */
export interface GeocodeAddress {
  address: string
  city: string
  state: string
  province: string
  stateprovince: string
  zip: string
  country: string
  /** The non-empty fields joined with ", " (street, city, state/province and zip, country). */
  line: string
}

export interface Geofence {
  radius: number
  unit: 'mi' | 'km'
}

export type PermalinkKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag'

export interface CalendarOptions {
  /** REST prefix the host serves under. Default `/wp-json`. */
  prefix?: string
  /** Origin (and optional path) used in `url`, `rest_url` and `global_id`. Default: the request's origin. */
  baseUrl?: string
  /**
   * The site's own address (`https://events.example.org`, optionally with a path): its identity
   * in iCalendar UIDs, `global_id`, JSON-LD and webhook payloads, whatever name a request used.
   * Default: `baseUrl`, else the request's origin (identities then follow the Host header).
   */
  siteUrl?: string
  /**
   * The site's currency: the symbol shown with numeric costs written without one of their own
   * (`12` → `£12`), before the number (`prefix`) or after it (`postfix`, e.g. `' €'` → `12 €`).
   * Default `{ symbol: '$', position: 'prefix' }`, TEC's default.
   */
  currency?: { symbol: string; position?: 'prefix' | 'postfix' }
  /** Languages served. Default `['en', 'ja', 'ko', 'zh-hans']`. */
  languages?: string[]
  defaultLanguage?: string
  /** Accept `/{lang}/{prefix}/...`. Default true. */
  languagePathSegment?: boolean
  /** Site time zone: default event zone and the zone of list date bounds. Default `UTC`. */
  timezone?: string
  /** Default page size of lists. Default 120. */
  perPage?: number
  /** Larger `per_page` values are capped to this, never an error. Default 120. */
  maxPerPage?: number
  /** Who is calling. No option: every caller is anonymous and every write is 401. */
  authenticate?: (request: AuthRequest) => Principal | null | Promise<Principal | null>
  /** Public page of a record. Default `{baseUrl}/event/{slug}/` and so on. */
  permalink?: (kind: PermalinkKind, record: PostRecord | TermRecord, baseUrl: string) => string
  /** Largest accepted request body in bytes. Default 1 MiB. */
  maxBodyBytes?: number
  /** Turns an integer `image` into image data; without it only URLs are accepted. */
  resolveImage?: (id: number) => Omit<ImageRef, 'id'> | null | Promise<Omit<ImageRef, 'id'> | null>
  /** Called with every unexpected error (the caller gets a JSON 500 or 503). */
  onError?: (error: unknown, request: AuthRequest) => void
  /** Clock, for tests and reproducible output. */
  now?: () => Date
  /** CORS for browser clients; off by default. */
  cors?: CorsOptions | false
  /** LRU cache of GET responses, shared by callers of one reader class (`readerClass`); off by default. */
  cache?: CacheOptions | false
  /**
   * Serialized JSON of each record version (event, venue, organizer), shared by every caller and
   * reused by lists, single reads and write replies; bounded by bytes. Default on, 16 MiB.
   * `false` builds every representation per request. See docs/api.md, "Fragment cache".
   */
  fragmentCache?: FragmentCacheOptions | false
  /** `Cache-Control` of anonymous successful GETs (signed-in callers always get private, no-store). */
  cacheControl?: string | false
  /** Webhooks: delivery of changes to endpoints administrators manage at /webhooks (docs/webhooks.md). */
  webhooks?: WebhookOptions
  /**
   * How many days the change journal keeps its entries (default 30): a sync token older than
   * that answers 410 and the client starts over. `router.compactJournal()`, run from a daily
   * job like `emptyTrash`, removes what is older.
   */
  journalRetentionDays?: number
  /** Called after every committed write (never for a rolled-back one): purge CDNs, send webhooks. */
  onChange?: (change: Change) => void | Promise<void>
  /**
   * Turns a venue address into coordinates; called when a venue is written with address fields
   * but without coordinates. null: not found. A throw, an invalid answer or a timeout never
   * fails the write: the venue is stored without coordinates and `onError` gets the cause.
   */
  geocode?: (address: GeocodeAddress) => { lat: number; lng: number } | null | Promise<{ lat: number; lng: number } | null>
  /** How long a `geocode` call may take, in milliseconds. Default 3000. */
  geocodeTimeoutMs?: number
  /** Radius of the `geoloc_lat`/`geoloc_lng` filters; a request may change it with `geoloc_radius`. Default 25 miles. */
  geofence?: Geofence
  /** When given, an `author` on a write must name an existing user (else 400). Default: any id. */
  users?: UserDirectory
  /**
   * Answer `GET {prefix}/` with a WordPress-style API index naming this namespace, which the
   * `Link: rel="https://api.w.org/"` header of every response points at. Turn it off when the host
   * serves that path itself; the Link header is then not sent. Default true.
   */
  restIndex?: boolean
  /**
   * HTML filtering of text on write, per role or as one function. Default: administrators and
   * editors (`unfiltered_html`) store HTML as given; every other role's titles, names and
   * addresses keep inline formatting only, descriptions and excerpts a WordPress-like post
   * allow-list. See docs/security.md, "Sanitizing HTML".
   */
  sanitize?: SanitizeOption
  /** iCalendar feeds (`/events?format=ics` or `Accept: text/calendar`). */
  ical?: IcalOptions
  /** Recurring series (`recurrence` on event writes). See docs/recurring-events.md. */
  recurrence?: RecurrenceOptions
  /**
   * Fields of the site's own (TEC Pro's "Additional Fields"), written and read as
   * `custom_fields`, filtered with `custom_fields[key]=value`. See docs/custom-fields.md.
   *
   * @example
   * customFields: [
   *   { key: 'ticket_url', label: 'Tickets', type: 'url' },
   *   { key: 'genre', label: 'Genre', type: 'dropdown', options: ['jazz', 'folk'] },
   *   { key: 'accessible', label: 'Step-free', type: 'checkbox', for: ['event', 'venue'] },
   * ]
   */
  customFields?: CustomFieldDeclaration[]
  /**
   * A CalDAV face (docs/caldav.md): calendar apps read and write the events through the same
   * REST handlers, as the signed-in caller. `true` serves it at `/caldav/` (and
   * `/.well-known/caldav`); `{ path }` elsewhere. It declares two event custom fields of its
   * own, `caldav_uid` and `caldav_name` (the UID and resource name a calendar app chose), and
   * a hidden one, `caldav_extra` (what the app wrote that the model does not hold).
   *
   * @example
   * caldav: true
   */
  caldav?: boolean | { path?: string }
  /**
   * Also serve the namespace under The Events Calendar's names: `tribe/events/v1`, with the
   * language parameter `wpml_language`, beside `calendar/events/v1` (`multilingual_language`).
   * A client written for a TEC site then only needs its base URL changed. Both serve the same
   * data; each response's links use the names of the namespace the request came in on.
   * Default false. See docs/wire-compatibility.md §8.
   *
   * @example
   * const router = createCalendarRouter(storage, { tecNames: true })
   * // GET /wp-json/tribe/events/v1/events?wpml_language=ja  → rest_url under tribe/events/v1
   * // GET /wp-json/calendar/events/v1/events?multilingual_language=ja  → as before
   */
  tecNames?: boolean
}

export interface FragmentCacheOptions {
  /** Most memory the cached text may take, counted as two bytes per character. Default 16 MiB. */
  maxBytes?: number
}

/** Default bound of the fragment cache: room for thousands of rich events. */
export const DEFAULT_FRAGMENT_CACHE_BYTES = 16 * 1024 * 1024

export interface RecurrenceOptions {
  /** Most occurrences one series may have; a bounded rule with more is a 400. Default 1000. */
  maxOccurrences?: number
  /** Open-ended rules are written this many months ahead (extendSeries moves it on). Default 24. */
  horizonMonths?: number
}

export interface IcalOptions {
  /**
   * Most events one feed without `page`/`per_page` carries (the whole date window up to this).
   * Past it the feed and the response say it was cut short. Default 2000.
   */
  maxEvents?: number
  /** How often calendar apps should refetch, in seconds (REFRESH-INTERVAL, X-PUBLISHED-TTL). Default 3600. */
  refreshSeconds?: number
  /** X-WR-CALNAME of list feeds (a single event's feed is named after it). Default `Events`. */
  name?: string
}

export interface ResolvedOptions {
  prefix: string
  baseUrl: string | null
  /** `siteUrl` without its trailing slash. */
  siteUrl: string | null
  currency: SiteCurrency
  languages: string[]
  defaultLanguage: string
  languagePathSegment: boolean
  timezone: string
  perPage: number
  maxPerPage: number
  authenticate: NonNullable<CalendarOptions['authenticate']> | null
  permalink: CalendarOptions['permalink'] | null
  maxBodyBytes: number
  resolveImage: CalendarOptions['resolveImage'] | null
  onError: CalendarOptions['onError'] | null
  now: () => Date
  cors: Cors | null
  cache: (CacheOptions & { pollMs: number }) | null
  fragmentCache: Required<FragmentCacheOptions> | null
  cacheControl: string | null
  onChange: CalendarOptions['onChange'] | null
  journalRetentionDays: number
  webhooks: Required<Omit<WebhookOptions, 'endpoints'>> & { endpoints: DeclaredWebhook[] }
  users: UserDirectory | null
  restIndex: boolean
  sanitize: SanitizePolicy
  ical: Required<IcalOptions>
  recurrence: Required<RecurrenceOptions>
  geocode: CalendarOptions['geocode'] | null
  geocodeTimeoutMs: number
  geofence: Geofence
  customFields: readonly CustomField[]
  /** The CalDAV face's root path (no trailing slash), null when off. */
  caldav: { path: string } | null
  /** The names served, ours first (then TEC's with the `tecNames` option). */
  namespaces: readonly WireNames[]
  /** Each served namespace's path below the host (`{prefix}/{namespace}`), for finding it in a URL. */
  namespacePaths: ReadonlyArray<{ readonly path: string; readonly names: WireNames }>
}

/** The largest geofence radius: just under half the Earth's circumference (20,015 km), so nearly every point. */
export const MAX_GEOFENCE_KM = 20_000

function geofence(g: Geofence | undefined): Geofence {
  if (g === undefined) return { radius: 25, unit: 'mi' }
  if (
    typeof g !== 'object' ||
    g === null ||
    (g.unit !== 'mi' && g.unit !== 'km') ||
    !(typeof g.radius === 'number' && Number.isFinite(g.radius) && g.radius > 0)
  ) {
    throw new TypeError("calendar-events-router: geofence must be { radius: positive number, unit: 'mi' | 'km' }")
  }
  return { radius: g.radius, unit: g.unit }
}

/** A positive number, fractions allowed (a period in days may be less than one). */
function positiveNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`calendar-events-router: ${name} must be a positive number`)
  return value
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`calendar-events-router: ${name} must be a positive integer`)
  return value
}

function fragmentCache(o: FragmentCacheOptions | false | undefined): Required<FragmentCacheOptions> | null {
  if (o === false) return null
  if (o !== undefined && (typeof o !== 'object' || o === null)) {
    throw new TypeError('calendar-events-router: fragmentCache must be { maxBytes } or false')
  }
  return { maxBytes: positive('fragmentCache.maxBytes', o?.maxBytes, DEFAULT_FRAGMENT_CACHE_BYTES) }
}

function resolveUsers(users: UserDirectory | undefined): UserDirectory | null {
  if (users === undefined) return null
  if (typeof users?.exists !== 'function') throw new TypeError('calendar-events-router: users must be { exists(id) }')
  return users
}

export interface SiteCurrency {
  symbol: string
  position: 'prefix' | 'postfix'
}

/** A short symbol without digits (a digit would read as part of the price), placed before or after. */
function currency(value: CalendarOptions['currency']): SiteCurrency {
  if (value === undefined) return { symbol: '$', position: 'prefix' }
  const { symbol, position = 'prefix' } = value
  if (typeof symbol !== 'string' || !symbol.trim() || symbol.length > 8 || /\d/.test(symbol))
    throw new TypeError(
      `calendar-events-router: currency.symbol must be a short symbol without digits, like '£' or ' €' (got ${JSON.stringify(symbol)})`,
    )
  if (position !== 'prefix' && position !== 'postfix')
    throw new TypeError(`calendar-events-router: currency.position must be 'prefix' or 'postfix' (got ${JSON.stringify(position)})`)
  return { symbol, position }
}

/** An http(s) origin with an optional path and nothing else: identities are built from it. */
function siteUrl(value: string): string {
  const bad = () =>
    new TypeError(
      `calendar-events-router: siteUrl must be an http(s) address without query or fragment, like https://events.example.org (got ${JSON.stringify(value)})`,
    )
  if (typeof value !== 'string' || !URL.canParse(value)) throw bad()
  const u = new URL(value)
  if (
    (u.protocol !== 'http:' && u.protocol !== 'https:') ||
    !u.hostname ||
    u.search ||
    u.hash ||
    value.includes('?') ||
    value.includes('#')
  )
    throw bad()
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`
}

/**
 * The endpoints declared in code, each URL checked as every URL field is and kept in its
 * serialized form (http/url.ts): a typo fails at start-up, not at every delivery.
 */
function declaredWebhooks(endpoints: DeclaredWebhook[]): DeclaredWebhook[] {
  return endpoints.map((d, i) => {
    const url = typeof d.url === 'string' ? httpUrlText(d.url) : null
    if (url !== null) return { ...d, url }
    const why = typeof d.url === 'string' && hasControl(d.url) ? 'holds a control character' : 'is not an absolute http or https URL'
    throw new TypeError(`calendar-events-router: webhooks.endpoints[${i}].url ${why} (got ${JSON.stringify(d.url)})`)
  })
}

export function resolveOptions(o: CalendarOptions = {}): ResolvedOptions {
  const given = '/' + (o.prefix ?? '/wp-json').replace(/^\/+|\/+$/g, '')
  const prefix = given === '/' ? '' : given
  const namespaces = served(o.tecNames)
  const languages = o.languages ?? ['en', 'ja', 'ko', 'zh-hans']
  if (!languages.length) throw new TypeError('calendar-events-router: languages must not be empty')
  // tsc (noUncheckedIndexedAccess) needs the cast that the rule, misreading the index access, calls unneeded.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const defaultLanguage = o.defaultLanguage ?? (languages.includes('en') ? 'en' : (languages[0] as string))
  if (!languages.includes(defaultLanguage)) throw new TypeError('calendar-events-router: defaultLanguage must be one of languages')
  const timezone = o.timezone ?? 'UTC'
  if (!isValidTimezone(timezone)) throw new TypeError(`calendar-events-router: unknown timezone ${timezone}`)
  const perPage = positive('perPage', o.perPage, 120)
  return {
    prefix,
    baseUrl: o.baseUrl ? o.baseUrl.replace(/\/+$/, '') : null,
    siteUrl: o.siteUrl === undefined ? null : siteUrl(o.siteUrl),
    currency: currency(o.currency),
    languages,
    defaultLanguage,
    languagePathSegment: o.languagePathSegment ?? true,
    timezone: canonicalTimezone(timezone),
    perPage,
    maxPerPage: positive('maxPerPage', o.maxPerPage, Math.max(120, perPage)),
    authenticate: o.authenticate ?? null,
    permalink: o.permalink ?? null,
    maxBodyBytes: positive('maxBodyBytes', o.maxBodyBytes, 1024 * 1024),
    resolveImage: o.resolveImage ?? null,
    onError: o.onError ?? null,
    now: o.now ?? (() => new Date()),
    cors: resolveCors(o.cors),
    cache: o.cache ? { ...o.cache, pollMs: positive('cache.pollMs', o.cache.pollMs, DEFAULT_POLL_MS) } : null,
    fragmentCache: fragmentCache(o.fragmentCache),
    cacheControl: o.cacheControl === false ? null : (o.cacheControl ?? 'public, max-age=0, must-revalidate'),
    onChange: o.onChange ?? null,
    journalRetentionDays: positive('journalRetentionDays', o.journalRetentionDays, 30),
    webhooks: {
      background: o.webhooks?.background ?? false,
      allowPrivate: o.webhooks?.allowPrivate ?? false,
      timeoutMs: positive('webhooks.timeoutMs', o.webhooks?.timeoutMs, 15_000),
      retrySchedule: o.webhooks?.retrySchedule ?? [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
      disableAfterDays: positiveNumber('webhooks.disableAfterDays', o.webhooks?.disableAfterDays, 5),
      concurrency: positive('webhooks.concurrency', o.webhooks?.concurrency, 8),
      pollMs: positive('webhooks.pollMs', o.webhooks?.pollMs, 1000),
      secretOverlapHours: positive('webhooks.secretOverlapHours', o.webhooks?.secretOverlapHours, 24),
      keepBytes: positive('webhooks.keepBytes', o.webhooks?.keepBytes, 1024),
      leaseMs: positive('webhooks.leaseMs', o.webhooks?.leaseMs, positive('webhooks.timeoutMs', o.webhooks?.timeoutMs, 15_000) + 30_000),
      retentionDays: positiveNumber('webhooks.retentionDays', o.webhooks?.retentionDays, 7),
      keepPerEndpoint: positive('webhooks.keepPerEndpoint', o.webhooks?.keepPerEndpoint, 1000),
      batchSize: positive('webhooks.batchSize', o.webhooks?.batchSize, 25),
      endpoints: declaredWebhooks(o.webhooks?.endpoints ?? []),
    },
    users: resolveUsers(o.users),
    restIndex: o.restIndex ?? true,
    sanitize: resolveSanitize(o.sanitize),
    ical: {
      maxEvents: positive('ical.maxEvents', o.ical?.maxEvents, 2000),
      refreshSeconds: positive('ical.refreshSeconds', o.ical?.refreshSeconds, 3600),
      name: o.ical?.name ?? 'Events',
    },
    recurrence: {
      maxOccurrences: positive('recurrence.maxOccurrences', o.recurrence?.maxOccurrences, 1000),
      horizonMonths: positive('recurrence.horizonMonths', o.recurrence?.horizonMonths, 24),
    },
    geocode: o.geocode ?? null,
    geocodeTimeoutMs: positive('geocodeTimeoutMs', o.geocodeTimeoutMs, 3000),
    geofence: geofence(o.geofence),
    customFields: resolveCustomFields(caldavFields(o)),
    caldav: resolveCaldav(o.caldav, languages),
    namespaces,
    namespacePaths: namespaces.map((names) => ({ path: `${prefix}/${names.namespace}`, names })),
  }
}

/** The custom fields the CalDAV face keeps a calendar app's names in, after the host's own. */
function caldavFields(o: CalendarOptions): CustomFieldDeclaration[] | undefined {
  if (!o.caldav) return o.customFields
  return [
    ...(o.customFields ?? []),
    { key: 'caldav_uid', label: 'CalDAV UID', type: 'text' },
    { key: 'caldav_name', label: 'CalDAV resource name', type: 'text' },
    // Write-only: what a calendar app wrote that the model does not hold (src/caldav/extras.ts).
    { key: 'caldav_extra', label: 'CalDAV properties kept', type: 'textarea', hidden: true },
  ]
}

function resolveCaldav(c: CalendarOptions['caldav'], languages: readonly string[]): { path: string } | null {
  if (c === undefined || c === false) return null
  // `/caldav/calendars/all/` is the calendar of every language.
  if (languages.includes('all')) throw new TypeError('calendar-events-router: with caldav, no language may be called "all"')
  if (c === true) return { path: '/caldav' }
  if (typeof c !== 'object' || c === null || (c.path !== undefined && typeof c.path !== 'string'))
    throw new TypeError('calendar-events-router: caldav must be true, false or { path }')
  const path = '/' + (c.path ?? 'caldav').replace(/^\/+|\/+$/g, '')
  if (path === '/' || !/^[A-Za-z0-9/_.-]+$/.test(path))
    throw new TypeError('calendar-events-router: caldav.path must be a path below the root')
  return { path }
}

function served(tecNames: boolean | undefined): readonly WireNames[] {
  if (tecNames !== undefined && typeof tecNames !== 'boolean') throw new TypeError('calendar-events-router: tecNames must be a boolean')
  return tecNames ? [OWN_NAMES, TEC_NAMES] : [OWN_NAMES]
}
