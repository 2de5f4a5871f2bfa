/**
 * Venues and organizers: one module, two record types that differ only in their fields, the
 * name parameter and their error codes.
 */
import { canEditPosts, canModify, canRead, scaleBackStatus } from '../auth/principal.js'
import { ApiError, forbidden, invalidParam, invalidParams, type ParamFailure } from '../http/errors.js'
import { organizerJson, venueJson } from '../representation/post.js'
import { importSources, withImportSource } from './import-source.js'
import { postWriter } from '../representation/post-text.js'
import { loadRelations } from './embeds.js'
import type { Input } from '../schemas/index.js'
import type { NewPost, OrganizerRecord, PostPatch, PostStatus, RecordOf, StorageTx, VenueRecord } from '../storage/types.js'
import type { Context } from '../context.js'
import { publicationDates } from './dates.js'
import { authorFor, ownDraftsOnly, patchChanges, translationGroup } from './posts.js'
import { resolveImage } from './image.js'
import { pageOf, requireStatuses } from './lists.js'
import { created, ok, recordAllow, type Reply } from './respond.js'
import type { RecordAt, Single } from './record-tag.js'
import { refuseWithSync, syncReply } from './sync.js'
import type { LinkedListQuery } from '../storage/types.js'
import { sanitizeSlug, withFreeSlug } from './slug.js'
import { deleteForGood, moveToTrash, writePost } from './trash.js'
import { ADDRESS_FIELDS, coordinatesOf, geocodeVenue, geoFilter, newVenueCoordinates } from './geo.js'
import { createdValues, patchedValues } from './custom-fields.js'
import { patchPlain, plainCreated } from '../storage/wire-fields.js'
import { scalarText } from '../http/params.js'

export type LinkedType = 'venue' | 'organizer'
type Rec<T extends LinkedType> = RecordOf<T>

export const VENUE_ADDRESS_FIELDS = ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince', 'website'] as const
const ORGANIZER_FIELDS = ['phone', 'website', 'email'] as const

const FIELDS: Record<LinkedType, ReadonlyArray<(typeof VENUE_ADDRESS_FIELDS)[number] | (typeof ORGANIZER_FIELDS)[number]>> = {
  venue: VENUE_ADDRESS_FIELDS,
  organizer: ORGANIZER_FIELDS,
}
const PLURAL: Record<LinkedType, 'venues' | 'organizers'> = { venue: 'venues', organizer: 'organizers' }

/** A venue or organizer as the path names it. */
type Named = Input<'venueById' | 'venueBySlug' | 'organizerById' | 'organizerBySlug'>

/** The fields of a new venue or organizer (also nested in an event write). */
export type LinkedCreateInput = Input<'venueCreate' | 'organizerCreate'>

export function linkedJson(
  ctx: Context,
  rec: VenueRecord | OrganizerRecord,
  rel: Awaited<ReturnType<typeof loadRelations>>,
  single = false,
) {
  return rec.type === 'venue' ? venueJson(ctx, rec, rel, single) : organizerJson(ctx, rec, rel, single)
}

async function present(ctx: Context, recs: Array<VenueRecord | OrganizerRecord>, single = false): Promise<unknown[]> {
  const render = await renderer(ctx, recs)
  return recs.map((r) => render(r, single))
}

/** Renders records of `recs`, what they embed loaded once for every render asked of it. */
async function renderer(ctx: Context, recs: Array<VenueRecord | OrganizerRecord>, created = false) {
  const [rel, sources] = await Promise.all([loadRelations(ctx, recs), importSources(ctx, recs, created)])
  const writer = postWriter(ctx)
  return (r: VenueRecord | OrganizerRecord, single: boolean): unknown =>
    withImportSource(writer ? writer.linked(r, rel, single) : linkedJson(ctx, r, rel, single), sources.get(r.id))
}

/** A written record's reply: the write representation, and its single read for the reply's ETag. */
async function written(ctx: Context, rec: VenueRecord | OrganizerRecord, reply: (body: unknown) => Reply): Promise<Reply> {
  const render = await renderer(ctx, [rec], reply === created)
  return { ...reply(render(rec, false)), ...(canRead(ctx.principal, rec) ? { single: render(rec, true) } : {}) }
}

/** TEC derives `stateprovince`: the state in the US (or with no country), else the province. */
export function stateProvince(country: string, state: string, province: string): string {
  const c = country.trim().toLowerCase()
  // Never the other field as a fallback (docs/wire-compatibility.md §7.5): a non-US state is not a province.
  return c === '' || c === 'us' || c === 'usa' || c === 'united states' ? state : province
}

// ---------------------------------------------------------------------------------------------
// Reads

async function byParam<T extends LinkedType>(ctx: Context, at: Named, type: T): Promise<Rec<T>> {
  if ('slug' in at) {
    const found = await ctx.storage.findPostBySlug(type, ctx.language, sanitizeSlug(at.slug))
    if (!found) throw invalidParam('slug')
    return found
  }
  const found = at.id > 0 ? await ctx.storage.getPost(at.id) : null
  // TEC validates the id as an existing record of the type: anything else is a 400.
  if (!found || found.type !== type) throw invalidParam('id')
  // getPost answers any post type; the check above made it this one.
  return found as Rec<T>
}

export async function readLinked(ctx: Context, at: Named, type: LinkedType): Promise<Reply> {
  const rec = await byParam(ctx, at, type)
  if (!canRead(ctx.principal, rec)) throw new ApiError(403, `${type}-not-accessible`, `The requested ${type} is not accessible`)
  const [body] = await present(ctx, [rec], true)
  return { ...ok(body), allow: recordAllow(canModify(ctx.principal, rec)) }
}

/** The venue or organizer a route names, as this caller reads it alone; null when none. */
export async function linkedSingle(ctx: Context, at: RecordAt, type: LinkedType): Promise<Single | null> {
  const rec = 'id' in at ? await ctx.storage.getPost(at.id) : await ctx.storage.findPostBySlug(type, ctx.language, sanitizeSlug(at.slug))
  if (!rec || rec.type !== type || !canRead(ctx.principal, rec)) return null
  const [body] = await present(ctx, [rec], true)
  return { body, revision: rec.revision }
}

/** Search fragments: runs of letters, digits and hyphens (any script), lower-cased. */
export function searchFragments(search: string): string[] {
  return search
    .toLowerCase()
    .split(/[^\p{L}\p{N}-]+/u)
    .filter(Boolean)
}

export async function listLinked(ctx: Context, q: Input<'venueList' | 'organizerList'>, type: LinkedType): Promise<Reply> {
  const privileged = canEditPosts(ctx.principal)
  const statuses = requireStatuses(q.status, privileged)
  const perPage = Math.min(q.per_page, ctx.options.maxPerPage)
  const page = q.page
  const canonical: Array<[string, string]> = [
    ['page', String(page)],
    ['per_page', String(perPage)],
  ]
  if (q.event !== undefined) {
    const e = await ctx.storage.getPost(q.event)
    if (!e || e.type !== 'event') throw invalidParam('event')
    canonical.push(['event', String(q.event)])
  }
  if (q.has_events !== undefined) canonical.push(['has_events', q.has_events ? 'true' : 'false'])
  canonical.push(['status', Array.isArray(q.status) ? q.status.join(',') : privileged ? 'any' : 'publish'])
  const fragments = q.search !== undefined ? searchFragments(q.search) : undefined
  if (q.search !== undefined) canonical.push(['search', q.search])
  if (q.only_with_upcoming) canonical.push(['only_with_upcoming', 'true'])
  const failures = new Map<string, ParamFailure>()
  const geo = geoFilter(ctx, q, (name) => failures.set(name, { message: 'Invalid parameter.' }))
  if (failures.size) throw invalidParams(failures)
  canonical.push(...geo.canonical)

  const query: LinkedListQuery = {
    language: ctx.language,
    statuses,
    ...ownDraftsOnly(ctx),
    ...(fragments ? { searchFragments: fragments } : {}),
    ...(q.event !== undefined ? { eventId: q.event } : {}),
    ...(q.has_events !== undefined ? { hasEvents: q.has_events } : {}),
    ...(q.only_with_upcoming ? { upcomingAfterUtc: ctx.nowUtc, upcomingStatuses: privileged ? statuses : PUBLISHED } : {}),
    ...(geo.located ? { geo: geo.near ? { near: geo.near } : {} } : {}),
    offset: (page - 1) * perPage,
    limit: perPage,
  }
  if (q.sync_token !== undefined) return syncLinked(ctx, q, q.sync_token, type, query, perPage)
  const result = await ctx.storage.listLinked(type, query)
  const { body, headers } = pageOf(ctx, {
    key: PLURAL[type],
    path: `${PLURAL[type]}/`,
    page,
    perPage,
    total: result.total,
    canonical,
    items: await present(ctx, result.items),
    notFound: () => new ApiError(404, `${type}-archive-page-not-found`, `The requested ${type} archive page does not exist`),
  })
  return ok(body, headers)
}

/**
 * `sync_token` on a venue or organizer list (resources/sync.ts). The filters that depend on
 * events (has_events, event, only_with_upcoming) are refused: which records they select changes
 * with other records' writes and with time, not with the records' own.
 */
async function syncLinked(
  ctx: Context,
  q: Input<'venueList' | 'organizerList'>,
  token: string,
  type: LinkedType,
  query: LinkedListQuery,
  perPage: number,
): Promise<Reply> {
  refuseWithSync(q, ['event', 'has_events', 'only_with_upcoming'])
  if (q.page > 1) throw invalidParam('page', { message: 'A sync goes on with the sync_token of next_rest_url, not with page.' })
  const { page: _page, per_page: _perPage, sync_token: _token, ...filters } = q
  const list = async (extra: Partial<LinkedListQuery>, limit: number) =>
    (await ctx.storage.listLinked(type, { ...query, ...extra, offset: 0, limit })).items
  return syncReply(ctx, token, perPage, {
    collection: PLURAL[type],
    kinds: [type],
    filters,
    page: (afterId, limit) => list({ idAfter: afterId }, limit),
    matching: (ids) => list({ include: ids, idAfter: 0 }, ids.length),
    present: (recs) => present(ctx, recs),
  })
}

// ---------------------------------------------------------------------------------------------
// Writes

const PUBLISHED: readonly PostStatus[] = ['publish']

const str = scalarText

/** A new venue or organizer before its slug is chosen. */
export type NewLinked = Omit<NewPost<'venue'>, 'slug'> | Omit<NewPost<'organizer'>, 'slug'>

/** The stored fields of a new venue/organizer from validated input (also used for nested objects). */
export async function newLinkedRecord(
  ctx: Context,
  input: LinkedCreateInput,
  /** geocode: false leaves a venue without given coordinates ungeocoded (the caller decides later). */
  options: { geocode?: boolean } = {},
): Promise<NewLinked> {
  const pub = publicationDates(ctx, input.date, input.date_utc) ?? { date: ctx.nowLocal, dateUtc: ctx.nowUtc }
  const base = {
    language: ctx.language,
    author: ctx.principal?.id ?? 0,
    description: str(input.description),
    excerpt: str(input.excerpt),
    ...pub,
    modified: ctx.nowLocal,
    modifiedUtc: ctx.nowUtc,
    image: await resolveImage(ctx, input.image),
  }
  if (!('venue' in input)) {
    const status = scaleBackStatus(ctx.principal, input.status, 'organizer')
    return {
      type: 'organizer',
      ...base,
      status,
      title: input.organizer,
      phone: str(input.phone),
      website: str(input.website),
      email: str(input.email),
      ...plainCreated('organizer', input),
      customFields: createdValues(ctx, 'organizer', input.custom_fields),
    }
  }
  const country = str(input.country)
  const state = str(input.state)
  const province = str(input.province)
  const address = {
    address: str(input.address),
    city: str(input.city),
    country,
    province,
    state,
    zip: str(input.zip),
    stateprovince: input.stateprovince ? str(input.stateprovince) : stateProvince(country, state, province),
  }
  return {
    type: 'venue',
    ...base,
    status: scaleBackStatus(ctx.principal, input.status, 'venue'),
    title: input.venue,
    ...address,
    phone: str(input.phone),
    website: str(input.website),
    ...plainCreated('venue', input),
    customFields: createdValues(ctx, 'venue', input.custom_fields),
    ...(options.geocode === false
      ? (coordinatesOf(input) ?? { geoLat: null, geoLng: null })
      : await newVenueCoordinates(ctx, input, address)),
  }
}

export async function insertLinked(tx: StorageTx, record: NewLinked): Promise<VenueRecord | OrganizerRecord> {
  const base = sanitizeSlug(record.title, record.language) || record.type
  if (record.type === 'venue')
    return withFreeSlug(tx, 'venue', record.language, base, (slug) => tx.insertPost<'venue'>({ ...record, slug }))
  return withFreeSlug(tx, 'organizer', record.language, base, (slug) => tx.insertPost<'organizer'>({ ...record, slug }))
}

export async function createLinked(ctx: Context, input: LinkedCreateInput, type: LinkedType): Promise<Reply> {
  const record = await newLinkedRecord(ctx, input)
  record.author = await authorFor(ctx, input.author)
  // POST /venues and /organizers always create (docs/wire-compatibility.md §5.6); only nested event data reuses.
  const rec = await ctx.storage.transaction(async (tx) => {
    const group = await translationGroup(ctx, tx, input.translation_of, type)
    if (group !== undefined) record.translationGroup = group
    return insertLinked(tx, record)
  })
  return written(ctx, rec, created)
}

/** What a venue or organizer update may carry: each has only its own fields. */
type LinkedFields = Partial<Input<'venueUpdate'>> & Partial<Input<'organizerUpdate'>>

export async function updateLinked(
  ctx: Context,
  at: Named,
  fields: () => Input<'venueUpdate' | 'organizerUpdate'>,
  type: LinkedType,
): Promise<Reply> {
  const current = await byParam(ctx, at, type)
  if (!canModify(ctx.principal, current)) throw forbidden(true)
  const input: LinkedFields = fields()
  const patch: PostPatch<'venue'> & PostPatch<'organizer'> = { modified: ctx.nowLocal, modifiedUtc: ctx.nowUtc }
  const name = type === 'venue' ? input.venue : input.organizer
  if (name !== undefined) patch.title = name
  if (input.description !== undefined) patch.description = str(input.description)
  if (input.excerpt !== undefined) patch.excerpt = str(input.excerpt)
  if (input.status !== undefined) patch.status = scaleBackStatus(ctx.principal, input.status, type)
  if (input.image !== undefined) patch.image = await resolveImage(ctx, input.image)
  if (input.author !== undefined) patch.author = await authorFor(ctx, input.author)
  const pub = publicationDates(ctx, input.date, input.date_utc)
  if (pub) Object.assign(patch, pub)
  for (const f of FIELDS[type]) if (input[f] !== undefined) patch[f] = str(input[f])
  patchPlain(type, input, patch)
  const custom = patchedValues(ctx, type, current.customFields, input.custom_fields)
  if (custom !== undefined) patch.customFields = custom
  if (current.type === 'venue') {
    const v = current
    const located = input.country !== undefined || input.state !== undefined || input.province !== undefined
    if (input.stateprovince === undefined && located) {
      patch.stateprovince = stateProvince(str(patch.country ?? v.country), str(patch.state ?? v.state), str(patch.province ?? v.province))
    }
    // Coordinates as given; else a moved address is geocoded again (the old point is wrong now).
    const given = coordinatesOf(input)
    const moved = ADDRESS_FIELDS.some((f) => patch[f] !== undefined && patch[f] !== v[f])
    const coordinates = given ?? (moved ? await geocodeVenue(ctx, { ...v, ...patch }) : undefined)
    if (coordinates) Object.assign(patch, coordinates)
  }
  // Venues and organizers have no slug parameter (docs/wire-compatibility.md §7.5): renaming keeps the slug.
  // `status: "trash"` trashes as DELETE does; another status restores a trashed record.
  // Nothing differs (a read sent back unchanged): nothing is written.
  const rec = await ctx.storage.transaction(async (tx) => {
    const now = await tx.getPost(current.id)
    return now?.type === type && !patchChanges(now, patch) ? now : writePost(tx, current, patch)
  })
  return written(ctx, rec, ok)
}

export async function deleteLinked(
  ctx: Context,
  q: Input<'venueDelete' | 'venueDeleteBySlug' | 'organizerDelete' | 'organizerDeleteBySlug'>,
  type: LinkedType,
): Promise<Reply> {
  const { force } = q
  const bySlug = 'slug' in q
  const current = await byParam(ctx, q, type)
  if (!canModify(ctx.principal, current)) throw forbidden(true)
  if (force === true) {
    // For good, trashed or not: the id then answers like one that never existed.
    const gone = await deleteForGood(ctx, current.id)
    if (!gone || gone.type !== type) throw invalidParam(bySlug ? 'slug' : 'id')
    const [body] = await present(ctx, [gone])
    return ok(body)
  }
  if (current.status === 'trash') throw new ApiError(410, `${type}-is-in-trash`, `The ${type} is already trashed`)
  // Trashing unlinks it from every event, as TEC deletes the link meta.
  const trashed = await ctx.storage.transaction((tx) => moveToTrash(ctx, tx, current))
  const [body] = await present(ctx, [trashed])
  return ok(body)
}
