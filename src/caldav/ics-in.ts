/**
 * A PUT's iCalendar body read into the REST write it stands for. The importer's reader
 * (readers/ics.ts) maps each VEVENT to an event body (dates with their zone, all-day, SUMMARY,
 * DESCRIPTION, URL, STATUS, CATEGORIES, RRULE/RDATE/EXDATE, the LOCATION's venue and the
 * ORGANIZER); this module checks that the body is one calendar object resource (RFC 4791 §4.1:
 * one UID, VEVENTs only) and, on an update, leaves out what the app sent back unchanged, so that
 * a round trip through a calendar app never rewrites fields the iCalendar form shows lossily
 * (HTML descriptions, a venue's address split over LOCATION, further organizers).
 */
import { readIcs } from '../readers/ics.js'
import type { SourceRecord } from '../readers/types.js'
import { REGENERATED } from './extras.js'

export class IcsInputError extends Error {
  constructor(
    readonly condition: string,
    message: string,
  ) {
    super(message)
  }
}

/** A VEVENT's properties as written: name → the text after the name (parameters and value), several joined by newlines. */
export type Lines = Map<string, string>

interface Vevent {
  uid: string
  recurrenceId: string | null
  lines: Lines
  /** What the model does not hold, unfolded (extras.ts): properties and whole sub-components. */
  extras: string[]
}

/** Unfolded content lines (RFC 5545 §3.1). */
function unfold(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n|\r/g, '\n')
    .replace(/\n[ \t]/g, '')
    .split('\n')
    .filter((l) => l !== '')
}

/** The VEVENTs of a calendar: the properties of each, and what of it the model does not hold. */
export function vevents(text: string): { events: Vevent[]; others: string[] } {
  const events: Vevent[] = []
  const others: string[] = []
  let current: Lines | null = null
  let extras: string[] = []
  let depth = 0
  for (const line of unfold(text)) {
    const m = /^([A-Za-z0-9-]+)([;:].*)$/.exec(line)
    if (!m) continue
    const name = m[1]!.toUpperCase()
    const rest = m[2]!
    if (name === 'BEGIN') {
      depth++
      const what = rest.slice(1).toUpperCase()
      if (depth === 2 && what === 'VEVENT') {
        current = new Map()
        extras = []
      } else if (depth === 2 && what !== 'VTIMEZONE') others.push(what)
      else if (depth > 2 && current) extras.push(line)
    } else if (name === 'END') {
      if (depth === 2 && current) {
        const value = (k: string) => (current!.get(k) ?? '').replace(/^[^:]*:/, '')
        const recurrenceId = current.has('RECURRENCE-ID') ? value('RECURRENCE-ID') : null
        events.push({ uid: value('UID').trim(), recurrenceId, lines: current, extras })
        current = null
      } else if (depth > 2 && current) extras.push(line)
      depth--
    } else if (current && depth === 2) {
      current.set(name, current.has(name) ? `${current.get(name)}\n${rest}` : rest)
      if (!REGENERATED.has(name)) extras.push(line)
    } else if (current && depth > 2) extras.push(line)
  }
  return { events, others }
}

export interface PutEvent {
  uid: string
  master: SourceRecord
  masterLines: Lines
  masterExtras: string[]
  overrides: Array<{ record: SourceRecord; lines: Lines; extras: string[] }>
  /** Every record the importer read (the venues and organizers beside the events). */
  records: SourceRecord[]
}

/** Reads and checks a PUT body; throws IcsInputError with the CalDAV precondition it breaks. */
export function readPut(text: string): PutEvent {
  if (!/^\s*BEGIN:VCALENDAR/i.test(text.replace(/^\uFEFF/, '')))
    throw new IcsInputError('c:valid-calendar-data', 'The body is not an iCalendar object (no BEGIN:VCALENDAR)')
  const { events, others } = vevents(text)
  if (others.length) throw new IcsInputError('c:supported-calendar-component', `Only VEVENT is stored here, not ${others[0]}`)
  if (!events.length) throw new IcsInputError('c:valid-calendar-object-resource', 'The calendar holds no VEVENT')
  const uid = events[0]!.uid
  if (!uid) throw new IcsInputError('c:valid-calendar-data', 'The VEVENT has no UID')
  if (events.some((e) => e.uid !== uid)) {
    throw new IcsInputError('c:valid-calendar-object-resource', 'A calendar object holds one event: these VEVENTs have different UIDs')
  }
  const masters = events.filter((e) => e.recurrenceId === null)
  if (masters.length !== 1) {
    throw new IcsInputError(
      'c:valid-calendar-object-resource',
      masters.length ? 'Two VEVENTs without RECURRENCE-ID share the UID' : 'Occurrences without their series are not stored',
    )
  }
  const all = readIcs(text)
  const records = all.filter((r) => r.kind === 'event')
  const failed = records.find((r) => r.error)
  if (failed) throw new IcsInputError('c:valid-calendar-data', `${failed.ref}: ${failed.error}`)
  const master = records.filter((r) => !r.occurrenceOf)
  if (master.length !== 1 || master[0]!.sourceId !== uid) {
    // The importer expands rules outside ours into single events: a series must stay one resource here.
    throw new IcsInputError(
      'c:valid-calendar-object-resource',
      `${master[0]?.warnings?.join('; ') ?? 'The recurrence'} (not stored: a series must keep its rule)`,
    )
  }
  // The importer reads the overrides in the document's order: the i-th is the i-th VEVENT with a RECURRENCE-ID.
  const sent = events.filter((e) => e.recurrenceId !== null)
  const overrides = records
    .filter((r) => r.occurrenceOf)
    .map((record, i) => ({ record, lines: sent[i]?.lines ?? new Map<string, string>(), extras: sent[i]?.extras ?? [] }))
  return { uid, master: master[0]!, masterLines: masters[0]!.lines, masterExtras: masters[0]!.extras, overrides, records: all }
}

/**
 * A RECURRENCE-ID as a wall clock (`2026-01-05 10:00:00`), from the property's value
 * (`;TZID=X:20260105T100000`, a DATE) or from the importer's reading of it.
 */
export function originalOf(value: string): string | null {
  const m = /(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):?(\d{2}):?(\d{2}))?Z?$/.exec(value.trim())
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}` : null
}

const same = (a: Lines, b: Lines | null, ...names: string[]) => b !== null && names.every((n) => (a.get(n) ?? '') === (b.get(n) ?? ''))

/**
 * The REST body of an event write from what the app sent. `served`: the lines this event was
 * served with (an update), whose unchanged properties are left out; null for a create.
 */
export function restBody(
  record: SourceRecord,
  lines: Lines,
  served: Lines | null,
  venue: unknown,
  organizer: unknown,
): Record<string, unknown> {
  const b = record.body ?? {}
  const out: Record<string, unknown> = {}
  if (!same(lines, served, 'SUMMARY')) out.title = b.title
  if (!same(lines, served, 'DESCRIPTION')) out.description = b.description ?? ''
  if (!same(lines, served, 'DTSTART', 'DTEND', 'DURATION')) {
    for (const k of ['start_date', 'end_date', 'all_day', 'timezone']) if (b[k] !== undefined) out[k] = b[k]
  }
  if (!same(lines, served, 'URL')) out.website = b.website ?? ''
  if (!same(lines, served, 'STATUS')) out.event_status = b.event_status ?? 'scheduled'
  if (!same(lines, served, 'CATEGORIES')) out.categories = b.categories ?? []
  if (!same(lines, served, 'LOCATION', 'GEO')) out.venue = venue ?? []
  if (!same(lines, served, 'ORGANIZER')) out.organizer = organizer ?? []
  if (!same(lines, served, 'RRULE', 'RDATE', 'EXDATE')) out.recurrence = b.recurrence ?? null
  return out
}

/** The venue or organizer a record names, by the importer's source id (`venue:...`). */
export function linkedBody(records: SourceRecord[], id: string | undefined): Record<string, unknown> | undefined {
  return id === undefined ? undefined : records.find((r) => r.sourceId === id)?.body
}
