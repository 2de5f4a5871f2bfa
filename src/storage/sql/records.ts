/**
 * Rows <-> records: the columns of each post type (from the field table, storage/fields.ts), the
 * rows a new post is written as, and how values cross the boundary. pg returns bigint and count(*) as strings and SQLite returns booleans as 0/1; both are
 * converted here, once, with a guard that refuses integers JavaScript cannot represent.
 */
import type { EventRecord, NewPost, PostRecord, PostType, TermRecord } from '../types.js'
import type { ColumnKind } from './dialect.js'
import { columnText, type SqlParam } from './driver.js'
import { EVENT_LINKS, KEY_COLUMNS, columnsOf, type Codec, type ColumnSpec, type LinkField } from '../fields.js'
import { LINKED_SEARCH_FIELDS, eventSearchText } from '../search-fields.js'

export type { Codec }
export type FieldSpec = ColumnSpec

/** Stored columns of each post type, from the field table (links live in their own tables). */
export const POST_FIELDS: Record<PostType, FieldSpec[]> = {
  event: columnsOf('event'),
  venue: columnsOf('venue'),
  organizer: columnsOf('organizer'),
}

/** The link lists of an event (venueIds, organizerIds, categoryIds, tagIds). */
export type RefList = LinkField
export type LinkTable = 'event_links' | 'event_terms'

/**
 * Each link list of an event, from the field table: the table its rows are in (venues and
 * organizers in event_links, terms in event_terms), the kind they carry and the column of the
 * linked id's column (REF_COLUMNS). Rows are (event_id, kind, seq, linked id), `seq` keeping the
 * list's order.
 */
export const REFS = EVENT_LINKS.map(({ field, kind }) => {
  const table: LinkTable = kind === 'venue' || kind === 'organizer' ? 'event_links' : 'event_terms'
  return { list: field, kind, table }
})
export const REF_COLUMNS: Record<LinkTable, string[]> = {
  event_links: ['event_id', 'kind', 'seq', 'linked_id'],
  event_terms: ['event_id', 'kind', 'seq', 'term_id'],
}
export const REF_KINDS: ColumnKind[] = ['int', 'text', 'int', 'int']
/** The link list of each kind, for reading link rows back into a record. */
export const REF_LISTS: Record<string, RefList> = Object.fromEntries(REFS.map((r) => [r.kind, r.list]))

/** Adds an event's link rows, in list order, to `rows` (per table). */
export function addRefRows(rows: Record<LinkTable, SqlParam[][]>, id: number, event: Pick<EventRecord, RefList>): void {
  for (const r of REFS) event[r.list].forEach((linked, seq) => rows[r.table].push([id, r.kind, seq, linked]))
}

/** Every column a post row is read with (the union over types). */
export const POST_COLUMNS = [...KEY_COLUMNS, ...new Set(Object.values(POST_FIELDS).flatMap((specs) => specs.map((s) => s.column)))]
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
  if (type === 'event') for (const r of REFS) rec[r.list] = refs?.[r.list] ?? []
  return rec as unknown as PostRecord
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Text as PostgreSQL stores it: a lone surrogate (half a character) reaches it as U+FFFD. */
export const wellFormed = (text: string): string => text.replace(LONE_SURROGATE, '\ufffd')

const hasLoneSurrogate = (v: unknown): boolean => typeof v === 'string' && wellFormed(v) !== v

/**
 * A record a write stored, as a later read of its row decodes it: each field through its codec
 * both ways (`encode`, then `decode`), its link lists copied; a new object, so the record cache
 * may keep it (record-cache.ts) while the caller keeps the original. Null for a record holding
 * half a character (a lone surrogate) in a column: each engine stores that differently (U+FFFD
 * once on PostgreSQL, once per byte on SQLite), and only a read says how.
 *
 * @example
 * const settled = settledPost(await write.updatePost(db, 12, 'event', { title: 'New' }))
 * if (settled) cache.set(settled)
 */
export function settledPost(rec: PostRecord): PostRecord | null {
  const source = rec as unknown as Record<string, unknown>
  const out: Record<string, unknown> = { id: rec.id, type: rec.type }
  for (const s of POST_FIELDS[rec.type]) {
    const value = encode(s.codec, source[s.field])
    if (hasLoneSurrogate(value)) return null
    out[s.field] = decode(s.codec, value)
  }
  if (rec.type === 'event') for (const r of REFS) out[r.list] = [...rec[r.list]]
  return out as unknown as PostRecord
}

/** Fields searched for venue and organizer lists: the backends' one list. */
export const SEARCH_FIELDS = LINKED_SEARCH_FIELDS

/** The searched field values of a venue or organizer, lower-cased, empty ones left out (one post_search row each). */
export const linkedSearchValues = (type: 'venue' | 'organizer', rec: Record<string, unknown>) =>
  SEARCH_FIELDS[type].map((field) => [field, columnText(rec[field] ?? '').toLowerCase()] as const).filter(([, value]) => value !== '')

/**
 * A venue's or organizer's search_text: its searched values, one per line. Only the index reads
 * it (to narrow the candidates; post_search decides), so any order would do.
 */
export const linkedSearchText = (type: 'venue' | 'organizer', rec: Record<string, unknown>) =>
  linkedSearchValues(type, rec)
    .map(([, value]) => value)
    .join('\n')

/** Event search haystack: the memory backend's own (search-fields.ts), so the two cannot differ. */
export { eventSearchText }

/**
 * A new post row's columns, in the order of `newPostRow`'s values, with the kind of each value:
 * the id when the caller holds it, the type, every stored field of the type (the field table),
 * and search_text (its searched fields, for the text index).
 */
export function newPostColumns(type: PostType, withId: boolean): { columns: string[]; kinds: ColumnKind[] } {
  const specs = POST_FIELDS[type]
  return {
    columns: [...(withId ? ['id'] : []), 'type', ...specs.map((s) => s.column), 'search_text'],
    kinds: [...(withId ? (['int'] as const) : []), 'text', ...specs.map((s) => codecKind(s.codec)), 'text'],
  }
}

/**
 * A new post's row, in the order of `newPostColumns(record.type, id !== undefined)`: what
 * insertPost, insertEvents and the bench's bulk seeding write. A record without a translation
 * group starts its own: `id` when the caller holds it, else 0 until the insert hands out the id.
 * `fixed` overrides fields of the record (what a create stores whatever the record says).
 */
export function newPostRow(record: NewPost, id?: number, fixed?: Record<string, unknown>): SqlParam[] {
  const rec = { ...record, ...fixed, translationGroup: record.translationGroup ?? id } as unknown as Record<string, unknown>
  const text = record.type === 'event' ? eventSearchText(record) : linkedSearchText(record.type, rec)
  return [...(id === undefined ? [] : [id]), record.type, ...POST_FIELDS[record.type].map((s) => encode(s.codec, rec[s.field])), text]
}

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
      return raw === null || raw === undefined ? null : JSON.parse(columnText(raw))
    case 'bool':
      return raw === true || raw === 1 || raw === '1' || raw === 1n
    case 'int':
      return toInt(raw)
    case 'real':
      return raw === null || raw === undefined ? null : Number(raw)
    case 'nullableText':
      return raw === null || raw === undefined ? null : columnText(raw)
    default:
      return raw === null || raw === undefined ? '' : columnText(raw)
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
