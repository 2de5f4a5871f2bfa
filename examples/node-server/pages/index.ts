/**
 * The example's pages as one standard handler: `(Request) => Promise<Response>`, so any host
 * that has a `fetch`-style router can mount them beside the API (server.ts does it for Node).
 * Paths are the permalinks the API hands out (`url`): `/event/<slug>/`, `/venue/<slug>/`,
 * `/organizer/<slug>/`, `/?p=<id>` for records that are not published; category and tag
 * permalinks open the calendar filtered.
 */
import type { CalendarOptions, CalendarRouter } from '../../../src/index.js'
import { assetResponse } from './assets.js'
import { calendarPage } from './calendar-page.js'
import { editorPage } from './editor-page.js'
import { eventPage, loadEvent, renderEvent, type EventJson } from './event-page.js'
import { homePage } from './home-page.js'
import { linkedPage } from './linked-page.js'
import { methodNotAllowedPage, notFoundPage } from './not-found.js'
import { referencePage } from './reference-page.js'
import { visitorApi, type VisitorApi } from './visitor-api.js'

export interface PagesOptions {
  /** The site's default time zone: the editor's preselected zone. */
  timezone: string
  /**
   * The site's address (the router's `siteUrl`): the feed links the home page hands out, never
   * taken from the request's Host header.
   */
  siteUrl: string
  /** The router's `currency` option: the editor shows how a number typed as cost will read. */
  currency?: CalendarOptions['currency']
}

const redirect = (location: string, status = 301) => new Response(null, { status, headers: { Location: location } })

/** `/?p=<id>`: the permalink of a record that is not published; shown only to who may see it. */
async function byId(api: VisitorApi, id: string): Promise<Response> {
  const event = await api.get<EventJson>(`/events/${id}`)
  if (event.status === 200) return renderEvent(event.body)
  for (const kind of ['venue', 'organizer'] as const) {
    const res = await api.get<{ slug: string; status: string }>(`/${kind}s/${id}`)
    // A published venue or organizer has its slug page; the others are not public.
    if (res.status === 200 && res.body.status === 'publish') return redirect(`/${kind}/${encodeURIComponent(res.body.slug)}/`, 302)
  }
  return notFoundPage()
}

export function createPages(calendar: Pick<CalendarRouter, 'fetch'>, options: PagesOptions) {
  return async function pages(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const path = url.pathname
    if (path.startsWith('/assets/') && (request.method === 'GET' || request.method === 'HEAD')) {
      return (await assetResponse(path.slice('/assets/'.length), request)) ?? notFoundPage('file')
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowedPage()
    const api = visitorApi(calendar, request)
    if (path === '/') {
      const p = url.searchParams.get('p')
      if (p !== null) return /^\d{1,15}$/.test(p) ? byId(api, p) : notFoundPage()
      return homePage(api, options.siteUrl)
    }
    if (path === '/calendar/') return calendarPage(api, url)
    if (path === '/reference/') return referencePage()
    if (path === '/editor/') return editorPage(api, options.timezone, options.currency)
    if (path === '/calendar' || path === '/reference' || path === '/editor') return redirect(`${path}/${url.search}`)
    const record = /^\/(event|venue|organizer)\/([^/]+)(\/?)$/.exec(path)
    if (record) {
      const [, kind, rawSlug, slash] = record
      if (!slash) return redirect(`${path}/${url.search}`)
      let slug: string
      try {
        slug = decodeURIComponent(rawSlug!)
      } catch {
        return notFoundPage()
      }
      return kind === 'event' ? eventPage(api, slug) : linkedPage(api, kind as 'venue' | 'organizer', slug)
    }
    const term = /^\/events\/(category|tag)\/([^/]+)\/?$/.exec(path)
    if (term) return redirect(`/calendar/?${term[1]}=${term[2]}`, 302)
    return notFoundPage()
  }
}

export { loadEvent }
