/** Parameters shared by many operations. */
import * as v from 'valibot'
import * as p from './primitives.js'
import type { ParamDef } from './operation.js'
import { wire } from './wire.js'
import type { CustomField } from '../custom-fields/declarations.js'
import { failure } from './failure.js'
import { LIVE_STATUSES, POST_STATUSES, type PostStatus } from '../storage/types.js'

/** What the operation schemas depend on: the router's options that shape validation and /doc. */
export interface SchemaConfig {
  languages: readonly string[]
  perPage: number
  /** Shown in the geoloc_radius description. */
  geofence?: { radius: number; unit: 'mi' | 'km' }
  /** The host's custom fields: the `custom_fields` parameters (schemas/custom-fields.ts). */
  customFields?: readonly CustomField[]
}

export const languageParam = (languages: readonly string[]) =>
  ({
    schema: p.oneOf(languages),
    description: 'Language of the request: lists, slugs and new records are scoped to it.',
  }) satisfies ParamDef

export const pageParam = {
  schema: p.positiveInt(),
  default: 1,
  description: 'The archive page to return.',
  in: 'query',
} satisfies ParamDef

export const perPageParam = (perPage: number) =>
  ({
    schema: p.positiveInt(),
    default: String(perPage),
    description: 'The number of items to return on each page (larger values are capped).',
    in: 'query',
  }) satisfies ParamDef

/** Incremental sync of a list (src/resources/sync.ts); a token is opaque to clients. */
export const syncTokenParam = {
  schema: v.pipe(p.nonEmptyString(), v.maxLength(2000, p.INVALID)),
  description:
    '`*` starts a full sync: every record the caller may see that matches the other filters (no date window), by id; ' +
    'follow next_rest_url, and keep the `sync_token` of the last page (also in X-Sync-Token). Sent back with the same ' +
    'other parameters, it answers what changed since: the changed records, and in `deleted` the ids of those deleted, ' +
    'trashed, hidden from the caller or no longer matching. 410 rest_sync_token_expired: start again with `*`.',
  in: 'query',
} satisfies ParamDef

export const idParam = (what: string) =>
  ({
    schema: p.integer(),
    required: true,
    description: `The ${what} ID.`,
    in: 'path',
  }) satisfies ParamDef

export const slugPathParam = (what: string) =>
  ({
    schema: v.pipe(p.string(), v.minLength(1, p.INVALID), v.maxLength(400, p.INVALID)),
    required: true,
    description: `The ${what} slug.`,
    in: 'path',
  }) satisfies ParamDef

/** WordPress's enum error, naming the values the parameter takes. */
const notOneOf = (allowed: readonly string[]) => failure('rest_not_in_enum', `{name} is not one of ${allowed.join(', ')}.`)

/** Statuses a create may set; an update may also send `trash` (moving the record there as DELETE does). */
const WRITE_STATUSES = LIVE_STATUSES
const UPDATE_STATUSES = POST_STATUSES

export const statusParam = (what: string, update = false) => {
  const allowed: readonly PostStatus[] = update ? UPDATE_STATUSES : WRITE_STATUSES
  return {
    schema: wire(v.pipe(p.string(), v.picklist(allowed, notOneOf(allowed))), { type: 'string', enum: [...allowed] }),
    description: update
      ? `The ${what} post status; trash moves it to the trash (as DELETE does), another status restores a trashed one.`
      : `The ${what} post status.`,
  } satisfies ParamDef
}

/** `force` of DELETE: skip the trash. */
export const forceParam = {
  schema: p.boolean(),
  default: false,
  description: 'Delete permanently instead of moving to the trash (the id then answers as if it never existed).',
  in: 'query',
} satisfies ParamDef

/** List filter: comma list or array of statuses; the resource decides what the caller may ask. */
export const statusListParam = (what: string) =>
  ({
    schema: wire(
      v.pipe(
        v.unknown(),
        v.check((x) => {
          const list = p.splitList(x)
          return (
            list !== null &&
            list.length > 0 &&
            list.length <= 10 &&
            list.every((s) => typeof s === 'string' && (POST_STATUSES as readonly string[]).includes(s))
          )
        }, notOneOf(POST_STATUSES)),
        v.transform((x) => [...new Set(p.splitList(x) as string[])] as Array<(typeof POST_STATUSES)[number]>),
      ),
      { type: 'string', description: 'One status or a comma-separated list.' },
    ),
    description: `The ${what} post status; a comma-separated list or an array.`,
    in: 'query',
  }) satisfies ParamDef

export const imageParam = {
  schema: wire(
    v.pipe(
      v.unknown(),
      // As a read shows it: false for none, or the image object (its id, else its URL).
      v.transform((x: unknown) => {
        if (x === false) return null
        if (x === null || typeof x !== 'object' || Array.isArray(x)) return x
        const o = x as { id?: unknown; url?: unknown }
        return typeof o.id === 'number' && o.id > 0 ? o.id : o.url
      }),
      v.union([v.string(), v.number(), v.null()], p.failure('rest_invalid_type', '{name} is not of type string.')),
      v.check((x) => x === null || x === '' || p.isPositiveIntLike(x) || (typeof x === 'string' && p.isHttpUrl(x)), p.urlFailure),
      // An image URL is stored serialized, as every URL field is.
      v.transform((x) => (typeof x === 'string' && x !== '' && !p.isPositiveIntLike(x) ? (p.httpUrlText(x) as string) : x)),
    ),
    { type: ['string', 'integer', 'null', 'boolean', 'object'] },
  ),
  description:
    "The featured image: an absolute http(s) URL, or an image ID the host can resolve; false or null for none (a read's image object is accepted too).",
} satisfies ParamDef

export const authorParam = {
  schema: p.positiveInt(),
  description: 'The author user ID.',
} satisfies ParamDef

export const translationOfParam = {
  schema: p.positiveInt(),
  description: 'Create the record as a translation of this record (same kind, another language).',
  in: 'body',
} satisfies ParamDef
