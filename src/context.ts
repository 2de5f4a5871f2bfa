/**
 * Everything a resource handler needs about one request: who calls, in which language, the
 * roots to build links from, the clock, and the parameters as collected.
 */
import type { Principal } from './auth/principal.js'
import type { ResolvedOptions } from './options.js'
import type { Params } from './http/params.js'
import type { Storage } from './storage/types.js'
import type { Schemas } from './schemas/index.js'
import type { FragmentCache } from './cache/fragment-cache.js'
import type { AuthRequest } from './options.js'
import { LRUCache } from 'lru-cache'
import type { InTransaction } from './storage/pipeline.js'
import { toUtcString } from './time/format.js'
import { utcToLocal } from './time/zone.js'
import { OWN_NAMES, type WireNames } from './wire-names.js'

/** Our own namespace; a request may also come in under TEC's (`ctx.names`). */
export const NAMESPACE = OWN_NAMES.namespace

export interface Context {
  /** The storage the request works on (router/context.ts): built with the context, never replaced. */
  readonly storage: Storage
  options: ResolvedOptions
  principal: Principal | null
  language: string
  /** The site address used for every generated link (no trailing slash). */
  base: string
  /** `{base}[/{lang}]{prefix}/{namespace}`: links keep the request's language and namespace. */
  restRoot: string
  /** The namespace and language parameter the request came in under: every link uses them. */
  names: WireNames
  /** Query parameter to keep the language in links when it cannot travel in the path. */
  languageQuery: string | null
  /** Route parameters merged WordPress-style: JSON body > form body > query > path. */
  params: Params
  query: Params
  /** The request's Accept header ('' when absent). */
  accept: string
  /** Path captures alone: they name the record, whatever the body says. */
  path: Params
  /** The namespace root exactly as this request addressed it (origin, language segment, prefix). */
  requestRoot: string
  /** Body parameters alone (a by-slug update tells the body's `slug` from the path's). */
  body: Params
  /** Current time, UTC and site-local wall clock. */
  nowUtc: string
  nowLocal: string
  now: Date
  /** The request, for hooks that report to `onError`. */
  request: AuthRequest
  /** Every operation's parameters: nested write data (a venue inside an event) validates like a create. */
  schemas: Schemas
  /** The router's fragment cache (null when the `fragmentCache` option is false, and in a batch). */
  fragments: FragmentCache | null
  /** A host job's hook, run inside each transaction of its write (host-request.ts); null for HTTP requests. */
  inTransaction: InTransaction | null
  /** The request runs inside a batch's open transaction: it reads what is not committed yet. */
  inBatch: boolean
  /** What the router keeps between requests for its handlers: its own, never another router's. */
  shared: RouterShared
}

/** Per-router state handlers use (created with the router, handed to every request's context). */
export interface RouterShared {
  /** The ids each stretch of the journal changed, per list and filters (resources/sync.ts). */
  syncStretches: LRUCache<string, readonly number[]>
  /**
   * The end of the day some months after the site's clock, by months, for the second `at`: every
   * list asks where the written horizon of open-ended series lies (resources/provisional.ts).
   */
  daysAhead: { at: string; days: Map<number, string> }
}

/** A router's fresh `RouterShared`. */
export const routerShared = (): RouterShared => ({
  // Bounded by the ids held (a sync of many changes holds many).
  syncStretches: new LRUCache<string, readonly number[]>({ maxSize: 200_000, sizeCalculation: (ids) => Math.max(1, ids.length) }),
  daysAhead: { at: '', days: new Map() },
})

export interface ContextInit {
  storage: Storage
  options: ResolvedOptions
  principal: Principal | null
  language: string
  /** The namespace the request addressed (ours or, with `tecNames`, TEC's). */
  names: WireNames
  origin: string
  pathLanguage: boolean
  params: Params
  query: Params
  body: Params
  path: Params
  accept: string
  request: AuthRequest
  schemas: Schemas
  fragments: FragmentCache | null
  /** Host jobs' requests only (router/context.ts); a context outside a request has none. */
  inTransaction?: InTransaction | null
  inBatch?: boolean
  /** The router's; a context outside its requests (a webhook payload's) gets one of its own. */
  shared?: RouterShared
}

/**
 * The site's wall clock for a UTC second. Every request of the same second asks for the same
 * one, and converting between zones is the costly part of reading the clock: the last answer
 * per zone is kept.
 */
const lastLocal = new Map<string, { utc: string; local: string }>()

function siteClock(utc: string, timezone: string): string {
  const last = lastLocal.get(timezone)
  if (last && last.utc === utc) return last.local
  const local = utcToLocal(utc, timezone)
  // Zones are the routers' own (a handful), never caller input.
  lastLocal.set(timezone, { utc, local })
  return local
}

export function createContext(init: ContextInit): Context {
  const { options } = init
  const base = options.baseUrl ?? init.origin
  const nonDefault = init.language !== options.defaultLanguage
  const segment = nonDefault && (init.pathLanguage || options.languagePathSegment) ? `/${init.language}` : ''
  const now = options.now()
  let nowUtc: string | undefined
  let nowLocal: string | undefined
  return {
    storage: init.storage,
    options,
    principal: init.principal,
    language: init.language,
    base,
    restRoot: `${base}${segment}${options.prefix}/${init.names.namespace}`,
    names: init.names,
    languageQuery: nonDefault && !segment ? init.language : null,
    params: init.params,
    query: init.query,
    body: init.body,
    path: init.path,
    accept: init.accept,
    request: init.request,
    schemas: init.schemas,
    fragments: init.fragments,
    inTransaction: init.inTransaction ?? null,
    inBatch: init.inBatch ?? false,
    shared: init.shared ?? routerShared(),
    requestRoot: `${init.origin}${init.pathLanguage ? `/${init.language}` : ''}${options.prefix}/${init.names.namespace}`,
    now,
    // Reads rarely need the clock as text, and the zone conversion is not free: compute on demand.
    get nowUtc() {
      return (nowUtc ??= toUtcString(now))
    },
    get nowLocal() {
      return (nowLocal ??= siteClock(this.nowUtc, options.timezone))
    },
  }
}
