/**
 * What responses look like, as valibot schemas: /doc publishes them (components.schemas) and
 * tests check real responses against the published document.
 */
import * as v from 'valibot'
import {
  plainPart,
  type PlainFieldOf,
  type WireChoicesOf,
  type WireCodecOf,
  type WireNameOf,
  type WirePart,
  type WirePartOf,
} from '../storage/wire-fields.js'
import type { FieldName, WireCodec } from '../storage/fields.js'
import type { PostType } from '../storage/types.js'

const str = v.string()
const int = v.pipe(v.number(), v.integer())
const wall = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), v.description('YYYY-MM-DD HH:MM:SS'))

export const DateDetails = v.object({
  year: str,
  month: str,
  day: str,
  hour: str,
  minutes: str,
  seconds: str,
})

export const CostDetails = v.object({
  currency_symbol: str,
  currency_code: str,
  currency_position: v.picklist(['', 'prefix', 'postfix']),
  values: v.array(str),
})

export const Image = v.union([
  v.literal(false),
  v.object({
    url: str,
    id: v.optional(int),
    extension: v.optional(str),
    width: v.optional(int),
    height: v.optional(int),
    filesize: v.optional(int),
    'mime-type': v.optional(str),
  }),
])

const TermUrls = v.object({ self: str, collection: str, up: v.optional(str) })
const Translations = v.pipe(v.record(v.string(), int), v.description('Other languages of this record → their IDs.'))

export const EmbeddedTerm = v.object({
  name: str,
  slug: str,
  term_group: int,
  term_taxonomy_id: int,
  taxonomy: v.picklist(['tribe_events_cat', 'post_tag']),
  description: str,
  parent: int,
  count: int,
  filter: v.literal('raw'),
  id: int,
  urls: TermUrls,
})

const Link = v.array(
  v.object({
    href: str,
    embeddable: v.optional(v.boolean()),
    targetHints: v.optional(v.object({ allow: v.array(str) })),
    name: v.optional(str),
    templated: v.optional(v.boolean()),
  }),
)

export const Term = v.object({
  id: int,
  count: int,
  description: str,
  name: str,
  slug: str,
  taxonomy: v.picklist(['tribe_events_cat', 'post_tag']),
  parent: v.optional(int),
  meta: v.array(v.unknown()),
  url: str,
  urls: TermUrls,
  language: str,
  translations: v.optional(Translations),
  _links: v.optional(v.record(v.string(), Link)),
})

const postHeader = {
  id: int,
  author: v.optional(str),
  status: v.picklist(['publish', 'future', 'draft', 'pending', 'private', 'trash']),
  date: wall,
  date_utc: wall,
  modified: wall,
  modified_utc: wall,
  url: str,
}

const lineage = { global_id: str, global_id_lineage: v.array(str), language: str, translations: Translations }

/** An extension of ours: on imported records, for callers who may edit them (docs/importing.md). */
const ImportSource = v.pipe(
  v.object({
    source: v.pipe(
      str,
      v.description("The source's name: `ics:https://…`, `csv:events.csv`, `tec:https://site.example`, or the name the import gave."),
    ),
    source_id: v.pipe(str, v.description("The record's id at the source: iCalendar UID, TEC global_id, CSV key.")),
    imported_at: v.pipe(wall, v.description('When the last import wrote or confirmed the record, UTC.')),
  }),
  v.description('Where this record was imported from. Only for callers who may edit the record; absent on records never imported.'),
)
const importFields = { import_source: v.optional(ImportSource) }
const optionalStr = v.optional(str)

/** What a plain field's codec (storage/fields.ts, `wire`) shows in a response; a choice lists its own values. */
const CODEC_SCHEMAS = { flag: v.boolean(), text: str, url: v.nullable(str) } as const satisfies {
  [C in Exclude<WireCodec, 'choice'>]: v.GenericSchema
}
type PlainSchema<K extends FieldName> =
  WireCodecOf<K> extends 'choice'
    ? v.PicklistSchema<WireChoicesOf<K>, undefined>
    : (typeof CODEC_SCHEMAS)[Exclude<WireCodecOf<K>, 'choice'>]

/** One part of a kind's plain fields under their wire names, in table order (the order a response shows them in). */
function plainSchemas<T extends PostType, P extends WirePart>(
  kind: T,
  part: P,
): { [K in PlainFieldOf<T> as WirePartOf<K> extends P ? WireNameOf<K> : never]: PlainSchema<K> } {
  const schemaOf = (p: { codec: WireCodec; choices: readonly string[] }) =>
    p.codec === 'choice' ? v.picklist(p.choices) : CODEC_SCHEMAS[p.codec]
  return Object.fromEntries(plainPart(kind, part).map((p) => [p.wire, schemaOf(p)])) as never
}

export const Venue = v.object({
  ...postHeader,
  venue: str,
  description: optionalStr,
  excerpt: optionalStr,
  slug: str,
  image: v.optional(Image),
  address: optionalStr,
  city: optionalStr,
  country: optionalStr,
  province: optionalStr,
  state: optionalStr,
  zip: optionalStr,
  phone: optionalStr,
  website: optionalStr,
  stateprovince: optionalStr,
  geo_lat: v.optional(v.number()),
  geo_lng: v.optional(v.number()),
  json_ld: v.optional(v.record(v.string(), v.unknown())),
  ...plainSchemas('venue', 'tec'),
  ...lineage,
  ...plainSchemas('venue', 'ours'),
  ...importFields,
})

export const Organizer = v.object({
  ...postHeader,
  organizer: str,
  description: optionalStr,
  excerpt: optionalStr,
  slug: str,
  image: v.optional(Image),
  phone: optionalStr,
  website: optionalStr,
  email: optionalStr,
  json_ld: v.optional(v.record(v.string(), v.unknown())),
  ...plainSchemas('organizer', 'tec'),
  ...lineage,
  ...plainSchemas('organizer', 'ours'),
  ...importFields,
})

/** Recurring events (an extension of ours): on every member of a series, absent on lone events. */
const Recurrence = v.pipe(
  v.object({
    rrule: v.pipe(str, v.description('The RFC 5545 rule as stored (canonical spelling, no RRULE: prefix).')),
    rdate: v.pipe(v.array(wall), v.description('Extra occurrences, wall-clock in the event time zone.')),
    exdate: v.pipe(v.array(wall), v.description('Removed occurrences (deleted or excluded), wall-clock in the event time zone.')),
    description: v.pipe(str, v.description('The rule in short English, e.g. "Every Tuesday and Thursday, 12 times".')),
  }),
  v.description('The series rule; the same on every member.'),
)
const Series = v.pipe(
  v.object({
    id: v.pipe(int, v.description("The series: its first occurrence's ID.")),
    position: v.pipe(int, v.description('1-based place of this occurrence in the series.')),
    detached: v.pipe(v.boolean(), v.description('Edited on its own; series edits leave it alone.')),
  }),
  v.description("This event's place in its recurring series."),
)
const seriesFields = { recurrence: v.optional(Recurrence), series: v.optional(Series) }

export const Event = v.object({
  id: int,
  global_id: str,
  global_id_lineage: v.array(str),
  author: str,
  status: postHeader.status,
  date: wall,
  date_utc: wall,
  modified: wall,
  modified_utc: wall,
  url: str,
  rest_url: str,
  title: str,
  description: str,
  excerpt: str,
  slug: str,
  image: Image,
  all_day: v.boolean(),
  start_date: wall,
  start_date_details: DateDetails,
  end_date: wall,
  end_date_details: DateDetails,
  utc_start_date: wall,
  utc_start_date_details: DateDetails,
  utc_end_date: wall,
  utc_end_date_details: DateDetails,
  timezone: str,
  timezone_abbr: str,
  cost: str,
  cost_details: CostDetails,
  website: str,
  ...plainSchemas('event', 'tec'),
  event_status: v.picklist(['scheduled', 'canceled', 'postponed']),
  ...plainSchemas('event', 'ours'),
  categories: v.array(EmbeddedTerm),
  tags: v.array(EmbeddedTerm),
  venue: v.pipe(v.union([Venue, v.array(Venue)]), v.description('The venue, or [] when there is none.')),
  organizer: v.array(Organizer),
  // Typed per the host's declarations in /doc (doc/openapi.ts); [] when the event has no value.
  custom_fields: v.union([
    v.array(v.unknown()),
    v.record(v.string(), v.object({ label: v.string(), value: v.union([v.string(), v.number(), v.boolean()]) })),
  ]),
  language: str,
  translations: Translations,
  json_ld: v.optional(v.record(v.string(), v.unknown())),
  ...seriesFields,
  ...importFields,
})

const pageLinks = {
  rest_url: str,
  next_rest_url: optionalStr,
  previous_rest_url: optionalStr,
  total: int,
  total_pages: int,
  /** Incremental sync (sync_token): ids of records gone from the list since the token. */
  deleted: v.optional(v.array(int)),
  /** Incremental sync: on the last page, the token of the next sync. */
  sync_token: optionalStr,
}

export const EventList = v.object({ events: v.array(Event), ...pageLinks })
export const VenueList = v.object({ venues: v.array(Venue), ...pageLinks })
export const OrganizerList = v.object({ organizers: v.array(Organizer), ...pageLinks })
export const CategoryList = v.object({ ...pageLinks, categories: v.array(Term) })
export const TagList = v.object({ ...pageLinks, tags: v.array(Term) })

const ParamDetail = v.object({ code: str, message: str, data: v.object({ param: str }) })

export const Error = v.object({
  code: str,
  message: str,
  data: v.objectWithRest(
    {
      status: int,
      params: v.optional(
        v.pipe(
          v.union([v.record(v.string(), str), v.array(str)]),
          v.description('Invalid parameters → their messages; for missing parameters, their names.'),
        ),
      ),
      details: v.optional(
        v.pipe(
          v.union([v.record(v.string(), ParamDetail), v.array(v.unknown())]),
          v.description('Per parameter, the error object; [] when none.'),
        ),
      ),
    },
    v.unknown(),
  ),
})

export const NamespaceIndex = v.object({
  namespace: str,
  routes: v.record(v.string(), v.unknown()),
  _links: v.optional(v.unknown()),
})

export { Recurrence, Series }

export const representations = {
  Recurrence,
  Series,
  DateDetails,
  CostDetails,
  Image,
  EmbeddedTerm,
  Term,
  Venue,
  Organizer,
  Event,
  EventList,
  VenueList,
  OrganizerList,
  CategoryList,
  TagList,
  Error,
  NamespaceIndex,
}
export type RepresentationName = keyof typeof representations
