/**
 * Occurrences of open-ended series past their written horizon ("provisional" occurrences). A
 * read never writes: a list whose window reaches past a series' `through` shows the occurrences
 * its rule places there, computed from the head, and a read of one by id answers it computed the
 * same way. Each carries the id it will be stored with once the horizon task (or a write that
 * names it) writes it, so a client that kept the id or the link of one finds it again: the
 * series reserved a block of ids when it was written (StorageTx.reserveIds) and the occurrence
 * at position p (its 1-based place in the rule's expansion, as the writer numbers it) is
 * `block + p - 1`. The fields a provisional occurrence shows are the head's, moved to its date,
 * with the head's publication and modification dates: the occurrence written later differs only
 * in those.
 */
import type { Context } from '../context.js'
import { expandRule, parseRule } from '../recurrence/index.js'
import { inDateWindow } from '../storage/event-window.js'
import { ID_BLOCK, type EventListQuery, type EventRecord, type Page } from '../storage/types.js'
import { addMonths, dayEnd } from '../time/format.js'
import { occurrenceOf, occurrenceSlug } from './occurrences.js'

/** A list never shows occurrences further ahead than this. */
const LIMIT_YEARS = 10
/** Heads looked at per storage read when a list reaches past the horizon. */
const HEAD_PAGE = 500

/**
 * The id the occurrence at `position` of a series whose block starts at `block` is shown and
 * later stored with; null without a block or past its end.
 * @example provisionalId(4294967296, 3) // 4294967298
 */
export function provisionalId(block: number | undefined, position: number): number | null {
  return block !== undefined && Number.isSafeInteger(position) && position > 0 && position <= ID_BLOCK ? block + position - 1 : null
}

/** The open-ended rule of a series head, or null when `e` is not the head of one. */
function openRule(e: EventRecord) {
  const rule = e.seriesId === e.id ? e.series?.rule : undefined
  return rule?.through ? { ...rule, through: rule.through } : null
}

/** The occurrence of `head` at `start` (its `position`) as a read shows it before it is written. */
function provisional(head: EventRecord, start: string, position: number): EventRecord | null {
  const id = provisionalId(head.series?.rule?.ids, position)
  if (id === null) return null
  const fields = occurrenceOf(head, start, position, head.id, { nowLocal: head.modified, nowUtc: head.modifiedUtc })
  return {
    ...fields,
    date: head.date,
    dateUtc: head.dateUtc,
    id,
    slug: occurrenceSlug(head, start),
    sequence: head.sequence,
    // Never a stored record's revision (they start at 0): what is rendered of it under
    // (id, revision), by the fragment cache, is never taken for the record once written.
    revision: -1,
    translationGroup: id,
  }
}

/** Every start the rule of `head` places after its horizon up to `until`, with its position. */
function startsPast(ctx: Context, head: EventRecord, until: string): Array<[string, number]> {
  const rule = openRule(head)
  if (!rule || until <= rule.through) return []
  const starts = expandRule(parseRule(rule.rrule), head.series!.original, {
    timezone: head.timezone,
    horizon: until,
    max: ctx.options.recurrence.maxOccurrences,
  })
  const skip = new Set(rule.exdate.map((d) => d.slice(0, 10)))
  const out: Array<[string, number]> = []
  starts.forEach((s, i) => {
    if (s > rule.through && !skip.has(s.slice(0, 10))) out.push([s, i + 1])
  })
  return out
}

/**
 * The provisional occurrence a read of `id` names, as a list would show it; null when `id` is not
 * provisional, is stored already, or its series places nothing there (any more).
 */
export async function provisionalEvent(ctx: Context, id: number): Promise<EventRecord | null> {
  const headId = (await ctx.storage.reservedBy?.(id)) ?? null
  const head = headId === null ? null : await ctx.storage.getPost(headId)
  const block = head?.type === 'event' ? openRule(head)?.ids : undefined
  if (!head || head.type !== 'event' || block === undefined || id < block || id >= block + ID_BLOCK) return null
  const until = dayAhead(ctx, LIMIT_YEARS * 12)
  const hit = startsPast(ctx, head, until).find(([, position]) => position === id - block + 1)
  return hit ? provisional(head, hit[0], hit[1]) : null
}

/** The end of the day `months` after the site's clock now (the same for every request of one second). */
function dayAhead(ctx: Context, months: number): string {
  const memo = ctx.shared.daysAhead
  const now = ctx.nowLocal
  if (memo.at !== now) {
    memo.at = now
    memo.days.clear()
  }
  let day = memo.days.get(months)
  if (day === undefined) memo.days.set(months, (day = dayEnd(addMonths(now, months))))
  return day
}

/** The day up to which a list reaching past the written horizon shows occurrences; null: it does not. */
function reachOf(ctx: Context, q: EventListQuery): string | null {
  const bounds = [q.endLte, q.startLt, q.endLt].filter((b): b is string => b !== undefined)
  if (!bounds.length || q.idAfter !== undefined) return null
  const end = bounds.reduce((a, b) => (a < b ? a : b))
  if (end <= dayAhead(ctx, ctx.options.recurrence.horizonMonths)) return null
  const limit = dayAhead(ctx, LIMIT_YEARS * 12)
  return end < limit ? end : limit
}

/** Whether a provisional occurrence falls in the list's window (the head matched every other filter). */
function inWindow(q: EventListQuery, e: EventRecord): boolean {
  if (!inDateWindow(q, e)) return false
  if (q.include && !q.include.includes(e.id)) return false
  return q.parentId === undefined || q.parentId === e.parentId
}

/** Heads of open-ended series that every filter of `q` but its dates selects, starting before `reach`. */
async function openHeads(ctx: Context, q: EventListQuery, reach: string): Promise<EventRecord[]> {
  const { startGte: _a, startGt: _b, startLt: _c, endLte: _d, endGt: _e, endLt: _f, include: _g, ...rest } = q
  const base: EventListQuery = { ...rest, parentId: 0, firstOfSeries: false, startLt: reach, orderBy: 'id', offset: 0, uncounted: true }
  const heads: EventRecord[] = []
  for (let after = 0; ;) {
    const page = (await ctx.storage.listEvents({ ...base, idAfter: after, limit: HEAD_PAGE })).items
    for (const e of page) {
      const rule = openRule(e)
      if (rule && rule.through < reach) heads.push(e)
    }
    if (page.length < HEAD_PAGE) return heads
    after = page[page.length - 1]!.id
  }
}

/** Whether the stored part of the list holds a member of `head`'s series (hide_subsequent_recurrences). */
async function storedMember(ctx: Context, q: EventListQuery, head: EventRecord): Promise<boolean> {
  const one = { ...q, firstOfSeries: false, offset: 0, limit: 1, uncounted: true }
  const members = await ctx.storage.listEvents({ ...one, parentId: head.id })
  if (members.items.length) return true
  return (await ctx.storage.listEvents({ ...one, include: [head.id] })).items.length > 0
}

/** The provisional occurrences a list shows, in no particular order. */
async function provisionalFor(ctx: Context, q: EventListQuery): Promise<EventRecord[]> {
  const reach = reachOf(ctx, q)
  if (reach === null) return []
  const out: EventRecord[] = []
  for (const head of await openHeads(ctx, q, reach)) {
    const shown: EventRecord[] = []
    for (const [start, position] of startsPast(ctx, head, reach)) {
      const e = provisional(head, start, position)
      if (e && inWindow(q, e)) shown.push(e)
    }
    if (!shown.length) continue
    if (q.firstOfSeries) {
      if (!(await storedMember(ctx, q, head))) out.push(shown.reduce((a, b) => (order(q)(a, b) <= 0 ? a : b)))
    } else out.push(...shown)
  }
  return out
}

/** The storage's order of a list (EventListQuery.orderBy), for merging provisional occurrences in. */
function order(q: EventListQuery): (a: EventRecord, b: EventRecord) => number {
  const by = (key: (e: EventRecord) => string) => (a: EventRecord, b: EventRecord) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id
  if (q.orderBy === 'id') return (a, b) => a.id - b.id
  return q.orderBy === 'date' ? by((e) => e.dateUtc) : by((e) => e.startDate)
}

/**
 * The event list a read shows: the stored events `q` selects and, where its window reaches past
 * the written horizon of open-ended series, their provisional occurrences, in the list's order
 * and paged together. Nothing is written.
 * @example const { items, total } = await listEventsShown(ctx, query)
 */
export async function listEventsShown(ctx: Context, q: EventListQuery): Promise<Page<EventRecord>> {
  const stored = await ctx.storage.listEvents(q)
  const extra = await provisionalFor(ctx, q)
  if (!extra.length) return stored
  const prefix = q.offset === 0 ? stored.items : (await ctx.storage.listEvents({ ...q, offset: 0, limit: q.offset + q.limit })).items
  const merged = [...prefix, ...extra].sort(order(q))
  return { ...stored, items: merged.slice(q.offset, q.offset + q.limit), total: stored.total + extra.length }
}
