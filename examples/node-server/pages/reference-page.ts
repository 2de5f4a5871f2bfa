/** `/reference/`: the API's OpenAPI document (`/doc`) in Swagger UI, served from node_modules. */
import { html } from './html.js'
import { renderPage } from './layout.js'
import { API_PATH } from './visitor-api.js'

export function referencePage(): Response {
  return renderPage({
    title: 'API reference',
    current: 'reference',
    description: 'The calendar/events/v1 API: every route, parameter and response.',
    head: html`<link rel="stylesheet" href="/assets/vendor/swagger-ui.css" />`,
    scripts: ['/assets/vendor/swagger-ui-bundle.js', '/assets/reference.js'],
    body: html`<h1>API reference</h1>
      <p>
        Generated from the router's route table: <a href="${API_PATH}/doc">the OpenAPI document</a> (JSON). Writes need a token: use
        <em>Authorize</em> with the one the server printed.
      </p>
      <div id="swagger-ui" data-url="${API_PATH}/doc"><p>Loading the reference…</p></div>`,
  })
}
