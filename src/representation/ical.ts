/**
 * RFC 5545 iCalendar for event feeds, so people can subscribe from calendar apps. Timed events
 * are written in UTC (exact whatever the zone), all-day events as DATE values with an exclusive
 * end, as the RFC asks. Text is plain text (calendar apps show HTML source verbatim). Built one
 * event at a time, so a feed never needs its records and its text in full at once.
 */
import type { Context } from '../context.js'
import { permalink, globalId, siteHost } from '../urls.js'
import type { EventRecord, OrganizerRecord } from '../storage/types.js'
import { addDays } from '../time/format.js'
import { plainText } from './plain-text.js'
import { customFieldsJson } from './post.js'
import { fieldsFor } from '../custom-fields/declarations.js'
import { eventOrganizers, eventVenues, type Relations } from './embedded.js'

/** TEXT values escape backslash, semicolon, comma and newlines (RFC 5545 §3.3.11). */
const text = (s: string) =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r?\n|\r/g, '\\n')
/** Plain text on one line (names inside parameters and lists). */
const oneLine = (s: string) => plainText(s).replace(/\s*\n\s*/g, ' ')
/** The event's URL-typed custom fields with a value, in declaration order. */
function urlFields(ctx: Context, e: EventRecord): Array<{ label: string; url: string }> {
  const shown = customFieldsJson(ctx, e)
  if (Array.isArray(shown)) return []
  return fieldsFor(ctx.options.customFields, 'event')
    .filter((f) => f.type === 'url' && shown[f.key] !== undefined)
    .map((f) => ({ label: f.label, url: String((shown[f.key] as { value: string }).value) }))
}

/** A quoted parameter value may hold neither DQUOTE nor control characters (RFC 5545 §3.1). */
const quotedParam = (s: string) => `"${oneLine(s).replace(/"/g, "'")}"`
// A URI value is written as is: keep only characters that cannot end or break the line.
// eslint-disable-next-line no-control-regex
const uri = (s: string) => s.replace(/[\u0000-\u0020\u007f]/g, (c) => encodeURIComponent(c))
/** Simple enough to be a calendar address; anything else stays out of ORGANIZER. */
const EMAIL = /^[^\s@<>"(),;:\\[\]]+@[^\s@<>"(),;:\\[\]]+$/

const utcStamp = (wall: string) => `${wall.replace(/[-:]/g, '').replace(' ', 'T')}Z`
const dateValue = (wall: string) => wall.slice(0, 10).replace(/-/g, '')

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/

/** Folds a content line at 75 octets without splitting a UTF-8 sequence (RFC 5545 §3.1). */
function fold(line: string): string {
  if (line.length <= 75 && (line.length <= 25 || ASCII.test(line))) return line
  const parts: string[] = []
  let start = 0
  let size = 0
  let limit = 75
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    // UTF-8 octets of this code point; a surrogate pair is one 4-octet code point.
    const next = line.charCodeAt(i + 1)
    const pair = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
    const n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3
    if (size + n > limit) {
      parts.push(line.slice(start, i))
      start = i
      size = 0
      // A continuation line's leading space counts towards its 75 octets.
      limit = 74
    }
    size += n
    if (pair) i++
  }
  parts.push(line.slice(start))
  return parts.join('\r\n ')
}

/** Accumulates folded CRLF-terminated content lines. */
export class IcalText {
  private out = ''

  line(content: string): this {
    this.out += fold(content) + '\r\n'
    return this
  }

  toString(): string {
    return this.out
  }
}

/**
 * The host part of UIDs: the site's identity (`siteUrl`), whatever name, path or port the feed
 * was fetched on.
 */
export function uidHost(ctx: Context): string {
  return siteHost(ctx) || 'calendar'
}

export interface CalendarHead {
  name: string
  /** Set when the feed holds fewer events than matched: how many it holds, of how many. */
  truncated?: { included: number; total: number }
}

/** Seconds as an RFC 5545 duration: 3600 → PT1H, 90000 → P1DT1H. */
export function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400)
  const h = Math.floor((seconds % 86400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  const time = `${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`
  return `P${d ? `${d}D` : ''}${time ? `T${time}` : ''}`
}

/** VCALENDAR properties: they come before every component (RFC 5545 §3.4). */
export function calendarHead(ctx: Context, out: IcalText, head: CalendarHead): void {
  const refresh = duration(ctx.options.ical.refreshSeconds)
  out
    .line('BEGIN:VCALENDAR')
    .line('VERSION:2.0')
    .line('PRODID:-//calendar-events-router//calendar/events/v1//EN')
    .line('CALSCALE:GREGORIAN')
    .line('METHOD:PUBLISH')
    .line(`X-WR-CALNAME:${text(oneLine(head.name))}`)
    .line(`X-WR-TIMEZONE:${ctx.options.timezone}`)
    // RFC 7986's refresh hint, and the older property Outlook and Google read.
    .line(`REFRESH-INTERVAL;VALUE=DURATION:${refresh}`)
    .line(`X-PUBLISHED-TTL:${refresh}`)
  if (head.truncated) {
    const { included, total } = head.truncated
    out.line(
      `X-CALENDAR-TRUNCATED:${text(`${included} of ${total} events. Narrow the window with start_date and end_date or page with per_page.`)}`,
    )
  }
}

export const calendarTail = (out: IcalText) => out.line('END:VCALENDAR')

function organizerLines(out: IcalText, organizers: OrganizerRecord[]): void {
  // RFC 5545 allows one ORGANIZER, and it must be a calendar address: the first organizer with
  // an e-mail. The others are CONTACTs (free text).
  const lead = organizers.find((o) => EMAIL.test(o.email.trim()))
  if (lead) out.line(`ORGANIZER;CN=${quotedParam(lead.title)}:mailto:${lead.email.trim()}`)
  for (const o of organizers) {
    if (o === lead) continue
    const parts = [oneLine(o.title), oneLine(o.email), oneLine(o.phone)].filter(Boolean)
    if (parts.length) out.line(`CONTACT:${text(parts.join(', '))}`)
  }
}

/** How a recurring series' VEVENTs differ (ical-series.ts): their UID, dates and rule lines. */
export interface VeventVariant {
  uid: string
  /** Replace DTSTART/DTEND. */
  dates: string[]
  /** RRULE, RDATE, EXDATE or RECURRENCE-ID. */
  recurrence: string[]
}

export function vevent(ctx: Context, out: IcalText, e: EventRecord, rel: Relations, host: string, variant?: VeventVariant): void {
  out
    .line('BEGIN:VEVENT')
    .line(`UID:${variant ? variant.uid : `${e.id}@${host}`}`)
    .line(`DTSTAMP:${utcStamp(e.modifiedUtc)}`)
    .line(`CREATED:${utcStamp(e.dateUtc)}`)
    .line(`LAST-MODIFIED:${utcStamp(e.modifiedUtc)}`)
    .line(`SEQUENCE:${e.sequence ?? 0}`)
  if (variant) {
    for (const line of [...variant.dates, ...variant.recurrence]) out.line(line)
  } else if (e.allDay) {
    out.line(`DTSTART;VALUE=DATE:${dateValue(e.startDate)}`).line(`DTEND;VALUE=DATE:${dateValue(addDays(e.endDate, 1))}`)
  } else {
    out.line(`DTSTART:${utcStamp(e.startDateUtc)}`).line(`DTEND:${utcStamp(e.endDateUtc)}`)
  }
  out.line(`SUMMARY:${text(oneLine(e.title))}`)
  // URL-typed custom fields (docs/custom-fields.md): a "Label: URL" line each after the
  // description, which every calendar app shows, and a LINK (RFC 9253) each for those that read it.
  const links = urlFields(ctx, e)
  const description = [plainText(e.description || e.excerpt), ...links.map((l) => `${oneLine(l.label)}: ${l.url}`)]
    .filter(Boolean)
    .join('\n')
  if (description) out.line(`DESCRIPTION:${text(description)}`)
  const venue = eventVenues(e, rel)[0]
  if (venue) {
    const where = [
      venue.title,
      venue.address,
      venue.city,
      venue.stateprovince || venue.state || venue.province,
      venue.zip,
      venue.country,
    ].map(oneLine)
    out.line(`LOCATION:${text(where.filter(Boolean).join(', '))}`)
    if (venue.geoLat !== null && venue.geoLng !== null && Number.isFinite(venue.geoLat) && Number.isFinite(venue.geoLng)) {
      out.line(`GEO:${venue.geoLat};${venue.geoLng}`)
    }
  }
  out.line(`URL:${uri(permalink(ctx, 'event', e))}`)
  const categories = e.categoryIds
    .map((id) => rel.terms.get(id)?.name)
    .filter((n): n is string => !!n)
    .map(oneLine)
    .filter(Boolean)
  if (categories.length) out.line(`CATEGORIES:${categories.map(text).join(',')}`)
  organizerLines(out, eventOrganizers(e, rel))
  // Only callers who may see unpublished events get them; to them those are not settled yet.
  // A trashed event (listed only on an editor's explicit status=trash) is called off.
  // A cancelled event (event_status) is called off too, and calendars strike it.
  const cancelled = e.status === 'trash' || e.eventStatus === 'canceled'
  out.line(`STATUS:${cancelled ? 'CANCELLED' : e.status === 'publish' ? 'CONFIRMED' : 'TENTATIVE'}`)
  // RFC 7986: where to join an online or mixed event.
  if (e.virtualUrl && (e.attendanceMode ?? 'offline') !== 'offline') out.line(`CONFERENCE;VALUE=URI;FEATURE=VIDEO:${uri(e.virtualUrl)}`)
  for (const l of links) out.line(`LINK;LINKREL=related;LABEL=${quotedParam(l.label)};VALUE=URI:${uri(l.url)}`)
  out.line(`X-CALENDAR-GLOBAL-ID:${text(globalId(ctx, e.id))}`).line('END:VEVENT')
}

/** A whole calendar of a few events already in hand (a single event's feed). */
export function icalendar(ctx: Context, events: EventRecord[], rel: Relations, name: string): string {
  const out = new IcalText()
  const host = uidHost(ctx)
  calendarHead(ctx, out, { name })
  for (const e of events) vevent(ctx, out, e, rel, host)
  return calendarTail(out).toString()
}
