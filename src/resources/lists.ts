/** What every post list shares: status visibility, and the paged envelope with its links. */
import { invalidParam, type ApiError } from '../http/errors.js'
import { LIVE_STATUSES, type PostStatus } from '../storage/types.js'
import type { Context } from '../context.js'
import { restUrl } from '../urls.js'
import { totals } from './respond.js'

/**
 * Statuses a list may show. Without `status`: everything but trash for editors of the type,
 * published only for others. With it: others may ask only for `publish`. null = not allowed.
 */
export function listStatuses(asked: readonly PostStatus[] | undefined, privileged: boolean): readonly PostStatus[] | null {
  if (asked === undefined) return privileged ? LIVE_STATUSES : ['publish']
  const list = asked
  if (!privileged && !(list.length === 1 && list[0] === 'publish')) return null
  return list
}

export function requireStatuses(asked: readonly PostStatus[] | undefined, privileged: boolean): readonly PostStatus[] {
  const s = listStatuses(asked, privileged)
  if (!s) throw invalidParam('status')
  return s
}

export interface PageInput {
  key: string
  path: string
  page: number
  perPage: number
  total: number
  /** Canonical query of this page, `page` first. */
  canonical: Array<[string, string]>
  items: unknown[]
  notFound: () => ApiError
}

/** The TEC list envelope; a page past the last is the resource's 404. */
export function pageOf(ctx: Context, p: PageInput) {
  const totalPages = Math.ceil(p.total / p.perPage)
  if (p.page > 1 && p.items.length === 0) throw p.notFound()
  const rest = p.canonical.filter(([k]) => k !== 'page')
  const body: Record<string, unknown> = { [p.key]: p.items, rest_url: restUrl(ctx, p.path, p.canonical) }
  if (p.page < totalPages) body.next_rest_url = restUrl(ctx, p.path, [...rest, ['page', String(p.page + 1)]])
  if (p.page > 1 && p.page - 1 <= totalPages) {
    body.previous_rest_url = restUrl(ctx, p.path, p.page === 2 ? rest : [...rest, ['page', String(p.page - 1)]])
  }
  body.total = p.total
  body.total_pages = totalPages
  return { body, headers: totals(p.total, totalPages) }
}
