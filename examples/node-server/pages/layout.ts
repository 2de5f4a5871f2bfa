/**
 * The page shell every page shares: language, landmarks (banner, navigation, main,
 * contentinfo), a skip link, the site's style sheet, and the response headers. Scripts are
 * files under /assets/ only, never inline, so the Content-Security-Policy can forbid inline
 * script: even markup that slipped past the filters could not run.
 */
import { html, type SafeHtml } from './html.js'
import { API_PATH } from './visitor-api.js'

export interface PageSpec {
  title: string
  /** Shown in search results and link previews. */
  description?: string
  /** The page's own address, when it has a canonical one (event, venue, organizer pages). */
  canonical?: string
  body: SafeHtml
  /** Extra elements for <head> (style sheets of a page, JSON-LD). */
  head?: SafeHtml
  /** Script files under /assets/, loaded at the end of <body> in this order. */
  scripts?: string[]
  /** Which navigation entry is the current page. */
  current?: 'home' | 'calendar' | 'reference' | 'editor'
  status?: number
}

const NAV: Array<[NonNullable<PageSpec['current']>, string, string]> = [
  ['home', '/', 'Home'],
  ['calendar', '/calendar/', 'Calendar'],
  ['reference', '/reference/', 'API reference'],
  ['editor', '/editor/', 'Editor'],
]

// FullCalendar and Swagger UI set style attributes and inject <style>: styles may be inline,
// scripts may not. data: images are Swagger UI's icons.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // FullCalendar's icon font is a data: URL inside its script.
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export function pageHeaders(): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    // Pages show what the visitor may see (a signed-in editor sees drafts): never shared caches.
    'Cache-Control': 'private, no-cache',
    Vary: 'Cookie',
  }
}

export function renderPage(spec: PageSpec): Response {
  const doc = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${spec.title} · Calendar</title>
        ${spec.description ? html`<meta name="description" content="${spec.description}" />` : ''}
        ${spec.canonical ? html`<link rel="canonical" href="${spec.canonical}" />` : ''}
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/site.css" />
        ${spec.head ?? ''}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site-header">
          <p class="site-name"><a href="/">Calendar</a></p>
          <nav aria-label="Site">
            <ul>
              ${NAV.map(([key, href, label]) => html`<li><a href="${href}" ${key === spec.current ? html` aria-current="page"` : ''}>${label}</a></li>`)}
            </ul>
          </nav>
        </header>
        <main id="main" tabindex="-1">${spec.body}</main>
        <footer class="site-footer">
          <p>The calendar-events-router example server. Every page reads the <a href="${API_PATH}/">calendar/events/v1 API</a>.</p>
        </footer>
        ${(spec.scripts ?? []).map((src) => html`<script src="${src}"></script>`)}
      </body>
    </html> `
  return new Response(doc.value, { status: spec.status ?? 200, headers: pageHeaders() })
}
