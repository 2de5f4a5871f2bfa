/**
 * The events resource: list, read, create, update (partial), trash. The router validated the
 * request with the endpoint's operation; handlers receive that typed input.
 */
import { canEditPosts, canModify, canRead, scaleBackStatus } from '../auth/principal.js'
import { ApiError, forbidden, invalidParam, invalidParams } from '../http/errors.js'
import { costEntries, deriveCurrency } from './cost-input.js'
import { eventJson } from '../representation/post.js'
import { postWriter } from '../representation/post-text.js'
import { loadRelations, seriesFields } from './embeds.js'
import { importSources, withImportSource } from './import-source.js'
import { icalendar } from '../representation/ical.js'
import type { EventRecord, NewPost, PostPatch } from '../storage/types.js'
import { canonicalTimezone } from '../time/zone.js'
import type { Context } from '../context.js'
import { publicationDates, schedule, wallClock } from './dates.js'
import { resolveImage } from './image.js'
import { prepareLinked, resolveLinked, resolveTerms } from './event-references.js'
import { created, ok, recordAllow, type Reply } from './respond.js'
import type { RecordAt, Single } from './record-tag.js'
import { refuseWithSync, syncReply } from './sync.js'
import type { EventListQuery } from '../storage/types.js'
import type { JournalEntry } from '../storage/journal.js'
import { eventFeed, icsReply, wantsIcs } from './feed.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'
import type { Input } from '../schemas/index.js'
import type { Params } from '../http/params.js'
import { pageOf } from './lists.js'
import { deleteForGood, moveToTrash, writePost } from './trash.js'
import { authorFor, patchChanges, translationGroup } from './posts.js'
import { formatCost } from '../representation/cost.js'
import { permalink } from '../urls.js'
import { applySeriesUpdate, deleteInSeries, parseRecurrence, planSeries, scopeOf, seriesUpdate, writeSeries } from './series.js'
import { listEventsShown, provisionalEvent } from './provisional.js'
import { materialize } from './series-horizon.js'
import { eventListQuery, resolveListReferences } from './event-list-query.js'
import { createdValues, patchedValues } from './custom-fields.js'
import { patchPlain, plainCreated } from '../storage/wire-fields.js'

const notFound = (id: number | string) => new ApiError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`)
const notAnEvent = () => new ApiError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.')

/**
 * The events as this caller may see them: their embeds loaded for this request, written from
 * the fragment cache (the same bytes as the plain objects built when it is off).
 */
async function present(ctx: Context, events: EventRecord[], single = false): Promise<unknown[]> {
  const render = await renderer(ctx, events)
  return events.map((e, i) => render(e, i, single))
}

/** Renders `events` (by index), their embeds loaded once for every render asked of it. */
async function renderer(ctx: Context, events: EventRecord[], created = false) {
  const [rel, series, sources] = await Promise.all([
    loadRelations(ctx, events),
    seriesFields(ctx, events),
    importSources(ctx, events, created),
  ])
  const writer = postWriter(ctx)
  return (e: EventRecord, i: number, single: boolean): unknown =>
    withImportSource(
      writer ? writer.event(e, rel, single, series[i] ?? null) : Object.assign(eventJson(ctx, e, rel, single), series[i]),
      sources.get(e.id),
    )
}

/** A written event's reply: the write representation, and its single read for the reply's ETag. */
async function written(ctx: Context, event: EventRecord, reply: (body: unknown) => Reply): Promise<Reply> {
  const render = await renderer(ctx, [event], reply === created)
  return { ...reply(render(event, 0, false)), ...(canRead(ctx.principal, event) ? { single: render(event, 0, true) } : {}) }
}

/**
 * The event an `{id}` names, or the TEC error for why not. A provisional occurrence (past an
 * open-ended series' written horizon) is shown computed to a read and written first for a write.
 */
async function eventById(ctx: Context, id: number, write = false): Promise<EventRecord> {
  const stored = id > 0 ? await ctx.storage.getPost(id) : null
  let post = stored ?? (id > 0 ? await provisionalEvent(ctx, id) : null)
  if (!stored && post?.type === 'event' && write) {
    if (!canModify(ctx.principal, post)) throw forbidden(true)
    post = await materialize(ctx, post)
  }
  if (!post) throw notFound(id)
  if (post.type !== 'event') throw notAnEvent()
  return post
}

async function eventBySlug(ctx: Context, slug: string): Promise<EventRecord | null> {
  return ctx.storage.findPostBySlug('event', ctx.language, sanitizeSlug(slug))
}

// ---------------------------------------------------------------------------------------------
// Reads

/** The event a read or delete names; an unknown slug is a 400 naming `slug`. */
async function named(ctx: Context, at: { id: number } | { slug: string }): Promise<EventRecord> {
  if ('id' in at) return eventById(ctx, at.id)
  const found = await eventBySlug(ctx, at.slug)
  if (!found) throw invalidParam('slug')
  return found
}

export async function readEvent(ctx: Context, at: Input<'eventById' | 'eventBySlug'>): Promise<Reply> {
  const event = await named(ctx, at)
  if (event.status === 'trash') throw new ApiError(403, 'event-no-longer-available', 'This event is no longer available')
  if (!canRead(ctx.principal, event)) throw new ApiError(403, 'event-not-accessible', 'The requested event is not accessible')
  if (wantsIcs(ctx)) {
    return icsReply(icalendar(ctx, [event], await loadRelations(ctx, [event]), event.title))
  }
  const [body] = await present(ctx, [event], true)
  return { ...ok(body, { Vary: 'Accept' }), allow: recordAllow(canModify(ctx.principal, event)) }
}

/**
 * The event a route names as this caller would read it alone (trashed ones too, for the callers
 * who may still edit them): the body its strong ETag hashes; null when there is none they may read.
 */
export async function eventSingle(ctx: Context, at: RecordAt): Promise<Single | null> {
  const event = 'id' in at ? ((await ctx.storage.getPost(at.id)) ?? (await provisionalEvent(ctx, at.id))) : await eventBySlug(ctx, at.slug)
  if (!event || event.type !== 'event' || !canRead(ctx.principal, event)) return null
  const [body] = await present(ctx, [event], true)
  return { body, revision: event.revision }
}

/**
 * Our own links say `status=any` for callers who see every status (as TEC's do); following
 * them must work, so for those callers `any` means "no status filter" rather than a 400.
 */
export function listParams(ctx: Context, params: Params): Params {
  return params.status === 'any' && canEditPosts(ctx.principal)
    ? Object.assign(Object.create(null) as Params, params, { status: undefined })
    : params
}

export async function listEvents(ctx: Context, q: Input<'eventList'>): Promise<Reply> {
  if (q.sync_token !== undefined) return syncEvents(ctx, q, q.sync_token)
  const plan = eventListQuery(q, ctx)
  await resolveListReferences(ctx, q, plan)
  const { query, canonical, failures, page, perPage } = plan
  if (failures.size) throw invalidParams(failures)

  if (wantsIcs(ctx)) {
    // A subscription cannot page: without paging parameters the feed is the whole window.
    const paged = ctx.params.page !== undefined || ctx.params.per_page !== undefined
    return eventFeed(ctx, query, { paged, page, perPage })
  }
  const result = await listEventsShown(ctx, query)
  const { body, headers } = pageOf(ctx, {
    key: 'events',
    path: 'events/',
    page,
    perPage,
    total: result.total,
    canonical,
    items: await present(ctx, result.items),
    notFound: () => new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist'),
  })
  return ok(body, { ...headers, Vary: 'Accept' })
}

/** Date filters and the one filter a sync cannot follow entry by entry (which member of a series is first). */
const NOT_WITH_SYNC = [
  'start_date',
  'end_date',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
  'hide_subsequent_recurrences',
]

/** `sync_token` on the event list (resources/sync.ts): the list's filters without a date window. */
async function syncEvents(ctx: Context, q: Input<'eventList'>, token: string): Promise<Reply> {
  refuseWithSync(q, NOT_WITH_SYNC)
  if (q.page > 1) throw invalidParam('page', { message: 'A sync goes on with the sync_token of next_rest_url, not with page.' })
  const plan = eventListQuery(q, ctx)
  await resolveListReferences(ctx, q, plan)
  if (plan.failures.size) throw invalidParams(plan.failures)
  const { startGte: _a, startGt: _b, startLt: _c, endLte: _d, endGt: _e, endLt: _f, ...unwindowed } = plan.query
  // A sync's pages end by their own rule, not by a total: counting the matches is skipped.
  const base: EventListQuery = { ...unwindowed, orderBy: 'id', offset: 0, uncounted: true }
  const { page: _page, per_page: _perPage, sync_token: _token, ...filters } = q
  const list = async (extra: Partial<EventListQuery>, limit: number) => (await ctx.storage.listEvents({ ...base, ...extra, limit })).items
  return syncReply(ctx, token, plan.perPage, {
    collection: 'events',
    kinds: ['event'],
    filters,
    page: (afterId, limit) => list({ idAfter: afterId }, limit),
    matching: (ids) => {
      const wanted = base.include ? ids.filter((id) => base.include!.includes(id)) : ids
      return wanted.length ? list({ include: wanted }, wanted.length) : Promise.resolve([])
    },
    related: (entries) => eventsShowing(ctx, entries),
    present: (events) => present(ctx, events),
  })
}

/** Events of the request's language (any status) that show a venue, organizer or term these entries changed. */
function eventsShowing(ctx: Context, entries: readonly JournalEntry[]): Promise<number[]> {
  const shown = { venue: new Set<number>(), organizer: new Set<number>(), category: new Set<number>(), tag: new Set<number>() }
  // A term whose count alone moved changes the terms' lists, not the events showing it: their
  // embedded count is as of the event's own last change (docs/sync.md).
  for (const e of entries) if (e.kind !== 'event' && e.action !== 'count') shown[e.kind].add(e.id)
  if (Object.values(shown).every((s) => !s.size)) return Promise.resolve([])
  return ctx.storage.eventsShowing(ctx.language, {
    venueIds: [...shown.venue],
    organizerIds: [...shown.organizer],
    categoryIds: [...shown.category],
    tagIds: [...shown.tag],
  })
}

// ---------------------------------------------------------------------------------------------
// Writes

/** Fails with 401/403 before anything else is looked at (docs/wire-compatibility.md §5.2). */
export function requireEditor(ctx: Context): void {
  if (!canEditPosts(ctx.principal)) throw forbidden(ctx.principal !== null)
}

const clearable = (x: string | null | undefined) => x ?? ''

export async function createEvent(ctx: Context, input: Input<'eventCreate'>): Promise<Reply> {
  requireEditor(ctx)
  const tz = input.timezone ? canonicalTimezone(input.timezone) : ctx.options.timezone
  const allDay = input.all_day === true
  const sched = schedule(wallClock(ctx, 'start_date', input.start_date, tz), wallClock(ctx, 'end_date', input.end_date, tz), allDay, tz)
  const pub = publicationDates(ctx, input.date, input.date_utc) ?? { date: ctx.nowLocal, dateUtc: ctx.nowUtc }
  const author = await authorFor(ctx, input.author)
  const image = await resolveImage(ctx, input.image)
  const costs = costEntries(input.cost)
  const status = scaleBackStatus(ctx.principal, input.status, 'event')
  // Recurring series: checked in full before anything is stored.
  const recurrence = parseRecurrence(ctx, input.recurrence, tz)
  const plan = recurrence ? planSeries(ctx, recurrence, sched.startDate, tz, allDay) : null
  const venue = await prepareLinked(ctx, 'venue', input.venue ?? null)

  const event = await ctx.storage.transaction(async (tx) => {
    const group = await translationGroup(ctx, tx, input.translation_of)
    const record: Omit<NewPost<'event'>, 'slug'> = {
      type: 'event',
      language: ctx.language,
      ...(group !== undefined ? { translationGroup: group } : {}),
      author,
      status,
      title: input.title,
      description: clearable(input.description),
      excerpt: clearable(input.excerpt),
      date: pub.date,
      dateUtc: pub.dateUtc,
      modified: ctx.nowLocal,
      modifiedUtc: ctx.nowUtc,
      image,
      ...sched,
      timezone: tz,
      allDay,
      cost: costs,
      ...deriveCurrency(costs),
      currencyCode: '',
      website: input.website ?? null,
      ...plainCreated('event', input),
      eventStatus: input.event_status ?? 'scheduled',
      previousStartDate: null,
      customFields: createdValues(ctx, 'event', input.custom_fields),
      parentId: 0,
      venueIds: await resolveLinked(ctx, tx, 'venue', venue),
      organizerIds: await resolveLinked(ctx, tx, 'organizer', input.organizer ?? null),
      categoryIds: await resolveTerms(ctx, tx, 'category', input.categories ?? null),
      tagIds: await resolveTerms(ctx, tx, 'tag', input.tags ?? null),
    }
    const base = sanitizeSlug(input.slug ?? input.title, ctx.language) || 'event'
    const inserted = await withFreeSlug(tx, 'event', ctx.language, base, (slug) => tx.insertPost<'event'>({ ...record, slug }))
    return plan ? writeSeries(ctx, tx, inserted, plan) : inserted
  })
  return written(ctx, event, created)
}

/** The event an update names; an unknown slug is a 404 here (a by-slug read answers 400). */
async function targetForUpdate(ctx: Context, at: Input<'eventById' | 'eventBySlug'>): Promise<EventRecord> {
  if ('id' in at) return eventById(ctx, at.id, true)
  const found = await eventBySlug(ctx, at.slug)
  if (!found) throw new ApiError(404, 'rest-event-not-found', `Event with slug ${sanitizeSlug(at.slug)} does not exist.`)
  return found
}

/** On the by-slug route the path names the event; a body `slug` renames it (the router's `fields` reads it from the body). */
export async function updateEvent(
  ctx: Context,
  at: Input<'eventById' | 'eventBySlug'>,
  fields: () => Input<'eventUpdate'>,
): Promise<Reply> {
  requireEditor(ctx)
  const current = await targetForUpdate(ctx, at)
  if (!canModify(ctx.principal, current)) throw forbidden(true)
  const input = fields()
  const patch = await eventPatch(ctx, current, input)
  const series = seriesUpdate(
    ctx,
    current,
    await withoutSameRule(ctx, current, input),
    patch.startDate !== undefined,
    patch.timezone ?? current.timezone,
  )
  const venue = input.venue !== undefined ? await prepareLinked(ctx, 'venue', input.venue) : undefined

  const event = await ctx.storage.transaction(async (tx) => {
    if (venue) patch.venueIds = await resolveLinked(ctx, tx, 'venue', venue)
    if (input.organizer !== undefined) patch.organizerIds = await resolveLinked(ctx, tx, 'organizer', input.organizer)
    if (input.categories !== undefined) patch.categoryIds = await resolveTerms(ctx, tx, 'category', input.categories)
    if (input.tags !== undefined) patch.tagIds = await resolveTerms(ctx, tx, 'tag', input.tags)
    const slug = input.slug !== undefined ? sanitizeSlug(input.slug) || 'event' : undefined
    // Nothing the write asks for differs from the record: nothing is written (no new modified,
    // revision, journal entry or onChange), as a read sent back unchanged must not change it.
    const now = await tx.getPost(current.id)
    const unchanged = now?.type === 'event' && !patchChanges(now, patch) && (slug === undefined || slug === now.slug)
    if (unchanged && (!series || series.recurrence === undefined)) return now
    if (series) return applySeriesUpdate(ctx, tx, patch, slug, series, current)
    // `status: "trash"` trashes as DELETE does; another status restores a trashed event.
    return writePost(tx, current, patch, slug)
  })
  // A series edit may answer another occurrence than the one the route names: its tag is read.
  if (event.id !== current.id) return ok((await present(ctx, [event]))[0])
  return written(ctx, event, ok)
}

/**
 * The input without `recurrence` when it is the rule the event's series already has, as a read
 * shows it (`{ rrule, rdate, exdate, description }`): sending a read back changes nothing.
 */
async function withoutSameRule(ctx: Context, current: EventRecord, input: Input<'eventUpdate'>): Promise<Input<'eventUpdate'>> {
  const sent = input.recurrence
  if (sent === undefined || sent === null || typeof sent !== 'object' || !current.seriesId) return input
  const head = current.seriesId === current.id ? current : await ctx.storage.getPost(current.seriesId)
  const rule = head?.type === 'event' ? head.series?.rule : undefined
  const r = sent as { rrule?: unknown; rdate?: unknown; exdate?: unknown }
  const same = (a: unknown, b: readonly string[]) => JSON.stringify(a ?? []) === JSON.stringify(b)
  if (!rule || r.rrule !== rule.rrule || !same(r.rdate, rule.rdate) || !same(r.exdate, rule.exdate)) return input
  const { recurrence: _same, ...rest } = input
  return rest
}

/** Only the fields sent change (docs/wire-compatibility.md §5.1); `null`/`""` clears what can be cleared. */
async function eventPatch(ctx: Context, current: EventRecord, input: Input<'eventUpdate'>): Promise<PostPatch<'event'>> {
  const patch: PostPatch<'event'> = { modified: ctx.nowLocal, modifiedUtc: ctx.nowUtc }
  if (input.title !== undefined) patch.title = input.title
  if (input.description !== undefined) patch.description = clearable(input.description)
  if (input.excerpt !== undefined) patch.excerpt = clearable(input.excerpt)
  if (input.status !== undefined) patch.status = scaleBackStatus(ctx.principal, input.status, 'event')
  if (input.author !== undefined) patch.author = await authorFor(ctx, input.author)
  const pub = publicationDates(ctx, input.date, input.date_utc)
  if (pub) Object.assign(patch, pub)

  const tz = input.timezone === undefined ? current.timezone : input.timezone ? canonicalTimezone(input.timezone) : ctx.options.timezone
  const allDay = input.all_day ?? current.allDay
  const datesChange = input.start_date !== undefined || input.end_date !== undefined || tz !== current.timezone || allDay !== current.allDay
  if (datesChange) {
    const start = input.start_date !== undefined ? wallClock(ctx, 'start_date', input.start_date, tz) : current.startDate
    const end = input.end_date !== undefined ? wallClock(ctx, 'end_date', input.end_date, tz) : current.endDate
    Object.assign(patch, schedule(start, end, allDay, tz), { timezone: tz, allDay })
  }
  if (input.image !== undefined) patch.image = await resolveImage(ctx, input.image)
  // A read sent back unchanged shows the cost formatted and the permalink as the website: as
  // long as they say what the record already shows, nothing changes.
  const sameCost = typeof input.cost === 'string' && input.cost === formatCost(current, ctx.options.currency)
  const sameWebsite = current.website === null && input.website === permalink(ctx, 'event', current)
  if (input.cost !== undefined && !sameCost) {
    patch.cost = costEntries(input.cost)
    Object.assign(patch, deriveCurrency(patch.cost))
  }
  if (input.website !== undefined && !sameWebsite) patch.website = clearable(input.website)
  patchPlain('event', input, patch)
  if (input.event_status !== undefined) patch.eventStatus = input.event_status
  const custom = patchedValues(ctx, 'event', current.customFields, input.custom_fields)
  if (custom !== undefined) patch.customFields = custom
  // A postponed event given new dates is rescheduled (schema.org's EventRescheduled), unless
  // the same write says otherwise; its former start is kept for previousStartDate.
  const moved = patch.startDate !== undefined && patch.startDate !== current.startDate
  if (moved && current.eventStatus === 'postponed' && input.event_status === undefined) {
    patch.eventStatus = 'scheduled'
    patch.previousStartDate = current.startDate
  }
  return patch
}

export async function deleteEvent(ctx: Context, q: Input<'eventDelete' | 'eventDeleteBySlug'>): Promise<Reply> {
  requireEditor(ctx)
  const current = 'id' in q ? await eventById(ctx, q.id, true) : await named(ctx, q)
  if (!canModify(ctx.principal, current)) throw forbidden(true)
  const scope = scopeOf(current, q.recurrence_scope, true)
  if (scope) {
    if (current.status === 'trash' && q.force !== true) throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed')
    const result = await ctx.storage.transaction((tx) => deleteInSeries(ctx, tx, current, scope, q.force === true))
    const [body] = await present(ctx, [result])
    return ok(body)
  }
  if (q.force === true) {
    // For good, trashed or not: the id then answers 404 like one that never existed.
    const gone = await deleteForGood(ctx, current.id)
    if (!gone || gone.type !== 'event') throw notFound(current.id)
    const [body] = await present(ctx, [gone])
    return ok(body)
  }
  if (current.status === 'trash') throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed')
  const trashed = await ctx.storage.transaction((tx) => moveToTrash(ctx, tx, current))
  const [body] = await present(ctx, [trashed])
  return ok(body)
}
