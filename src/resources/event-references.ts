/**
 * Resolving what an event write says about its venue, organizers, categories and tags into
 * record IDs, inside the write's transaction so that terms created by name commit with it.
 */
import { canManageTerms, canRead } from '../auth/principal.js'
import { ApiError, invalidParam } from '../http/errors.js'
import { validateParams } from '../schemas/operation.js'
import {
  insertLinked,
  newLinkedRecord,
  VENUE_ADDRESS_FIELDS,
  type LinkedCreateInput,
  type LinkedType,
  type NewLinked,
} from './venues-organizers.js'
import type { StorageReader, StorageTx, Taxonomy } from '../storage/types.js'
import { coordinatesOf, geocodeVenue } from './geo.js'
import { splitList, isPositiveIntLike } from '../schemas/primitives.js'
import type { Context } from '../context.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'
import { scalarText } from '../http/params.js'

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

type PreparedItem = { id: number } | { record: NewLinked }

/** A venue/organizer value validated (and its new records built) ahead of the write's transaction. */
export class PreparedLinks {
  constructor(
    readonly type: LinkedType,
    readonly items: PreparedItem[],
  ) {}
}

/**
 * Validates a venue/organizer value like a create (every data object before anything is
 * written) and builds the records it may create. Runs outside the transaction because a new
 * venue may be geocoded, a call to the host that must not hold the write lock; a venue that
 * will be reused instead is not geocoded.
 */
export async function prepareLinked(ctx: Context, type: LinkedType, value: unknown): Promise<PreparedLinks> {
  if (isEmptyLink(value)) return new PreparedLinks(type, [])
  const items = linkItems(value)
  if (!items) throw invalidParam(type)
  const validated: Array<{ id: number } | { input: LinkedCreateInput }> = []
  for (const item of items) {
    if ('id' in item) {
      validated.push(item)
      continue
    }
    try {
      if (type === 'venue') {
        const input = validateParams(ctx.schemas.venueCreate, item.data)
        coordinatesOf(input)
        validated.push({ input })
      } else validated.push({ input: validateParams(ctx.schemas.organizerCreate, item.data) })
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      throw couldNotCreate(type, e.message)
    }
  }
  const out: PreparedItem[] = []
  for (const item of validated) {
    if ('id' in item) {
      out.push(item)
      continue
    }
    const record = await newLinkedRecord(ctx, item.input, { geocode: false })
    const given = 'venue' in item.input ? coordinatesOf(item.input) : undefined
    if (record.type === 'venue' && given === undefined && !(await reusable(ctx, ctx.storage, record))) {
      const found = await geocodeVenue(ctx, record)
      if (found) Object.assign(record, found)
    }
    out.push({ record })
  }
  return new PreparedLinks(type, out)
}

/** An existing record the data describes exactly (coordinates, when the data has them, included). */
async function reusable(ctx: Context, reader: StorageReader, record: NewLinked) {
  const fields: Record<string, unknown> = { ...record }
  const match: Record<string, string> = { title: record.title }
  for (const f of record.type === 'venue' ? VENUE_ADDRESS_FIELDS : ORGANIZER_MATCH_FIELDS) match[f] = scalarText(fields[f])
  const found = await reader.findLinkedDuplicate(record.type, ctx.language, match)
  if (!found || !canRead(ctx.principal, found)) return null
  if (record.type === 'venue' && found.type === 'venue' && record.geoLat !== null) {
    if (found.geoLat !== record.geoLat || found.geoLng !== record.geoLng) return null
  }
  return found
}

/**
 * Venue or organizer IDs for an event write (a raw value, or one prepared before the
 * transaction). IDs must name readable, untrashed records of the type; data objects reuse an
 * exact match in the request's language or create a new record.
 */
export async function resolveLinked(ctx: Context, tx: StorageTx, type: LinkedType, value: unknown): Promise<number[]> {
  const prepared = value instanceof PreparedLinks ? value : await prepareLinked(ctx, type, value)
  const ids: number[] = []
  for (const item of prepared.items) {
    if ('id' in item) {
      const rec = await tx.getPost(item.id)
      if (!rec || rec.type !== type || rec.status === 'trash' || !canRead(ctx.principal, rec)) throw invalidParam(type)
      ids.push(rec.id)
      continue
    }
    const reused = await reusable(ctx, tx, item.record)
    ids.push(reused ? reused.id : (await insertLinked(tx, item.record)).id)
  }
  const unique = [...new Set(ids)]
  // An event has one venue in TEC's model; more than one is a client error, not silently dropped.
  if (type === 'venue' && unique.length > 1)
    throw invalidParam('venue', { message: 'An event has at most one venue.', code: 'rest_too_many_venues' })
  return unique
}

const ORGANIZER_MATCH_FIELDS = ['phone', 'website', 'email'] as const

/**
 * Term IDs for an event. Numbers (and a read's term objects, by their id) name existing terms
 * (unknown ones are ignored, as TEC does); strings name a term by slug or name in the request's
 * language, and an unknown name creates it.
 */
export async function resolveTerms(ctx: Context, tx: StorageTx, taxonomy: Taxonomy, value: unknown): Promise<number[]> {
  const param = taxonomy === 'category' ? 'categories' : 'tags'
  if (isEmptyLink(value)) return []
  const items = splitList(value)
  if (!items || items.length > 100) throw invalidParam(param)
  const ids: number[] = []
  for (const raw of items) {
    // A read's embedded term ({ id, name, slug, ... }) names the term by its id.
    const item = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { id?: unknown }).id : raw
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
