/**
 * The record fields and what each one drives, in one table: the fields of events, venues and
 * organizers (and of terms, for the HTML filter), each with where a post keeps it, how the HTML
 * filter treats it, and per record type the roles it plays. Every list of fields the layers
 * need (what a series edit copies, what a calendar shows, what lists filter by...) is a view of
 * this table (`fieldsWhere`), so a field's roles are stated once, here, and a field added to a
 * record type does not compile until it is declared (see the check at the end). A plain field
 * also carries its wire name and codec (`wire`), from which storage/wire-fields.ts derives the
 * handlers', representations' and importers' part for it.
 *
 * It is the ground floor of `src/storage/`: it imports nothing but types and the attendance
 * modes beside them, so every layer may read it (the storage backends, the response cache's
 * dependencies, the HTML filter, the series handlers and, through wire-fields.ts, the
 * resources, representations, response schemas and importers do).
 */
import { ATTENDANCE_MODES, type EventRecord, type OrganizerRecord, type PostType, type TermRecord, type VenueRecord } from './types.js'

/** How a column's value crosses between the database and a record (sql/records.ts). */
export type Codec = 'text' | 'nullableText' | 'int' | 'bool' | 'json' | 'real'

/**
 * How the HTML filter of untrusted roles treats a text field (sanitize/storage.ts): `rich`
 * keeps paragraphs, `inline` inline formatting only, `structured` values have a fixed syntax
 * checked elsewhere and are never filtered. Only fields holding text (or a list of texts) have one.
 */
export type Html = 'rich' | 'inline' | 'structured'

/** What a field can drive, with where each role is read. */
export const ROLES = {
  searched:
    'an event search looks in it (posts.search_text, the event_words tokens, the memory backend); of a venue or organizer, its search (post_search)',
  filtered:
    'copied into event_filters, the rows of event lists filtered by venue, organizer, category, tag or a custom field value (sql/event-filters.ts)',
  indexed: "an event's postings in event_words, PostgreSQL's token index of event search, depend on it (sql/event-words.ts)",
  customIndexed: 'the rows of event_custom_values, read by the custom_fields[key] list filter (sql/custom-values.ts)',
  termCounted: 'term_counts (the counts of categories and tags) depend on it',
  dayCounted: 'event_day_counts (the counts of unfiltered event lists) depend on it',
  shared: 'a series edit with recurrence_scope all or following copies it to the other occurrences (resources/series.ts)',
  calendar:
    "an iCalendar feed shows it: a change raises the event's SEQUENCE, or of a venue or organizer, the SEQUENCE of its events (storage/sequence.ts)",
  shownOnly:
    'no list filters, orders or counts by it, nor a by-slug lookup: an update of such fields alone keeps every list (cache/dependencies.ts)',
} as const
export type Role = keyof typeof ROLES

/** The record types the table describes: posts, and terms for the HTML filter only. */
export type Kind = PostType | 'term'

/** The kinds of record an event links to: their ids are rows of event_links or event_terms. */
export type LinkKind = 'venue' | 'organizer' | 'category' | 'tag'

/**
 * How a plain field's value crosses the wire (storage/wire-fields.ts applies it), read from what
 * the operation's schema already checked and coerced: `flag` a boolean, shown as is; `text` a
 * text that null clears to ""; `choice` one of the row's `choices`; `url` a URL that null or ""
 * clears to null. A record without a value (a host's storage from before the field) shows the
 * field's `absent`, but for flags, which every record has.
 */
export type WireCodec = 'flag' | 'text' | 'choice' | 'url'

/** A value a plain field holds, whatever its codec. */
export type WireValue = boolean | string | null

/**
 * A plain field's wire side: a request sets it and a response shows it under one name, with
 * nothing but its codec between the two (no other field, option or caller decides its value).
 * The create and update handlers, the representations, the response schemas and the importers
 * read it through storage/wire-fields.ts; only the operation's input schema names it again.
 */
export interface Wire {
  /** Its name in requests and responses. */
  readonly name: string
  readonly codec: WireCodec
  /** What a create that leaves it out stores, per record type where that is not the codec's own (false, "" or null). */
  readonly absent?: { readonly [T in PostType]?: WireValue }
  /** A `choice`'s values: the response schema lists them (the input schema checks them). */
  readonly choices?: readonly string[]
  /**
   * An extension of ours to TEC's format: a response shows it after TEC's own keys (after
   * `custom_fields`), so that clients reading TEC's order find it unchanged.
   */
  readonly ours?: true
  /**
   * An event's column in the CSV importer (readers/csv.ts): our name for it (what `mapping`
   * keys) and the headers of TEC's CSV importer that select it.
   */
  readonly csv?: { readonly column: string; readonly headers: readonly string[] }
}

export interface Field {
  /** The column of `posts` (terms keep theirs in `terms`, read and written by their own statements). */
  readonly column?: string
  /** How the column's value is encoded; per post type where they differ. */
  readonly codec?: Codec | { readonly [T in PostType]?: Codec }
  /** The row's identity (id, type): read with every row, never set by an update. */
  readonly key?: true
  /** An event's list of linked ids, kept as rows of a link table instead of a column. */
  readonly link?: LinkKind
  readonly html?: Html
  /** A plain field's name and codec on the wire (above); absent for fields the layers treat by hand. */
  readonly wire?: Wire
  /** The record types that have the field, each with the roles it plays there (in no particular order). */
  readonly event?: readonly Role[]
  readonly venue?: readonly Role[]
  readonly organizer?: readonly Role[]
  readonly term?: readonly Role[]
}

/**
 * Posts share one table, so a field name is one column whatever the type. The order is the
 * order of the columns in a row and of a venue's or organizer's searched values.
 */
export const FIELDS = {
  id: { column: 'id', codec: 'int', key: true, event: [], venue: [], organizer: [], term: [] },
  type: { column: 'type', codec: 'text', key: true, html: 'structured', event: [], venue: [], organizer: [] },
  taxonomy: { html: 'structured', term: [] },
  language: {
    column: 'language',
    codec: 'text',
    html: 'structured',
    event: ['filtered', 'indexed', 'termCounted', 'dayCounted', 'calendar'],
    venue: [],
    organizer: [],
    term: [],
  },
  translationGroup: { column: 'translation_group', codec: 'int', event: [], venue: [], organizer: [], term: [] },
  author: { column: 'author', codec: 'int', event: ['shared'], venue: [], organizer: [] },
  status: {
    column: 'status',
    codec: 'text',
    html: 'structured',
    event: ['filtered', 'indexed', 'termCounted', 'dayCounted', 'shared', 'calendar'],
    venue: ['calendar'],
    organizer: ['calendar'],
  },
  slug: { column: 'slug', codec: 'text', html: 'structured', event: ['calendar'], venue: [], organizer: [], term: [] },
  name: { html: 'inline', term: [] },
  title: {
    column: 'title',
    codec: 'text',
    html: 'inline',
    event: ['searched', 'indexed', 'shared', 'calendar', 'shownOnly'],
    venue: ['searched', 'calendar'],
    organizer: ['searched', 'calendar'],
  },
  description: {
    column: 'description',
    codec: 'text',
    html: 'rich',
    event: ['searched', 'indexed', 'shared', 'calendar', 'shownOnly'],
    venue: ['searched'],
    organizer: ['searched'],
    term: [],
  },
  excerpt: {
    column: 'excerpt',
    codec: 'text',
    html: 'rich',
    event: ['searched', 'indexed', 'shared', 'calendar', 'shownOnly'],
    venue: ['searched'],
    organizer: ['searched'],
  },
  parent: { term: [] },
  date: { column: 'post_date', codec: 'text', html: 'structured', event: [], venue: [], organizer: [] },
  dateUtc: { column: 'post_date_utc', codec: 'text', html: 'structured', event: [], venue: [], organizer: [] },
  modified: { column: 'modified', codec: 'text', html: 'structured', event: ['shownOnly'], venue: [], organizer: [] },
  modifiedUtc: { column: 'modified_utc', codec: 'text', html: 'structured', event: ['shownOnly'], venue: [], organizer: [] },
  image: { column: 'image', codec: 'json', event: ['shared', 'shownOnly'], venue: [], organizer: [] },
  revision: { column: 'revision', codec: 'int', event: ['shownOnly'], venue: [], organizer: [] },
  startDate: { column: 'start_date', codec: 'text', html: 'structured', event: ['filtered', 'indexed', 'dayCounted', 'calendar'] },
  endDate: { column: 'end_date', codec: 'text', html: 'structured', event: ['filtered', 'dayCounted', 'calendar'] },
  startDateUtc: { column: 'start_date_utc', codec: 'text', html: 'structured', event: ['calendar'] },
  endDateUtc: { column: 'end_date_utc', codec: 'text', html: 'structured', event: ['calendar'] },
  timezone: { column: 'timezone_name', codec: 'text', html: 'structured', event: ['shared', 'calendar'] },
  allDay: { column: 'all_day', codec: 'bool', event: ['shared', 'calendar'] },
  // A list of texts, each filtered.
  cost: { column: 'cost', codec: 'json', html: 'inline', event: ['shared', 'shownOnly'] },
  currencySymbol: { column: 'currency_symbol', codec: 'text', html: 'inline', event: ['shared', 'shownOnly'] },
  currencyPosition: { column: 'currency_position', codec: 'text', html: 'structured', event: ['shared', 'shownOnly'] },
  currencyCode: { column: 'currency_code', codec: 'text', html: 'inline', event: ['shared', 'shownOnly'] },
  // A venue's map flags are on unless a create says otherwise; an event's are off.
  showMap: {
    column: 'show_map',
    codec: 'bool',
    wire: { name: 'show_map', codec: 'flag', absent: { venue: true }, csv: { column: 'event_show_map', headers: ['Event Show Map'] } },
    event: ['shared', 'shownOnly'],
    venue: [],
  },
  showMapLink: {
    column: 'show_map_link',
    codec: 'bool',
    wire: {
      name: 'show_map_link',
      codec: 'flag',
      absent: { venue: true },
      csv: { column: 'event_show_map_link', headers: ['Event Show Map Link'] },
    },
    event: ['shared', 'shownOnly'],
    venue: [],
  },
  hideFromListings: {
    column: 'hide_from_listings',
    codec: 'bool',
    wire: {
      name: 'hide_from_listings',
      codec: 'flag',
      csv: { column: 'event_hide', headers: ['Hide from Event Listings', 'Hide Event From Event Listings', 'Event Hide From Upcoming'] },
    },
    event: ['filtered', 'indexed', 'dayCounted', 'shared'],
  },
  sticky: {
    column: 'sticky',
    codec: 'bool',
    wire: {
      name: 'sticky',
      codec: 'flag',
      csv: { column: 'event_sticky', headers: ['Event Sticky in Month View', 'Sticky in Month View'] },
    },
    event: ['shared'],
  },
  featured: {
    column: 'featured',
    codec: 'bool',
    wire: { name: 'featured', codec: 'flag', csv: { column: 'feature_event', headers: ['Feature Event', 'Event Featured'] } },
    event: ['shared'],
  },
  parentId: { column: 'parent_id', codec: 'int', event: [] },
  // The event_status list filter reads it from posts: not shownOnly.
  eventStatus: { column: 'event_status', codec: 'text', html: 'structured', event: ['shared', 'calendar'] },
  eventStatusReason: {
    column: 'event_status_reason',
    codec: 'text',
    html: 'inline',
    wire: { name: 'event_status_reason', codec: 'text', ours: true },
    event: ['shared', 'shownOnly'],
  },
  previousStartDate: { column: 'previous_start_date', codec: 'nullableText', html: 'structured', event: ['shownOnly'] },
  attendanceMode: {
    column: 'attendance_mode',
    codec: 'text',
    html: 'structured',
    wire: { name: 'attendance_mode', codec: 'choice', choices: ATTENDANCE_MODES, absent: { event: 'offline' }, ours: true },
    event: ['shared', 'calendar', 'shownOnly'],
  },
  virtualUrl: {
    column: 'virtual_url',
    codec: 'nullableText',
    html: 'structured',
    wire: { name: 'virtual_url', codec: 'url', ours: true },
    event: ['shared', 'calendar', 'shownOnly'],
  },
  sequence: { column: 'ical_sequence', codec: 'int', event: ['shownOnly'] },
  seriesId: { column: 'series_id', codec: 'int', event: [] },
  // A feed shows part of it (its rule, RECURRENCE-ID, detachment): compared by sequence.ts itself.
  series: { column: 'series', codec: 'json', event: [] },
  venueIds: { link: 'venue', event: ['filtered', 'shared', 'calendar'] },
  organizerIds: { link: 'organizer', event: ['filtered', 'shared', 'calendar'] },
  categoryIds: { link: 'category', event: ['filtered', 'termCounted', 'shared', 'calendar'] },
  tagIds: { link: 'tag', event: ['filtered', 'termCounted', 'shared'] },
  address: { column: 'address', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  city: { column: 'city', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  country: { column: 'country', codec: 'text', html: 'inline', venue: ['calendar'] },
  province: { column: 'province', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  state: { column: 'state', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  stateprovince: { column: 'stateprovince', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  zip: { column: 'zip', codec: 'text', html: 'inline', venue: ['searched', 'calendar'] },
  phone: { column: 'phone', codec: 'text', html: 'inline', venue: ['searched'], organizer: ['searched', 'calendar'] },
  email: { column: 'email', codec: 'text', html: 'inline', organizer: ['searched', 'calendar'] },
  // An event's is null until set (its representation then shows the permalink).
  website: {
    column: 'website',
    codec: { event: 'nullableText', venue: 'text', organizer: 'text' },
    html: 'structured',
    event: ['shared', 'shownOnly'],
    venue: [],
    organizer: ['searched'],
  },
  geoLat: { column: 'geo_lat', codec: 'real', venue: ['calendar'] },
  geoLng: { column: 'geo_lng', codec: 'real', venue: ['calendar'] },
  // The host's declared fields, one JSON object (storage/custom-values.ts). Text values are
  // filtered per declaration by the resources (a textarea as rich, a text as inline), so the
  // storage-boundary filter, which reads no declarations, leaves the object alone: no `html`.
  // A feed shows URL fields (representation/ical.ts); venues and organizers only show them.
  customFields: {
    column: 'custom_fields',
    codec: 'json',
    event: ['searched', 'indexed', 'customIndexed', 'filtered', 'shared', 'calendar'],
    venue: [],
    organizer: [],
  },
} as const satisfies Record<string, Field>

type Table = typeof FIELDS
export type FieldName = keyof Table

/** The fields a kind of record has. */
export type FieldOf<T extends Kind> = { [K in FieldName]: Table[K] extends { readonly [P in T]: readonly Role[] } ? K : never }[FieldName]

/** The fields that play `R` in a kind of record. */
export type FieldWhere<T extends Kind, R extends Role> = {
  [K in FieldName]: Table[K] extends { readonly [P in T]: readonly (infer X)[] } ? (R extends X ? K : never) : never
}[FieldName]

const entries = Object.entries(FIELDS) as Array<[FieldName, Field]>

/** Every field of a kind of record, in table order. */
export function fieldsOf<T extends Kind>(kind: T): Array<FieldOf<T>> {
  return entries.filter(([, f]) => f[kind] !== undefined).map(([name]) => name as FieldOf<T>)
}

/** The fields that play `role` in a kind of record, in table order. */
export function fieldsWhere<T extends Kind, R extends Role>(kind: T, role: R): Array<FieldWhere<T, R>> {
  return entries.filter(([, f]) => f[kind]?.includes(role)).map(([name]) => name as FieldWhere<T, R>)
}

/** The names of the fields the HTML filter treats as `html`, whatever their record type. */
export function fieldsWithHtml(html: Html): FieldName[] {
  return entries.filter(([, f]) => f.html === html).map(([name]) => name)
}

/** A posts column: the field it holds and how its value is encoded for this type. */
export interface ColumnSpec {
  field: string
  column: string
  codec: Codec
}

/** The columns a post of `type` is stored in, in table order, but for its identity (id, type). */
export function columnsOf(type: PostType): ColumnSpec[] {
  const out: ColumnSpec[] = []
  for (const [name, f] of entries) {
    if (f[type] === undefined || f.key || f.column === undefined || f.codec === undefined) continue
    out.push({ field: name, column: f.column, codec: typeof f.codec === 'string' ? f.codec : f.codec[type]! })
  }
  return out
}

/** The identity columns every post row is read with, in table order. */
export const KEY_COLUMNS: readonly string[] = entries.filter(([, f]) => f.key).map(([, f]) => f.column!)

/** An event's lists of linked ids (venueIds, ...). */
export type LinkField = {
  [K in FieldName]: Table[K] extends { readonly link: LinkKind; readonly event: readonly Role[] } ? K : never
}[FieldName]

/** An event's link lists with the kind of record each one holds, in table order. */
export const EVENT_LINKS: ReadonlyArray<{ field: LinkField; kind: LinkKind }> = entries
  .filter(([, f]) => f.event !== undefined && f.link !== undefined)
  .map(([name, f]) => ({ field: name as LinkField, kind: f.link! }))

// The check that keeps the table whole: each record type's fields are exactly those declared.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Assert<T extends true> = T
export type DeclaresEveryField = [
  Assert<Same<FieldOf<'event'>, keyof EventRecord>>,
  Assert<Same<FieldOf<'venue'>, keyof VenueRecord>>,
  Assert<Same<FieldOf<'organizer'>, keyof OrganizerRecord>>,
  Assert<Same<FieldOf<'term'>, keyof TermRecord>>,
]
