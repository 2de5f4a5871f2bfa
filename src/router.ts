/**
 * createCalendarRouter: resolves prefix and language, routes with itty-router, gates writes,
 * collects parameters, runs the resource handler and serialises the reply. Every failure
 * leaves as a JSON error; nothing escapes to the host.
 */
import { IttyRouter, type IRequest, type RouteEntry } from 'itty-router'
import { isRole, type Principal } from './auth/principal.js'
import { ApiError, forbidden, internalError, noRoute, storageUnavailable } from './http/errors.js'
import { effectiveMethod, parseFormEncoded, readBody, type Params } from './http/params.js'
import { errorResponse, jsonResponse, textResponse, type ResponseMeta } from './http/response.js'
import { applyCors, appendVary, isPreflight, preflight } from './http/cors.js'
import { ifNoneMatchHits, notModified, weakEtag } from './http/etag.js'
import { ReadCache, type CacheStats } from './cache.js'
import { observeStorage, type Change } from './storage/observed.js'
import { recordReads, type Tags } from './storage/dependencies.js'
import { buildIndex, buildSiteIndex } from './doc/discovery.js'
import { describingHandlers } from './doc/endpoints.js'
import { filteringStorage } from './sanitize/storage.js'
import { fromRequest, toResponse } from './http/standard.js'
import type { RawResponse, RequestLike } from './http/types.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './options.js'
import { createContext, NAMESPACE, type Context } from './context.js'
import { buildRoutes, type Endpoint, type Method, type RouteDef } from './routes.js'
import type { Reply } from './resources/respond.js'
import { validateParams } from './schemas/operation.js'
import { buildSchemas, type Schemas } from './schemas/index.js'
import { StorageUnavailableError, type Storage } from './storage/types.js'
import { emptyTrash } from './resources/trash.js'
import { extendSeries } from './resources/series.js'
import { toUtcString } from './time/format.js'

export interface CalendarRouter {
  /** The whole namespace as a standard fetch handler (Deno, Bun, Workers, tests). */
  fetch(request: Request): Promise<Response>
  /** The low-level entry adapters use: no standard Request/Response objects involved. */
  handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }>
  /**
   * Deletes for good every event, venue and organizer that has been in the trash (unchanged)
   * for more than `olderThanDays` days, so that data is really erased. Host-side only: no
   * HTTP route reaches it, so only the site's operator (administrator) can run it, e.g. from a
   * daily job. Commits in batches; the read cache and `onChange` see every deletion.
   */
  emptyTrash(options: { olderThanDays: number }): Promise<{ deleted: number }>
  /**
   * Writes the occurrences of open-ended recurring series up to `recurrence.horizonMonths`
   * ahead of now (they are written that far when created). Host-side, like emptyTrash: call it
   * from a daily job. One transaction per series.
   */
  extendSeries(): Promise<{ added: number }>
  /** Response-cache counters (hits, misses, entries dropped by writes, size); null without `cache`. */
  cacheStats(): CacheStats | null
  readonly options: ResolvedOptions
}

interface Located {
  origin: string
  /** Path below the namespace, e.g. `/events/12`. */
  path: string
  search: string
  pathLanguage: string | null
  /** `{prefix}/` itself: the WordPress-style API root (only with the restIndex option). */
  siteIndex?: true
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
const encoder = new TextEncoder()

/** Retry-After of a 503: long enough for a database failover or a lock to clear, short for a person. */
const RETRY_AFTER_SECONDS = 5

/** Splits an absolute URL without `new URL` (hot path) and finds our namespace in it. */
function locate(url: string, options: ResolvedOptions): Located | null {
  const schemeEnd = url.indexOf('://')
  const pathStart = url.indexOf('/', schemeEnd + 3)
  const origin = pathStart === -1 ? url : url.slice(0, pathStart)
  const rest = pathStart === -1 ? '/' : url.slice(pathStart)
  const q = rest.indexOf('?')
  let pathname = q === -1 ? rest : rest.slice(0, q)
  const search = q === -1 ? '' : rest.slice(q + 1)
  const hash = pathname.indexOf('#')
  if (hash !== -1) pathname = pathname.slice(0, hash)

  let pathLanguage: string | null = null
  if (options.languagePathSegment) {
    const second = pathname.indexOf('/', 1)
    const first = pathname.slice(1, second === -1 ? undefined : second).toLowerCase()
    if (second !== -1 && options.languages.includes(first)) {
      pathLanguage = first
      pathname = pathname.slice(second)
    }
  }
  const ns = `${options.prefix}/${NAMESPACE}`
  if (pathname.length >= ns.length && pathname.slice(0, ns.length).toLowerCase() === ns) {
    const below = pathname.slice(ns.length)
    if (below === '' || below[0] === '/') return { origin, path: below, search, pathLanguage }
  }
  // WordPress's plain-permalink form: `/?rest_route=/calendar/events/v1/events`.
  if ((pathname === '/' || pathname === `${options.prefix}/`) && search.includes('rest_route=')) {
    const route = parseFormEncoded(search).rest_route
    if (typeof route === 'string' && route.toLowerCase().startsWith(`/${NAMESPACE}`)) {
      return { origin, path: route.slice(NAMESPACE.length + 1), search, pathLanguage }
    }
    if (options.restIndex && route === '/') return { origin, path: '', search, pathLanguage, siteIndex: true }
    return null
  }
  const lower = pathname.toLowerCase()
  if (options.restIndex && (lower === `${options.prefix}/` || (options.prefix !== '' && lower === options.prefix))) {
    return { origin, path: '', search, pathLanguage, siteIndex: true }
  }
  return null
}

const isNamed = (e: unknown, name: string) => e instanceof Error && e.name === name && 'status' in e === (name === 'ApiError')

function decodeParam(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export function createCalendarRouter(backend: Storage, userOptions: CalendarOptions = {}): CalendarRouter {
  const options = resolveOptions(userOptions)
  const schemas: Schemas = buildSchemas({ languages: options.languages, perPage: options.perPage, geofence: options.geofence })
  const routes: RouteDef[] = buildRoutes(describingHandlers(() => routes))
  const matcher = IttyRouter<IRequest, [], RouteDef | undefined>()
  for (const r of routes) {
    matcher.routes.push(['ALL', r.regex, [() => r], r.pattern] as unknown as RouteEntry)
  }
  const cache = options.cache ? new ReadCache(options.cache) : null
  const onCommit = (changes: Change[], tags: Tags) => {
    // Untagged writes (none are known) drop everything: never serve stale.
    cache?.invalidate(tags.size ? tags : undefined)
    if (!options.onChange) return
    for (const change of changes) {
      // A failing hook must not turn a committed write into an error for the caller.
      Promise.resolve()
        .then(() => options.onChange?.(change))
        .catch((error) => options.onError?.(error, { method: 'HOOK', url: '', headers: { get: () => null } }))
    }
  }
  const storage = cache || options.onChange ? observeStorage(backend, onCommit, { tags: cache !== null }) : backend

  async function authenticate(request: RequestLike): Promise<Principal | null> {
    if (!options.authenticate) return null
    const p = await options.authenticate(request)
    if (p === null || p === undefined) return null
    if (typeof p !== 'object' || !Number.isSafeInteger(p.id) || !isRole(p.role)) {
      throw new TypeError('calendar-events-router: authenticate() must return null or { id: integer, role }')
    }
    return p
  }

  async function route(path: string, method: string) {
    const found = { params: {} as Record<string, string> }
    // itty only needs method and url; a plain object spares building a Request.
    const def = await matcher.fetch(Object.assign(found, { method, url: `http://n${path || '/'}` }) as unknown as IRequest)
    return { def, captures: found.params }
  }

  /** Routing, gates, parameters and the resource handler: the reply before HTTP niceties. */
  async function dispatch(
    request: RequestLike,
    located: Located,
    method: string,
    query: Params,
    principal: Principal | null,
    meta: ResponseMeta,
    dependsOn?: Tags,
  ): Promise<RawResponse> {
    if (located.siteIndex) {
      meta.allow = ['GET']
      if (method !== 'GET') return errorResponse(noRoute(), meta)
      return jsonResponse(
        200,
        buildSiteIndex(
          context(request, located, 'GET', principal, query, query, Object.create(null), Object.create(null)),
          routes,
          schemas,
        ),
        meta,
      )
    }
    const { def, captures } = await route(located.path, method)
    const endpoint = def && METHODS.includes(method as Method) ? def.endpoints[method as Method] : undefined
    if (!def || !endpoint) return errorResponse(noRoute(), meta)
    meta.allow = (Object.keys(def.endpoints) as Method[]).filter((m) => {
      const gate = def.endpoints[m]?.gate
      return !gate || gate(principal)
    })
    if (endpoint.gate && !endpoint.gate(principal)) throw forbidden(principal !== null)

    const body: Params = method === 'GET' || method === 'DELETE' ? Object.create(null) : await readBody(request, options.maxBodyBytes)
    const path: Params = Object.create(null)
    for (const [k, v] of Object.entries(captures)) path[k] = decodeParam(v)
    const params: Params = Object.assign(Object.create(null), path, query, body)
    delete params._method
    delete params.rest_route
    const ctx = context(request, located, method, principal, params, query, body, path, dependsOn)
    const reply = await run(endpoint, ctx)
    if (reply.allow) meta.allow = reply.allow.filter((m) => meta.allow?.includes(m as Method))
    if (reply.text) return textResponse(reply.status, reply.text.body, reply.text.type, meta, reply.headers)
    return jsonResponse(reply.status, reply.body, meta, reply.headers)
  }

  const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

  /**
   * Validates once, with the endpoint's operation (WordPress's order: required check, then every
   * parameter, all failures together), and hands the handler typed input. Path captures name the
   * record, whatever the body says.
   */
  function run(endpoint: Endpoint, ctx: Context): Promise<Reply> {
    const raw: Params = Object.assign(Object.create(null), ctx.params, ctx.path)
    const input = validateParams(schemas[endpoint.target ?? endpoint.op], endpoint.prepare ? endpoint.prepare(ctx, raw) : raw)
    // The table erases each handler's input type; `endpoint()` and `targeted()` in routes.ts
    // checked it against this very operation when the table was built.
    if (!endpoint.target) return endpoint.run(ctx, input as never, undefined as never)
    const op = endpoint.op
    // The record's own fields, read once the handler has found and authorised it. A key the path
    // captured (a by-slug update's `slug`) comes from the body alone: there it renames the record.
    const fields = () => {
      const given: Params = Object.assign(Object.create(null), ctx.params)
      for (const key of Object.keys(ctx.path)) {
        if (ctx.body[key] === undefined) delete given[key]
        else given[key] = ctx.body[key]
      }
      return validateParams(schemas[op], given)
    }
    return endpoint.run(ctx, input as never, fields as never)
  }

  function context(
    request: RequestLike,
    located: Located,
    method: string,
    principal: Principal | null,
    params: Params,
    query: Params,
    body: Params,
    path: Params,
    dependsOn?: Tags,
  ): Context {
    const asked = params.multilingual_language
    const language =
      typeof asked === 'string' && options.languages.includes(asked) ? asked : (located.pathLanguage ?? options.defaultLanguage)
    // Writes by callers without unfiltered_html store their text through the HTML filter.
    const filter = READS.has(method) ? null : options.sanitize(principal)
    return createContext({
      storage: filter ? filteringStorage(storage, filter) : dependsOn ? recordReads(storage, dependsOn) : storage,
      options,
      principal,
      language,
      origin: located.origin,
      pathLanguage: located.pathLanguage !== null && language === located.pathLanguage,
      params,
      query,
      body,
      path,
      accept: request.headers.get('accept') ?? '',
      request,
      schemas,
      dependsOn,
    })
  }

  /** OPTIONS: a CORS preflight, or (as WordPress does) the route's own description. */
  async function options_(request: RequestLike, located: Located, query: Params, meta: ResponseMeta): Promise<RawResponse> {
    if (located.siteIndex) {
      if (options.cors && isPreflight(request, 'OPTIONS')) return preflight(options.cors, request, ['GET'])
      meta.allow = ['GET']
      return jsonResponse(200, { namespace: '', methods: ['GET'], endpoints: [{ methods: ['GET'], args: [] }] }, meta)
    }
    const { def } = await route(located.path, 'GET')
    if (!def) return errorResponse(noRoute(), meta)
    const methods = Object.keys(def.endpoints)
    if (options.cors && isPreflight(request, 'OPTIONS')) return preflight(options.cors, request, methods)
    const index = buildIndex(
      context(request, located, 'OPTIONS', null, query, query, Object.create(null), Object.create(null)),
      [def],
      schemas,
    )
    meta.allow = methods
    return jsonResponse(200, Object.values(index.routes)[0], meta)
  }

  async function handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }> {
    const located = locate(request.url, options)
    // The discovery Link names `{prefix}/` only when something is known to answer there.
    const apiRoot = options.restIndex ? `${options.baseUrl ?? located?.origin ?? ''}${options.prefix}/` : null
    const meta: ResponseMeta = { apiRoot, loggedIn: false }
    if (!located) return { ...errorResponse(noRoute(), meta), passthrough: true }
    let raw: RawResponse
    let method = request.method.toUpperCase()
    try {
      const query = parseFormEncoded(located.search)
      method = effectiveMethod(request, query)
      if (method === 'OPTIONS') {
        raw = await options_(request, located, query, meta)
      } else {
        const principal = await authenticate(request)
        meta.loggedIn = principal !== null
        const read = method === 'GET' || method === 'HEAD'
        // Only anonymous reads are shared: a signed-in caller may see drafts.
        const cacheKey = cache && read && !principal ? cache.key(request.url, request.headers.get('accept') ?? '') : null
        const hit = cacheKey ? cache!.get(cacheKey) : undefined
        if (hit) raw = hit
        else {
          const since = cache?.begin()
          const dependsOn: Tags | undefined = cacheKey ? new Set() : undefined
          raw = await dispatch(request, located, read ? 'GET' : method, query, principal, meta, dependsOn)
          if (read && raw.status >= 200 && raw.status < 300 && typeof raw.body === 'string') {
            // Encoded once: the ETag hashes these bytes, and the cache and the adapter send them.
            raw.body = encoder.encode(raw.body)
            raw.headers.ETag = weakEtag(raw.body)
            if (!principal && options.cacheControl) {
              raw.headers['Cache-Control'] = options.cacheControl
              appendVary(raw, 'Authorization')
            }
            if (cacheKey) raw = cache!.set(cacheKey, raw, dependsOn, since)
          }
        }
        if (read && raw.headers.ETag && ifNoneMatchHits(request.headers.get('if-none-match'), raw.headers.ETag)) raw = notModified(raw)
      }
    } catch (error) {
      raw = failure(error, request, meta)
    }
    if (options.cors && !(method === 'OPTIONS' && raw.status === 204)) applyCors(options.cors, request, raw)
    if (method === 'HEAD') raw.body = null
    return raw
  }

  function failure(error: unknown, request: RequestLike, meta: ResponseMeta): RawResponse {
    // By name as well: an app mixing the ESM and CJS builds holds two copies of each class.
    if (error instanceof ApiError || isNamed(error, 'ApiError')) return errorResponse(error as ApiError, meta)
    options.onError?.(error, request)
    const unavailable = error instanceof StorageUnavailableError || isNamed(error, 'StorageUnavailableError')
    if (!unavailable) return errorResponse(internalError(), meta)
    const raw = errorResponse(storageUnavailable(), meta)
    // An outage is temporary by nature: tell clients (and proxies) when trying again makes sense.
    raw.headers['Retry-After'] = String(RETRY_AFTER_SECONDS)
    return raw
  }

  async function emptyTrash_(o: { olderThanDays: number }): Promise<{ deleted: number }> {
    const days = o?.olderThanDays
    // Bounded so the cutoff stays a real date (an invalid one would compare above every record).
    if (typeof days !== 'number' || !Number.isFinite(days) || days < 0 || days > 100_000) {
      throw new TypeError('calendar-events-router: emptyTrash needs { olderThanDays: a number from 0 to 100000 }')
    }
    const cutoff = toUtcString(new Date(options.now().getTime() - days * 86_400_000))
    return { deleted: await emptyTrash(storage, cutoff) }
  }

  return {
    options,
    handle,
    emptyTrash: emptyTrash_,
    cacheStats: () => (cache ? { ...cache.stats, entries: cache.entries, bytes: cache.size } : null),
    async extendSeries() {
      const { horizonMonths, maxOccurrences } = options.recurrence
      return {
        added: await extendSeries(storage, {
          now: options.now(),
          horizonMonths,
          maxOccurrences,
          languages: options.languages,
          timezone: options.timezone,
        }),
      }
    },
    async fetch(request: Request): Promise<Response> {
      return toResponse(await handle(fromRequest(request)))
    },
  }
}
