/**
 * `/calendar/`: FullCalendar's month, week and list views over the JSON API (static/calendar.js
 * reads `/events` for the visible range), with category and venue filters. The filters are a
 * plain GET form, so they also work without script; the choices come from the API.
 */
import { html, plainText } from './html.js'
import { renderPage } from './layout.js'
import { API_PATH, type VisitorApi } from './visitor-api.js'

interface Option {
  id: number
  slug: string
  name?: string
  venue?: string
}

const VIEWS = new Set(['dayGridMonth', 'timeGridWeek', 'listMonth'])

export async function calendarPage(api: VisitorApi, url: URL): Promise<Response> {
  const [categories, venues] = await Promise.all([
    api.get<{ categories: Option[] }>('/categories', { per_page: 100, hide_empty: 'false' }),
    api.get<{ venues: Option[] }>('/venues', { per_page: 100 }),
  ])
  const category = url.searchParams.get('category') ?? ''
  const venue = url.searchParams.get('venue') ?? ''
  const date = /^\d{4}-\d{2}(-\d{2})?$/.test(url.searchParams.get('date') ?? '') ? url.searchParams.get('date')! : ''
  // Links from tag and organizer pages filter by them too; the API checks the values.
  const extra = new URLSearchParams()
  const tag = url.searchParams.get('tag')
  const organizer = url.searchParams.get('organizer')
  if (tag) extra.set('tags', tag)
  if (organizer) extra.set('organizer', organizer)
  const view = VIEWS.has(url.searchParams.get('view') ?? '') ? url.searchParams.get('view')! : ''
  const categoryList = categories.status === 200 ? categories.body.categories : []
  const venueList = venues.status === 200 ? venues.body.venues : []
  return renderPage({
    title: 'Calendar',
    current: 'calendar',
    description: 'Upcoming events by month, week or as a list.',
    scripts: [
      '/assets/vendor/fullcalendar-core.js',
      '/assets/vendor/fullcalendar-daygrid.js',
      '/assets/vendor/fullcalendar-timegrid.js',
      '/assets/vendor/fullcalendar-list.js',
      '/assets/calendar.js',
    ],
    body: html`<h1>Calendar</h1>
      <form class="filters" method="get" action="/calendar/" aria-label="Filter events">
        <div class="field">
          <label for="filter-category">Category</label>
          <select id="filter-category" name="category">
            <option value="">All categories</option>
            ${categoryList.map((c) => html`<option value="${c.slug}" ${c.slug === category ? html` selected` : ''}>${plainText(c.name ?? c.slug)}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="filter-venue">Venue</label>
          <select id="filter-venue" name="venue">
            <option value="">All venues</option>
            ${venueList.map((v) => html`<option value="${v.id}" ${String(v.id) === venue ? html` selected` : ''}>${plainText(v.venue ?? v.slug)}</option>`)}
          </select>
        </div>
        <button type="submit" class="button secondary js-hidden">Filter</button>
      </form>
      ${extra.size ? html`<p class="notice">Only events with ${tag ? html`the tag <strong>${tag}</strong>` : html`this organizer`} are shown. <a href="/calendar/">Show all events</a></p>` : ''}
      <p class="meta" id="calendar-status" role="status" aria-live="polite"></p>
      <div id="calendar" data-api="${API_PATH}" data-date="${date}" data-view="${view}" data-extra="${extra.toString()}"></div>
      <noscript
        ><p>
          The calendar needs JavaScript. The same events are in the <a href="${API_PATH}/events">JSON list</a> and the
          <a href="${API_PATH}/events?format=ics">iCalendar feed</a>.
        </p></noscript
      >
      <p class="meta">Times are shown in each event's own time zone.</p>`,
  })
}
