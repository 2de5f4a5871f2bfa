/**
 * The memory storage's views derived from its committed records (a list's start order, the slug
 * index, term counts), carried over a commit by applying what the transaction changed, so that
 * a write costs what it touched, not a rebuild over every record on the next read. A view the
 * changes cannot update exactly (translation groups; counts once a term itself changed, since a
 * term's language decides which events count for it) is dropped and rebuilt when next read.
 */
import type { EventRecord, PostRecord, TermWithCount } from './types.js'

export interface Derived {
  /** Events by (start date, id): lists walk it instead of sorting every time. */
  eventsByStart?: EventRecord[]
  translations?: Partial<Record<'posts' | 'terms', Map<number, Record<string, number>>>>
  /** Published events of the term's language carrying each term. */
  counts?: Map<number, number>
  /** Posts by type, language and slug (slugKey): a slug check or lookup without a scan. */
  postSlugs?: Map<string, number>
  /** Terms with their counts as handed out (not carried: a commit may change any count). */
  withCounts?: Map<number, TermWithCount>
}

/** A post a transaction wrote: as committed before it (absent: new) and after it (absent: deleted). */
export interface PostChange {
  before?: PostRecord
  after?: PostRecord
}

export const slugKey = (type: string, language: string, slug: string) => `${type}\u0000${language}\u0000${slug}`

export const byStart = (a: EventRecord, b: EventRecord) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id - b.id)

/**
 * `views` after `changes`. `countedTerms` gives the terms an event counts for (none unless it is
 * a published event; the terms of its own language), read with the terms as committed.
 *
 * @example
 * state.derived = carryViews(state.derived, [{ before: old, after: updated }], false, countedTerms)
 */
export function carryViews(
  views: Derived,
  changes: readonly PostChange[],
  termsChanged: boolean,
  countedTerms: (post: PostRecord) => readonly number[],
): Derived {
  const next: Derived = {}

  if (views.eventsByStart) next.eventsByStart = carriedOrder(views.eventsByStart, changes)
  if (views.postSlugs) next.postSlugs = carriedSlugs(views.postSlugs, changes)
  if (views.counts && !termsChanged) next.counts = carriedCounts(views.counts, changes, countedTerms)
  return next
}

function carriedOrder(order: readonly EventRecord[], changes: readonly PostChange[]): EventRecord[] {
  const out = [...order]
  const isEvent = (p: PostRecord | undefined): p is EventRecord => p?.type === 'event'
  for (const { before, after } of changes) {
    if (isEvent(before)) {
      const at = findIndex(out, before)
      // The view holds every committed event; one missing means the view is wrong: rebuild it.
      if (out[at] !== before) return rebuilt(out, changes)
      out.splice(at, 1)
    }
    if (isEvent(after)) out.splice(findIndex(out, after), 0, after)
  }
  return out
}

/** The first index whose event sorts at or after `e` (binary search over the start order). */
function findIndex(order: readonly EventRecord[], e: EventRecord): number {
  let lo = 0
  let hi = order.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (byStart(order[mid]!, e) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

function rebuilt(order: EventRecord[], changes: readonly PostChange[]): EventRecord[] {
  const gone = new Set(changes.map((c) => c.before).filter((p) => p !== undefined))
  const kept = order.filter((e) => !gone.has(e))
  for (const { after } of changes) if (after?.type === 'event') kept.push(after)
  return kept.sort(byStart)
}

function carriedSlugs(slugs: ReadonlyMap<string, number>, changes: readonly PostChange[]): Map<string, number> {
  const out = new Map(slugs)
  for (const { before } of changes) {
    if (!before) continue
    const key = slugKey(before.type, before.language, before.slug)
    if (out.get(key) === before.id) out.delete(key)
  }
  for (const { after } of changes) if (after) out.set(slugKey(after.type, after.language, after.slug), after.id)
  return out
}

function carriedCounts(
  counts: ReadonlyMap<number, number>,
  changes: readonly PostChange[],
  countedTerms: (post: PostRecord) => readonly number[],
): Map<number, number> {
  const out = new Map(counts)
  const move = (post: PostRecord | undefined, by: number) => {
    if (!post) return
    for (const id of countedTerms(post)) {
      const n = (out.get(id) ?? 0) + by
      if (n) out.set(id, n)
      else out.delete(id)
    }
  }
  for (const { before, after } of changes) {
    move(before, -1)
    move(after, 1)
  }
  return out
}
