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

/** Public page of a record; unpublished posts get the id form, as WordPress does. */
export function permalink(ctx: Context, kind: PermalinkKind, record: PostRecord | TermRecord): string {
  if (ctx.options.permalink) return ctx.options.permalink(kind, record, ctx.base)
  const lang = record.language !== ctx.options.defaultLanguage ? `/${record.language}` : ''
  if ('status' in record && record.status !== 'publish') return `${ctx.base}${lang}/?p=${record.id}`
  return `${ctx.base}${lang}/${KIND_PATH[kind]}/${encodeURIComponent(record.slug)}/`
}

/** `host[/path]?id=N`: TEC's global id has neither scheme nor port. */
const hostPaths = new Map<string, string>()

export function globalId(ctx: Context, id: number): string {
  let hostPath = hostPaths.get(ctx.base)
  if (hostPath === undefined) {
    hostPath = ctx.base
    try {
      const u = new URL(ctx.base)
      hostPath = u.hostname + u.pathname.replace(/\/+$/, '')
    } catch {
      // A baseUrl that is not a URL is used as given.
    }
    // Bounded: a host-controlled set of origins, but Host headers are caller input.
    if (hostPaths.size > 100) hostPaths.clear()
    hostPaths.set(ctx.base, hostPath)
  }
  return `${hostPath}?id=${id}`
}
