/** The HTML 404 (and 405) page: a person who follows a dead link gets a page, not JSON. */
import { html } from './html.js'
import { renderPage } from './layout.js'

export function notFoundPage(what = 'page'): Response {
  return renderPage({
    title: 'Not found',
    status: 404,
    body: html`<h1>Not found</h1>
      <p>There is no ${what} at this address, or it is not public.</p>
      <p><a href="/calendar/">See the calendar</a> or go to the <a href="/">home page</a>.</p>`,
  })
}

export function methodNotAllowedPage(): Response {
  const response = renderPage({
    title: 'Method not allowed',
    status: 405,
    body: html`<h1>Method not allowed</h1>
      <p>These pages are read with GET. Changes go through the <a href="/editor/">editor</a>, which uses the API.</p>`,
  })
  response.headers.set('Allow', 'GET, HEAD')
  return response
}
