/**
 * The linked records a batch of posts needs for its representation, loaded with one call per
 * kind however many posts there are.
 */
import { canRead } from '../auth/principal.js'
import type { Context } from '../context.js'
import type { Relations } from '../representation/embedded.js'
import type { OrganizerRecord, PostRecord, VenueRecord } from '../storage/types.js'

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
  const [records, terms] = await Promise.all([
    linked.size ? ctx.storage.getPosts([...linked]) : Promise.resolve([]),
    termIds.size ? ctx.storage.getTerms([...termIds]) : Promise.resolve([]),
  ])
  const venues = new Map<number, VenueRecord>()
  const organizers = new Map<number, OrganizerRecord>()
  for (const r of records) {
    // Never embed a linked record the caller may not read, nor one in the trash.
    if (r.status === 'trash' || !canRead(ctx.principal, r)) continue
    if (r.type === 'venue') venues.set(r.id, r)
    else if (r.type === 'organizer') organizers.set(r.id, r)
    if (!feed) groups.add(r.translationGroup)
  }
  const translations = feed ? new Map() : await ctx.storage.getTranslations([...groups], 'posts')
  return { venues, organizers, terms: new Map(terms.map((t) => [t.id, t])), translations }
}
