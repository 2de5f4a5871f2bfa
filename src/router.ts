/**
 * createCalendarRouter: resolves prefix and language, routes with itty-router, gates writes,
 * collects parameters, runs the resource handler and serialises the reply. Every failure
 * leaves as a JSON error; nothing escapes to the host.
 */
import { IttyRouter, type IRequest, type RouteEntry } from 'itty-router'
import { isRole, type Principal } from './auth/principal.js'
import { ApiError, forbidden, internalError, noRoute, storageUnavailable } from './http/errors.js'
import { effectiveMethod, parseFormEncoded, readBody, type Params } from './http/params.js'
import { errorResponse, jsonResponse, type ResponseMeta } from './http/response.js'
import { fromRequest, toResponse } from './http/standard.js'
import type { RawResponse, RequestLike } from './http/types.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './options.js'
import { createContext, NAMESPACE } from './resources/context.js'
import { buildRoutes, type Method, type RouteDef } from './routes.js'
import { buildSchemas, type Schemas } from './schemas/index.js'
import { StorageUnavailableError, type Storage } from './storage/types.js'

export interface CalendarRouter {
  /** The whole namespace as a standard fetch handler (Deno, Bun, Workers, tests). */
  fetch(request: Request): Promise<Response>
  /** The low-level entry adapters use: no standard Request/Response objects involved. */
  handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }>
  readonly options: ResolvedOptions
}

interface Located {
  origin: string
  /** Path below the namespace, e.g. `/events/12`. */
  path: string
  search: string
  pathLanguage: string | null
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

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
  }
  return null
}

function decodeParam(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export function createCalendarRouter(storage: Storage, userOptions: CalendarOptions = {}): CalendarRouter {
  const options = resolveOptions(userOptions)
  const schemas: Schemas = buildSchemas({ languages: options.languages, perPage: options.perPage })
  const routes = buildRoutes()
  const matcher = IttyRouter<IRequest, [], RouteDef | undefined>()
  for (const r of routes) {
    matcher.routes.push(['ALL', r.regex, [() => r], r.pattern] as unknown as RouteEntry)
  }

  async function authenticate(request: RequestLike): Promise<Principal | null> {
    if (!options.authenticate) return null
    const p = await options.authenticate(request)
    if (p === null || p === undefined) return null
    if (typeof p !== 'object' || !Number.isSafeInteger(p.id) || !isRole(p.role)) {
      throw new TypeError('calendar-events-router: authenticate() must return null or { id: integer, role }')
    }
    return p
  }

  async function handle(request: RequestLike): Promise<RawResponse & { passthrough?: boolean }> {
    const located = locate(request.url, options)
    const apiRoot = `${options.baseUrl ?? (located?.origin ?? '')}${options.prefix}/`
    const meta: ResponseMeta = { apiRoot, loggedIn: false }
    if (!located) return { ...errorResponse(noRoute(), meta), passthrough: true }
    try {
      const query = parseFormEncoded(located.search)
      let method = effectiveMethod(request, query)
      const head = method === 'HEAD'
      if (head) method = 'GET'
      meta.head = head

      const principal = await authenticate(request)
      meta.loggedIn = principal !== null

      const found = { params: {} as Record<string, string> }
      // itty only needs method and url; a plain object spares building a Request.
      const route = await matcher.fetch(Object.assign(found, { method, url: `http://n${located.path || '/'}` }) as unknown as IRequest)
      const endpoint = route && METHODS.includes(method as Method) ? route.endpoints[method as Method] : undefined
      if (!route || !endpoint) return errorResponse(noRoute(), meta)

      meta.allow = (Object.keys(route.endpoints) as Method[]).filter((m) => {
        const gate = route.endpoints[m]?.gate
        return !gate || gate(principal)
      })
      if (endpoint.gate && !endpoint.gate(principal)) throw forbidden(principal !== null)

      const body: Params = method === 'GET' || method === 'DELETE' ? Object.create(null) : await readBody(request, options.maxBodyBytes)
      const pathParams: Params = Object.create(null)
      for (const [k, v] of Object.entries(found.params)) pathParams[k] = decodeParam(v)
      const params: Params = Object.assign(Object.create(null), pathParams, query, body)
      delete params._method
      delete params.rest_route

      const asked = params.multilingual_language
      const language =
        typeof asked === 'string' && options.languages.includes(asked) ? asked : (located.pathLanguage ?? options.defaultLanguage)
      const ctx = createContext({
        storage,
        options,
        principal,
        language,
        origin: located.origin,
        pathLanguage: located.pathLanguage !== null && language === located.pathLanguage,
        params,
        query,
        body,
        path: pathParams,
      })
      const reply = await endpoint.run(ctx, schemas)
      return jsonResponse(reply.status, reply.body, meta, reply.headers)
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error, meta)
      if (error instanceof StorageUnavailableError) {
        options.onError?.(error, request)
        return errorResponse(storageUnavailable(), meta)
      }
      options.onError?.(error, request)
      return errorResponse(internalError(), meta)
    }
  }

  return {
    options,
    handle,
    async fetch(request: Request): Promise<Response> {
      const raw = await handle(fromRequest(request))
      return toResponse(raw)
    },
  }
}
