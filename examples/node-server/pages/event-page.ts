/**
 * An event's page at the permalink the API gives it (`/event/<slug>/`, or `/?p=<id>` while it
 * is not published): read through the API as the visitor, rendered on the server, with the
 * API's own schema.org JSON-LD for search engines.
 */
import { filterHtml } from '../../../src/index.js'
import { whenHtml, zoneLabel } from './event-dates.js'
import { statusWord, type ListedEvent } from './event-list.js'
import { html, jsonForScript, plainText, trusted, type SafeHtml } from './html.js'
import { renderPage } from './layout.js'
import { notFoundPage } from './not-found.js'
import { addressLine, googleCalendarLink, icsLink, mapLink, type VenueLike } from './outside-links.js'
import type { VisitorApi } from './visitor-api.js'

interface Linked extends VenueLike {
  id: number
  url: string
  organizer?: string
  email?: string
  phone?: string
  website?: string
}

interface Term {
  name: string
  slug: string
}

export interface EventJson extends ListedEvent {
  slug: string
  status: string
  rest_url: string
  description: string
  excerpt: string
  cost: string
  website?: string
  categories: Term[]
  tags: Term[]
  venue: Linked | []
  organizer: Linked[]
  event_status_reason?: string
  attendance_mode?: string
  virtual_url?: string
  recurrence?: { description?: string }
  json_ld?: unknown
}

/** The event a slug names, as the visitor may see it; null when absent or not theirs to see. */
export async function loadEvent(api: VisitorApi, slug: string): Promise<EventJson | null> {
  const res = await api.get<EventJson>(`/events/by-slug/${encodeURIComponent(slug)}`)
  return res.status === 200 ? res.body : null
}

const path = (url: string) => new URL(url).pathname

function statusBanner(e: EventJson): SafeHtml {
  const word = statusWord(e.event_status)
  if (!word) return html``
  const reason = plainText(e.event_status_reason ?? '')
  return html`<p class="status status-${e.event_status}" role="status"><strong>${word}.</strong>${reason ? ` ${reason}` : ''}</p>`
}

function attendance(e: EventJson): SafeHtml {
  if (e.attendance_mode !== 'online' && e.attendance_mode !== 'mixed') return html``
  const how = e.attendance_mode === 'online' ? 'Online event' : 'In person and online'
  const link = e.virtual_url && /^https?:\/\//i.test(e.virtual_url) ? e.virtual_url : null
  return html`<div class="fact">
    <dt>Attendance</dt>
    <dd>${how}${link ? html` · <a href="${link}" rel="noopener">Join online</a>` : ''}</dd>
  </div>`
}

function venueFacts(venue: Linked | null): SafeHtml {
  if (!venue) return html``
  const map = mapLink(venue)
  const address = addressLine(venue)
  return html`<div class="fact">
    <dt>Venue</dt>
    <dd>
      <a href="${path(venue.url)}">${plainText(venue.venue ?? '')}</a>${address ? html`<br />${address}` : ''}${
        map
          ? html`<br /><a href="${map}" rel="noopener"
                >Map<span class="visually-hidden"> of ${plainText(venue.venue ?? '')}</span> (OpenStreetMap)</a
              >`
          : ''
      }
    </dd>
  </div>`
}

function organizerFacts(organizers: Linked[]): SafeHtml {
  if (!organizers.length) return html``
  return html`<div class="fact">
    <dt>${organizers.length > 1 ? 'Organizers' : 'Organizer'}</dt>
    <dd>
      <ul class="plain">
        ${organizers.map((o) => html`<li><a href="${path(o.url)}">${plainText(o.organizer ?? '')}</a></li>`)}
      </ul>
    </dd>
  </div>`
}

function termLinks(label: string, terms: Term[], param: string): SafeHtml {
  if (!terms.length) return html``
  return html`<div class="fact">
    <dt>${label}</dt>
    <dd>
      ${terms.map((t, i) => html`${i ? ', ' : ''}<a href="/calendar/?${param}=${encodeURIComponent(t.slug)}">${plainText(t.name)}</a>`)}
    </dd>
  </div>`
}

export function renderEvent(e: EventJson): Response {
  const title = plainText(e.title)
  const venue = Array.isArray(e.venue) ? null : e.venue
  const organizers = Array.isArray(e.organizer) ? e.organizer : []
  const description = e.description ? filterHtml(e.description, 'rich') : ''
  const summary = plainText(e.excerpt || e.description || '').slice(0, 300)
  const body = html`<article class="event">
    <p class="kicker">Event${e.status !== 'publish' ? html` · <span class="badge">${e.status}</span>` : ''}</p>
    <h1>${title}</h1>
    ${statusBanner(e)}
    <dl class="facts">
      <div class="fact">
        <dt>When</dt>
        <dd>
          ${whenHtml(e)}<br /><span class="meta">Times in ${zoneLabel(e)}</span>${
            e.recurrence?.description ? html`<br /><span class="meta">Repeats: ${e.recurrence.description}</span>` : ''
          }
        </dd>
      </div>
      ${venueFacts(venue)} ${attendance(e)} ${organizerFacts(organizers)}
      ${
        e.cost
          ? html`<div class="fact">
              <dt>Cost</dt>
              <dd>${plainText(e.cost)}</dd>
            </div>`
          : ''
      }
      ${termLinks('Categories', e.categories ?? [], 'category')} ${termLinks('Tags', e.tags ?? [], 'tag')}
    </dl>
    <section aria-labelledby="add-heading" class="add">
      <h2 id="add-heading">Add to your calendar</h2>
      <ul class="buttons">
        <li><a class="button" href="${icsLink(e.rest_url)}" download="${e.slug || 'event'}.ics">iCalendar file (.ics)</a></li>
        <li><a class="button" href="${googleCalendarLink(e, venue)}" rel="noopener">Google Calendar</a></li>
      </ul>
    </section>
    ${
      description
        ? html`<section aria-labelledby="about-heading" class="description">
            <h2 id="about-heading">About this event</h2>
            ${trusted(description)}
          </section>`
        : ''
    }
    <p class="meta">
      <a href="/editor/?id=${e.id}">Edit this event</a> (signed-in editors) · <a href="${path(e.rest_url)}">This event as JSON</a>
    </p>
  </article>`
  return renderPage({
    title,
    description: summary || undefined,
    canonical: e.status === 'publish' ? e.url : undefined,
    head: e.json_ld
      ? html`<script type="application/ld+json">
          ${jsonForScript(e.json_ld)}
        </script>`
      : undefined,
    body,
  })
}

export async function eventPage(api: VisitorApi, slug: string): Promise<Response> {
  const e = await loadEvent(api, slug)
  return e ? renderEvent(e) : notFoundPage('event')
}
