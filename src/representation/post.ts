/**
 * Event, venue and organizer representations, field for field and in TEC's key order
 * (docs/wire-compatibility.md §2.1). `single` adds `json_ld`, as single reads do.
 */
import type { Context } from '../context.js'
import { globalId, permalink, restUrl } from '../urls.js'
import type { EventRecord, OrganizerRecord, PostRecord, TermWithCount, VenueRecord } from '../storage/types.js'
import { dateDetails } from '../time/format.js'
import { timezoneAbbr } from '../time/zone.js'
import { image, languageFields, pruneEmpty, type Json } from './common.js'
import { costValues, formatCost } from './cost.js'
import { eventJsonLd, organizerJsonLd, venueJsonLd } from './json-ld.js'
import { eventOrganizers, eventVenues, type Relations } from './embedded.js'
import { embeddedTerm } from './term.js'
import { fieldsFor } from '../custom-fields/declarations.js'
import { shownValues } from '../custom-fields/values.js'
import { showPlain } from '../storage/wire-fields.js'

/**
 * A record's `custom_fields` in TEC's shape (`{ key: { label, value } }`, `[]` when none): the
 * fields declared today for its type, with values valid under their declaration.
 */
export const customFieldsJson = (ctx: Context, p: PostRecord): Json | [] =>
  shownValues(fieldsFor(ctx.options.customFields, p.type), p.customFields)

/** Venues and organizers show `custom_fields` only when the host declares fields for them (TEC's have none). */
const linkedCustomFields = (ctx: Context, p: VenueRecord | OrganizerRecord): Json =>
  fieldsFor(ctx.options.customFields, p.type).length ? { custom_fields: customFieldsJson(ctx, p) } : {}

function header(ctx: Context, p: PostRecord): Json {
  return {
    id: p.id,
    author: String(p.author),
    status: p.status,
    date: p.date,
    date_utc: p.dateUtc,
    modified: p.modified,
    modified_utc: p.modifiedUtc,
    url: permalink(ctx, p.type, p),
  }
}

/**
 * An event's own fields, `id` to `featured`: everything that comes from its row alone and the
 * request's link roots (never the caller), so it is cached per record version.
 */
export function eventHead(ctx: Context, e: EventRecord): Json {
  const gid = globalId(ctx, e.id)
  const { id, author, status, date, date_utc, modified, modified_utc, url } = header(ctx, e)
  const head: Json = {
    id,
    global_id: gid,
    global_id_lineage: [gid],
    author,
    status,
    date,
    date_utc,
    modified,
    modified_utc,
    url,
    rest_url: restUrl(ctx, `events/${e.id}`),
    title: e.title,
    description: e.description,
    excerpt: e.excerpt,
    slug: e.slug,
    image: image(e.image),
    all_day: e.allDay,
    start_date: e.startDate,
    start_date_details: dateDetails(e.startDate),
    end_date: e.endDate,
    end_date_details: dateDetails(e.endDate),
    utc_start_date: e.startDateUtc,
    utc_start_date_details: dateDetails(e.startDateUtc),
    utc_end_date: e.endDateUtc,
    utc_end_date_details: dateDetails(e.endDateUtc),
    timezone: e.timezone,
    timezone_abbr: e.timezone ? timezoneAbbr(e.timezone, e.startDateUtc) : '',
    cost: formatCost(e, ctx.options.currency),
    cost_details: {
      currency_symbol: e.currencySymbol,
      currency_code: e.currencyCode,
      currency_position: e.currencyPosition,
      values: costValues(e.cost),
    },
    website: e.website ?? url,
  }
  // The plain fields close the head, in the field table's order (TEC's own order: the map flags to featured).
  showPlain('event', 'tec', e, head)
  return head
}

/**
 * TEC's Event Status and Virtual Events fields, after TEC's own keys (`custom_fields`) so that
 * clients reading TEC's order find it unchanged: the status (which a date move may change, so
 * not a plain field), then the plain fields of ours (fields.ts, `wire.ours`).
 */
export function eventStatusFields(e: EventRecord): Json {
  const out: Json = { event_status: e.eventStatus ?? 'scheduled' }
  showPlain('event', 'ours', e, out)
  return out
}

/** Categories or tags as embedded: by name, then id. */
/**
 * The order `String.prototype.localeCompare` gives without arguments (the default locale), from
 * one collator made once: `localeCompare` makes one per call.
 */
const byName = new Intl.Collator().compare

export function sortedTerms(ids: number[], rel: Relations): TermWithCount[] {
  return ids
    .map((id) => rel.terms.get(id))
    .filter((t) => t !== undefined)
    .sort((a, b) => byName(a.name, b.name) || a.id - b.id)
}

/**
 * The whole event, its embeds as `rel` holds them for this caller. After `translations` come
 * `json_ld` (single reads of published events) and the series fields the resource appends.
 * representation/post-text.ts writes the same object as text, from cached fragments.
 */
export function eventJson(ctx: Context, e: EventRecord, rel: Relations, single = false): Json {
  const venues = eventVenues(e, rel)
  const organizers = eventOrganizers(e, rel)
  const out: Json = {
    ...eventHead(ctx, e),
    categories: sortedTerms(e.categoryIds, rel).map((t) => embeddedTerm(ctx, t)),
    tags: sortedTerms(e.tagIds, rel).map((t) => embeddedTerm(ctx, t)),
    venue:
      venues.length === 0
        ? []
        : venues.length === 1
          ? venueJson(ctx, venues[0] as VenueRecord, rel, single)
          : venues.map((v) => venueJson(ctx, v, rel, single)),
    organizer: organizers.map((o) => organizerJson(ctx, o, rel, single)),
    custom_fields: customFieldsJson(ctx, e),
    ...eventStatusFields(e),
    ...languageFields(ctx, e, rel),
  }
  if (single && e.status === 'publish') out.json_ld = eventJsonLd(ctx, e, venues[0], organizers[0])
  return out
}

/** A venue's fields but `language`/`translations`: its row and the link roots only. */
export function venueOwn(ctx: Context, v: VenueRecord, single: boolean): Json {
  const gid = globalId(ctx, v.id)
  const body = pruneEmpty({
    ...header(ctx, v),
    author: v.author ? String(v.author) : '',
    venue: v.title,
    description: v.description,
    excerpt: v.excerpt,
    slug: v.slug,
    image: image(v.image),
    address: v.address,
    city: v.city,
    country: v.country,
    province: v.province,
    state: v.state,
    zip: v.zip,
    phone: v.phone,
    website: v.website,
    stateprovince: v.stateprovince,
  })
  if (v.geoLat !== null && v.geoLng !== null) {
    body.geo_lat = v.geoLat
    body.geo_lng = v.geoLng
  }
  if (single && v.status === 'publish') body.json_ld = venueJsonLd(ctx, v)
  // The plain fields (the map flags) are never pruned: TEC shows them when false too.
  showPlain('venue', 'tec', v, body)
  const own: Json = { ...body, global_id: gid, global_id_lineage: [gid], ...linkedCustomFields(ctx, v) }
  showPlain('venue', 'ours', v, own)
  return own
}

export function venueJson(ctx: Context, v: VenueRecord, rel: Relations, single = false): Json {
  return { ...venueOwn(ctx, v, single), ...languageFields(ctx, v, rel) }
}

/** An organizer's fields but `language`/`translations`. */
export function organizerOwn(ctx: Context, o: OrganizerRecord, single: boolean): Json {
  const gid = globalId(ctx, o.id)
  const body = pruneEmpty({
    ...header(ctx, o),
    author: o.author ? String(o.author) : '',
    organizer: o.title,
    description: o.description,
    excerpt: o.excerpt,
    slug: o.slug,
    image: image(o.image),
    phone: o.phone,
    website: o.website,
    email: o.email,
  })
  if (single && o.status === 'publish') body.json_ld = organizerJsonLd(ctx, o)
  showPlain('organizer', 'tec', o, body)
  const own: Json = { ...body, global_id: gid, global_id_lineage: [gid], ...linkedCustomFields(ctx, o) }
  showPlain('organizer', 'ours', o, own)
  return own
}

export function organizerJson(ctx: Context, o: OrganizerRecord, rel: Relations, single = false): Json {
  return { ...organizerOwn(ctx, o, single), ...languageFields(ctx, o, rel) }
}
