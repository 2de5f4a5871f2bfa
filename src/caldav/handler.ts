/**
 * The CalDAV face's entry (docs/caldav.md): RFC 6764 discovery at `/.well-known/caldav`, then
 * under the CalDAV root the principal, the calendar home, one calendar per language and their
 * objects. The router hands it every request outside its namespace (router.ts); it answers those
 * under its root and gives the rest back (null). Every read and write goes through the REST
 * handlers as the signed-in caller (api.ts); the caller signs in with the router's `authenticate`
 * hook (HTTP Basic in the example server), and a request without a caller gets 401 with
 * `WWW-Authenticate: Basic`, which is what makes calendar apps ask for a password.
 */
import type { Principal } from '../auth/principal.js'
import { PayloadTooLargeError, type RawResponse, type RequestLike } from '../http/types.js'
import { applyCors, isPreflight, preflight } from '../http/cors.js'
import type { ResolvedOptions } from '../options.js'
import type { HostSend } from '../host-request.js'
import type { Storage } from '../storage/types.js'
import { restClient } from './api.js'
import { davContext, type Dav, type DavBatch } from './context.js'
import { CollectionCache } from './collections.js'
import { IcsInputError } from './ics-in.js'
import { davError, plain } from './multistatus.js'
import { deleteObject, getObject, putObject } from './objects.js'
import { propfind, type Place } from './propfind.js'
import { report } from './reports.js'
import { XmlError } from './xml.js'
import { ALL, categoryOf, NoSuchCalendar } from './store.js'

export interface CaldavDoor {
  /** The router's host door: REST requests as a named caller. */
  send: HostSend
  /** The router's batch: host requests in one transaction (a write and its If-Match check). */
  batch: DavBatch
  /** The router's `authenticate` hook, checked. */
  authenticate(request: RequestLike): Promise<Principal | null>
  /** The router's storage: read only for the kept iCalendar properties (extras.ts). */
  storage: Storage
}

/** Request bodies larger than this are refused (413) before they are parsed. */
export const MAX_BODY = 1_000_000

const ALLOW = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, REPORT'
/** CORS (when the router has it, as for the REST namespace): the WebDAV methods and headers web clients use. */
const CORS_METHODS = ['GET', 'PUT', 'DELETE', 'PROPFIND', 'REPORT']
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Depth, If-Match, If-None-Match, Prefer, Brief'
const CORS_EXPOSE = 'DAV, ETag, Location, WWW-Authenticate, Allow, Content-Length'
const DAV_HEADER = '1, 3, calendar-access'

/** The URL's path, or null when it is not ours. */
function pathOf(url: string): { origin: string; path: string } {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)/i.exec(url)
  return { origin: m?.[1] ?? '', path: m?.[2] || '/' }
}

/** Where below the root a request points; null for nothing there. */
function placeOf(options: ResolvedOptions, segments: string[]): Place | null {
  const [first, language, name, ...more] = segments
  if (first === undefined) return { kind: 'root' }
  if (first === 'principal' && language === undefined) return { kind: 'principal' }
  if (first !== 'calendars' || more.length) return null
  if (language === undefined) return { kind: 'home' }
  const category = categoryOf(language)
  if (language !== ALL && !options.languages.includes(category ? category.language : language)) return null
  return name === undefined ? { kind: 'calendar', language } : { kind: 'object', language, name }
}

export function caldavHandler(options: ResolvedOptions, door: CaldavDoor): (request: RequestLike) => Promise<RawResponse | null> {
  const root = options.caldav!.path
  const collections = new CollectionCache()
  const answerOurs = async (request: RequestLike, origin: string, path: string): Promise<RawResponse> => {
    if (/^\/\.well-known\/caldav\/?$/i.test(path)) return plain(301, { Location: `${root}/` })
    try {
      return await answer(options, door, collections, request, origin, path.slice(root.length))
    } catch (error) {
      if (error instanceof NoSuchCalendar) return davError(404, '', 'Nothing is here')
      if (error instanceof XmlError) return davError(400, '', `Malformed XML: ${error.message}`)
      if (error instanceof PayloadTooLargeError) return davError(413, '', `The body is larger than ${MAX_BODY} bytes`)
      if (error instanceof IcsInputError) return davError(400, error.condition, error.message)
      options.onError?.(error, request)
      return davError(500, '', 'The server failed to answer')
    }
  }
  return async (request) => {
    const { origin, path } = pathOf(request.url)
    if (!/^\/\.well-known\/caldav\/?$/i.test(path) && path !== root && !path.startsWith(`${root}/`)) return null
    const cors = options.cors
    if (cors && isPreflight(request, request.method.toUpperCase())) return preflight(cors, request, CORS_METHODS, CORS_ALLOW_HEADERS)
    const raw = await answerOurs(request, origin, path)
    if (cors) applyCors(cors, request, raw, CORS_EXPOSE)
    return raw
  }
}

async function answer(
  options: ResolvedOptions,
  door: CaldavDoor,
  collections: CollectionCache,
  request: RequestLike,
  origin: string,
  below: string,
): Promise<RawResponse> {
  const method = request.method.toUpperCase()
  if (method === 'OPTIONS') return plain(200, { Allow: ALLOW, DAV: DAV_HEADER })
  let segments: string[]
  try {
    segments = below.split('/').filter(Boolean).map(decodeURIComponent)
  } catch (error) {
    return davError(400, '', `The path is not percent-encoded properly (${(error as Error).message})`)
  }
  const principal = await door.authenticate(request)
  if (!principal)
    return withHeaders(davError(401, '', 'Sign in to use the calendar'), { 'WWW-Authenticate': 'Basic realm="Calendar", charset="UTF-8"' })
  const place = placeOf(options, segments)
  if (!place) return davError(404, '', 'Nothing is here')
  const namespace = options.namespaces[0]!.namespace
  const base = `${origin}${options.prefix}/${namespace}`
  const host = hostname(options.baseUrl ?? origin)
  const restFor = (send: HostSend) => restClient(send, principal, base, namespace)
  const dav = davContext(options, { restFor, send: door.send, batch: door.batch, storage: door.storage }, principal, host, collections)
  return dispatch(dav, request, method, place, below)
}

const withHeaders = (raw: RawResponse, headers: Record<string, string>): RawResponse => ({
  ...raw,
  headers: { ...raw.headers, ...headers },
})

function hostname(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1]?.toLowerCase() || 'calendar'
}

async function dispatch(dav: Dav, request: RequestLike, method: string, place: Place, below: string): Promise<RawResponse> {
  const header = (name: string) => request.headers.get(name)
  const fullPath = `${dav.root}${below}`
  if (method === 'PROPFIND') return propfind(dav, place, header('depth') ?? '0', await request.text(MAX_BODY), fullPath)
  if (method === 'REPORT') {
    if (place.kind !== 'calendar') return davError(403, 'd:supported-report', 'Reports are answered on a calendar')
    return report(dav, place.language, await request.text(MAX_BODY))
  }
  if (place.kind !== 'object') {
    if (method === 'GET' || method === 'HEAD')
      return {
        ...plain(200, { 'Content-Type': 'text/plain; charset=utf-8' }),
        body: method === 'GET' ? 'CalDAV: add this address to a calendar app.\n' : null,
      }
    return withHeaders(davError(405, '', `${method} is not allowed here`), { Allow: 'OPTIONS, GET, HEAD, PROPFIND, REPORT' })
  }
  if (method === 'GET' || method === 'HEAD') {
    const got = await getObject(dav, place.language, place.name, header('if-none-match'))
    return method === 'HEAD' ? { ...got, body: null } : got
  }
  if (method === 'PUT') {
    const body = await request.text(MAX_BODY)
    return putObject(
      dav,
      place.language,
      place.name,
      { contentType: header('content-type'), ifMatch: header('if-match'), ifNoneMatch: header('if-none-match') },
      body,
    )
  }
  if (method === 'DELETE') return deleteObject(dav, place.language, place.name, header('if-match'))
  return withHeaders(davError(405, '', `${method} is not allowed here`), { Allow: ALLOW })
}
