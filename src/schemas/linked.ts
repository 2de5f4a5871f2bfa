/** Venue and organizer operations' parameters (docs/wire-compatibility.md §7.5, §7.7). */
import * as v from 'valibot'
import * as p from './primitives.js'
import type { ParamDefs } from './operation.js'
import { wire } from './wire.js'
import { coordinateWriteParams, geoFilterParams } from './geo.js'
import type { SchemaConfig } from './common.js'
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
} from './common.js'
import { customWriteParams } from './custom-fields.js'

const TRUTHY = new Set(['1', 'true', 'yes', 'on'])

/** TEC stores venue map flags as strings; JSON booleans are accepted too (docs/wire-compatibility.md §5.5). */
export const flag = () =>
  wire(
    v.pipe(
      v.union([v.string(), v.boolean(), v.number()], p.failure('rest_invalid_type', '{name} is not of type string.')),
      v.transform((x) => (typeof x === 'string' ? TRUTHY.has(x.trim().toLowerCase()) : Boolean(x))),
    ),
    { type: ['string', 'boolean'] },
  )

/** A loose truthy/falsy filter (`has_events`, `only_with_upcoming`). */
export const truthiness = () =>
  wire(
    v.pipe(
      v.union([v.string(), v.boolean(), v.number()], p.INVALID),
      v.transform((x) => (typeof x === 'string' ? TRUTHY.has(x.trim().toLowerCase()) : Boolean(x))),
    ),
    {},
  )

const field = (description: string, max = 500) => ({ schema: v.nullable(p.text(max)), description })

export function linkedListParams(c: SchemaConfig, what: 'venue' | 'organizer') {
  return {
    page: pageParam,
    per_page: perPageParam(c.perPage),
    search: {
      schema: v.pipe(p.nonEmptyString(), v.maxLength(200, p.INVALID)),
      description: `${what === 'venue' ? 'Venues' : 'Organizers'} where one field contains every word of the string.`,
      in: 'query',
    },
    event: { schema: p.positiveInt(), description: `${what === 'venue' ? 'Venues' : 'Organizers'} linked to this event ID.`, in: 'query' },
    has_events: { schema: truthiness(), description: 'Only records linked to (true) or not linked to (false) events.', in: 'query' },
    only_with_upcoming: { schema: truthiness(), default: false, description: 'Only records linked to upcoming events.', in: 'query' },
    status: statusListParam(what),
    ...(what === 'venue' ? geoFilterParams('Venues', c) : {}),
    sync_token: syncTokenParam,
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

/** The fields venues and organizers share, around their name (`venue` or `organizer`), in /doc's order. */
const before = {
  author: authorParam,
  date: { schema: p.dateInput(true), description: 'Publication date, site time.' },
  date_utc: { schema: p.dateInput(true), description: 'Publication date, UTC.' },
}

const nameParam = <C extends boolean>(name: 'venue' | 'organizer', create: C) => ({
  schema: v.pipe(p.nonEmptyString(), v.maxLength(1000, p.INVALID)),
  required: create,
  description: `The ${name} name.`,
})

const after = (create: boolean, name: 'venue' | 'organizer') => ({
  description: field('The description (HTML allowed).', 1_000_000),
  excerpt: field('The excerpt.', 65535),
  status: statusParam(name, !create),
})

export function venueWriteParams<C extends boolean>(c: SchemaConfig, create: C) {
  return {
    ...before,
    venue: nameParam('venue', create),
    ...after(create, 'venue'),
    show_map: { schema: flag(), description: 'Whether events at the venue show a map ("1"/"true"/"yes"/"on", or a boolean).' },
    show_map_link: { schema: flag(), description: 'Whether events at the venue show a map link.' },
    address: field('Street address.'),
    city: field('City.'),
    country: field('Country.'),
    province: field('Province.'),
    state: field('State.'),
    zip: field('ZIP or postal code.', 50),
    phone: field('Phone number.', 100),
    stateprovince: field('State or province (derived from state/province/country when not given).'),
    website: { schema: p.urlOrEmpty(), description: 'Website URL.' },
    ...coordinateWriteParams,
    image: imageParam,
    ...customWriteParams(c.customFields ?? [], 'venue', create),
    ...(create ? { translation_of: translationOfParam } : {}),
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function organizerWriteParams<C extends boolean>(c: SchemaConfig, create: C) {
  return {
    ...before,
    organizer: nameParam('organizer', create),
    ...after(create, 'organizer'),
    phone: field('Phone number.', 100),
    website: { schema: p.urlOrEmpty(), description: 'Website URL.' },
    email: field('E-mail address.', 320),
    image: imageParam,
    ...customWriteParams(c.customFields ?? [], 'organizer', create),
    ...(create ? { translation_of: translationOfParam } : {}),
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}

export function linkedIdParams(c: SchemaConfig, what: 'venue' | 'organizer') {
  return { id: idParam(what), multilingual_language: languageParam(c.languages) } satisfies ParamDefs
}

export function linkedSlugParams(c: SchemaConfig, what: 'venue' | 'organizer') {
  return { slug: slugPathParam(what), multilingual_language: languageParam(c.languages) } satisfies ParamDefs
}

export function linkedDeleteParams(c: SchemaConfig, what: 'venue' | 'organizer', bySlug: boolean) {
  return {
    ...(bySlug ? { slug: slugPathParam(what) } : { id: idParam(what) }),
    force: forceParam,
    multilingual_language: languageParam(c.languages),
  } satisfies ParamDefs
}
