/**
 * Categories (hierarchical) and tags (flat): list, read, create, partial update, permanent
 * delete. Counts are live: published events carrying the term.
 */
import { canManageTerms } from '../auth/principal.js'
import { ApiError, invalidParam, invalidParams, type ParamFailure } from '../http/errors.js'
import { standaloneTerm } from '../representation/term.js'
import type { Input } from '../schemas/index.js'
import type { Taxonomy, TermOrderBy, TermPatch, TermRecord, TermWithCount } from '../storage/types.js'
import type { Context } from '../context.js'
import { restUrl } from '../urls.js'
import { created, ok, totals, type Reply } from './respond.js'
import type { RecordAt, Single } from './record-tag.js'
import { refuseWithSync, syncReply } from './sync.js'
import type { TermListQuery } from '../storage/types.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'
import { scalarText } from '../http/params.js'

const COLLECTION: Record<Taxonomy, 'categories' | 'tags'> = { category: 'categories', tag: 'tags' }

const ORDER_BY: Record<string, TermOrderBy> = {
  id: 'id',
  term_id: 'id',
  name: 'name',
  slug: 'slug',
  count: 'count',
  description: 'description',
  parent: 'parent',
  include: 'include',
  none: 'none',
  term_group: 'id',
}

async function present(ctx: Context, t: TermWithCount, withLinks: boolean) {
  const translations = (await ctx.storage.getTranslations([t.translationGroup], 'terms')).get(t.translationGroup) ?? {}
  const others: Record<string, number> = {}
  for (const [lang, id] of Object.entries(translations)) if (id !== t.id) others[lang] = id
  return standaloneTerm(ctx, t, withLinks, others)
}

async function termById(ctx: Context, { id }: Input<'termById'>, taxonomy: Taxonomy): Promise<TermWithCount> {
  const term = id > 0 ? await ctx.storage.getTerm(id) : null
  if (!term || term.taxonomy !== taxonomy) throw invalidParam('id')
  return term
}

/** IDs of the terms a list of IDs or slugs names; null when one does not exist. */
async function resolveRefs(ctx: Context, taxonomy: Taxonomy, refs: Array<string | number>): Promise<number[] | null> {
  const ids: number[] = []
  for (const ref of refs) {
    const t = typeof ref === 'number' ? await ctx.storage.getTerm(ref) : await ctx.storage.findTerm(taxonomy, ctx.language, { slug: ref })
    if (!t || t.taxonomy !== taxonomy) return null
    ids.push(t.id)
  }
  return ids
}

export async function listTerms(ctx: Context, input: Input<'categoryList' | 'tagList'>, taxonomy: Taxonomy): Promise<Reply> {
  // A tag list is a category list without `parent`.
  const q: Input<'categoryList'> = input
  const failures = new Map<string, ParamFailure>()
  const fail = (name: string) => failures.set(name, { message: 'Invalid parameter.' })
  const include = q.include ? await resolveRefs(ctx, taxonomy, q.include) : undefined
  const exclude = q.exclude ? await resolveRefs(ctx, taxonomy, q.exclude) : undefined
  if (include === null) fail('include')
  if (exclude === null) fail('exclude')
  if (q.parent !== undefined && q.parent !== 0) {
    const parent = await ctx.storage.getTerm(q.parent)
    if (!parent || parent.taxonomy !== taxonomy) fail('parent')
  }
  const eventId = q.event ?? q.post
  if (eventId !== undefined) {
    const e = await ctx.storage.getPost(eventId)
    if (!e || e.type !== 'event') fail(q.event !== undefined ? 'event' : 'post')
  }
  if (failures.size) throw invalidParams(failures)

  const perPage = Math.min(q.per_page, ctx.options.maxPerPage)
  const page = q.page
  const orderBy = ORDER_BY[String(q.orderby ?? 'name').toLowerCase()] ?? 'name'
  const order = q.order === undefined || String(q.order).toLowerCase() === 'asc' ? 'asc' : 'desc'
  const query: TermListQuery = {
    taxonomy,
    language: ctx.language,
    ...(q.search !== undefined ? { search: q.search } : {}),
    ...(include ? { include } : {}),
    ...(exclude ? { exclude } : {}),
    ...(q.parent !== undefined ? { parent: q.parent } : {}),
    ...(eventId !== undefined ? { eventId } : {}),
    ...(q.slug !== undefined ? { slug: q.slug } : {}),
    hideEmpty: q.hide_empty,
    orderBy,
    order,
    offset: (page - 1) * perPage,
    limit: perPage,
  }
  if (q.sync_token !== undefined) return syncTerms(ctx, q, q.sync_token, query, perPage)
  const result = await ctx.storage.listTerms(query)
  const totalPages = Math.ceil(result.total / perPage)
  // Filters other than the page travel with next/previous links so paging stays consistent.
  const filters: Array<[string, string]> = []
  const accepted = ctx.schemas[taxonomy === 'category' ? 'categoryList' : 'tagList']
  for (const key of ['per_page', 'search', 'include', 'exclude', 'order', 'orderby', 'hide_empty', 'parent', 'post', 'event', 'slug']) {
    // Only parameters this list takes: tags have no `parent`, so an ignored one is not echoed.
    if (!Object.hasOwn(accepted, key)) continue
    const raw = ctx.query[key] ?? ctx.params[key]
    if (raw === undefined) continue
    filters.push([key, Array.isArray(raw) ? raw.join(',') : scalarText(raw)])
  }
  const collection = COLLECTION[taxonomy]
  const body: Record<string, unknown> = {
    rest_url: restUrl(ctx, `${collection}/`, filters),
    total: result.total,
    total_pages: totalPages,
    [collection]: await Promise.all(result.items.map((t) => present(ctx, t, false))),
  }
  if (page < totalPages) body.next_rest_url = restUrl(ctx, `${collection}/`, [...filters, ['page', String(page + 1)]])
  if (page > 1) body.previous_rest_url = restUrl(ctx, `${collection}/`, page === 2 ? filters : [...filters, ['page', String(page - 1)]])
  return ok(body, totals(result.total, totalPages))
}

/**
 * `sync_token` on a category or tag list (resources/sync.ts): by id, whatever orderby says. The
 * terms of one event (event, post) are refused: they change with the event, not with the terms.
 */
async function syncTerms(ctx: Context, q: Input<'categoryList'>, token: string, query: TermListQuery, perPage: number): Promise<Reply> {
  refuseWithSync(q, ['event', 'post'])
  if (q.page > 1) throw invalidParam('page', { message: 'A sync goes on with the sync_token of next_rest_url, not with page.' })
  const { page: _page, per_page: _perPage, sync_token: _token, order: _order, orderby: _orderby, ...filters } = q
  const list = async (extra: Partial<TermListQuery>, limit: number) =>
    (await ctx.storage.listTerms({ ...query, orderBy: 'id', order: 'asc', ...extra, offset: 0, limit })).items
  return syncReply(ctx, token, perPage, {
    collection: COLLECTION[query.taxonomy],
    kinds: [query.taxonomy],
    filters,
    page: (afterId, limit) => list({ idAfter: afterId }, limit),
    matching: (ids) => {
      const wanted = query.include ? ids.filter((id) => query.include!.includes(id)) : ids
      return wanted.length ? list({ include: wanted }, wanted.length) : Promise.resolve([])
    },
    present: (terms) => Promise.all(terms.map((t) => present(ctx, t, false))),
  })
}

export async function readTerm(ctx: Context, at: Input<'termById'>, taxonomy: Taxonomy): Promise<Reply> {
  const term = await termById(ctx, at, taxonomy)
  return ok(await present(ctx, term, true))
}

/** The term a route names (terms are named by id only), as a single read shows it; null when none. */
export async function termSingle(ctx: Context, at: RecordAt, taxonomy: Taxonomy): Promise<Single | null> {
  const term = 'id' in at && at.id > 0 ? await ctx.storage.getTerm(at.id) : null
  if (!term || term.taxonomy !== taxonomy) return null
  return { body: await present(ctx, term, true), revision: 0 }
}

/** A term this request has just written, with its live count. */
async function stored(ctx: Context, id: number): Promise<TermWithCount> {
  const term = await ctx.storage.getTerm(id)
  if (!term) throw new Error(`calendar-events-router: term ${id} is gone right after its write`)
  return term
}

export const termGate = (taxonomy: Taxonomy) => (p: Parameters<typeof canManageTerms>[0]) => canManageTerms(p, taxonomy)

const exists = (term: TermRecord) =>
  new ApiError(400, 'term_exists', 'A term with the name provided already exists with this parent.', { term_id: term.id })

/** A category's parent must exist, and must not be the category itself or one of its descendants. */
async function checkParent(ctx: Context, taxonomy: Taxonomy, parent: number | undefined, self?: number): Promise<number> {
  if (parent === undefined || parent === 0) return 0
  if (taxonomy !== 'category') {
    throw new ApiError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.')
  }
  const term = await ctx.storage.getTerm(parent)
  if (!term || term.taxonomy !== 'category') throw new ApiError(400, 'rest_term_invalid', 'Parent term does not exist.')
  if (self !== undefined && (term.id === self || (await ctx.storage.termDescendants([self])).includes(term.id))) {
    throw invalidParam('parent', { message: 'A category cannot be its own ancestor.', code: 'rest_term_invalid_parent' })
  }
  return term.id
}

export async function createTerm(ctx: Context, input: Input<'categoryCreate' | 'tagCreate'>, taxonomy: Taxonomy): Promise<Reply> {
  const parent = await checkParent(ctx, taxonomy, input.parent)
  const name = input.name
  const term = await ctx.storage.transaction(async (tx) => {
    // findTerm matches the name case-insensitively, and as it is stored (filtered, for callers
    // whose HTML is filtered), so its answer is the duplicate whatever the raw spelling.
    const duplicate = await tx.findTerm(taxonomy, ctx.language, { name, parent })
    if (duplicate && duplicate.parent === parent) throw exists(duplicate)
    let group: number | undefined
    if (input.translation_of !== undefined) {
      const target = await tx.getTerm(input.translation_of)
      if (!target || target.taxonomy !== taxonomy) throw invalidParam('translation_of')
      const taken = (await tx.getTranslations([target.translationGroup], 'terms')).get(target.translationGroup) ?? {}
      if (taken[ctx.language] !== undefined)
        throw invalidParam('translation_of', {
          message: `A ${ctx.language} translation of ${target.id} already exists.`,
          code: 'translation_exists',
        })
      group = target.translationGroup
    }
    const fields = {
      taxonomy,
      language: ctx.language,
      name,
      description: input.description ?? '',
      parent,
      ...(group !== undefined ? { translationGroup: group } : {}),
    }
    if (input.slug !== undefined) {
      const slug = sanitizeSlug(input.slug)
      if (!slug) throw invalidParam('slug')
      if (await tx.findTerm(taxonomy, ctx.language, { slug })) {
        throw new ApiError(400, 'duplicate_term_slug', `The slug "${slug}" is already in use by another term.`)
      }
      return tx.insertTerm({ ...fields, slug })
    }
    return withFreeSlug(tx, taxonomy, ctx.language, sanitizeSlug(name, ctx.language) || taxonomy, (slug) =>
      tx.insertTerm({ ...fields, slug }),
    )
  })
  return created(await present(ctx, await stored(ctx, term.id), true), { Location: restUrl(ctx, `${COLLECTION[taxonomy]}/${term.id}`) })
}

export async function updateTerm(
  ctx: Context,
  at: Input<'termById'>,
  fields: () => Input<'categoryUpdate' | 'tagUpdate'>,
  taxonomy: Taxonomy,
): Promise<Reply> {
  const current = await termById(ctx, at, taxonomy)
  const input = fields()
  const patch: TermPatch = {}
  if (input.parent !== undefined) patch.parent = await checkParent(ctx, taxonomy, input.parent, current.id)
  if (input.description !== undefined) patch.description = input.description ?? ''
  if (input.name !== undefined) patch.name = input.name
  await ctx.storage.transaction(async (tx) => {
    const now = await tx.getTerm(current.id)
    const same = (k: keyof TermPatch, v: unknown) => v === undefined || (now as unknown as Record<string, unknown> | null)?.[k] === v
    const slugSent = input.slug === undefined ? undefined : sanitizeSlug(input.slug)
    // Nothing differs (a read sent back unchanged): nothing is written.
    if (now && same('name', patch.name) && same('description', patch.description) && same('parent', patch.parent) && same('slug', slugSent))
      return now
    const name = patch.name ?? current.name
    const parent = patch.parent ?? current.parent
    if (patch.name !== undefined || patch.parent !== undefined) {
      const duplicate = await tx.findTerm(taxonomy, current.language, { name, parent })
      if (duplicate && duplicate.id !== current.id && duplicate.parent === parent) {
        throw exists(duplicate)
      }
    }
    if (input.slug !== undefined) {
      const slug = sanitizeSlug(input.slug)
      if (!slug) throw invalidParam('slug')
      const owner = await tx.findTerm(taxonomy, current.language, { slug })
      if (owner && owner.id !== current.id)
        throw new ApiError(400, 'duplicate_term_slug', `The slug "${slug}" is already in use by another term.`)
      patch.slug = slug
    }
    return tx.updateTerm(current.id, patch)
  })
  return ok(await present(ctx, await stored(ctx, current.id), true))
}

export async function deleteTerm(ctx: Context, at: Input<'termById'>, taxonomy: Taxonomy): Promise<Reply> {
  const current = await termById(ctx, at, taxonomy)
  const body = await present(ctx, current, false)
  await ctx.storage.transaction((tx) => tx.deleteTerm(current.id))
  return ok(body)
}
