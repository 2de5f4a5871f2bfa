/**
 * Rows <-> records: which column holds each record field, and how values cross the boundary.
 * pg returns bigint and count(*) as strings and SQLite returns booleans as 0/1; both are
 * converted here, once, with a guard that refuses integers JavaScript cannot represent.
 */
import type { PostRecord, PostType, TermRecord } from '../types.js'
import type { ColumnKind } from './dialect.js'
import { LINKED_SEARCH_FIELDS } from '../search-fields.js'

export type Codec = 'text' | 'nullableText' | 'int' | 'bool' | 'json' | 'real'

export interface FieldSpec {
  field: string
  column: string
  codec: Codec
}

const f = (field: string, column: string, codec: Codec): FieldSpec => ({ field, column, codec })

const COMMON: FieldSpec[] = [
  f('language', 'language', 'text'),
  f('translationGroup', 'translation_group', 'int'),
  f('author', 'author', 'int'),
  f('status', 'status', 'text'),
  f('slug', 'slug', 'text'),
  f('title', 'title', 'text'),
  f('description', 'description', 'text'),
  f('excerpt', 'excerpt', 'text'),
  f('date', 'post_date', 'text'),
  f('dateUtc', 'post_date_utc', 'text'),
  f('modified', 'modified', 'text'),
  f('modifiedUtc', 'modified_utc', 'text'),
  f('image', 'image', 'json'),
  f('revision', 'revision', 'int'),
]

/** Stored columns of each post type (links live in their own tables). */
export const POST_FIELDS: Record<PostType, FieldSpec[]> = {
  event: [
    ...COMMON,
    f('startDate', 'start_date', 'text'),
    f('endDate', 'end_date', 'text'),
    f('startDateUtc', 'start_date_utc', 'text'),
    f('endDateUtc', 'end_date_utc', 'text'),
    f('timezone', 'timezone_name', 'text'),
    f('allDay', 'all_day', 'bool'),
    f('cost', 'cost', 'json'),
    f('currencySymbol', 'currency_symbol', 'text'),
    f('currencyPosition', 'currency_position', 'text'),
    f('currencyCode', 'currency_code', 'text'),
    f('website', 'website', 'nullableText'),
    f('showMap', 'show_map', 'bool'),
    f('showMapLink', 'show_map_link', 'bool'),
    f('hideFromListings', 'hide_from_listings', 'bool'),
    f('sticky', 'sticky', 'bool'),
    f('featured', 'featured', 'bool'),
    f('parentId', 'parent_id', 'int'),
    f('sequence', 'ical_sequence', 'int'),
    f('seriesId', 'series_id', 'int'),
    f('series', 'series', 'json'),
  ],
  venue: [
    ...COMMON,
    f('address', 'address', 'text'),
    f('city', 'city', 'text'),
    f('country', 'country', 'text'),
    f('province', 'province', 'text'),
    f('state', 'state', 'text'),
    f('zip', 'zip', 'text'),
    f('phone', 'phone', 'text'),
    f('stateprovince', 'stateprovince', 'text'),
    f('website', 'website', 'text'),
    f('showMap', 'show_map', 'bool'),
    f('showMapLink', 'show_map_link', 'bool'),
    f('geoLat', 'geo_lat', 'real'),
    f('geoLng', 'geo_lng', 'real'),
  ],
  organizer: [...COMMON, f('phone', 'phone', 'text'), f('website', 'website', 'text'), f('email', 'email', 'text')],
}

/** Every column a post row is read with (the union over types). */
export const POST_COLUMNS = ['id', 'type', ...new Set(Object.values(POST_FIELDS).flatMap((specs) => specs.map((s) => s.column)))]
export const POST_SELECT = POST_COLUMNS.map((c) => `p.${c}`).join(', ')

/**
 * REAL columns stay out of the packed form below: SQLite before 3.43 writes doubles into JSON
 * with 15 significant digits, which would not round-trip a coordinate.
 */
const REAL_COLUMNS = POST_COLUMNS.filter((c) =>
  Object.values(POST_FIELDS).some((specs) => specs.some((s) => s.column === c && s.codec === 'real')),
)
const PACKED_COLUMNS = POST_COLUMNS.filter((c) => !REAL_COLUMNS.includes(c))
const PACKED_INDEX = new Map(PACKED_COLUMNS.map((c, i) => [c, i]))
const PACKED = 'post_packed'

/**
 * The select list of a post row, per dialect. On SQLite the columns are packed into one JSON
 * array per row, so a row crosses from SQLite into JavaScript as one string (one JSON.parse)
 * instead of ~45 values created one by one: profiling a page of rich events showed that
 * crossing as the largest cost of the storage layer. PostgreSQL's client parses its text rows
 * itself, so it gets plain columns. `readPostRows` takes either form.
 */
const POST_SELECTS = {
  sqlite: `json_array(${PACKED_COLUMNS.map((c) => `p.${c}`).join(', ')}) AS ${PACKED}, ${REAL_COLUMNS.map((c) => `p.${c}`).join(', ')}`,
  postgres: POST_SELECT,
} as const
export const postSelect = (dialect: 'sqlite' | 'postgres'): string => POST_SELECTS[dialect]

/** A post row read with `postSelect`: its id and type (to look up its links first), and its values. */
export interface PostRow {
  id: number
  type: PostType
  row: Row
  /** The packed columns (SQLite), by PACKED_INDEX; null when the row holds plain columns. */
  packed: unknown[] | null
}

export function readPostRows(rows: Row[]): PostRow[] {
  return rows.map((row) => {
    if (!(PACKED in row)) return { id: toInt(row.id), type: row.type as PostType, row, packed: null }
    const packed = JSON.parse(String(row[PACKED])) as unknown[]
    return { id: toInt(packed[PACKED_INDEX.get('id')!]), type: packed[PACKED_INDEX.get('type')!] as PostType, row, packed }
  })
}

/** Each type's fields with where a packed row holds them (-1: a plain column of the row). */
const FIELD_SOURCES = Object.fromEntries(
  Object.entries(POST_FIELDS).map(([type, specs]) => [type, specs.map((s) => ({ ...s, index: PACKED_INDEX.get(s.column) ?? -1 }))]),
) as Record<PostType, (FieldSpec & { index: number })[]>

/** A post row to its record; an event's link lists come from `refs` (filled by the caller). */
export function postRecord(post: PostRow, refs?: Partial<Record<RefList, number[]>>): PostRecord {
  const { row, packed, type } = post
  const rec: Record<string, unknown> = { id: post.id, type }
  for (const s of FIELD_SOURCES[type]) rec[s.field] = decode(s.codec, packed && s.index >= 0 ? packed[s.index] : row[s.column])
  if (type === 'event') {
    rec.venueIds = refs?.venueIds ?? []
    rec.organizerIds = refs?.organizerIds ?? []
    rec.categoryIds = refs?.categoryIds ?? []
    rec.tagIds = refs?.tagIds ?? []
  }
  return rec as unknown as PostRecord
}

/** Fields searched for venue and organizer lists: the backends' one list. */
export const SEARCH_FIELDS = LINKED_SEARCH_FIELDS

/** The searched field values of a venue or organizer, lower-cased, empty ones left out (one post_search row each). */
export const linkedSearchValues = (type: 'venue' | 'organizer', rec: Record<string, unknown>) =>
  SEARCH_FIELDS[type].map((field) => [field, String(rec[field] ?? '').toLowerCase()] as const).filter(([, value]) => value !== '')

/**
 * A venue's or organizer's search_text: its searched values, one per line. Only the index reads
 * it (to narrow the candidates; post_search decides), so any order would do.
 */
export const linkedSearchText = (type: 'venue' | 'organizer', rec: Record<string, unknown>) =>
  linkedSearchValues(type, rec)
    .map(([, value]) => value)
    .join('\n')

/** Event search haystack, built exactly like the memory backend's. */
export const eventSearchText = (e: { title: string; description: string; excerpt: string }) =>
  `${e.title}\n${e.description}\n${e.excerpt}`.toLowerCase()

export const LINK_KINDS = { venueIds: 'venue', organizerIds: 'organizer' } as const
export const TERM_KINDS = { categoryIds: 'category', tagIds: 'tag' } as const
export type RefList = keyof typeof LINK_KINDS | keyof typeof TERM_KINDS
export const REF_LISTS: Record<string, RefList> = { venue: 'venueIds', organizer: 'organizerIds', category: 'categoryIds', tag: 'tagIds' }

/** An integer from the database: numbers pass, pg's bigint strings are parsed, unsafe values refused. */
export function toInt(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : NaN
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer from the database: ${String(v)}`)
  return n
}

/** The kind of value a codec writes (bulk inserts name each column's). */
export function codecKind(codec: Codec): ColumnKind {
  return codec === 'int' || codec === 'bool' || codec === 'real' ? codec : 'text'
}

export function encode(codec: Codec, value: unknown): string | number | boolean | null {
  switch (codec) {
    case 'json':
      return value === null || value === undefined ? null : JSON.stringify(value)
    case 'bool':
      return Boolean(value)
    case 'real':
    case 'nullableText':
      return value === undefined ? null : (value as string | number | null)
    case 'int':
      // Optional integer fields (seriesId) default to 0, as the columns do.
      return value === undefined ? 0 : (value as number)
    default:
      return value === undefined || value === null ? '' : (value as string)
  }
}

export function decode(codec: Codec, raw: unknown): unknown {
  switch (codec) {
    case 'json':
      return raw === null || raw === undefined ? null : JSON.parse(String(raw))
    case 'bool':
      return raw === true || raw === 1 || raw === '1' || raw === 1n
    case 'int':
      return toInt(raw)
    case 'real':
      return raw === null || raw === undefined ? null : Number(raw)
    case 'nullableText':
      return raw === null || raw === undefined ? null : String(raw)
    default:
      return raw === null || raw === undefined ? '' : String(raw)
  }
}

export type Row = Record<string, unknown>

/**
 * SQL for a term's count computed from the links: published events of `language` carrying `term`
 * (both SQL expressions); an id listed twice counts twice, as in memory. `term_counts` keeps this
 * value up to date; this is how it is (re)computed.
 */
export const liveTermCount = (term: string, language: string) =>
  `(SELECT count(*) FROM event_terms et JOIN posts e ON e.id = et.event_id WHERE et.term_id = ${term} AND e.status = 'publish' AND e.language = ${language})`

/**
 * The day of an event's wall-clock start/end as kept in event_day_counts: the first 10
 * characters ('YYYY-MM-DD') of the stored 'YYYY-MM-DD HH:MM:SS'. `dayOf` is the same in
 * JavaScript, for the writes.
 */
export const DAY_OF_START = `COALESCE(substr(start_date, 1, 10), '')`
export const DAY_OF_END = `COALESCE(substr(end_date, 1, 10), '')`
export const dayOf = (date: string | null | undefined) => (date ?? '').slice(0, 10)

export const TERM_SELECT = 't.id, t.taxonomy, t.language, t.translation_group, t.name, t.slug, t.description, t.parent'

export function rowToTerm(row: Row): TermRecord {
  return {
    id: toInt(row.id),
    taxonomy: row.taxonomy as TermRecord['taxonomy'],
    language: String(row.language),
    translationGroup: toInt(row.translation_group),
    name: String(row.name),
    slug: String(row.slug),
    description: String(row.description),
    parent: toInt(row.parent),
  }
}
