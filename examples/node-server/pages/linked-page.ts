/**
 * Venue and organizer pages at their permalinks (`/venue/<slug>/`, `/organizer/<slug>/`):
 * contact details, a map link for venues, their upcoming events, and their JSON-LD.
 */
import { filterHtml } from '../../../src/index.js'
import { eventList, type ListedEvent } from './event-list.js'
import { html, jsonForScript, plainText, trusted, type SafeHtml } from './html.js'
import { renderPage } from './layout.js'
import { notFoundPage } from './not-found.js'
import { addressLine, mapLink, type VenueLike } from './outside-links.js'
import type { VisitorApi } from './visitor-api.js'

interface LinkedJson extends VenueLike {
  id: number
  status: string
  url: string
  rest_url?: string
  organizer?: string
  description?: string
  excerpt?: string
  phone?: string
  email?: string
  website?: string
  json_ld?: Record<string, unknown>
}

type Kind = 'venue' | 'organizer'

const webLink = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : null)

function details(kind: Kind, r: LinkedJson): SafeHtml {
  const address = kind === 'venue' ? addressLine(r) : ''
  const map = kind === 'venue' ? mapLink(r) : null
  const website = webLink(r.website)
  return html`<dl class="facts">
    ${
      address
        ? html`<div class="fact">
            <dt>Address</dt>
            <dd>${address}</dd>
          </div>`
        : ''
    }
    ${
      map
        ? html`<div class="fact">
            <dt>Map</dt>
            <dd><a href="${map}" rel="noopener">Open in OpenStreetMap</a></dd>
          </div>`
        : ''
    }
    ${
      r.phone
        ? html`<div class="fact">
            <dt>Phone</dt>
            <dd><a href="tel:${r.phone.replace(/[^\d+]/g, '')}">${r.phone}</a></dd>
          </div>`
        : ''
    }
    ${
      r.email
        ? html`<div class="fact">
            <dt>Email</dt>
            <dd><a href="mailto:${r.email}">${r.email}</a></dd>
          </div>`
        : ''
    }
    ${
      website
        ? html`<div class="fact">
            <dt>Website</dt>
            <dd><a href="${website}" rel="noopener">${website}</a></dd>
          </div>`
        : ''
    }
  </dl>`
}

export async function linkedPage(api: VisitorApi, kind: Kind, slug: string): Promise<Response> {
  const res = await api.get<LinkedJson>(`/${kind}s/by-slug/${encodeURIComponent(slug)}`)
  if (res.status !== 200) return notFoundPage(kind)
  const r = res.body
  const name = plainText((kind === 'venue' ? r.venue : r.organizer) ?? '')
  // Upcoming events there (the API's default window starts yesterday).
  const events = await api.get<{ events: ListedEvent[] }>('/events', { [kind]: r.id, per_page: 20 })
  const description = r.description ? filterHtml(r.description, 'rich') : ''
  const jsonLd = r.json_ld ? { '@context': 'https://schema.org', ...r.json_ld } : null
  return renderPage({
    title: name,
    description: plainText(r.excerpt || r.description || '').slice(0, 300) || undefined,
    canonical: r.status === 'publish' ? r.url : undefined,
    head: jsonLd
      ? html`<script type="application/ld+json">
          ${jsonForScript(jsonLd)}
        </script>`
      : undefined,
    body: html`<article>
      <p class="kicker">${kind === 'venue' ? 'Venue' : 'Organizer'}</p>
      <h1>${name}</h1>
      ${details(kind, r)} ${description ? html`<section class="description" aria-label="About">${trusted(description)}</section>` : ''}
      <section aria-labelledby="upcoming">
        <h2 id="upcoming">Upcoming events</h2>
        ${eventList(events.status === 200 ? events.body.events : [], 'No upcoming events.')}
        <p><a href="/calendar/?${kind}=${r.id}">See them in the calendar</a></p>
      </section>
    </article>`,
  })
}
