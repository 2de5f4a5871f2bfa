/** `/`: what this is and where to go: the calendar, the API, its reference, the feed, the editor. */
import { eventList, type ListedEvent } from './event-list.js'
import { html } from './html.js'
import { renderPage } from './layout.js'
import { API_PATH, type VisitorApi } from './visitor-api.js'

export async function homePage(api: VisitorApi, origin: string): Promise<Response> {
  const feed = `${origin}${API_PATH}/events?format=ics`
  const webcal = feed.replace(/^https?:/, 'webcal:')
  const upcoming = await api.get<{ events: ListedEvent[] }>('/events', { per_page: 5 })
  return renderPage({
    title: 'Home',
    current: 'home',
    description: 'An events calendar served by calendar-events-router: pages, a JSON API and an iCalendar feed.',
    body: html`<h1>Events calendar</h1>
      <p class="lead">
        This server is the example of <strong>calendar-events-router</strong>, a library that serves a calendar's events as a REST API
        (<code>calendar/events/v1</code>, the wire format of The Events Calendar for WordPress). These pages read that API, as any client
        could.
      </p>
      <nav aria-label="Where to go" class="cards">
        <ul>
          <li>
            <a class="card" href="/calendar/"
              ><strong>Calendar</strong><span>Month, week and list views, filtered by category or venue.</span></a
            >
          </li>
          <li>
            <a class="card" href="${API_PATH}/"
              ><strong>API root</strong><span>The namespace index: every route and its parameters, as JSON.</span></a
            >
          </li>
          <li>
            <a class="card" href="/reference/"
              ><strong>API reference</strong><span>The OpenAPI document (<code>/doc</code>), browsable.</span></a
            >
          </li>
          <li>
            <a class="card" href="/editor/"
              ><strong>Editor</strong><span>Create and edit events with the token the server printed.</span></a
            >
          </li>
        </ul>
      </nav>
      <section aria-labelledby="feed-heading">
        <h2 id="feed-heading">Subscribe</h2>
        <p>Add the calendar to your calendar app; it refreshes by itself.</p>
        <ul class="buttons">
          <li><a class="button" href="${webcal}">Subscribe (webcal://)</a></li>
          <li><a class="button secondary" href="${feed}">iCalendar feed (${origin.startsWith('https:') ? 'https' : 'http'})</a></li>
        </ul>
        <p class="meta">Feed address: <code class="wrap">${feed}</code></p>
      </section>
      <section aria-labelledby="upcoming-heading">
        <h2 id="upcoming-heading">Coming up</h2>
        ${eventList(upcoming.status === 200 ? upcoming.body.events : [], 'No upcoming events yet. Sign in to the editor to add one.')}
      </section>`,
  })
}
