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

export function tokenFromCookie(cookieHeader: string | null): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === TOKEN_COOKIE && rest.length) {
      try {
        const value = decodeURIComponent(rest.join('='))
        return value || null
      } catch {
        return null
      }
    }
  }
  return null
}

export function visitorApi(calendar: Pick<CalendarRouter, 'fetch'>, request: Request): VisitorApi {
  const origin = new URL(request.url).origin
  const token = tokenFromCookie(request.headers.get('cookie'))
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
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
