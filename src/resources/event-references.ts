/**
 * Resolving what an event write says about its venue, organizers, categories and tags into
 * record IDs, inside the write's transaction so that terms created by name commit with it.
 */
import { canManageTerms, canRead } from '../auth/principal.js'
import { ApiError, invalidParam } from '../http/errors.js'
import { validateParams } from '../schemas/operation.js'
import type { Schemas } from '../schemas/index.js'
import { insertLinked, newLinkedRecord, VENUE_ADDRESS_FIELDS, type LinkedType } from './venues-organizers.js'
import type { NewPost, StorageReader, StorageTx, Taxonomy, VenueRecord } from '../storage/types.js'
import { coordinatesOf, geocodeVenue } from './geo.js'
import { splitList, isPositiveIntLike } from '../schemas/primitives.js'
import type { Context } from '../context.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'

const isEmptyLink = (x: unknown) => x === null || x === '' || x === 0 || x === '0' || x === false || (Array.isArray(x) && x.length === 0)

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/** One item of a venue/organizer value: an existing record's id, or data for a new (or reused) one. */
type LinkItem = { id: number } | { data: Record<string, unknown> }

/** Splits the value into items: an ID, a comma list, `{id}`, a data object, or a list of those. */
function linkItems(value: unknown): LinkItem[] | null {
  const items = Array.isArray(value) ? value : isObject(value) ? [value] : splitList(value)
  if (!items || items.length > 50) return null
  const out: LinkItem[] = []
  for (const item of items) {
    if (isObject(item)) {
      if (item.id !== undefined && item.id !== null && item.id !== '') {
        if (!isPositiveIntLike(item.id)) return null
        out.push({ id: Number(item.id) })
      } else out.push({ data: item })
    } else if (isPositiveIntLike(item)) out.push({ id: Number(item) })
    else return null
  }
  return out
}

const couldNotCreate = (type: LinkedType, detail: string) =>
  invalidParam(type, { code: `could-not-create-${type}`, message: `The ${type} could not be created from the provided data: ${detail}` })

type PreparedItem<T extends LinkedType> = { id: number } | { record: Omit<NewPost<T>, 'slug'> }

/** A venue/organizer value validated (and its new records built) ahead of the write's transaction. */
export class PreparedLinks<T extends LinkedType = LinkedType> {
  constructor(
    readonly type: T,
    readonly items: PreparedItem<T>[],
  ) {}
}

/**
 * Validates a venue/organizer value like a create (every data object before anything is
 * written) and builds the records it may create. Runs outside the transaction because a new
 * venue may be geocoded, a call to the host that must not hold the write lock; a venue that
 * will be reused instead is not geocoded.
 */
export async function prepareLinked<T extends LinkedType>(
  ctx: Context,
  schemas: Schemas,
  type: T,
  value: unknown,
): Promise<PreparedLinks<T>> {
  if (isEmptyLink(value)) return new PreparedLinks(type, [])
  const items = linkItems(value)
  if (!items) throw invalidParam(type)
  const schema = type === 'venue' ? schemas.venueCreate : schemas.organizerCreate
  const validated: Array<{ id: number } | { input: Record<string, unknown> }> = []
  for (const item of items) {
    if ('id' in item) {
      validated.push(item)
      continue
    }
    try {
      const input = validateParams(schema, item.data) as Record<string, unknown>
      if (type === 'venue') coordinatesOf(input)
      validated.push({ input })
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      throw couldNotCreate(type, e.message)
    }
  }
  const out: PreparedItem<T>[] = []
  for (const item of validated) {
    if ('id' in item) {
      out.push(item)
      continue
    }
    const record = await newLinkedRecord(ctx, type, item.input, { geocode: false })
    const venue = record as unknown as VenueRecord
    if (type === 'venue' && coordinatesOf(item.input) === undefined && !(await reusable(ctx, ctx.storage, type, record))) {
      const found = await geocodeVenue(ctx, venue)
      if (found) Object.assign(record, found)
    }
    out.push({ record })
  }
  return new PreparedLinks(type, out)
}

/** An existing record the data describes exactly (coordinates, when the data has them, included). */
async function reusable<T extends LinkedType>(ctx: Context, reader: StorageReader, type: T, record: Omit<NewPost<T>, 'slug'>) {
  const match: Record<string, string> = { title: record.title }
  for (const f of type === 'venue' ? VENUE_ADDRESS_FIELDS : ORGANIZER_MATCH_FIELDS)
    match[f] = String((record as Record<string, unknown>)[f] ?? '')
  const found = await reader.findLinkedDuplicate(type, ctx.language, match)
  if (!found || !canRead(ctx.principal, found)) return null
  const want = record as unknown as VenueRecord
  const have = found as unknown as VenueRecord
  if (type === 'venue' && want.geoLat !== null && (have.geoLat !== want.geoLat || have.geoLng !== want.geoLng)) return null
  return found
}

/**
 * Venue or organizer IDs for an event write (a raw value, or one prepared before the
 * transaction). IDs must name readable, untrashed records of the type; data objects reuse an
 * exact match in the request's language or create a new record.
 */
export async function resolveLinked(ctx: Context, schemas: Schemas, tx: StorageTx, type: LinkedType, value: unknown): Promise<number[]> {
  const prepared = value instanceof PreparedLinks ? value : await prepareLinked(ctx, schemas, type, value)
  const ids: number[] = []
  for (const item of prepared.items) {
    if ('id' in item) {
      const rec = await tx.getPost(item.id)
      if (!rec || rec.type !== type || rec.status === 'trash' || !canRead(ctx.principal, rec)) throw invalidParam(type)
      ids.push(rec.id)
      continue
    }
    const reused = await reusable(ctx, tx, type, item.record)
    ids.push(reused ? reused.id : (await insertLinked(ctx, tx, item.record)).id)
  }
  const unique = [...new Set(ids)]
  // An event has one venue in TEC's model; more than one is a client error, not silently dropped.
  if (type === 'venue' && unique.length > 1)
    throw invalidParam('venue', { message: 'An event has at most one venue.', code: 'rest_too_many_venues' })
  return unique
}

const ORGANIZER_MATCH_FIELDS = ['phone', 'website', 'email'] as const

/**
 * Term IDs for an event. Numbers name existing terms (unknown ones are ignored, as TEC does);
 * strings name a term by slug or name in the request's language, and an unknown name creates it.
 */
export async function resolveTerms(ctx: Context, tx: StorageTx, taxonomy: Taxonomy, value: unknown): Promise<number[]> {
  const param = taxonomy === 'category' ? 'categories' : 'tags'
  if (isEmptyLink(value)) return []
  const items = splitList(value)
  if (!items || items.length > 100) throw invalidParam(param)
  const ids: number[] = []
  for (const item of items) {
    if (typeof item === 'number' || (typeof item === 'string' && /^\d+$/.test(item))) {
      const term = await tx.getTerm(Number(item))
      // Unknown IDs, and terms of another taxonomy or language, are ignored as TEC ignores unknown IDs.
      if (term && term.taxonomy === taxonomy && term.language === ctx.language) ids.push(term.id)
      continue
    }
    if (typeof item !== 'string' || item.trim() === '' || item.length > 200) throw invalidParam(param)
    const name = item.trim()
    const existing =
      (await tx.findTerm(taxonomy, ctx.language, { slug: sanitizeSlug(name) })) ?? (await tx.findTerm(taxonomy, ctx.language, { name }))
    if (existing) {
      ids.push(existing.id)
      continue
    }
    // Naming a new term creates it, which needs the same right as POST /categories or /tags.
    if (!canManageTerms(ctx.principal, taxonomy)) {
      throw invalidParam(param, {
        code: 'rest_cannot_create_term',
        message: `"${name}" is not an existing ${taxonomy === 'category' ? 'category' : 'tag'}, and you may not create one.`,
      })
    }
    const base = sanitizeSlug(name, ctx.language) || taxonomy
    const created = await withFreeSlug(tx, taxonomy, ctx.language, base, (slug) =>
      tx.insertTerm({ taxonomy, language: ctx.language, name, slug, description: '', parent: 0 }),
    )
    ids.push(created.id)
  }
  return [...new Set(ids)]
}
