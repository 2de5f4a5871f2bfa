/**
 * CORS, off unless configured. Allowed origins are reflected; `*` is used only for any-origin
 * without credentials (browsers refuse `*` with credentials). Headers are added to the
 * response we already have, never by rebuilding it.
 */
import type { RawResponse, RequestLike } from './types.js'

export interface CorsOptions {
  /** `'*'`, a list of origins, or a predicate. Default `'*'`. */
  origins?: '*' | string[] | ((origin: string) => boolean)
  /** Send `Access-Control-Allow-Credentials: true` (never together with `*`). Default false. */
  credentials?: boolean
  /** Preflight cache lifetime in seconds. Default 600. */
  maxAge?: number
}

export interface Cors {
  allows(origin: string): boolean
  credentials: boolean
  maxAge: number
  any: boolean
}

const EXPOSE =
  'X-TEC-Total, X-TEC-TotalPages, X-WP-Total, X-WP-TotalPages, ETag, Link, Allow, Retry-After, X-Calendar-Truncated, X-Sync-Token, X-Calendar-Bookmark'
const ALLOW_HEADERS = 'Authorization, Content-Type, X-WP-Nonce, X-HTTP-Method-Override, If-None-Match, If-Match, X-Calendar-Bookmark'

export function resolveCors(o: CorsOptions | undefined | false): Cors | null {
  if (!o) return null
  const origins = o.origins ?? '*'
  const credentials = o.credentials === true
  const allows = origins === '*' ? () => true : typeof origins === 'function' ? origins : (origin: string) => origins.includes(origin)
  return { allows, credentials, maxAge: o.maxAge ?? 600, any: origins === '*' }
}

function originHeaders(cors: Cors, origin: string): Record<string, string> {
  const h: Record<string, string> = {}
  if (cors.any && !cors.credentials) h['Access-Control-Allow-Origin'] = '*'
  else h['Access-Control-Allow-Origin'] = origin
  if (cors.credentials) h['Access-Control-Allow-Credentials'] = 'true'
  return h
}

/** Adds CORS headers to an actual (non-preflight) response; `expose`: the headers a script may read. */
export function applyCors(cors: Cors, request: RequestLike, raw: RawResponse, expose = EXPOSE): void {
  const origin = request.headers.get('origin')
  appendVary(raw, 'Origin')
  if (!origin || !cors.allows(origin)) return
  Object.assign(raw.headers, originHeaders(cors, origin))
  raw.headers['Access-Control-Expose-Headers'] = expose
}

export const isPreflight = (request: RequestLike, method: string) =>
  method === 'OPTIONS' && request.headers.get('origin') !== null && request.headers.get('access-control-request-method') !== null

/** `allowHeaders`: what is allowed when the preflight names no headers of its own. */
export function preflight(cors: Cors, request: RequestLike, methods: string[], allowHeaders = ALLOW_HEADERS): RawResponse {
  const origin = request.headers.get('origin') as string
  const headers: Record<string, string> = { Vary: 'Origin, Access-Control-Request-Headers' }
  if (cors.allows(origin)) {
    Object.assign(headers, originHeaders(cors, origin), {
      'Access-Control-Allow-Methods': [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '),
      'Access-Control-Allow-Headers': request.headers.get('access-control-request-headers') || allowHeaders,
      'Access-Control-Max-Age': String(cors.maxAge),
    })
  }
  return { status: 204, headers, body: null }
}

export function appendVary(raw: RawResponse, value: string): void {
  const current = raw.headers.Vary
  if (!current) {
    raw.headers.Vary = value
    return
  }
  // Every response passes here (Origin): most lack the name altogether, told without splitting.
  const wanted = value.toLowerCase()
  const lower = current.toLowerCase()
  if (lower.includes(wanted)) for (const v of lower.split(',')) if (v.trim() === wanted) return
  raw.headers.Vary = `${current}, ${value}`
}
