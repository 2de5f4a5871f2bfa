/**
 * The links a response carries, built from the request's context: REST URLs that keep the
 * request's language, public permalinks, and TEC's global ids.
 */
import type { Context } from './context.js'
import type { PermalinkKind } from './options.js'
import type { PostRecord, TermRecord } from './storage/types.js'

/** `{restRoot}/{path}` plus query parameters, properly percent-encoded, under the request's names. */
export function restUrl(ctx: Context, path: string, query?: Array<[string, string]>): string {
  const pairs = [...(query ?? [])]
  if (ctx.languageQuery) pairs.push([ctx.names.languageParam, ctx.languageQuery])
  const url = `${ctx.restRoot}/${path}`
  return pairs.length ? `${url}?${new URLSearchParams(pairs).toString()}` : url
}

const KIND_PATH: Record<PermalinkKind, string> = {
  event: 'event',
  venue: 'venue',
  organizer: 'organizer',
  category: 'events/category',
  tag: 'events/tag',
}

/**
 * The site's identity: `siteUrl`, else `baseUrl`, else the request's origin. UIDs, global ids and
 * JSON-LD use it, so that a record keeps one name whatever Host a request came with.
 */
export function siteBase(ctx: Context): string {
  return ctx.options.siteUrl ?? ctx.base
}

/**
 * Public page of a record under `base` (the request's link root unless told); unpublished posts
 * get the id form, as WordPress does.
 */
export function permalink(ctx: Context, kind: PermalinkKind, record: PostRecord | TermRecord, base = ctx.base): string {
  if (ctx.options.permalink) return ctx.options.permalink(kind, record, base)
  const lang = record.language !== ctx.options.defaultLanguage ? `/${record.language}` : ''
  if ('status' in record && record.status !== 'publish') return `${base}${lang}/?p=${record.id}`
  return `${base}${lang}/${KIND_PATH[kind]}/${encodeURIComponent(record.slug)}/`
}

/** The host name of the site's identity (UIDs): `events.example.org`. */
export function siteHost(ctx: Context): string {
  const base = siteBase(ctx)
  return URL.canParse(base) ? new URL(base).hostname : ''
}

/**
 * `host[/path]?id=N`: TEC's global id has neither scheme nor port. A base that is not a URL
 * (a host's own `baseUrl` string) is used as given.
 */
export function globalId(ctx: Context, id: number): string {
  const base = siteBase(ctx)
  if (!URL.canParse(base)) return `${base}?id=${id}`
  const u = new URL(base)
  return `${u.hostname}${u.pathname.replace(/\/+$/, '')}?id=${id}`
}
