/**
 * iCalendar (RFC 5545) to import records, parsed with ical.js. The file is cut into its VEVENTs
 * first (after unfolding) and each is parsed on its own, so a malformed line fails its event
 * only. Times keep their zone: an IANA `TZID` (or a Windows name Outlook writes, or a
 * `/mozilla.org/...`-style prefix) is sent as the event's time zone with the wall clock; UTC
 * times are shown in `X-WR-TIMEZONE` when the calendar names one; a `TZID` known only from the
 * file's own VTIMEZONE is read as the IANA zone with the same transitions, else as the instants
 * it gives (a rule there expanded in it into single events). The mapping is in
 * docs/importing.md.
 */
import ICAL from 'ical.js'
import { parseRule, RuleError } from '../recurrence/index.js'
import { isValidDate, isValidTime } from '../time/format.js'
import { isValidTimezone, localToUtc, utcToLocal } from '../time/zone.js'
import { deriveUids, latestCopies, type ParsedEvent } from './ics-copies.js'
import { expandWithRouterRule } from './rule-expand.js'
import { matchIanaZone } from './zone-match.js'
import { textToHtml } from './text.js'
import type { SourceRecord } from './types.js'
import { WINDOWS_ZONES } from './windows-zones.js'

export interface IcsOptions {
  /** Open-ended rules expanded into single events reach this far (default 24 months after `now`). */
  horizonMonths?: number
  /** At most this many single events per expanded rule (default 1,000). */
  maxOccurrences?: number
  now?: Date
}

interface Block {
  /** 1-based line of its BEGIN (after unfolding: the line a reader sees first). */
  line: number
  text: string
}

/** Unfolds, then cuts the calendar into VEVENTs and VTIMEZONEs; the calendar's own properties beside. */
function cut(source: string): { events: Block[]; zones: Block[]; props: Map<string, string> } {
  const lines = source
    .replace(/^\uFEFF/, '')
    .replace(/\r\n|\r/g, '\n')
    .split('\n')
  // Folded lines continue with a space or tab (RFC 5545 §3.1); keep the first line's number.
  const logical: Array<{ line: number; text: string }> = []
  lines.forEach((text, i) => {
    if ((text.startsWith(' ') || text.startsWith('\t')) && logical.length) logical[logical.length - 1]!.text += text.slice(1)
    else if (text !== '') logical.push({ line: i + 1, text })
  })
  const events: Block[] = []
  const zones: Block[] = []
  const props = new Map<string, string>()
  let current: { kind: 'VEVENT' | 'VTIMEZONE'; line: number; lines: string[]; depth: number } | null = null
  let depth = 0
  for (const { line, text: written } of logical) {
    // `BEGIN:VEVENT ` with a trailing space (seen in the wild) is still a BEGIN.
    const text = /^(BEGIN|END):/i.test(written) ? written.trimEnd() : written
    const upper = text.toUpperCase()
    if (current) {
      current.lines.push(text)
      if (upper.startsWith('BEGIN:')) current.depth++
      else if (upper.startsWith('END:') && --current.depth === 0) {
        ;(current.kind === 'VEVENT' ? events : zones).push({ line: current.line, text: current.lines.join('\r\n') + '\r\n' })
        current = null
      }
      continue
    }
    if (upper === 'BEGIN:VEVENT' || upper === 'BEGIN:VTIMEZONE') {
      current = { kind: upper.slice(6) as 'VEVENT' | 'VTIMEZONE', line, lines: [text], depth: 1 }
    } else if (upper.startsWith('BEGIN:')) depth++
    else if (upper.startsWith('END:')) depth--
    else if (depth === 1) {
      const m = /^([A-Za-z0-9-]+)(?:;[^:]*)?:(.*)$/.exec(text)
      if (m) props.set(m[1]!.toUpperCase(), m[2]!)
    }
  }
  // An event cut off by the end of the file is still reported.
  if (current?.kind === 'VEVENT') events.push({ line: current.line, text: current.lines.join('\r\n') + '\r\n' })
  return { events, zones, props }
}

/** The IANA zone a TZID names, if any: itself, a Windows name, or a path ending in an IANA name. */
export function ianaZone(tzid: string): string | null {
  const t = tzid.trim().replace(/^"|"$/g, '')
  if (isValidTimezone(t)) return t
  const windows = WINDOWS_ZONES[t] ?? WINDOWS_ZONES[t.replace(/^\(UTC[^)]*\)\s*/, '')]
  if (windows) return windows
  // A path ending in the IANA name (libical's "/freeassociation.sourceforge.net/Tzfile/Europe/Paris",
  // "/mozilla.org/20050126_1/America/New_York"): its last three segments, else its last two
  // ("Tzfile/Europe/Paris" is no zone, "Europe/Paris" is).
  const parts = t.split('/').filter(Boolean)
  for (const n of [3, 2]) {
    const tail = parts.slice(-n).join('/')
    if (parts.length >= n && isValidTimezone(tail)) return tail
  }
  return null
}

/** ical.js's jCal value `2026-03-01T10:00:00` or `2026-03-01`, checked: a day the month lacks is an error, not a rollover. */
function checkedWall(raw: string, what: string): { date: string; time: string | null; utc: boolean } {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(Z?))?$/.exec(raw)
  if (!m) throw new Error(`${what} "${raw}" is not a date`)
  const [, y, mo, d, h, mi, s, z] = m
  if (!isValidDate(Number(y), Number(mo), Number(d))) throw new Error(`${what} ${y}-${mo}-${d} is not a date`)
  if (h !== undefined && !isValidTime(Number(h), Number(mi), Number(s))) throw new Error(`${what} ${h}:${mi}:${s} is not a time`)
  return { date: `${y}-${mo}-${d}`, time: h === undefined ? null : `${h}:${mi}:${s}`, utc: z === 'Z' }
}

export interface Resolved {
  /** Wall clock in `zone` (or the site's zone when `zone` is null). */
  wall: string
  zone: string | null
  allDay: boolean
}

class Calendar {
  readonly calendarZone: string | null
  private readonly fileZones = new Map<string, ICAL.Timezone>()
  private readonly matches = new Map<string, string | null>()
  private readonly notes = new Map<string, string>()
  now = new Date()

  constructor(zones: Block[], props: Map<string, string>) {
    const wr = props.get('X-WR-TIMEZONE')
    this.calendarZone = wr ? ianaZone(wr) : null
    for (const z of zones) {
      try {
        const comp = new ICAL.Component(ICAL.parse(z.text) as unknown[])
        const tzid = String(comp.getFirstPropertyValue('tzid') ?? '')
        if (tzid) this.fileZones.set(tzid, new ICAL.Timezone({ component: comp, tzid }))
      } catch {
        // A broken VTIMEZONE: its events fall back to the IANA name or fail as unknown.
      }
    }
  }

  /** A DTSTART/DTEND/RECURRENCE-ID/RDATE/EXDATE value as our wall clock and zone. */
  resolve(prop: ICAL.Property, raw: string, what: string, zoneOverride?: string | null): Resolved {
    const w = checkedWall(raw, what)
    if (w.time === null) return { wall: `${w.date} 00:00:00`, zone: this.calendarZone, allDay: true }
    const wall = `${w.date} ${w.time}`
    const tzid = prop.getParameter('tzid') as string | undefined
    if (w.utc || (tzid && /^(UTC|GMT|Z)$/i.test(tzid))) {
      const zone = zoneOverride ?? this.calendarZone
      return zone ? { wall: utcToLocal(wall, zone), zone, allDay: false } : { wall, zone: 'UTC', allDay: false }
    }
    if (!tzid) return { wall, zone: zoneOverride ?? this.calendarZone, allDay: false }
    const iana = ianaZone(tzid)
    if (iana) {
      if (zoneOverride && zoneOverride !== iana) return { wall: this.convert(wall, iana, zoneOverride), zone: zoneOverride, allDay: false }
      return { wall, zone: iana, allDay: false }
    }
    const fileZone = this.fileZones.get(tzid)
    if (!fileZone) throw new Error(`${what} names an unknown TZID "${tzid}"`)
    const mapped = this.mapped(tzid, fileZone)
    if (mapped) {
      if (zoneOverride && zoneOverride !== mapped)
        return { wall: this.convert(wall, mapped, zoneOverride), zone: zoneOverride, allDay: false }
      return { wall, zone: mapped, allDay: false }
    }
    // Only the file knows this zone: take the instant it gives, shown in the calendar's zone or UTC.
    const zone = zoneOverride ?? this.calendarZone ?? 'UTC'
    return { wall: this.fromFileZone(raw, fileZone, zone), zone, allDay: false }
  }

  /** A wall clock of a file-only zone (`2027-03-01T09:30:00`) as the same instant's wall clock in `zone`. */
  fromFileZone(raw: string, fileZone: ICAL.Timezone, zone: string): string {
    const t = ICAL.Time.fromDateTimeString(raw.replace(' ', 'T').replace(/Z$/, ''))
    t.zone = fileZone
    const utc = t.convertToZone(ICAL.Timezone.utcTimezone).toString().replace('T', ' ').replace('Z', '')
    return zone === 'UTC' ? utc : utcToLocal(utc, zone)
  }

  /**
   * The zone of a timed DTSTART that only the file defines and no IANA zone matches: a rule
   * there has to be expanded in that VTIMEZONE (the router's zones cannot hold it), else null.
   */
  unmatched(prop: ICAL.Property, raw: string): { tzid: string; zone: ICAL.Timezone } | null {
    const tzid = prop.getParameter('tzid') as string | undefined
    if (!tzid || !/T/.test(raw) || /Z$/.test(raw) || /^(UTC|GMT|Z)$/i.test(tzid) || ianaZone(tzid)) return null
    const zone = this.fileZones.get(tzid)
    return zone && !this.mapped(tzid, zone) ? { tzid, zone } : null
  }

  /**
   * The zone `resolve` would give a DTSTART, without converting its time: a file-only zone's
   * rules are expanded only when an event itself is read (inside that event's budget).
   */
  zoneOf(prop: ICAL.Property, raw: string): string | null {
    if (!/T/.test(raw)) return this.calendarZone
    const tzid = prop.getParameter('tzid') as string | undefined
    if (/Z$/.test(raw) || (tzid && /^(UTC|GMT|Z)$/i.test(tzid))) return this.calendarZone ?? 'UTC'
    if (!tzid) return this.calendarZone
    return ianaZone(tzid) ?? this.calendarZone ?? 'UTC'
  }

  /** The IANA zone a file-only zone matches (zone-match.ts), found once per TZID; its note is said on the events in it. */
  private mapped(tzid: string, zone: ICAL.Timezone): string | null {
    if (!this.matches.has(tzid)) {
      const iana = matchIanaZone(zone, tzid, this.now)
      this.matches.set(tzid, iana)
      this.notes.set(
        tzid,
        iana
          ? `TZID "${tzid}" is known only from the file: read as ${iana}, the IANA zone with the same transitions`
          : `TZID "${tzid}" is known only from the file and matches no IANA zone: its times are taken as instants, shown in ${this.calendarZone ?? 'UTC'}`,
      )
    }
    return this.matches.get(tzid) ?? null
  }

  /** What the importer says about the zone a DTSTART names (a file-only zone), if anything. */
  noteFor(prop: ICAL.Property): string | undefined {
    const tzid = prop.getParameter('tzid') as string | undefined
    return tzid ? this.notes.get(tzid) : undefined
  }

  /** A wall clock of one zone as the same instant in another. */
  private convert(wall: string, from: string, to: string): string {
    return utcToLocal(localToUtc(wall, from), to)
  }
}

/**
 * A date property's values as written (ical.js's jCal text, before it normalizes February 30 into
 * March 2); a PERIOD gives its start.
 */
function rawValues(prop: ICAL.Property): string[] {
  return (prop.toJSON() as unknown[]).slice(3).map((v) => {
    const s = Array.isArray(v) ? String(v[0]) : String(v)
    const value = s.includes('/') ? s.slice(0, s.indexOf('/')) : s
    // A date written without VALUE=DATE (`DTSTART;TZID=...:20041225`, holiday calendars): ical.js
    // reads it as a date-time with an empty time, `2004-12-25T::`. It is a date.
    return /^\d{4}-\d{2}-\d{2}T::$/.test(value) ? value.slice(0, 10) : value
  })
}

const addDaysWall = (wall: string, days: number) =>
  new Date(Date.parse(`${wall.slice(0, 10)}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10) + wall.slice(10)

/** Longest DURATION taken: a century. Beyond it a value is a mistake or an attack (ical.js never ends adding P999999999999999999W). */
const MAX_DURATION_DAYS = 36_525

/**
 * The end an iCalendar DURATION gives, computed here rather than by ical.js (whose arithmetic
 * walks a huge value day by day): weeks and days move the wall clock, hours, minutes and
 * seconds are exact time, so PT24H across a DST change is 24 real hours (RFC 5545 §3.3.6).
 */
export function endAfter(start: Resolved, d: ICAL.Duration): string {
  const sign = d.isNegative ? -1 : 1
  const days = sign * (d.weeks * 7 + d.days)
  const seconds = sign * (d.hours * 3600 + d.minutes * 60 + d.seconds)
  if (!Number.isSafeInteger(days) || !Number.isSafeInteger(seconds) || Math.abs(days + seconds / 86_400) > MAX_DURATION_DAYS)
    throw new Error(`DURATION ${d.toString()} is longer than a century`)
  let wall = days ? addDaysWall(start.wall, days) : start.wall
  if (seconds) {
    // A floating time (no zone) or an all-day start has no real instant: the wall clock moves.
    const zone = start.allDay || !start.zone ? 'UTC' : start.zone
    const utc = zone === 'UTC' ? wall : localToUtc(wall, zone)
    const moved = new Date(Date.parse(`${utc.replace(' ', 'T')}Z`) + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')
    wall = zone === 'UTC' ? moved : utcToLocal(moved, zone)
  }
  if (!/^\d{4}-/.test(wall)) throw new Error(`DURATION ${d.toString()} ends outside the years 0000-9999`)
  return wall
}

/**
 * DTEND a date after a timed DTSTART (or the other way round), which several exporters write:
 * a date ends the event at the start of that day, in the start's zone; a time after an all-day
 * start makes its day the last one.
 */
function mixedEnd(start: Resolved, end: Resolved, warnings: string[]): Resolved {
  const day = end.wall.slice(0, 10)
  if (!start.allDay) {
    warnings.push(`DTEND is a date while DTSTART has a time: it ends at the start of ${day}`)
    return { wall: `${day} 00:00:00`, zone: start.zone, allDay: false }
  }
  const next = end.wall.slice(11) > '00:00:00' ? addDaysWall(`${day} 00:00:00`, 1) : `${day} 00:00:00`
  warnings.push(`DTEND has a time while DTSTART is a date: the event is all day up to ${addDaysWall(next, -1).slice(0, 10)}`)
  return { wall: next, zone: start.zone, allDay: true }
}

const text = (comp: ICAL.Component, name: string): string => {
  const v = comp.getFirstPropertyValue(name)
  return v === null || v === undefined ? '' : String(v).trim()
}

/** What one VEVENT becomes: its event, and the venue and organizer it names. */
function eventRecords(
  cal: Calendar,
  comp: ICAL.Component,
  ref: string,
  masters: Map<string, string | null>,
  o: Required<IcsOptions>,
): SourceRecord[] {
  const out: SourceRecord[] = []
  const uid = text(comp, 'uid')
  if (!uid) throw new Error('has no UID')
  const startProp = comp.getFirstProperty('dtstart')
  if (!startProp) throw new Error('has no DTSTART')
  const recurrenceProp = comp.getFirstProperty('recurrence-id')
  const seriesZone = recurrenceProp ? (masters.get(uid) ?? null) : null
  const warnings: string[] = []
  const { start, end } = eventSpan(cal, comp, startProp, warnings)
  const body = eventBody(cal, comp, startProp, start, end, warnings)
  const refs: SourceRecord['refs'] = {}
  const venue = locationVenue(comp, ref)
  if (venue) {
    out.push(venue)
    refs.venue = [venue.sourceId]
  }
  const organizers = organizerRecords(comp, ref)
  if (comp.getAllProperties('organizer').length) refs.organizer = organizers.map((r) => r.sourceId)
  out.push(...organizers)
  if (recurrenceProp) {
    const rid = cal.resolve(recurrenceProp, rawValues(recurrenceProp)[0]!, 'RECURRENCE-ID', seriesZone)
    const original = rid.allDay ? `${rid.wall.slice(0, 10)} 00:00:00` : rid.wall
    out.push({ kind: 'event', sourceId: `${uid}@${original}`, ref, body, refs, warnings, occurrenceOf: { sourceId: uid, original } })
    return out
  }
  const record: SourceRecord = { kind: 'event', sourceId: uid, ref, body, refs, warnings }
  return [...out, ...seriesRecords(cal, comp, record, start, o)]
}

/** The event's start and end, an end missing or of another kind than the start made up as RFC 5545 says. */
function eventSpan(cal: Calendar, comp: ICAL.Component, startProp: ICAL.Property, warnings: string[]): { start: Resolved; end: Resolved } {
  const start = cal.resolve(startProp, rawValues(startProp)[0]!, 'DTSTART')
  let end: Resolved
  const endProp = comp.getFirstProperty('dtend') ?? comp.getFirstProperty('due')
  const durationValue = comp.getFirstPropertyValue('duration') as ICAL.Duration | null
  if (endProp) end = cal.resolve(endProp, rawValues(endProp)[0]!, 'DTEND', start.allDay ? undefined : start.zone)
  else if (durationValue) end = { ...start, wall: endAfter(start, durationValue) }
  else end = { ...start, wall: start.allDay ? addDaysWall(start.wall, 1) : start.wall }
  if (start.allDay !== end.allDay) end = mixedEnd(start, end, warnings)
  return { start, end }
}

/** The event's body for our API: title, description, dates, zone, website, status and categories. */
function eventBody(
  cal: Calendar,
  comp: ICAL.Component,
  startProp: ICAL.Property,
  start: Resolved,
  end: Resolved,
  warnings: string[],
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: text(comp, 'summary') || '(untitled)',
    description: textToHtml(text(comp, 'description')),
    status: 'publish',
    all_day: start.allDay,
  }
  const zoneNote = cal.noteFor(startProp)
  if (zoneNote) warnings.push(zoneNote)
  if (!text(comp, 'summary')) warnings.push('has no SUMMARY: titled "(untitled)"')
  if (start.allDay) {
    // DTEND of an all-day event is the day after its last day (RFC 5545 §3.6.1).
    const lastDay = end.wall.slice(0, 10) > start.wall.slice(0, 10) ? addDaysWall(end.wall, -1) : start.wall
    body.start_date = `${start.wall.slice(0, 10)} 00:00:00`
    body.end_date = `${lastDay.slice(0, 10)} 23:59:59`
  } else {
    body.start_date = start.wall
    if (end.wall < start.wall) warnings.push('DTEND is before DTSTART: the event ends when it starts')
    body.end_date = end.wall < start.wall ? start.wall : end.wall
  }
  if (start.zone) body.timezone = start.zone
  const url = text(comp, 'url')
  if (/^https?:\/\//i.test(url)) body.website = url
  if (text(comp, 'status').toUpperCase() === 'CANCELLED') body.event_status = 'canceled'
  const categories = comp
    .getAllProperties('categories')
    .flatMap((p) => p.getValues().map((v) => String(v).trim()))
    .filter((c) => c !== '')
  if (categories.length) body.categories = [...new Set(categories)]
  return body
}

/** The venue LOCATION (and GEO) names, or null. */
function locationVenue(comp: ICAL.Component, ref: string): SourceRecord | null {
  const location = text(comp, 'location')
  if (!location) return null
  // Apple writes "Name\nStreet, City"; Google and Outlook "Name, Street, City".
  const newline = location.indexOf('\n')
  const parts =
    newline > 0 ? [location.slice(0, newline), location.slice(newline + 1).replace(/\n/g, ', ')] : location.split(',').map((s) => s.trim())
  const venue: Record<string, unknown> = { venue: parts[0]!.slice(0, 1000), status: 'publish' }
  if (parts.length > 1) venue.address = parts.slice(1).join(', ').slice(0, 1000)
  const geo = comp.getFirstPropertyValue('geo') as unknown
  if (Array.isArray(geo) && geo.length === 2 && geo.every((n) => Number.isFinite(Number(n)))) {
    venue.geo_lat = Number(geo[0])
    venue.geo_lng = Number(geo[1])
  }
  return { kind: 'venue', sourceId: `venue:${location}`, ref: `${ref} (LOCATION)`, body: venue }
}

/** One organizer per ORGANIZER property with a name or an address. */
function organizerRecords(comp: ICAL.Component, ref: string): SourceRecord[] {
  return comp.getAllProperties('organizer').flatMap((p): SourceRecord[] => {
    const email = String(p.getFirstValue() ?? '')
      .replace(/^mailto:/i, '')
      .trim()
    const name = String(p.getParameter('cn') ?? '').trim() || email
    if (!name) return []
    const body = { organizer: name, ...(email.includes('@') ? { email } : {}), status: 'publish' }
    return [{ kind: 'organizer', sourceId: `organizer:${email || name}`, ref: `${ref} (ORGANIZER)`, body }]
  })
}

/**
 * A master event with its recurrence: a rule of ours stays a rule on `record` (one record); RDATE
 * alone, several rules or a rule outside ours become single events, with a warning saying so.
 */
function seriesRecords(
  cal: Calendar,
  comp: ICAL.Component,
  record: SourceRecord,
  start: Resolved,
  o: Required<IcsOptions>,
): SourceRecord[] {
  const rruleValue = comp.getFirstPropertyValue('rrule') as ICAL.Recur | null
  const rdates = comp.getAllProperties('rdate')
  if (!rruleValue && !rdates.length) return [record]
  const body = record.body!
  const dates = (name: string) =>
    comp.getAllProperties(name).flatMap((p) =>
      rawValues(p).map((v) => {
        const r = cal.resolve(p, v, name.toUpperCase(), start.allDay ? undefined : start.zone)
        return r.allDay ? r.wall.slice(0, 10) : r.wall
      }),
    )
  const rdate = dates('rdate')
  const exdate = dates('exdate')
  const expand = () => expandSeries(comp, record, body, start, o)
  const inFileZone = rruleValue ? fileZoneSeries(cal, comp, record, start, o) : null
  if (inFileZone) return inFileZone
  if (!rruleValue) {
    // RDATE alone has no rule of ours to carry it: DTSTART and each date become single events,
    // a PERIOD with its own end (RFC 5545 §3.8.5.2).
    return withWarning(rdateEvents(cal, comp, record, start, exdate), record, 'RDATE without RRULE: imported as single events')
  }
  const rrule = rruleValue.toString()
  if (comp.getAllProperties('rrule').length > 1) {
    // Our series hold one rule: the union of several becomes single events, at the router's
    // dates when every rule is ours (ical.js counts DTSTART against each rule's COUNT).
    const occurrences = unionOfRules(comp, record, { rdate, exdate }, o) ?? expand()
    return withWarning(occurrences, record, `several RRULE lines: imported as ${occurrences.length} single events`)
  }
  try {
    parseRule(rrule)
  } catch (e) {
    if (!(e instanceof RuleError)) throw e
    const occurrences = expand()
    return withWarning(
      occurrences,
      record,
      `RRULE ${rrule} is outside our rules (${e.message}): imported as ${occurrences.length} single events`,
    )
  }
  // A rule of ours stays a rule: the router expands it, and if the router refuses it the
  // core falls back to the router's own expander (rule-expand.ts), never to ical.js.
  body.recurrence = { rrule, rdate, exdate }
  return [record]
}

/**
 * A rule in a zone only the file defines and no IANA zone matches: no zone of the router keeps
 * its wall clock, so ical.js expands the rule in the file's own VTIMEZONE and each occurrence
 * comes in at its instant (RDATE and EXDATE included). Null for a series in any other zone.
 */
function fileZoneSeries(
  cal: Calendar,
  comp: ICAL.Component,
  record: SourceRecord,
  start: Resolved,
  o: Required<IcsOptions>,
): SourceRecord[] | null {
  const startProp = comp.getFirstProperty('dtstart')!
  const fileOnly = cal.unmatched(startProp, rawValues(startProp)[0]!)
  if (!fileOnly) return null
  const zone = start.zone ?? 'UTC'
  const occurrences = expandSeries(comp, record, record.body!, start, o, (raw) => cal.fromFileZone(raw, fileOnly.zone, zone))
  return withWarning(
    occurrences,
    record,
    `its rule is expanded in the VTIMEZONE "${fileOnly.tzid}": imported as ${occurrences.length} single events`,
  )
}

/** The single events of several rules of ours, DTSTART first (RFC 5545 §3.8.5.3); null when one rule is not ours. */
function unionOfRules(
  comp: ICAL.Component,
  master: SourceRecord,
  dates: { rdate: string[]; exdate: string[] },
  o: Required<IcsOptions>,
): SourceRecord[] | null {
  const rules = comp.getAllProperties('rrule').map((p) => String(p.getFirstValue()))
  const byId = new Map<string, SourceRecord>()
  const body = master.body!
  try {
    for (const rrule of rules) {
      parseRule(rrule)
      const one = { ...master, body: { ...body, recurrence: { rrule, ...dates } } }
      for (const r of expandWithRouterRule(one, o)) byId.set(r.sourceId, r)
    }
  } catch (e) {
    if (e instanceof RuleError) return null
    throw e
  }
  const start = String(body.start_date)
  const first = `${master.sourceId}#${start}`
  if (!byId.has(first) && !dates.exdate.some((x) => start.startsWith(x)))
    byId.set(first, {
      kind: 'event',
      sourceId: first,
      ref: `${master.ref} (occurrence ${start})`,
      body: { ...body },
      ...(master.refs ? { refs: master.refs } : {}),
    })
  return [...byId.values()].sort((a, b) => (String(a.body!.start_date) < String(b.body!.start_date) ? -1 : 1)).slice(0, o.maxOccurrences)
}

/** DTSTART and every RDATE of an event without RRULE as single events; a PERIOD keeps its own end. */
function rdateEvents(cal: Calendar, comp: ICAL.Component, master: SourceRecord, start: Resolved, exdate: string[]): SourceRecord[] {
  const body = master.body!
  const wallMs = (w: string) => Date.parse(`${w.replace(' ', 'T')}Z`)
  const lengthMs = wallMs(String(body.end_date)) - wallMs(String(body.start_date))
  const wallOf = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
  const starts = new Map<string, string>([[String(body.start_date), String(body.end_date)]])
  for (const p of comp.getAllProperties('rdate'))
    for (const v of (p.toJSON() as unknown[]).slice(3)) {
      const [from, to] = (Array.isArray(v) ? v.map(String) : String(v).split('/')) as [string, string | undefined]
      const fromValue = /^\d{4}-\d{2}-\d{2}T::$/.test(from) ? from.slice(0, 10) : from
      const r = cal.resolve(p, fromValue, 'RDATE', start.allDay ? undefined : start.zone)
      const wall = start.allDay ? `${r.wall.slice(0, 10)} 00:00:00` : r.wall
      let end = wallOf(wallMs(wall) + lengthMs)
      if (to && /^[+-]?P/.test(to)) end = endAfter({ ...r, wall }, ICAL.Duration.fromString(to))
      else if (to) end = cal.resolve(p, to, 'RDATE', r.zone).wall
      starts.set(wall, end)
    }
  const { recurrence: _, ...single } = body
  return [...starts]
    .filter(([wall]) => !exdate.some((x) => (x.length === 10 ? wall.startsWith(x) : wall === x)))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([wall, end]) => ({
      kind: 'event' as const,
      sourceId: `${master.sourceId}#${wall}`,
      ref: `${master.ref} (occurrence ${wall})`,
      body: { ...single, start_date: wall, end_date: start.allDay ? `${end.slice(0, 10)} 23:59:59` : end },
      ...(master.refs ? { refs: master.refs } : {}),
    }))
}

/** The single events of a series, the master's own warnings (its zone, its DTEND) and `warning` said once, on the first. */
function withWarning(records: SourceRecord[], master: SourceRecord, warning: string): SourceRecord[] {
  const { ref } = master
  if (records[0]) records[0] = { ...records[0], warnings: [...(master.warnings ?? []), ...(records[0].warnings ?? []), warning] }
  else return [{ kind: 'event', sourceId: `${ref}#none`, ref, error: `${warning}; the rule gives no occurrence` }]
  return records
}

/** Occurrences of an open-ended rule kept before `now`: the recent past, as the router's lists show it. */
const RECENT_DAYS = 31
/** ical.js steps looked at for one rule at most (each is cheap; the event's time budget is the real bound). */
const MAX_STEPS = 2_000_000

/**
 * The series' occurrences as single events (ical.js's expansion, for rules outside our subset),
 * each with its own source id and the start's wall clock in the start's zone. An open-ended rule
 * keeps what lies around now and ahead, up to the horizon, as the router does with its own
 * series; what was left out, and a cut at `maxOccurrences`, are said in a warning.
 */
function expandSeries(
  comp: ICAL.Component,
  master: SourceRecord,
  body: Record<string, unknown>,
  start: Resolved,
  o: Required<IcsOptions>,
  fileZoneWall?: (raw: string) => string,
): SourceRecord[] {
  const event = new ICAL.Event(comp)
  const it = event.iterator()
  const rule = comp.getFirstPropertyValue('rrule') as ICAL.Recur | null
  const openEnded = rule !== null && !rule.count && !rule.until
  const horizon = new Date(o.now.getTime())
  horizon.setUTCMonth(horizon.getUTCMonth() + o.horizonMonths)
  const from = openEnded ? o.now.getTime() - RECENT_DAYS * 86_400_000 : -Infinity
  const startMs = Date.parse(String(body.start_date).replace(' ', 'T') + 'Z')
  const lengthMs = Date.parse(String(body.end_date).replace(' ', 'T') + 'Z') - startMs
  const out: SourceRecord[] = []
  let before = 0
  let cut = false
  let steps = 0
  for (let next = it.next(); next; next = it.next()) {
    if (++steps > MAX_STEPS || out.length >= o.maxOccurrences) {
      cut = true
      break
    }
    const raw = next.toString()
    let at = raw.replace('T', ' ').replace('Z', '')
    // ical.js gives a UTC start in UTC: shown in the series' zone, as DTSTART was. A time of a
    // file-only zone is its wall clock there: converted to its instant.
    if (fileZoneWall && !start.allDay) at = fileZoneWall(raw)
    else if (raw.endsWith('Z') && start.zone && start.zone !== 'UTC') at = utcToLocal(at, start.zone)
    const wall = start.allDay ? `${at.slice(0, 10)} 00:00:00` : at.length === 10 ? `${at} 00:00:00` : at
    const ms = Date.parse(wall.replace(' ', 'T') + 'Z')
    if (ms > horizon.getTime()) break
    if (ms + lengthMs < from) {
      before++
      continue
    }
    const endWall = new Date(ms + lengthMs).toISOString().slice(0, 19).replace('T', ' ')
    const { recurrence: _, ...single } = body
    out.push({
      kind: 'event',
      sourceId: `${master.sourceId}#${wall}`,
      ref: `${master.ref} (occurrence ${wall})`,
      body: { ...single, start_date: wall, end_date: endWall },
      refs: master.refs,
    })
  }
  const notes: string[] = []
  if (before) notes.push(`${before} occurrences more than ${RECENT_DAYS} days before now were left out`)
  if (cut) notes.push(`cut at ${out.length} occurrences (budget.occurrences)`)
  if (notes.length && out[0]) out[0].warnings = [...(out[0].warnings ?? []), ...notes]
  return out
}

/** An iCalendar document cut into its events, read one at a time (the worker's unit of budget). */
export interface IcsPlan {
  /** How reports name each event, in reading order (series before their overrides). */
  refs: string[]
  /** The records event `i` gives; never throws (an unreadable event is a record with `error`). */
  read(i: number): SourceRecord[]
}

/**
 * Cuts and parses the document, without reading any event's times yet. A document that is not
 * iCalendar at all is answered as a single error record.
 */
export function planIcs(source: string, options: IcsOptions = {}): IcsPlan | SourceRecord[] {
  const o: Required<IcsOptions> = {
    horizonMonths: options.horizonMonths ?? 24,
    maxOccurrences: options.maxOccurrences ?? 1000,
    now: options.now ?? new Date(),
  }
  const { events, zones, props } = cut(source)
  if (!events.length && !/BEGIN:VCALENDAR/i.test(source)) {
    return [{ kind: 'event', sourceId: 'source', ref: 'source', error: 'not an iCalendar document (no BEGIN:VCALENDAR)' }]
  }
  const cal = new Calendar(zones, props)
  cal.now = o.now
  const all: ParsedEvent[] = events.map((b) => {
    try {
      return { ref: `VEVENT at line ${b.line}`, comp: new ICAL.Component(ICAL.parse(b.text) as unknown[]), notes: [] }
    } catch (e) {
      return { ref: `VEVENT at line ${b.line}`, error: `malformed: ${e instanceof Error ? e.message : String(e)}`, notes: [] }
    }
  })
  deriveUids(all)
  const parsed = latestCopies(all)
  // The zone of each series, for its overrides' RECURRENCE-ID; masters before overrides.
  const masters = new Map<string, string | null>()
  for (const p of parsed) {
    if (!p.comp || p.comp.getFirstProperty('recurrence-id')) continue
    const uid = text(p.comp, 'uid')
    const prop = p.comp.getFirstProperty('dtstart')
    if (!uid || !prop) continue
    masters.set(uid, cal.zoneOf(prop, rawValues(prop)[0]!))
  }
  const ordered = [
    ...parsed.filter((p) => !p.comp?.getFirstProperty('recurrence-id')),
    ...parsed.filter((p) => p.comp?.getFirstProperty('recurrence-id')),
  ]
  const refOf = (p: ParsedEvent) => {
    // A derived UID means nothing to the reader: the event is named by its line.
    const uid = p.comp && !p.notes.some((n) => n.startsWith('has no UID')) ? text(p.comp, 'uid') : ''
    const rid = p.comp?.getFirstProperty('recurrence-id')
    return uid ? `UID ${uid}${rid ? ` (RECURRENCE-ID ${String(p.comp!.getFirstPropertyValue('recurrence-id'))})` : ''}` : p.ref
  }
  return {
    refs: ordered.map(refOf),
    read(i) {
      const p = ordered[i]!
      const uid = p.comp ? text(p.comp, 'uid') : ''
      const ref = refOf(p)
      if (p.error !== undefined || !p.comp) return [{ kind: 'event', sourceId: p.ref, ref: p.ref, error: p.error ?? 'unreadable' }]
      try {
        const records = eventRecords(cal, p.comp, ref, masters, o)
        const event = records.find((r) => r.kind === 'event')
        if (event && p.notes.length) event.warnings = [...p.notes, ...(event.warnings ?? [])]
        return records
      } catch (e) {
        return [
          {
            kind: 'event',
            sourceId: uid || p.ref,
            ref: uid ? `${ref}, ${p.ref}` : p.ref,
            error: e instanceof Error ? e.message : String(e),
          },
        ]
      }
    },
  }
}

/**
 * The records of an iCalendar document: venues and organizers just before the events naming
 * them, series before their overrides. Never throws: an event that cannot be read is a record
 * with `error`. It runs on the calling thread with no time budget: `importCalendar` reads
 * iCalendar in a worker with one (docs/importing.md, "Budgets").
 *
 * @example
 * const records = readIcs(await readFile('calendar.ics', 'utf8'))
 * for (const r of records) console.log(r.kind, r.sourceId, r.error ?? r.body?.title)
 */
export function readIcs(source: string, options: IcsOptions = {}): SourceRecord[] {
  const plan = planIcs(source, options)
  if (Array.isArray(plan)) return plan
  return plan.refs.flatMap((_, i) => plan.read(i))
}
