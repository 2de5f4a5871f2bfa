/** Serialising replies with the headers every WordPress REST response carries (docs/wire-compatibility.md §1.8). */
import type { RawResponse } from './types.js'
import type { ApiError } from './errors.js'
import { serializeJson } from './raw-json.js'

const EXPOSE =
  'X-WP-Total, X-WP-TotalPages, Link, X-TEC-Total, X-TEC-TotalPages, ETag, Retry-After, X-Calendar-Truncated, X-Sync-Token, X-Calendar-Bookmark'
const ALLOW_HEADERS = 'Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type'

export interface ResponseMeta {
  /** `{site}{prefix}/` for the API-discovery Link header; null sends none. */
  apiRoot: string | null
  loggedIn: boolean
  allow?: string[]
}

export function jsonResponse(status: number, body: unknown, meta: ResponseMeta, extra?: Record<string, string>): RawResponse {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=UTF-8',
    ...(meta.apiRoot !== null ? { Link: `<${meta.apiRoot}>; rel="https://api.w.org/"` } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Access-Control-Expose-Headers': EXPOSE,
    'Access-Control-Allow-Headers': ALLOW_HEADERS,
  }
  if (meta.allow) headers.Allow = meta.allow.join(', ')
  if (meta.loggedIn) {
    // Responses for a signed-in caller may hold drafts: never let a shared cache keep them.
    headers.Expires = 'Wed, 11 Jan 1984 05:00:00 GMT'
    headers['Cache-Control'] = 'no-cache, must-revalidate, max-age=0, no-store, private'
  }
  if (extra) Object.assign(headers, extra)
  return { status, headers, body: serializeJson(body) }
}

export function errorResponse(error: ApiError, meta: ResponseMeta): RawResponse {
  return jsonResponse(error.status, error.toBody(), meta)
}

/** A non-JSON body with the same standard headers. */
export function textResponse(status: number, body: string, type: string, meta: ResponseMeta, extra?: Record<string, string>): RawResponse {
  const raw = jsonResponse(status, null, meta, extra)
  raw.headers['Content-Type'] = type
  raw.body = body
  return raw
}
