/**
 * The pages read the calendar the way the visitor would: through the router's `fetch`, with the
 * visitor's credentials and nothing more, so the API's permissions decide what a page shows (an
 * anonymous visitor never gets a draft). No storage call, no second copy of the rules.
 */
import type { CalendarRouter } from '../../../src/index.js'

/** Where `npm start` mounts the namespace (the router's default prefix). */
export const API_PATH = '/wp-json/calendar/events/v1'

/**
 * The editor keeps the visitor's token in this cookie beside sessionStorage, so that pages they
 * open show them what the token may see (their drafts). SameSite=Strict: another site's links
 * and forms never carry it. The API itself never reads it (bearer tokens only), so it cannot be
 * used for cross-site writes.
 */
export const TOKEN_COOKIE = 'calendar_token'

export interface ApiAnswer<T> {
  status: number
  body: T
}

export interface VisitorApi {
  get<T = any>(path: string, query?: Record<string, string | number | undefined>): Promise<ApiAnswer<T>>
  /** Whether the visitor sent a token (the pages say "signed in"; the API decides what it allows). */
  signedIn: boolean
}

/**
 * Where the visitor's last write committed (the API's `X-Calendar-Bookmark`), kept by the editor
 * (static/editor.js): with read replicas, pages read with it see that write, on any process.
 */
export const BOOKMARK_COOKIE = 'calendar_bookmark'
/** A PostgreSQL WAL position as the API writes it; anything else is not sent on. */
const BOOKMARK = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i

function cookieValue(cookieHeader: string | null, wanted: string): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name !== wanted || !rest.length) continue
    try {
      return decodeURIComponent(rest.join('=')) || null
    } catch (error) {
      // Not percent-encoding (a hand-edited cookie): no value, as if it were absent.
      if (error instanceof URIError) return null
      throw error
    }
  }
  return null
}

export const tokenFromCookie = (cookieHeader: string | null): string | null => cookieValue(cookieHeader, TOKEN_COOKIE)

/** The bookmark cookie's value when it is one the API gave; null otherwise. */
export function bookmarkFromCookie(cookieHeader: string | null): string | null {
  const value = cookieValue(cookieHeader, BOOKMARK_COOKIE)
  return value && BOOKMARK.test(value) ? value : null
}

export function visitorApi(calendar: Pick<CalendarRouter, 'fetch'>, request: Request): VisitorApi {
  const origin = new URL(request.url).origin
  const token = tokenFromCookie(request.headers.get('cookie'))
  const bookmark = bookmarkFromCookie(request.headers.get('cookie'))
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  if (bookmark) headers['x-calendar-bookmark'] = bookmark
  return {
    signedIn: token !== null,
    async get(path, query) {
      // The visitor's origin: the links the API builds (`url`, `rest_url`) point at this site.
      const url = new URL(`${API_PATH}${path}`, origin)
      for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
      const res = await calendar.fetch(new Request(url, { headers }))
      const text = await res.text()
      let body: any = null
      try {
        body = JSON.parse(text)
      } catch {
        body = null
      }
      return { status: res.status, body }
    },
  }
}
