/** A short list of events (home, venue and organizer pages): title linking to its page, date, place. */
import { shortWhen, type EventDates } from './event-dates.js'
import { html, plainText, type SafeHtml } from './html.js'

export interface ListedEvent extends EventDates {
  id: number
  title: string
  url: string
  event_status?: string
  venue?: { venue?: string } | unknown[]
}

export function statusWord(status: string | undefined): string | null {
  if (status === 'canceled' || status === 'cancelled') return 'Cancelled'
  if (status === 'postponed') return 'Postponed'
  return null
}

export function eventList(events: ListedEvent[], empty: string): SafeHtml {
  if (!events.length) return html`<p>${empty}</p>`
  return html`<ul class="event-list">
    ${events.map((e) => {
      const venue = e.venue && !Array.isArray(e.venue) ? plainText(e.venue.venue ?? '') : ''
      const status = statusWord(e.event_status)
      return html`<li>
        <a href="${new URL(e.url).pathname}">${plainText(e.title)}</a>${status ? html` <span class="badge">${status}</span>` : ''}
        <span class="meta">${shortWhen(e)}${venue ? ` · ${venue}` : ''}</span>
      </li>`
    })}
  </ul>`
}
