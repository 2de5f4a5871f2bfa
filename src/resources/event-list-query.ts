/**
 * The event list as a query: from the validated parameters and the request's clock, principal
 * and options to the storage query, the canonical parameters its `rest_url` and paging links
 * show, and the parameters found invalid. `eventListQuery` is pure; `resolveListReferences`
 * then asks the storage whether the records and terms the filters name exist.
 */
import { canEditPosts } from '../auth/principal.js'
import type { ParamFailure } from '../http/errors.js'
import type { Input } from '../schemas/index.js'
import type { EventListQuery, PostStatus } from '../storage/types.js'
import { addDays, addMonths, dayEnd, dayStart } from '../time/format.js'
import type { Context } from '../context.js'
import { wallClock } from './dates.js'
import { geoFilter, venueGeoQuery } from './geo.js'
import { listStatuses } from './lists.js'
import { ownDraftsOnly } from './posts.js'
import { sanitizeSlug } from './slug.js'

/** What the query depends on besides the parameters: who asks, in which language, and when. */
export type ListEnv = Pick<Context, 'options' | 'principal' | 'language' | 'now' | 'nowLocal' | 'nowUtc'>

export interface EventListPlan {
  query: EventListQuery
  /** `rest_url` parameters in TEC's order, with the effective values (`page` first). */
  canonical: Array<[string, string]>
  /** Invalid parameters so far, in the order WordPress reports them. */
  failures: Map<string, ParamFailure>
  page: number
  perPage: number
}

/** The relative date filters, in their `rest_url` order, and the bound each sets. */
const RELATIVE_NAMES = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const

const RELATIVE = {
  starts_before: 'startLt',
  starts_after: 'startGt',
  ends_before: 'endLt',
  ends_after: 'endGt',
} as const satisfies Record<(typeof RELATIVE_NAMES)[number], keyof EventListQuery>

const invalid = { message: 'Invalid parameter.' }

/**
 * The storage query of a list request, without the lookups (`parentId`, venue and organizer IDs
 * are taken as given; categories and tags are left for `resolveListReferences`). Throws the 400
 * of a date the site zone cannot place; other failures are collected in the plan.
 */
export function eventListQuery(q: Input<'eventList'>, env: ListEnv): EventListPlan {
  const failures = new Map<string, ParamFailure>()
  const privileged = canEditPosts(env.principal)
  const statuses = listStatuses(q.status, privileged)
  if (!statuses) failures.set('status', invalid)
  const geo = geoFilter(env, q, (name) => failures.set(name, invalid))

  const perPage = Math.min(q.per_page, env.options.maxPerPage)
  const page = q.page
  const query: EventListQuery = {
    language: env.language,
    statuses: statuses ?? [],
    ...ownDraftsOnly(env),
    orderBy: 'start',
    offset: (page - 1) * perPage,
    limit: perPage,
  }
  const canonical: Array<[string, string]> = [
    ['page', String(page)],
    ['per_page', String(perPage)],
  ]

  const window = dateWindow(q, env)
  Object.assign(query, window.bounds)
  if (q.include) {
    query.include = q.include
    query.orderBy = 'date'
  }
  canonical.push(...window.canonical)
  if (q.search !== undefined) {
    query.search = q.search
    canonical.push(['search', q.search])
  }
  // Geolocation sits between search and status in TEC's rest_url (docs/wire-compatibility.md §7.3).
  canonical.push(...geo.canonical)
  const venueGeo = venueGeoQuery(env, geo)
  if (venueGeo) query.venueGeo = venueGeo
  canonical.push(['status', statusLabel(q.status, statuses, privileged)])
  if (q.post_parent !== undefined) {
    query.parentId = q.post_parent
    canonical.push(['post_parent', String(q.post_parent)])
  }
  if (q.include) canonical.push(['include', q.include.join(',')])
  if (q.hide_subsequent_recurrences === true) {
    query.firstOfSeries = true
    canonical.push(['hide_subsequent_recurrences', '1'])
  }
  canonical.push(...window.relative)
  if (q.strict_dates === true) canonical.push(['strict_dates', '1'])
  if (q.venue) {
    query.venueIds = q.venue
    canonical.push(['venue', q.venue.join(',')])
  }
  if (q.organizer) {
    query.organizerIds = q.organizer
    canonical.push(['organizer', q.organizer.join(',')])
  }
  if (q.event_status !== undefined) {
    query.eventStatuses = q.event_status
    canonical.push(['event_status', q.event_status.join(',')])
  }
  if (q.custom_fields) {
    // Keys ANDed, a key's values ORed; written back as sent (a long value's index text is not).
    query.customFields = q.custom_fields.map(({ key, values }) => ({ key, values }))
    for (const f of q.custom_fields)
      for (const g of f.given) canonical.push([f.given.length > 1 ? `custom_fields[${f.key}][]` : `custom_fields[${f.key}]`, g])
  }
  if (q.featured !== undefined) {
    query.featured = q.featured
    canonical.push(['featured', q.featured ? '1' : '0'])
  }
  if (q.categories) canonical.push(['categories', q.categories.join(',')])
  if (q.tags) canonical.push(['tags', q.tags.join(',')])
  return { query, canonical, failures, page, perPage }
}

type Bounds = Pick<EventListQuery, 'startGte' | 'endLte' | 'startLt' | 'startGt' | 'endLt' | 'endGt'>

/**
 * The date window (docs/wire-compatibility.md §7.2): start_date and end_date, which default to
 * yesterday 23:59 and 24 months ahead unless only relative filters are given, and the relative
 * filters. Whole days unless strict_dates. `include` ignores every date filter (§5.13).
 */
function dateWindow(q: Input<'eventList'>, env: ListEnv) {
  const bounds: Bounds = {}
  const canonical: Array<[string, string]> = []
  const relative: Array<[string, string]> = []
  // No bound at all: rest_url shows effective values only, so no date parameter either.
  if (q.include) return { bounds, canonical, relative }
  const tz = env.options.timezone
  const strict = q.strict_dates === true
  const whole = (local: string, edge: 'start' | 'end') => (strict ? local : edge === 'start' ? dayStart(local) : dayEnd(local))
  const bound = (name: string, value: string | number, edge: 'start' | 'end') => whole(wallClock(env, name, value, tz), edge)
  const anyRelative = RELATIVE_NAMES.some((r) => q[r] !== undefined)
  if (q.start_date !== undefined || !anyRelative) {
    bounds.startGte = q.start_date !== undefined ? bound('start_date', q.start_date, 'start') : defaultEdges(env.nowLocal, strict).start
    canonical.push(['start_date', bounds.startGte])
  }
  if (q.end_date !== undefined || !anyRelative) {
    bounds.endLte = q.end_date !== undefined ? bound('end_date', q.end_date, 'end') : defaultEdges(env.nowLocal, strict).end
    canonical.push(['end_date', bounds.endLte])
  }
  for (const r of RELATIVE_NAMES) {
    const value = q[r]
    if (value === undefined) continue
    const b = bound(r, value, 'end')
    bounds[RELATIVE[r]] = b
    relative.push([r, b])
  }
  return { bounds, canonical, relative }
}

/**
 * The window a list without dates shows: from the end of yesterday to 24 months from now (whole
 * days unless `strict_dates`). Most lists ask for it, and every request of the same second gets
 * the same edges: the last answer is kept (the calendar arithmetic was a tenth of a list's CPU).
 */
let lastEdges: { key: string; start: string; end: string } | null = null

function defaultEdges(nowLocal: string, strict: boolean): { start: string; end: string } {
  const key = `${nowLocal}|${strict}`
  if (lastEdges?.key === key) return lastEdges
  const yesterday = `${addDays(nowLocal, -1).slice(0, 10)} 23:59:00`
  const end = addMonths(nowLocal, 24)
  lastEdges = { key, start: strict ? yesterday : dayStart(yesterday), end: strict ? end : dayEnd(end) }
  return lastEdges
}

/** The `status` shown in `rest_url`: as asked, else `publish` or `any`. */
function statusLabel(asked: readonly PostStatus[] | undefined, resolved: readonly PostStatus[] | null, privileged: boolean): string {
  if (asked) return asked.join(',')
  return privileged ? 'any' : (resolved?.[0] ?? 'publish')
}

/**
 * The storage half: post_parent must be an event, venue and organizer IDs records of their
 * type, and category and tag references existing terms (IDs, slugs or names; a category brings
 * its descendants). Failures join the plan's; the term IDs join its query.
 */
export async function resolveListReferences(ctx: Context, q: Input<'eventList'>, plan: EventListPlan): Promise<void> {
  const fail = (name: string) => plan.failures.set(name, invalid)
  if (q.post_parent !== undefined) {
    const parent = await ctx.storage.getPost(q.post_parent)
    if (!parent || parent.type !== 'event') fail('post_parent')
  }
  for (const type of ['venue', 'organizer'] as const) {
    const ids = q[type]
    if (!ids) continue
    const found = await ctx.storage.getPosts(ids)
    if (found.length !== ids.length || found.some((r) => r.type !== type)) fail(type)
  }
  for (const [param, taxonomy] of [
    ['categories', 'category'],
    ['tags', 'tag'],
  ] as const) {
    const refs = q[param]
    if (!refs) continue
    const ids: number[] = []
    for (const ref of refs) {
      const term =
        typeof ref === 'number'
          ? await ctx.storage.getTerm(ref)
          : ((await ctx.storage.findTerm(taxonomy, ctx.language, { slug: ref })) ??
            (await ctx.storage.findTerm(taxonomy, ctx.language, { slug: sanitizeSlug(ref) })) ??
            (await ctx.storage.findTerm(taxonomy, ctx.language, { name: ref })))
      if (!term || term.taxonomy !== taxonomy) {
        fail(param)
        break
      }
      ids.push(term.id)
    }
    if (taxonomy === 'category') plan.query.categoryIds = [...ids, ...(await ctx.storage.termDescendants(ids))]
    else plan.query.tagIds = ids
  }
}
