/** Category and tag representations: embedded in events, and standalone. */
import { canManageTerms } from '../auth/principal.js'
import type { Context } from '../context.js'
import { permalink, restUrl } from '../urls.js'
import type { TermWithCount } from '../storage/types.js'
import type { Json } from './common.js'

/** TEC's taxonomy names, kept so existing clients recognise the terms. */
export const TAXONOMY_NAME = { category: 'tribe_events_cat', tag: 'post_tag' } as const
const COLLECTION = { category: 'categories', tag: 'tags' } as const

function urls(ctx: Context, t: TermWithCount): Json {
  const collection = COLLECTION[t.taxonomy]
  const out: Json = { self: restUrl(ctx, `${collection}/${t.id}`), collection: restUrl(ctx, collection) }
  if (t.parent) out.up = restUrl(ctx, `${collection}/${t.parent}`)
  return out
}

/** The raw term object TEC embeds in an event's `categories`/`tags`. */
export function embeddedTerm(ctx: Context, t: TermWithCount): Json {
  return {
    name: t.name,
    slug: t.slug,
    term_group: 0,
    term_taxonomy_id: t.id,
    taxonomy: TAXONOMY_NAME[t.taxonomy],
    description: t.description,
    parent: t.parent,
    count: t.count,
    filter: 'raw',
    id: t.id,
    urls: urls(ctx, t),
  }
}

/** A term from the category/tag endpoints; `_links` on single reads and writes only. */
export function standaloneTerm(ctx: Context, t: TermWithCount, withLinks: boolean, translations?: Record<string, number>): Json {
  const out: Json = {
    id: t.id,
    count: t.count,
    description: t.description,
    name: t.name,
    slug: t.slug,
    taxonomy: TAXONOMY_NAME[t.taxonomy],
  }
  if (t.taxonomy === 'category') out.parent = t.parent
  out.meta = []
  out.url = permalink(ctx, t.taxonomy, t)
  out.urls = urls(ctx, t)
  out.language = t.language
  if (translations) out.translations = translations
  if (withLinks) out._links = termLinks(ctx, t)
  return out
}

/** The rel names WordPress prefixes with `wp:` resolve under https://api.w.org/. */
const CURIES = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]

/**
 * The link set WordPress gives a term, in its order, pointing at this namespace: the term with
 * the methods this caller may use on it, its collection, the description of the resource (our
 * OpenAPI document), the parent, and the events that carry the term.
 */
function termLinks(ctx: Context, t: TermWithCount): Json {
  const collection = COLLECTION[t.taxonomy]
  const allow = canManageTerms(ctx.principal, t.taxonomy) ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET']
  const links: Json = {
    self: [{ href: restUrl(ctx, `${collection}/${t.id}`), targetHints: { allow } }],
    collection: [{ href: restUrl(ctx, collection) }],
    about: [{ href: restUrl(ctx, 'doc') }],
  }
  if (t.parent) links.up = [{ embeddable: true, href: restUrl(ctx, `${collection}/${t.parent}`) }]
  links['wp:post_type'] = [{ href: restUrl(ctx, 'events', [[collection, String(t.id)]]) }]
  links.curies = CURIES.map((c) => ({ ...c }))
  return links
}
