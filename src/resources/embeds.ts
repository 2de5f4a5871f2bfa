/**
 * The linked records a batch of posts needs for its representation, loaded with one call per
 * kind however many posts there are: venues, organizers, terms, translations, and the first
 * occurrences of the series its events belong to.
 */
import { canRead } from '../auth/principal.js'
import type { Context } from '../context.js'
import type { Json } from '../representation/common.js'
import type { Relations } from '../representation/embedded.js'
import { seriesJson } from '../representation/series.js'
import type { EventRecord, OrganizerRecord, PostRecord, VenueRecord } from '../storage/types.js'

/**
 * `shown: 'feed'` loads only what an iCalendar feed shows of the links (venues, organizers,
 * categories): no tags, no translations.
 */
export async function loadRelations(ctx: Context, posts: readonly PostRecord[], shown: 'json' | 'feed' = 'json'): Promise<Relations> {
  const feed = shown === 'feed'
  const linked = new Set<number>()
  const termIds = new Set<number>()
  const groups = new Set<number>()
  for (const p of posts) {
    if (!feed) groups.add(p.translationGroup)
    if (p.type !== 'event') continue
    for (const id of p.venueIds) linked.add(id)
    for (const id of p.organizerIds) linked.add(id)
    for (const id of p.categoryIds) termIds.add(id)
    if (!feed) for (const id of p.tagIds) termIds.add(id)
  }
  // Translation groups are asked for beside the linked records (on PostgreSQL each read has a
  // connection of its own): the posts' own, and for each linked record the group it starts (its
  // id), which is its group unless it is itself a translation (asked for afterwards).
  if (!feed) for (const id of linked) groups.add(id)
  const [records, terms, translated] = await Promise.all([
    linked.size ? ctx.storage.getPosts([...linked]) : Promise.resolve([]),
    termIds.size ? ctx.storage.getTerms([...termIds]) : Promise.resolve([]),
    groups.size ? ctx.storage.getTranslations([...groups], 'posts') : Promise.resolve(new Map<number, Record<string, number>>()),
  ])
  const venues = new Map<number, VenueRecord>()
  const organizers = new Map<number, OrganizerRecord>()
  const more = new Set<number>()
  for (const r of records) {
    // Never embed a linked record the caller may not read, nor one in the trash.
    if (r.status === 'trash' || !canRead(ctx.principal, r)) continue
    if (r.type === 'venue') venues.set(r.id, r)
    else if (r.type === 'organizer') organizers.set(r.id, r)
    if (!feed && !groups.has(r.translationGroup)) more.add(r.translationGroup)
  }
  if (more.size) for (const [group, members] of await ctx.storage.getTranslations([...more], 'posts')) translated.set(group, members)
  const translations = feed
    ? new Map<number, Record<string, number>>()
    : await readableTranslations(ctx, translated, [...posts, ...records])
  return { venues, organizers, terms: new Map(terms.map((t) => [t.id, t])), translations }
}

/**
 * The translation groups `all` holds, each reduced to the members the caller may read: a
 * published record's `translations` must not show an anonymous reader the id of a draft
 * translation. The members not already at hand are read in one call, and only when a group has any.
 */
async function readableTranslations(ctx: Context, all: Map<number, Record<string, number>>, known: readonly PostRecord[]) {
  const byId = new Map<number, PostRecord>()
  for (const p of known) byId.set(p.id, p)
  const missing: number[] = []
  for (const members of all.values()) for (const language in members) if (!byId.has(members[language]!)) missing.push(members[language]!)
  if (missing.length) for (const p of await ctx.storage.getPosts(missing)) byId.set(p.id, p)
  for (const [group, members] of all) {
    // Most groups are all readable (published, or a caller who sees drafts): kept as they are.
    let every = true
    for (const language in members) if (!readable(ctx, byId, members[language]!)) every = false
    if (every) continue
    const shown: Record<string, number> = {}
    for (const language in members) if (readable(ctx, byId, members[language]!)) shown[language] = members[language]!
    all.set(group, shown)
  }
  return all
}

function readable(ctx: Context, byId: Map<number, PostRecord>, id: number): boolean {
  const p = byId.get(id)
  return p !== undefined && canRead(ctx.principal, p)
}

/**
 * The series fields of each event (representation/series.ts), null for an event outside any
 * series; the first occurrences not in the batch are read in one call.
 */
export function seriesFields(ctx: Context, events: readonly EventRecord[]): Promise<Array<Json | null>> {
  // Most pages hold no occurrence of a series: answered without an async call.
  if (!events.some(inSeries)) return Promise.resolve(events.map(noSeries))
  return seriesFieldsRead(ctx, events)
}

const inSeries = (e: EventRecord) => Boolean(e.seriesId)
const noSeries = () => null

async function seriesFieldsRead(ctx: Context, events: readonly EventRecord[]): Promise<Array<Json | null>> {
  const heads = new Map<number, EventRecord>()
  for (const e of events) if (e.seriesId === e.id) heads.set(e.id, e)
  const missing = [...new Set(events.filter((e) => e.seriesId && !heads.has(e.seriesId)).map((e) => e.seriesId!))]
  if (missing.length) for (const p of await ctx.storage.getPosts(missing)) if (p.type === 'event') heads.set(p.id, p)
  return seriesJson(events, heads)
}
