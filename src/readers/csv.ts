/**
 * CSV to import records, with the columns of The Events Calendar's CSV importer (its free
 * plugin's column map: `Event Name`, `Event Start Date`, `Event Venue Name`... see
 * docs/importing.md) or a mapping of your own. Parsed with csv-parse: UTF-8 with or without a
 * BOM, quoted fields across lines. Dates go to our API as written there (`2027-03-01`,
 * `03/01/2027 7:30 pm`...), which reads them like every date input, and refuses what it cannot.
 */
import { timedSpan } from './csv-span.js'
import { parse } from 'csv-parse/sync'
import { looksLikeHtml, textToHtml } from './text.js'
import type { SourceRecord } from './types.js'
import { CSV_COLUMNS, type CsvColumnName } from '../storage/wire-fields.js'
import type { WireCodec } from '../storage/fields.js'

/** The columns read here by hand; the plain fields' columns come from the field table (fields.ts, `wire.csv`). */
const OWN_COLUMNS = {
  event_name: ['Event Name'],
  event_description: ['Event Description'],
  event_excerpt: ['Event Excerpt'],
  event_start_date: ['Event Start Date'],
  event_start_time: ['Event Start Time'],
  event_end_date: ['Event End Date'],
  event_end_time: ['Event End Time'],
  event_timezone: ['Event Time Zone', 'Event Timezone', 'Timezone'],
  event_all_day: ['All Day Event', 'Event All Day'],
  // Google Calendar's CSV export: True keeps the event private.
  event_private: ['Private', 'Event Private'],
  event_venue_name: ['Event Venue Name', 'Venue Name'],
  event_organizer_name: ['Event Organizer Name(s) or ID(s)', 'Event Organizer Name', 'Event Organizers', 'Organizer Name'],
  event_cost: ['Event Cost'],
  event_currency_symbol: ['Event Currency Symbol'],
  event_currency_position: ['Event Currency Position'],
  event_category: ['Event Category', 'Event Categories'],
  event_tags: ['Event Tags'],
  event_website: ['Event Website'],
  event_featured_image: ['Event Featured Image', 'Featured Image'],
  venue_address: ['Venue Address'],
  venue_city: ['Venue City'],
  venue_state: ['Venue State/Province', 'Venue State'],
  venue_zip: ['Venue Zip'],
  venue_country: ['Venue Country'],
  venue_phone: ['Venue Phone'],
  organizer_email: ['Organizer Email'],
  organizer_phone: ['Organizer Phone'],
  organizer_website: ['Organizer Website'],
} as const

/** Our names of TEC's columns, each with the headers that select it (compared case- and punctuation-blind). */
export const TEC_CSV_COLUMNS: { readonly [F in keyof typeof OWN_COLUMNS | CsvColumnName]: readonly string[] } = {
  ...OWN_COLUMNS,
  ...(Object.fromEntries(CSV_COLUMNS.map((c) => [c.column, c.headers])) as Record<CsvColumnName, readonly string[]>),
}

export type CsvField = keyof typeof TEC_CSV_COLUMNS

export interface CsvOptions {
  /** Our field → the header of your column, for spreadsheets with other headers: `{ event_name: 'Title' }`. */
  mapping?: Partial<Record<CsvField, string>>
  /**
   * The header of a column holding each row's id at the source. Without it a row is known by its
   * name, start date and time: renaming or moving it in the sheet imports a new event.
   */
  key?: string
  /** Field separator (default `,`). */
  delimiter?: string
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '')
const yes = (s: string | undefined) => /^(1|y|yes|true|on|x)$/i.test((s ?? '').trim())
const list = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')

/** A plain field's value from its cell: a flag is `1`, `y`, `yes`, `true`, `on` or `x` (any case); the rest go as written, for the API to check. */
const fromCell = (codec: WireCodec, text: string): unknown => {
  switch (codec) {
    case 'flag':
      return yes(text)
    case 'text':
    case 'choice':
    case 'url':
      return text
    default:
      // A codec added to the table without a rule here does not compile.
      return codec satisfies never
  }
}

/** Which column index each field reads: the mapping first, then TEC's headers, then our field names themselves. */
function columnsOf(header: string[], mapping: CsvOptions['mapping'] = {}): Map<CsvField, number> {
  const at = new Map<string, number>()
  header.forEach((h, i) => {
    if (!at.has(squash(h))) at.set(squash(h), i)
  })
  const out = new Map<CsvField, number>()
  for (const [field, names] of Object.entries(TEC_CSV_COLUMNS) as Array<[CsvField, readonly string[]]>) {
    const mapped = mapping[field]
    const candidates = mapped !== undefined ? [mapped] : [...names, field]
    for (const name of candidates) {
      const i = at.get(squash(name))
      if (i !== undefined) {
        out.set(field, i)
        break
      }
    }
  }
  return out
}

/**
 * @example
 * const records = readCsv('Event Name,Event Start Date,Event Start Time\nGig,2027-03-01,20:00\n')
 * // [{ kind: 'event', sourceId: 'Gig|2027-03-01|20:00', ref: 'row 2', body: { title: 'Gig', ... } }]
 */
export function readCsv(source: string, o: CsvOptions = {}): SourceRecord[] {
  const rows = parseRows(source, o)
  const header = rows[0]!.record
  const columns = columnsOf(header, o.mapping)
  const keyColumn = o.key === undefined ? undefined : header.findIndex((h) => squash(h) === squash(o.key!))
  if (keyColumn === -1) throw new Error(`the CSV file has no key column "${o.key}"`)
  for (const required of ['event_name', 'event_start_date'] as const) {
    if (!columns.has(required))
      throw new Error(`the CSV file has no column for ${required} (${String(o.mapping?.[required] ?? TEC_CSV_COLUMNS[required][0])})`)
  }
  const out: SourceRecord[] = []
  const now = new Date()
  let row = 1
  for (const { record, info } of rows.slice(1)) {
    // info.lines is where the record ends; a quoted newline makes a record span several lines.
    const ref = `row ${++row} (line ${info.lines})`
    const cell: Cell = (f) => {
      const i = columns.get(f)
      return i === undefined ? undefined : (record[i] ?? '').trim()
    }
    const sourceId =
      keyColumn !== undefined
        ? (record[keyColumn] ?? '').trim()
        : `${cell('event_name')}|${cell('event_start_date')}|${cell('event_start_time') ?? ''}`
    out.push(...rowRecords(cell, ref, sourceId, o, now))
  }
  return out
}

/** A cell of the current row by our field name: trimmed, undefined when the file has no such column. */
type Cell = (f: CsvField) => string | undefined

/** The rows of the file with where each ends; throws when it cannot be read or holds no row at all. */
function parseRows(source: string, o: CsvOptions): Array<{ record: string[]; info: { lines: number } }> {
  let rows: Array<{ record: string[]; info: { lines: number } }>
  try {
    rows = parse(source, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      delimiter: o.delimiter ?? ',',
    }) as never
  } catch (e) {
    throw new Error(`not a readable CSV file: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  }
  if (!rows.length) throw new Error('the CSV file is empty')
  return rows
}

/** One row's records: its venue and organizers, then the event (or the event's error). */
function rowRecords(cell: Cell, ref: string, sourceId: string, o: CsvOptions, now: Date): SourceRecord[] {
  const title = cell('event_name')
  const startDate = cell('event_start_date')
  const missing = [!title && 'event_name', !startDate && 'event_start_date'].filter(Boolean)
  if (missing.length) return [{ kind: 'event', sourceId: sourceId || ref, ref, error: `missing ${missing.join(', ')}` }]
  if (!sourceId) return [{ kind: 'event', sourceId: ref, ref, error: `the key column "${o.key}" is empty` }]
  const startTime = cell('event_start_time') ?? ''
  const endTime = cell('event_end_time') ?? ''
  const allDay = yes(cell('event_all_day')) || (!startTime && !endTime)
  const endDate = cell('event_end_date') || startDate!
  const timezone = cell('event_timezone')
  const span = allDay
    ? { start: startDate!, end: endDate, warnings: [] }
    : timedSpan(`${startDate} ${startTime}`, `${endDate} ${endTime || startTime}`, timezone, now)
  const body: Record<string, unknown> = { title, status: 'publish', all_day: allDay, start_date: span.start, end_date: span.end }
  addEventFields(cell, body)
  const out: SourceRecord[] = []
  const refs: SourceRecord['refs'] = {}
  const venue = venueRecord(cell, ref)
  if (venue) {
    out.push(venue)
    refs.venue = [venue.sourceId]
  }
  const organizers = organizerRecords(cell, ref)
  if (organizers.length) refs.organizer = organizers.map((r) => r.sourceId)
  out.push(...organizers)
  out.push({ kind: 'event', sourceId, ref, body, refs, ...(span.warnings.length ? { warnings: span.warnings } : {}) })
  return out
}

/** The event's fields besides its title and dates, from the cells that hold them. */
function addEventFields(cell: Cell, body: Record<string, unknown>): void {
  if (yes(cell('event_private'))) body.status = 'private'
  const description = cell('event_description')
  if (description) body.description = looksLikeHtml(description) ? description : textToHtml(description)
  const excerpt = cell('event_excerpt')
  if (excerpt) body.excerpt = excerpt
  const timezone = cell('event_timezone')
  if (timezone) body.timezone = timezone
  const cost = cell('event_cost')
  if (cost) body.cost = cost
  for (const c of CSV_COLUMNS) {
    const text = cell(c.column)
    if (text) body[c.wire] = fromCell(c.codec, text)
  }
  const website = cell('event_website')
  if (website) body.website = website
  const image = cell('event_featured_image')
  if (image && /^https?:\/\//i.test(image)) body.image = image
  const categories = list(cell('event_category'))
  if (categories.length) body.categories = categories
  const tags = list(cell('event_tags'))
  if (tags.length) body.tags = tags
}

/** The row's venue, when it names one. */
function venueRecord(cell: Cell, ref: string): SourceRecord | null {
  const venueName = cell('event_venue_name')
  if (!venueName) return null
  const venue: Record<string, unknown> = { venue: venueName, status: 'publish' }
  for (const [field, wire] of [
    ['venue_address', 'address'],
    ['venue_city', 'city'],
    ['venue_state', 'stateprovince'],
    ['venue_zip', 'zip'],
    ['venue_country', 'country'],
    ['venue_phone', 'phone'],
  ] as const) {
    if (cell(field)) venue[wire] = cell(field)
  }
  return { kind: 'venue', sourceId: `venue:${venueName}`, ref: `${ref} (venue)`, body: venue }
}

/** The row's organizers, one per name it lists. */
function organizerRecords(cell: Cell, ref: string): SourceRecord[] {
  const organizers = list(cell('event_organizer_name'))
  return organizers.map((name) => {
    const organizer: Record<string, unknown> = { organizer: name, status: 'publish' }
    // The organizer columns describe the row's organizer when it names one only.
    if (organizers.length === 1) {
      for (const [field, wire] of [
        ['organizer_email', 'email'],
        ['organizer_phone', 'phone'],
        ['organizer_website', 'website'],
      ] as const) {
        if (cell(field)) organizer[wire] = cell(field)
      }
    }
    return { kind: 'organizer', sourceId: `organizer:${name}`, ref: `${ref} (organizer)`, body: organizer }
  })
}
