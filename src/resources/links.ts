/**
 * Resolving what an event write says about its venue, organizers, categories and tags into
 * record IDs, inside the write's transaction so that terms created by name commit with it.
 */
import { invalidParam } from '../http/errors.js'
import type { StorageTx, Taxonomy } from '../storage/types.js'
import { splitList, isPositiveIntLike } from '../schemas/primitives.js'
import type { Context } from './context.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'

const isEmptyLink = (x: unknown) => x === null || x === '' || x === 0 || x === '0' || x === false || (Array.isArray(x) && x.length === 0)

/** The IDs a venue/organizer value names: an ID, a comma list, `{id}`, or a list of those. */
function linkedIds(value: unknown): number[] | null {
  const items = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? [value] : splitList(value)
  if (!items || items.length > 100) return null
  const ids: number[] = []
  for (const item of items) {
    const ref = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>).id : item
    if (!isPositiveIntLike(ref)) return null
    ids.push(Number(ref))
  }
  return [...new Set(ids)]
}

/** Venue or organizer IDs for an event; every one must be an existing, untrashed record of that type. */
export async function resolveLinked(tx: StorageTx, type: 'venue' | 'organizer', value: unknown): Promise<number[]> {
  if (isEmptyLink(value)) return []
  const ids = linkedIds(value)
  if (!ids) throw invalidParam(type)
  const found = await tx.getPosts(ids)
  const ok = new Set(found.filter((r) => r.type === type && r.status !== 'trash').map((r) => r.id))
  if (ids.some((id) => !ok.has(id))) throw invalidParam(type)
  // TEC links a single venue; extra IDs would be silently lost there, so keep only the first.
  return type === 'venue' ? ids.slice(0, 1) : ids
}

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
      if (term && term.taxonomy === taxonomy) ids.push(term.id)
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
    const base = sanitizeSlug(name) || taxonomy
    const created = await withFreeSlug(tx, taxonomy, ctx.language, base, (slug) =>
      tx.insertTerm({ taxonomy, language: ctx.language, name, slug, description: '', parent: 0 }),
    )
    ids.push(created.id)
  }
  return [...new Set(ids)]
}
