/**
 * What a response depends on and what a write changes, as tags (tags.ts), so that the response
 * cache can drop exactly the entries a committed write may have made stale.
 *
 * Reads are recorded at the storage boundary (every record, translation group, series and list a
 * handler asked for), not where JSON is built: whatever a handler reads, however it serialises
 * it, is a dependency, and a record that was asked for but not embedded (trashed, unreadable,
 * missing) still counts, since a write can make it appear.
 *
 * An edit of an event's searched text changes a search only if the event enters or leaves it:
 * such a write carries its edits (`Stale.edits`), and the cache asks which of the searches it
 * holds they change (searchesChanged), instead of dropping every search on every title edit.
 */
import type { JournalEntry } from '../storage/journal.js'
import { fieldsWhere } from '../storage/fields.js'
import { unreachable, type NextRead, type ReadOp, type StorageHook } from '../storage/pipeline.js'
import { eventMatchesWords, searchWords } from '../storage/search-fields.js'
import type { EventListQuery, EventRecord, LinkedListQuery, PostRecord, TermListQuery, TermRecord } from '../storage/types.js'
import {
  groupTag,
  listTag,
  postTag,
  recordTag,
  searchTag,
  searchTagWords,
  seriesTag,
  termTag,
  type RecordKind,
  type SearchTag,
  type Tag,
  type Tags,
} from './tags.js'

export type { Tag, Tags }

/** Tags of a record as read: its own, its translation group's, and what its fields point at. */
export function addPost(tags: Tags, p: PostRecord | null): void {
  if (!p) return
  tags.add(postTag(p.id)).add(groupTag('posts', p.translationGroup))
  if (p.type === 'event' && p.parentId) tags.add(seriesTag(p.parentId))
}

export function addTerm(tags: Tags, t: TermRecord | null): void {
  if (!t) return
  tags.add(termTag(t.id)).add(groupTag('terms', t.translationGroup))
  if (t.parent) tags.add(termTag(t.parent))
}

/** What a transaction's writes made stale: tags, and its edits of events' searched text. */
export class Stale {
  readonly tags: Tags = new Set()
  /** Events whose searched text alone changed, before and after (searchesChanged). */
  readonly edits: Array<[PostRecord, PostRecord]> = []

  /** A retried attempt starts over: what one that rolled back wrote means nothing. */
  clear(): void {
    this.tags.clear()
    this.edits.length = 0
  }
}

/**
 * The search tags among `held` whose answer these writes change: an edited event that matches
 * the search before and not after, or after and not before.
 */
export function searchesChanged(stale: Stale, held: Iterable<SearchTag>): SearchTag[] {
  const list = stale.edits
  if (!list.length) return []
  const out: SearchTag[] = []
  for (const tag of held) {
    const words = searchTagWords(tag)
    if (list.some(([a, b]) => eventMatchesWords(a, words) !== eventMatchesWords(b, words))) out.push(tag)
  }
  return out
}

const eventListTags = (q: EventListQuery): Tag[] => {
  const out = [listTag('event')]
  const words = q.search ? searchWords(q.search) : []
  if (words.length) out.push(searchTag(words))
  if (q.search || q.venueIds?.length || q.organizerIds?.length || q.venueGeo) out.push(listTag('event', 'linked'))
  if (q.search || q.categoryIds?.length || q.tagIds?.length) out.push(listTag('event', 'term'))
  return out
}

const linkedListTags = (type: 'venue' | 'organizer', q: LinkedListQuery): Tag[] =>
  q.eventId !== undefined || q.hasEvents !== undefined || q.upcomingAfterUtc !== undefined
    ? [listTag(type), listTag(type, 'event')]
    : [listTag(type)]

const termListTags = (q: TermListQuery): Tag[] =>
  q.hideEmpty || q.orderBy === 'count' || q.eventId !== undefined
    ? [listTag(q.taxonomy), listTag(q.taxonomy, 'event')]
    : [listTag(q.taxonomy)]

/** What every write of an event can change beyond its own lists: the lists of the other kinds that count events. */
const addEventDependents = (tags: Tags): void => {
  for (const kind of ['venue', 'organizer', 'category', 'tag'] as const) tags.add(listTag(kind, 'event'))
}

/**
 * What a committed write of this record (image before and after; either may be null) can have
 * made stale. Both images count: an event moved from one venue or category to another changes
 * the old and the new one (term counts, lists filtered by them).
 */
export function writeTags(stale: Stale, kind: RecordKind, id: number, images: ReadonlyArray<PostRecord | TermRecord | null>): void {
  const tags = stale.tags
  // Every write extends the journal: the sync answers of its kind go, a shown-only edit's too.
  tags.add(listTag(kind, 'journal'))
  if (kind === 'category' || kind === 'tag') {
    tags.add(termTag(id)).add(listTag(kind)).add(listTag(kind, 'event')).add(listTag('event', 'term'))
  } else if (kind === 'event' && shownOnly(images)) {
    // Lists holding the event drop by its post tag; which events a list holds, in what order and
    // how many, stays as it was, except for searches when the searched text changed.
    tags.add(postTag(id)).add(seriesTag(id))
    const [before, after] = images as [PostRecord, PostRecord]
    if (!sameFields(before, after, EVENT_TEXT)) stale.edits.push([before, after])
  } else {
    tags.add(postTag(id)).add(seriesTag(id)).add(listTag(kind))
    if (kind === 'event') addEventDependents(tags)
    else tags.add(listTag(kind, 'event')).add(listTag('event', 'linked'))
  }
  for (const r of images) {
    if (!r) continue
    tags.add(groupTag('taxonomy' in r ? 'terms' : 'posts', r.translationGroup))
    if ('taxonomy' in r) {
      if (r.parent) tags.add(termTag(r.parent))
    } else if (r.type === 'event') {
      if (r.parentId) tags.add(seriesTag(r.parentId))
      if (!countsKept(images)) for (const t of [...r.categoryIds, ...r.tagIds]) tags.add(termTag(t))
    }
  }
}

/**
 * What commits of another process may have made stale: their journal entries, with the records
 * as they are now (`current`; one deleted since is absent). Coarser than writeTags, which has the
 * images before and after a write: here every list of the record's kind and the lists that
 * depend on that kind drop (a new title and a new date look alike), and the translation group
 * and series are the ones the record is in now. One it was in before needs no tag of its own: a
 * response showing a group or a series read each of its members, so holds the record's tag. A
 * term whose live count moved has an entry of its own.
 *
 * @example
 * const tags = journalTags(entries, await storage.getPosts(entries.map((e) => e.id)))
 * cache.invalidate(tags)
 */
export function journalTags(entries: readonly JournalEntry[], current: ReadonlyArray<PostRecord | TermRecord>): Tags {
  const tags: Tags = new Set()
  const now = new Map(current.map((r) => ['taxonomy' in r ? termTag(r.id) : postTag(r.id), r]))
  for (const e of entries) {
    const own = recordTag(e.kind, e.id)
    tags.add(own)
    if (e.kind === 'category' || e.kind === 'tag') tags.add(listTag(e.kind)).add(listTag(e.kind, 'event')).add(listTag('event', 'term'))
    else if (e.kind === 'event') {
      tags.add(seriesTag(e.id)).add(listTag('event'))
      addEventDependents(tags)
    } else tags.add(seriesTag(e.id)).add(listTag(e.kind)).add(listTag(e.kind, 'event')).add(listTag('event', 'linked'))
    const r = now.get(own)
    if (!r) continue
    if ('taxonomy' in r) {
      tags.add(groupTag('terms', r.translationGroup))
      if (r.parent) tags.add(termTag(r.parent))
    } else {
      tags.add(groupTag('posts', r.translationGroup))
      if (r.type === 'event' && r.parentId) tags.add(seriesTag(r.parentId))
    }
  }
  return tags
}

/** What an event search reads of the event itself. */
const EVENT_TEXT = fieldsWhere('event', 'searched')

/**
 * Event fields that no list filters, orders or counts by (nor a by-slug lookup): changing only
 * these leaves every list's membership. The field table's `shownOnly` role, the exception: a
 * field declared without it counts as one lists may depend on.
 */
const SHOWN_ONLY = new Set<string>(fieldsWhere('event', 'shownOnly'))

/** What term counts follow of an event. */
const TERM_COUNTED = fieldsWhere('event', 'termCounted')

function sameFields(a: object, b: object, keys: Iterable<string>): boolean {
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  for (const k of keys) if (x[k] !== y[k] && JSON.stringify(x[k]) !== JSON.stringify(y[k])) return false
  return true
}

type Image = PostRecord | TermRecord | null

/** The before and after images of a write that updated one event, or null for any other write. */
function eventUpdate(images: ReadonlyArray<Image>): [EventRecord, EventRecord] | null {
  const [a, b] = images
  if (images.length !== 2 || !a || !b || 'taxonomy' in a || 'taxonomy' in b || a.type !== 'event' || b.type !== 'event') return null
  return [a, b]
}

/** An event update that changed shown fields alone. */
function shownOnly(images: ReadonlyArray<Image>): boolean {
  const pair = eventUpdate(images)
  if (!pair) return false
  const [a, b] = pair
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !SHOWN_ONLY.has(k))
  return sameFields(a, b, keys)
}

/**
 * Term counts (shown wherever a term is) follow an event's links, status and language: an
 * update leaving those alone (a new title) keeps every term's entries.
 */
function countsKept(images: ReadonlyArray<Image>): boolean {
  const pair = eventUpdate(images)
  if (!pair) return false
  const [a, b] = pair
  return sameFields(a, b, TERM_COUNTED)
}

/**
 * The hook that reports every read into `tags` (transactions' reads too: they are dependencies
 * as well). Writes are not its business: the observed storage reports them.
 */
export function recordingReads(tags: Tags): StorageHook {
  return {
    read: (op, next) => recordRead(tags, op, next),
    // A sync answer reads the change journal, which every commit extends: it depends on every
    // kind of record (each write drops L:{kind}@journal of its kind; another process's, L:{kind}).
    journalRead: () => {
      for (const kind of ['event', 'venue', 'organizer', 'category', 'tag'] as const) tags.add(listTag(kind)).add(listTag(kind, 'journal'))
    },
  }
}

/** `op` read through `next`, with the tags of what it asked for and what it found. */
async function recordRead(tags: Tags, op: ReadOp, next: NextRead): Promise<unknown> {
  switch (op.name) {
    case 'getPost': {
      tags.add(postTag(op.args[0]))
      const p = await next(op)
      addPost(tags, p)
      return p
    }
    case 'getPosts': {
      for (const id of op.args[0]) tags.add(postTag(id))
      const ps = await next(op)
      for (const p of ps) addPost(tags, p)
      return ps
    }
    case 'findPostBySlug':
    case 'findLinkedDuplicate': {
      tags.add(listTag(op.args[0]))
      // The two reads' results differ in type (a post, a venue or organizer), which `next` cannot name for a case pair.
      const p = (await next(op)) as PostRecord | null
      addPost(tags, p)
      return p
    }
    case 'slugsLike':
      tags.add(listTag(op.args[0]))
      return next(op)
    case 'listEvents': {
      for (const t of eventListTags(op.args[0])) tags.add(t)
      const page = (await next(op)) as { items: PostRecord[] }
      for (const p of page.items) addPost(tags, p)
      return page
    }
    case 'eventsShowing':
      // Any event's links or terms may change the answer.
      tags.add(listTag('event')).add(listTag('event', 'linked')).add(listTag('event', 'term'))
      return next(op)
    case 'listLinked': {
      for (const t of linkedListTags(op.args[0], op.args[1])) tags.add(t)
      const page = (await next(op)) as { items: PostRecord[] }
      for (const p of page.items) addPost(tags, p)
      return page
    }
    case 'getTranslations':
      for (const g of op.args[0]) tags.add(groupTag(op.args[1], g))
      return next(op)
    case 'reservedBy':
      // A block is reserved when a series is written: an event write, which changes event lists.
      tags.add(listTag('event'))
      return next(op)
    default:
      return recordTermRead(tags, op, next)
  }
}

type LaterRead = Extract<
  ReadOp,
  { name: 'getTerm' | 'getTerms' | 'findTerm' | 'termDescendants' | 'listTerms' | 'trashedPosts' | 'seriesMembers' }
>

/** recordRead for the term reads, the trash and series members. */
async function recordTermRead(tags: Tags, op: LaterRead, next: NextRead): Promise<unknown> {
  switch (op.name) {
    case 'getTerm': {
      tags.add(termTag(op.args[0]))
      const t = await next(op)
      addTerm(tags, t)
      return t
    }
    case 'getTerms': {
      for (const id of op.args[0]) tags.add(termTag(id))
      const ts = await next(op)
      for (const t of ts) addTerm(tags, t)
      return ts
    }
    case 'findTerm': {
      tags.add(listTag(op.args[0]))
      const t = await next(op)
      addTerm(tags, t)
      return t
    }
    case 'termDescendants':
      tags.add(listTag('category'))
      return next(op)
    case 'listTerms': {
      for (const t of termListTags(op.args[0])) tags.add(t)
      const page = await next(op)
      for (const t of page.items) addTerm(tags, t)
      return page
    }
    case 'trashedPosts':
      tags.add(listTag('event')).add(listTag('venue')).add(listTag('organizer'))
      return next(op)
    case 'seriesMembers': {
      tags.add(seriesTag(op.args[0])).add(postTag(op.args[0]))
      const members = await next(op)
      for (const p of members) addPost(tags, p)
      return members
    }
    default:
      // A read added to the contract fails to compile here until it says what it depends on.
      return unreachable(op)
  }
}
