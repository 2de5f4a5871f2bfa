/**
 * RFC 5545 iCalendar for event feeds, so people can subscribe from calendar apps. Timed events
 * are written in UTC (exact whatever the zone), all-day events as DATE values with an exclusive
 * end, as the RFC asks.
 */
import { permalink, globalId, type Context } from '../resources/context.js'
import type { EventRecord } from '../storage/types.js'
import { addDays } from '../time/format.js'
import { eventOrganizers, eventVenues, type Relations } from './relations.js'

/** TEXT values escape backslash, semicolon, comma and newlines (RFC 5545 §3.3.11). */
const text = (s: string) => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n')

/** Descriptions are HTML; calendars show plain text. */
const plain = (html: string) =>
  html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim()

const utcStamp = (wall: string) => `${wall.replace(/[-:]/g, '').replace(' ', 'T')}Z`
const dateValue = (wall: string) => wall.slice(0, 10).replace(/-/g, '')

/** Folds a content line at 75 octets without splitting a UTF-8 sequence (RFC 5545 §3.1). */
function fold(line: string): string {
  const encoder = new TextEncoder()
  if (encoder.encode(line).length <= 75) return line
  const parts: string[] = []
  let current = ''
  let size = 0
  for (const ch of line) {
    const n = encoder.encode(ch).length
    const limit = parts.length === 0 ? 75 : 74
    if (size + n > limit) {
      parts.push(current)
      current = ''
      size = 0
    }
    current += ch
    size += n
  }
  parts.push(current)
  return parts.join('\r\n ')
}

function vevent(ctx: Context, e: EventRecord, rel: Relations, host: string): string[] {
  const lines = [
    'BEGIN:VEVENT',
    `UID:${e.id}@${host}`,
    `DTSTAMP:${utcStamp(e.modifiedUtc)}`,
    `CREATED:${utcStamp(e.dateUtc)}`,
    `LAST-MODIFIED:${utcStamp(e.modifiedUtc)}`,
  ]
  if (e.allDay) {
    lines.push(`DTSTART;VALUE=DATE:${dateValue(e.startDate)}`, `DTEND;VALUE=DATE:${dateValue(addDays(e.endDate, 1))}`)
  } else {
    lines.push(`DTSTART:${utcStamp(e.startDateUtc)}`, `DTEND:${utcStamp(e.endDateUtc)}`)
  }
  lines.push(`SUMMARY:${text(e.title)}`)
  const description = plain(e.description || e.excerpt)
  if (description) lines.push(`DESCRIPTION:${text(description)}`)
  const venue = eventVenues(e, rel)[0]
  if (venue) {
    const where = [venue.title, venue.address, venue.city, venue.stateprovince || venue.state || venue.province, venue.zip, venue.country]
    lines.push(`LOCATION:${text(where.filter(Boolean).join(', '))}`)
    if (venue.geoLat !== null && venue.geoLng !== null) lines.push(`GEO:${venue.geoLat};${venue.geoLng}`)
  }
  lines.push(`URL:${permalink(ctx, 'event', e)}`)
  const categories = e.categoryIds.map((id) => rel.terms.get(id)?.name).filter((n): n is string => !!n)
  if (categories.length) lines.push(`CATEGORIES:${categories.map(text).join(',')}`)
  for (const o of eventOrganizers(e, rel)) {
    // ORGANIZER must be a calendar address: without an e-mail there is nothing to point at.
    if (o.email) lines.push(`ORGANIZER;CN="${o.title.replace(/"/g, "'")}":mailto:${o.email}`)
  }
  lines.push(`STATUS:${e.status === 'publish' ? 'CONFIRMED' : 'TENTATIVE'}`, `X-CALENDAR-GLOBAL-ID:${text(globalId(ctx, e.id))}`, 'END:VEVENT')
  return lines
}

export function icalendar(ctx: Context, events: EventRecord[], rel: Relations, name: string): string {
  let host = 'calendar'
  try {
    host = new URL(ctx.base).hostname || host
  } catch {
    // keep the fallback
  }
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calendar-events-router//calendar/events/v1//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${text(name)}`,
    ...events.flatMap((e) => vevent(ctx, e, rel, host)),
    'END:VCALENDAR',
  ]
  return lines.map(fold).join('\r\n') + '\r\n'
}
