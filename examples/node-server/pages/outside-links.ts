/**
 * Links that leave the site: "add to calendar" (the event's own iCalendar file from the API and
 * a Google Calendar template) and a map of a venue (OpenStreetMap: coordinates when the venue
 * has them, else a search for its address).
 */
import { compactDate, nextDay, type EventDates } from './event-dates.js'
import { plainText } from './html.js'

export interface VenueLike {
  venue?: string
  address?: string
  city?: string
  stateprovince?: string
  zip?: string
  country?: string
  geo_lat?: number | null
  geo_lng?: number | null
}

/** The API's iCalendar rendering of the one event (`format=ics` on its REST URL). */
export function icsLink(restUrl: string): string {
  const url = new URL(restUrl)
  url.searchParams.set('format', 'ics')
  return url.pathname + url.search
}

export function addressLine(v: VenueLike): string {
  return [v.address, v.city, v.stateprovince, v.zip, v.country].filter((s) => s && String(s).trim()).join(', ')
}

export function googleCalendarLink(e: EventDates & { title: string; url: string; excerpt?: string }, venue: VenueLike | null): string {
  const dates = e.all_day
    ? `${compactDate(e.start_date, true)}/${compactDate(nextDay(e.end_date), true)}`
    : `${compactDate(e.utc_start_date, false)}/${compactDate(e.utc_end_date, false)}`
  const params = new URLSearchParams({ action: 'TEMPLATE', text: plainText(e.title), dates, ctz: e.timezone })
  const details = [plainText(e.excerpt ?? ''), e.url].filter(Boolean).join('\n\n')
  params.set('details', details.slice(0, 1500))
  if (venue) params.set('location', [plainText(venue.venue ?? ''), addressLine(venue)].filter(Boolean).join(', '))
  return `https://calendar.google.com/calendar/render?${params}`
}

export function mapLink(v: VenueLike): string | null {
  if (typeof v.geo_lat === 'number' && typeof v.geo_lng === 'number') {
    const lat = v.geo_lat.toFixed(5)
    const lng = v.geo_lng.toFixed(5)
    return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=17/${lat}/${lng}`
  }
  const address = addressLine(v)
  return address ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}` : null
}
