/** The event operations' parameters (docs/wire-compatibility.md §7.2–7.4, §7.7). */
import * as v from 'valibot'
import * as p from './primitives.js'
import { requiredIf, type ParamDefs } from './operation.js'
import { wire, type JsonSchema } from './wire.js'
import { linkedInput, termsInput } from './inputs.js'
import { geoFilterParams } from './geo.js'
import { addDays, addMonths } from '../time/format.js'
import { ATTENDANCE_MODES, EVENT_STATUSES, type EventStatus } from '../storage/types.js'
import {
  authorParam,
  idParam,
  imageParam,
  languageParam,
  pageParam,
  perPageParam,
  slugPathParam,
  statusListParam,
  statusParam,
  forceParam,
  translationOfParam,
  syncTokenParam,
  type SchemaConfig,
} from './common.js'
import { recurrenceScopeParam, seriesListParams, seriesWriteParams } from './series.js'
import { customFilterParams, customWriteParams } from './custom-fields.js'

/**
 * A JSON number the cost keeps as given: the parser has already rounded a longer integer to a
 * double, made 1e400 Infinity, and a number printed with an exponent would be text, not a price
 * (docs/wire-compatibility.md §7.8). Such costs are sent as strings, whose digits are kept.
 */
const exactCostNumber = (n: number) => Math.abs(n) <= Number.MAX_SAFE_INTEGER && !/e/i.test(String(n))

/** Linked records: IDs, slugs/names or data objects, validated by the resource (docs/wire-compatibility.md §5.5, §7.7). */
const linkList = (description: string, json: JsonSchema, create: boolean) => ({
  schema: wire(v.unknown(), json),
  ...(create ? { default: null } : {}),
  description,
})

const formatParam = {
  schema: wire(v.pipe(p.string(), v.picklist(['json', 'ics'], p.INVALID)), { type: 'string', enum: ['json', 'ics'] }),
  description:
    'ics answers an RFC 5545 iCalendar document (as does Accept: text/calendar with a higher quality than JSON). ' +
    'A list without page or per_page holds the whole date window, up to the feed cap (X-Calendar-Truncated says when it stops).',
  in: 'query' as const,
} satisfies ParamDefs[string]

export function eventListParams(c: SchemaConfig) {
  return {
    page: pageParam,
    per_page: perPageParam(c.perPage),
    start_date: {
      schema: p.dateInput(),
      shownDefault: ({ local }) => `${addDays(local, -1).slice(0, 10)} 23:59:00`,
      description: 'Events that start on or after this date (whole days unless strict_dates).',
      in: 'query',
    },
    end_date: {
      schema: p.dateInput(),
      shownDefault: ({ local }) => addMonths(local, 24),
      description: 'Events that end on or before this date (whole days unless strict_dates).',
      in: 'query',
    },
    starts_before: { schema: p.dateInput(), description: 'Events that start before this date.', in: 'query' },
    starts_after: { schema: p.dateInput(), description: 'Events that start after this date.', in: 'query' },
    ends_before: { schema: p.dateInput(), description: 'Events that end before this date.', in: 'query' },
    ends_after: { schema: p.dateInput(), description: 'Events that end after this date.', in: 'query' },
    strict_dates: {
      schema: p.boolean(),
      description: 'Compare dates exactly instead of by whole days.',
      in: 'query',
    },
    search: {
      schema: v.pipe(p.nonEmptyString(), v.maxLength(200, p.INVALID)),
      description: 'Events whose title, description or excerpt contain every word.',
      in: 'query',
    },
    categories: {
      schema: p.termRefList(),
      description: 'Events in one of these categories (IDs or slugs, children included).',
      in: 'query',
    },
    tags: { schema: p.termRefList(), description: 'Events with one of these tags (IDs or slugs).', in: 'query' },
    venue: { schema: p.positiveIntList(), description: 'Events at one of these venue IDs.', in: 'query' },
    organizer: { schema: p.positiveIntList(), description: 'Events by one of these organizer IDs.', in: 'query' },
    featured: { schema: p.boolean(), description: 'Only featured (true) or only non-featured (false) events.', in: 'query' },
    event_status: {
      schema: wire(
        v.pipe(
          v.unknown(),
          v.check(
            (x) => {
              const list = p.splitList(x)
              return (
                list !== null &&
                list.length > 0 &&
                list.every((s) => typeof s === 'string' && (EVENT_STATUSES as readonly string[]).includes(s))
              )
            },
            p.failure('rest_not_in_enum', `{name} is not one of ${EVENT_STATUSES.join(', ')}.`),
          ),
          v.transform((x) => [...new Set(p.splitList(x) as EventStatus[])]),
        ),
        { type: 'array', items: { type: 'string', enum: [...EVENT_STATUSES] } },
      ),
      description: 'Only events of these event statuses (scheduled, canceled, postponed; array or comma list).',
      in: 'query',
    },
    status: statusListParam('event'),
    ...customFilterParams(c.customFields ?? []),
    ...geoFilterParams('Events', c),
    include: {
      schema: p.positiveIntList(),
      description: 'Only these event IDs (array or comma list); date filters are then ignored.',
      in: 'query',
    },
    post_parent: {
      schema: p.positiveInt(),
      description: 'Events whose parent is this event ID (the later occurrences of a series).',
      in: 'query',
    },
    ...seriesListParams,
    format: formatParam,
    sync_token: syncTokenParam,
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

/** Body fields of create and update; `required` marks what a create needs. */
export function eventWriteParams<C extends boolean>(c: SchemaConfig, create: C) {
  return {
    author: authorParam,
    date: { schema: p.dateInput(true), description: 'Publication date, site time.' },
    date_utc: { schema: p.dateInput(true), description: 'Publication date, UTC.' },
    title: { schema: v.pipe(p.nonEmptyString(), v.maxLength(1000, p.INVALID)), ...requiredIf(create), description: 'The event title.' },
    description: { schema: v.nullable(p.text(1_000_000)), description: 'The event description (HTML allowed).' },
    slug: { schema: v.pipe(p.nonEmptyString(), v.maxLength(400, p.INVALID)), description: 'The event slug.' },
    excerpt: { schema: v.nullable(p.text()), description: 'The event excerpt.' },
    status: statusParam('event', !create),
    timezone: { schema: v.nullable(p.timezone()), description: 'The event time zone: an IANA name, UTC or UTC±H[:MM].' },
    all_day: { schema: p.boolean(), ...(create ? { default: false } : {}), description: 'The event lasts the whole day.' },
    start_date: { schema: p.dateInput(true), ...requiredIf(create), description: 'Start date and time, in the event time zone.' },
    end_date: { schema: p.dateInput(true), ...requiredIf(create), description: 'End date and time, in the event time zone.' },
    image: imageParam,
    cost: {
      schema: wire(
        v.pipe(
          v.unknown(),
          v.check(
            (x) =>
              x === null ||
              typeof x === 'string' ||
              typeof x === 'number' ||
              (Array.isArray(x) && x.length <= 50 && x.every((i) => typeof i === 'string' || typeof i === 'number')),
            p.INVALID,
          ),
          v.check((x) => JSON.stringify(x ?? '').length <= 2000, p.INVALID),
          v.check(
            (x) => (Array.isArray(x) ? x : [x]).every((i) => typeof i !== 'number' || exactCostNumber(i)),
            p.failure('rest_invalid_param', '{name} holds a number JSON cannot carry exactly; send it as a string.'),
          ),
        ),
        {
          anyOf: [
            { type: 'string' },
            { type: 'number' },
            { type: 'array', items: { type: ['string', 'number'] }, maxItems: 50 },
            { type: 'null' },
          ],
        },
      ),
      description: 'The event cost: a string, a number or a list of them.',
    },
    website: { schema: p.urlOrEmpty(), ...(create ? { default: null } : {}), description: 'The event website URL.' },
    show_map: { schema: p.boolean(), description: 'Show a map.' },
    show_map_link: { schema: p.boolean(), description: 'Show a map link.' },
    hide_from_listings: { schema: p.boolean(), description: 'Hide the event from listings.' },
    sticky: { schema: p.boolean(), description: 'Sticky in the calendar view.' },
    featured: { schema: p.boolean(), description: 'Featured on the site.' },
    event_status: {
      schema: p.oneOf(EVENT_STATUSES),
      description: 'scheduled (the default), canceled or postponed: a cancelled event stays listed, and calendars strike it.',
    },
    event_status_reason: { schema: v.nullable(p.text(1000)), description: 'Why the event was cancelled or postponed.' },
    attendance_mode: { schema: p.oneOf(ATTENDANCE_MODES), description: 'offline (at the venue, the default), online or mixed.' },
    virtual_url: { schema: p.urlOrEmpty(), description: 'Where to attend online (http or https); null or "" clears it.' },
    categories: linkList('Category IDs, slugs or names (array or comma list); new names create categories.', termsInput, create),
    tags: linkList('Tag IDs, slugs or names (array or comma list); new names create tags.', termsInput, create),
    venue: linkList('The venue: an ID, {"id": N}, or venue data to create (or reuse an exact match).', linkedInput('venueCreate'), create),
    organizer: linkList('Organizers: IDs, {"id": N} or organizer data, a list or a single one.', linkedInput('organizerCreate'), create),
    ...customWriteParams(c.customFields ?? [], 'event', create),
    ...(create ? { translation_of: translationOfParam } : {}),
    ...seriesWriteParams(create),
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function eventIdParams(c: SchemaConfig) {
  return { id: idParam('event'), format: formatParam, multilingual_language: languageParam(c.languages) } satisfies ParamDefs
}

export function eventDeleteParams(c: SchemaConfig, bySlug: boolean) {
  return {
    ...(bySlug ? { slug: slugPathParam('event') } : { id: idParam('event') }),
    force: forceParam,
    recurrence_scope: recurrenceScopeParam,
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function eventSlugParams(c: SchemaConfig) {
  return { slug: slugPathParam('event'), format: formatParam, multilingual_language: languageParam(c.languages) } satisfies ParamDefs
}
