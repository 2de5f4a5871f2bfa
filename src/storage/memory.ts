/**
 * In-memory storage: the zero-setup backend for tests, demos and small sites, with the same
 * semantics as SQL. A transaction writes to a private overlay that is merged in one synchronous
 * step on commit, so readers never see half of a write and a throw discards it whole.
 */
/* eslint-disable @typescript-eslint/require-await -- the memory backend implements a Promise-returning contract
   with synchronous work: `async` keeps its throws (not found, conflicts, bad input) rejections, as
   the SQL backend's are, for callers that chain `.catch` or `Promise.all` over it. */
import { customValuesMatch } from './custom-values.js'
import { firstOfEachSeries } from './first-of-series.js'
import { inDateWindow } from './event-window.js'
import type {
  TranslationKind,
  EventListQuery,
  EventsShown,
  EventRecord,
  LinkedListQuery,
  NewPost,
  NewTerm,
  Page,
  PostPatch,
  PostRecord,
  PostType,
  RecordOf,
  Storage,
  StorageReader,
  StorageTx,
  Taxonomy,
  TermListQuery,
  TransactionOptions,
  TermPatch,
  TermRecord,
  TermWithCount,
} from './types.js'
import { ID_BLOCK, ID_BLOCK_START, SlugConflictError } from './types.js'
import { MemoryWebhookStore } from './memory-webhooks.js'
import { MemoryImportLinkStore, type ImportLink } from './import-links.js'
import { JournalPositionError, journalTime, type JournalAction, type JournalEntry, type JournalName, type JournalPage } from './journal.js'
import { clonePost, freezePost } from './clone.js'
import { linkedShownChanged, nextSequence, seriesRuleShownChanged } from './sequence.js'
import { withinCircle, type GeoCircle } from './geo.js'
import { LINKED_SEARCH_FIELDS, eventMatchesWords, searchWords } from './search-fields.js'
import { scalarText } from '../http/params.js'
import { byStart, carryViews, slugKey, type Derived, type PostChange } from './memory-views.js'

const DELETED = Symbol('deleted')

/** A venue with both coordinates, inside the circle when one is given. */
function locatedWithin(p: PostRecord, near: GeoCircle | undefined): boolean {
  if (p.type !== 'venue' || p.geoLat === null || p.geoLng === null) return false
  return near ? withinCircle(near, p.geoLat, p.geoLng) : true
}
type Slot<T> = T | typeof DELETED

const includesAll = (haystack: string, needles: string[]) => needles.every((n) => haystack.includes(n))

interface State {
  posts: Map<number, PostRecord>
  terms: Map<number, TermRecord>
  nextPostId: number
  nextTermId: number
  /** The next block reserveIds hands out, and the series head of each block handed out. */
  nextIdBlock: number
  idBlocks: Map<number, number>
  /** Derived views of the committed data, rebuilt lazily after each commit. */
  derived: Derived
  /** The journal entries kept; the first one's position is `journalBase + 1`. */
  journal: JournalEntry[]
  /** Beside each entry of `journal` (same index): an event's caldav name and prior status (journalNames). */
  journalMarks: Array<JournalMark | null>
  journalBase: number
  /** A random name of this journal, in its positions, so that another store's are refused. */
  journalEpoch: string
  /** Terms carry no revision of their own here: how often each changed, for their journal entries. */
  termRevisions: Map<number, number>
}

/** What an event's entry records for journalNames, as the SQL journal's columns do. */
interface JournalMark {
  id: number
  name: string
  /** Published before the change (or created published). */
  published: boolean
}

/** The mark of an event's entry: its caldav name then (non-empty text), and its status before. */
function markOf(p: PostRecord, prior: PostRecord | undefined): JournalMark | null {
  const name = p.type === 'event' ? p.customFields.caldav_name : undefined
  if (typeof name !== 'string' || name === '') return null
  return { id: p.id, name, published: (prior ?? p).status === 'publish' }
}

/** Read operations over a view of the data: the committed state, or a transaction's overlay on it. */
class Reader implements StorageReader {
  constructor(
    protected readonly state: State,
    protected readonly postOverlay: Map<number, Slot<PostRecord>> = new Map(),
    protected readonly termOverlay: Map<number, Slot<TermRecord>> = new Map(),
  ) {}

  protected post(id: number): PostRecord | undefined {
    const o = this.postOverlay.get(id)
    if (o === DELETED) return undefined
    return o ?? this.state.posts.get(id)
  }

  /** Derived views are valid only for the committed state, not inside a transaction's overlay. */
  protected derived(): Derived | null {
    return this.postOverlay.size === 0 && this.termOverlay.size === 0 ? this.state.derived : null
  }

  protected *allPosts(): Iterable<PostRecord> {
    for (const [id, p] of this.state.posts) {
      const o = this.postOverlay.get(id)
      if (o === DELETED) continue
      yield o ?? p
    }
    for (const [id, o] of this.postOverlay) if (o !== DELETED && !this.state.posts.has(id)) yield o
  }

  protected term(id: number): TermRecord | undefined {
    const o = this.termOverlay.get(id)
    if (o === DELETED) return undefined
    return o ?? this.state.terms.get(id)
  }

  protected *allTerms(): Iterable<TermRecord> {
    for (const [id, t] of this.state.terms) {
      const o = this.termOverlay.get(id)
      if (o === DELETED) continue
      yield o ?? t
    }
    for (const [id, o] of this.termOverlay) if (o !== DELETED && !this.state.terms.has(id)) yield o
  }

  async getPost(id: number) {
    const p = this.post(id)
    return p ?? null
  }

  async reservedBy(id: number) {
    if (id < ID_BLOCK_START) return null
    return this.state.idBlocks.get(id - ((id - ID_BLOCK_START) % ID_BLOCK)) ?? null
  }

  async getPosts(ids: readonly number[]) {
    const out: PostRecord[] = []
    for (const id of new Set(ids)) {
      const p = this.post(id)
      if (p) out.push(p)
    }
    return out
  }

  async findPostBySlug<T extends PostType>(type: T, language: string, slug: string) {
    const p = this.postBySlug(type, language, slug, null)
    return (p as RecordOf<T> | undefined) ?? null
  }

  /**
   * The post with this slug other than `except`: the transaction's own writes first, then the
   * committed slug index (a post the transaction changed or deleted is decided by its overlay).
   * Without the index every insert scanned every post, so a 500-occurrence series got slower
   * with each one already stored.
   */
  protected postBySlug(type: PostType, language: string, slug: string, except: number | null): PostRecord | undefined {
    for (const [id, o] of this.postOverlay)
      if (o !== DELETED && id !== except && o.type === type && o.language === language && o.slug === slug) return o
    const derived = this.state.derived
    if (!derived.postSlugs) {
      derived.postSlugs = new Map()
      for (const p of this.state.posts.values()) derived.postSlugs.set(slugKey(p.type, p.language, p.slug), p.id)
    }
    const id = derived.postSlugs.get(slugKey(type, language, slug))
    return id === undefined || id === except || this.postOverlay.has(id) ? undefined : this.state.posts.get(id)
  }

  async slugsLike(kind: PostType | Taxonomy, language: string, base: string) {
    const out: string[] = []
    const matches = (slug: string) => slug === base || (slug.startsWith(base + '-') && /^\d+$/.test(slug.slice(base.length + 1)))
    if (kind === 'category' || kind === 'tag') {
      for (const t of this.allTerms()) if (t.taxonomy === kind && t.language === language && matches(t.slug)) out.push(t.slug)
    } else {
      for (const p of this.allPosts()) if (p.type === kind && p.language === language && matches(p.slug)) out.push(p.slug)
    }
    return out
  }

  /** Venues a `venueGeo` filter lets through (see VenueGeoQuery). */
  protected geoVenues(g: NonNullable<EventListQuery['venueGeo']>): Set<number> {
    const out = new Set<number>()
    for (const p of this.allPosts()) {
      if (p.type !== 'venue' || p.status === 'trash' || !locatedWithin(p, g.near)) continue
      const readable = p.status === 'publish' || g.unpublishedVenues === 'all' || g.unpublishedVenues === p.author
      if (readable) out.add(p.id)
    }
    return out
  }

  protected matchesEvent(
    e: EventRecord,
    q: EventListQuery,
    words: string[],
    categories: Set<number> | null,
    venues: Set<number> | null = null,
  ): boolean {
    if (e.language !== q.language || !q.statuses.includes(e.status) || e.hideFromListings) return false
    if (q.unpublishedAuthor !== undefined && e.status !== 'publish' && e.author !== q.unpublishedAuthor) return false
    if (!inDateWindow(q, e)) return false
    if (q.featured !== undefined && e.featured !== q.featured) return false
    if (q.eventStatuses && !q.eventStatuses.includes(e.eventStatus ?? 'scheduled')) return false
    if (q.customFields && !customValuesMatch(e.customFields, q.customFields)) return false
    if (q.parentId !== undefined && e.parentId !== q.parentId) return false
    if (q.include && !q.include.includes(e.id)) return false
    if (q.idAfter !== undefined && e.id <= q.idAfter) return false
    if (categories && !e.categoryIds.some((id) => categories.has(id))) return false
    if (q.tagIds && !e.tagIds.some((id) => q.tagIds!.includes(id))) return false
    if (q.venueIds && !e.venueIds.some((id) => q.venueIds!.includes(id))) return false
    if (q.organizerIds && !e.organizerIds.some((id) => q.organizerIds!.includes(id))) return false
    if (venues && !e.venueIds.some((id) => venues.has(id))) return false
    if (words.length && !eventMatchesWords(e, words)) return false
    return true
  }

  async eventsShowing(language: string, shown: EventsShown): Promise<number[]> {
    const sets = (['venueIds', 'organizerIds', 'categoryIds', 'tagIds'] as const).map((k) => [k, new Set(shown[k] ?? [])] as const)
    const out: number[] = []
    for (const p of this.allPosts())
      if (p.type === 'event' && p.language === language && sets.some(([k, ids]) => p[k].some((id) => ids.has(id)))) out.push(p.id)
    return out
  }

  async listEvents(q: EventListQuery): Promise<Page<EventRecord>> {
    const words = q.search ? searchWords(q.search) : []
    const categories = q.categoryIds ? new Set(q.categoryIds) : null
    const venues = q.venueGeo ? this.geoVenues(q.venueGeo) : null
    const derived = this.derived()
    if (derived && q.orderBy === 'start') {
      if (!derived.eventsByStart) {
        derived.eventsByStart = [...this.state.posts.values()].filter((p): p is EventRecord => p.type === 'event').sort(byStart)
      }
      const items: EventRecord[] = []
      let total = 0
      // In start order, a series' first match is the first one met (hide_subsequent_recurrences).
      const seriesSeen = q.firstOfSeries ? new Set<number>() : null
      for (const e of derived.eventsByStart) {
        if (!this.matchesEvent(e, q, words, categories, venues)) continue
        if (seriesSeen && e.seriesId) {
          if (seriesSeen.has(e.seriesId)) continue
          seriesSeen.add(e.seriesId)
        }
        if (total >= q.offset && items.length < q.limit) items.push(e)
        total++
      }
      return { items, total }
    }
    let matched: EventRecord[] = []
    for (const p of this.allPosts()) {
      if (p.type === 'event' && this.matchesEvent(p, q, words, categories, venues)) matched.push(p)
    }
    if (q.firstOfSeries) matched = firstOfEachSeries(matched, (e) => ({ id: e.id, seriesId: e.seriesId ?? 0, start: e.startDate }))
    const byDate = (a: EventRecord, b: EventRecord) => (a.dateUtc < b.dateUtc ? -1 : a.dateUtc > b.dateUtc ? 1 : a.id - b.id)
    matched.sort(q.orderBy === 'date' ? byDate : q.orderBy === 'id' ? (a, b) => a.id - b.id : byStart)
    return { items: matched.slice(q.offset, q.offset + q.limit), total: matched.length }
  }

  async listLinked<T extends 'venue' | 'organizer'>(type: T, q: LinkedListQuery): Promise<Page<RecordOf<T>>> {
    const events: EventRecord[] = []
    for (const p of this.allPosts()) if (p.type === 'event') events.push(p)
    const linkedTo = (id: number, pred: (e: EventRecord) => boolean) =>
      events.some((e) => (type === 'venue' ? e.venueIds : e.organizerIds).includes(id) && pred(e))
    const matched: RecordOf<T>[] = []
    for (const p of this.allPosts()) {
      if (p.type !== type || p.language !== q.language || !q.statuses.includes(p.status)) continue
      if (q.unpublishedAuthor !== undefined && p.status !== 'publish' && p.author !== q.unpublishedAuthor) continue
      if (q.searchFragments?.length) {
        const rec = p as unknown as Record<string, unknown>
        const hit = LINKED_SEARCH_FIELDS[type].some((f) => includesAll(scalarText(rec[f]).toLowerCase(), q.searchFragments!))
        if (!hit) continue
      }
      if (q.geo && !locatedWithin(p, q.geo.near)) continue
      if (q.include && !q.include.includes(p.id)) continue
      if (q.idAfter !== undefined && p.id <= q.idAfter) continue
      if (q.eventId !== undefined) {
        const e = this.post(q.eventId)
        if (!e || e.type !== 'event' || !(type === 'venue' ? e.venueIds : e.organizerIds).includes(p.id)) continue
      }
      if (q.hasEvents !== undefined) {
        const has = linkedTo(p.id, (e) => e.status !== 'draft' && e.status !== 'pending')
        if (has !== q.hasEvents) continue
      }
      if (q.upcomingAfterUtc !== undefined) {
        const after = q.upcomingAfterUtc
        const statuses = q.upcomingStatuses ?? ['publish']
        if (!linkedTo(p.id, (e) => e.startDateUtc >= after && statuses.includes(e.status) && !e.hideFromListings)) continue
      }
      matched.push(p as RecordOf<T>)
    }
    if (q.idAfter !== undefined) matched.sort((a, b) => a.id - b.id)
    else matched.sort((a, b) => (a.dateUtc > b.dateUtc ? -1 : a.dateUtc < b.dateUtc ? 1 : b.id - a.id))
    return { items: matched.slice(q.offset, q.offset + q.limit), total: matched.length }
  }

  async findLinkedDuplicate<T extends 'venue' | 'organizer'>(type: T, language: string, fields: Partial<Record<string, string>>) {
    const entries = Object.entries(fields)
    for (const p of this.allPosts()) {
      if (p.type !== type || p.language !== language || p.status === 'trash') continue
      const rec = p as unknown as Record<string, unknown>
      if (entries.every(([k, v]) => (rec[k] ?? '') === (v ?? ''))) return p as RecordOf<T>
    }
    return null
  }

  async getTranslations(groups: readonly number[], of: TranslationKind) {
    const derived = this.derived()
    const all = derived?.translations?.[of] ?? this.translationIndex(of)
    if (derived) (derived.translations ??= {})[of] = all
    const out = new Map<number, Record<string, number>>()
    for (const group of groups) {
      const entry = all.get(group)
      if (entry) out.set(group, { ...entry })
    }
    return out
  }

  private translationIndex(of: TranslationKind): Map<number, Record<string, number>> {
    const index = new Map<number, Record<string, number>>()
    const add = (group: number, language: string, id: number) => {
      const entry = index.get(group) ?? {}
      entry[language] = id
      index.set(group, entry)
    }
    if (of === 'posts') {
      for (const p of this.allPosts()) if (p.status !== 'trash') add(p.translationGroup, p.language, p.id)
    } else for (const t of this.allTerms()) add(t.translationGroup, t.language, t.id)
    return index
  }

  /** Published events of the term's language carrying each term. */
  protected counts(): Map<number, number> {
    const derived = this.derived()
    if (derived?.counts) return derived.counts
    const counts = new Map<number, number>()
    for (const p of this.allPosts()) for (const id of this.countedTerms(p)) counts.set(id, (counts.get(id) ?? 0) + 1)
    if (derived) derived.counts = counts
    return counts
  }

  /**
   * The terms `p` counts for: none unless it is a published event; its categories and tags of
   * its own language (IDs are global, so an event may carry a term of another language: it does
   * not count there), a term listed twice counting twice.
   */
  protected countedTerms(p: PostRecord): number[] {
    if (p.type !== 'event' || p.status !== 'publish') return []
    return [...p.categoryIds, ...p.tagIds].filter((id) => this.term(id)?.language === p.language)
  }

  /** A committed term with its count is made once per commit: every page shows a few of them. */
  protected withCount(t: TermRecord, counts: Map<number, number>): TermWithCount {
    const derived = this.derived()
    const made = derived?.withCounts?.get(t.id)
    if (made) return made
    const out = { ...t, count: counts.get(t.id) ?? 0 }
    if (derived) (derived.withCounts ??= new Map()).set(t.id, out)
    return out
  }

  async getTerm(id: number) {
    const t = this.term(id)
    return t ? this.withCount(t, this.counts()) : null
  }

  async getTerms(ids: readonly number[]) {
    const counts = this.counts()
    const out: TermWithCount[] = []
    for (const id of new Set(ids)) {
      const t = this.term(id)
      if (t) out.push(this.withCount(t, counts))
    }
    return out
  }

  async findTerm(taxonomy: Taxonomy, language: string, by: { slug?: string; name?: string; parent?: number }) {
    const candidates = [...this.allTerms()].filter((t) => t.taxonomy === taxonomy && t.language === language)
    if (by.slug !== undefined) {
      const hit = candidates.find((t) => t.slug === by.slug)
      if (hit) return { ...hit }
    }
    if (by.name !== undefined) {
      const name = by.name.toLowerCase()
      const hit = candidates.find((t) => t.name.toLowerCase() === name && (by.parent === undefined || t.parent === by.parent))
      if (hit) return { ...hit }
    }
    return null
  }

  async termDescendants(ids: readonly number[]) {
    const all = [...this.allTerms()]
    const found = new Set<number>()
    let frontier = new Set(ids)
    while (frontier.size) {
      const next = new Set<number>()
      for (const t of all) if (frontier.has(t.parent) && !found.has(t.id) && !ids.includes(t.id)) next.add(t.id)
      for (const id of next) found.add(id)
      frontier = next
    }
    return [...found]
  }

  async listTerms(q: TermListQuery): Promise<Page<TermWithCount>> {
    const counts = this.counts()
    const search = q.search?.toLowerCase()
    let eventTerms: Set<number> | null = null
    if (q.eventId !== undefined) {
      const e = this.post(q.eventId)
      eventTerms = new Set(e && e.type === 'event' ? [...e.categoryIds, ...e.tagIds] : [])
    }
    const matched: TermWithCount[] = []
    for (const t of this.allTerms()) {
      if (t.taxonomy !== q.taxonomy || t.language !== q.language) continue
      if (q.include && !q.include.includes(t.id)) continue
      if (q.exclude && q.exclude.includes(t.id)) continue
      if (q.idAfter !== undefined && t.id <= q.idAfter) continue
      if (q.parent !== undefined && t.parent !== q.parent) continue
      if (q.slug !== undefined && t.slug !== q.slug) continue
      if (eventTerms && !eventTerms.has(t.id)) continue
      if (search && !t.name.toLowerCase().includes(search) && !t.slug.includes(search)) continue
      const withCount = this.withCount(t, counts)
      if (q.hideEmpty && withCount.count === 0) continue
      matched.push(withCount)
    }
    const dir = q.order === 'desc' ? -1 : 1
    const key = (t: TermWithCount): string | number => {
      switch (q.orderBy) {
        case 'id':
        case 'none':
          return t.id
        case 'count':
          return t.count
        case 'slug':
          return t.slug
        case 'description':
          return t.description
        case 'parent':
          return t.parent
        case 'include':
          return q.include ? q.include.indexOf(t.id) : t.id
        default:
          return t.name.toLowerCase()
      }
    }
    matched.sort((a, b) => {
      const ka = key(a)
      const kb = key(b)
      return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * dir
    })
    return { items: matched.slice(q.offset, q.offset + q.limit), total: matched.length }
  }

  async trashedPosts(modifiedBeforeUtc: string, limit: number) {
    const ids: number[] = []
    for (const p of this.allPosts()) if (p.status === 'trash' && p.modifiedUtc < modifiedBeforeUtc) ids.push(p.id)
    return ids.sort((a, b) => a - b).slice(0, limit)
  }

  async seriesMembers(seriesId: number) {
    const out: EventRecord[] = []
    for (const p of this.allPosts()) if (p.type === 'event' && seriesId > 0 && p.seriesId === seriesId) out.push(p)
    return out.sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : a.id - b.id))
  }
}

class Tx extends Reader implements StorageTx {
  nextPostId: number
  nextTermId: number

  /** Records written, in the order of their first write: the journal's order within the transaction. */
  private readonly touched = new Map<string, ['post' | 'term', number]>()

  private touch(what: 'post' | 'term', id: number) {
    const key = `${what}${id}`
    if (!this.touched.has(key)) this.touched.set(key, [what, id])
  }

  private setPost(id: number, p: Slot<PostRecord>) {
    this.postOverlay.set(id, p)
    this.touch('post', id)
  }

  private setTerm(id: number, t: Slot<TermRecord>) {
    this.termOverlay.set(id, t)
    this.touch('term', id)
  }

  /** Import links written in this transaction: stored on commit, with the records they name. */
  private readonly links: ImportLink[] = []

  constructor(
    state: State,
    private readonly importLinks: MemoryImportLinkStore,
  ) {
    super(state, new Map(), new Map())
    this.nextPostId = state.nextPostId
    this.nextTermId = state.nextTermId
  }

  async reserveIds(head: number): Promise<number> {
    // Outside the transaction's state, like a database sequence: a rolled-back block is not reused.
    const first = this.state.nextIdBlock
    this.state.nextIdBlock += ID_BLOCK
    this.state.idBlocks.set(first, head)
    return first
  }

  async putImportLink(link: ImportLink): Promise<void> {
    this.links.push(link)
  }

  async importLinksOf(recordIds: readonly number[]): Promise<ImportLink[]> {
    const wanted = new Set(recordIds)
    const own = this.links.filter((l) => wanted.has(l.recordId)).map((l) => ({ ...l, importedFields: structuredClone(l.importedFields) }))
    const mine = new Set(own.map((l) => JSON.stringify([l.source, l.kind, l.sourceId])))
    const committed = (await this.importLinks.linksOf(recordIds)).filter((l) => !mine.has(JSON.stringify([l.source, l.kind, l.sourceId])))
    return [...committed, ...own]
  }

  private assertFreeSlug(kind: PostType | Taxonomy, language: string, slug: string, selfId: number | null) {
    if (kind === 'category' || kind === 'tag') {
      for (const t of this.allTerms())
        if (t.taxonomy === kind && t.language === language && t.slug === slug && t.id !== selfId) throw new SlugConflictError(slug)
    } else if (this.postBySlug(kind, language, slug, selfId)) throw new SlugConflictError(slug)
  }

  async insertPost<T extends PostType>(record: NewPost<T>): Promise<RecordOf<T>> {
    this.assertFreeSlug(record.type, record.language, record.slug, null)
    if (record.id !== undefined && this.post(record.id)) throw new Error(`post ${record.id} exists`)
    const id = record.id ?? this.nextPostId++
    const ev = record as Partial<EventRecord>
    const initial = record.type === 'event' ? { sequence: 0, seriesId: ev.seriesId ?? 0, series: ev.series ?? null } : {}
    const stored = clonePost({
      ...record,
      ...initial,
      revision: 0,
      id,
      translationGroup: record.translationGroup ?? id,
    } as unknown as PostRecord)
    this.setPost(id, freezePost(stored))
    return clonePost(stored) as RecordOf<T>
  }

  async updatePost<T extends PostType>(id: number, type: T, patch: PostPatch<T>): Promise<RecordOf<T>> {
    const current = this.post(id)
    if (!current || current.type !== type) throw new Error(`no ${type} ${id}`)
    const next = clonePost({ ...current, ...patch, id, type: current.type })
    next.revision = current.revision + 1
    if (next.slug !== current.slug || next.language !== current.language) this.assertFreeSlug(type, next.language, next.slug, id)
    if (next.type === 'event') {
      next.sequence = nextSequence(current as EventRecord, next)
      if (seriesRuleShownChanged(current as EventRecord, next)) this.reviseMembers(id)
    } else if (linkedShownChanged(current, next)) this.bumpEvents((e) => e.venueIds.includes(id) || e.organizerIds.includes(id))
    this.setPost(id, freezePost(next))
    return clonePost(next) as RecordOf<T>
  }

  async unlinkPost(id: number) {
    for (const p of [...this.allPosts()]) {
      if (p.type !== 'event' || (!p.venueIds.includes(id) && !p.organizerIds.includes(id))) continue
      const next = clonePost(p)
      next.revision = p.revision + 1
      next.venueIds = next.venueIds.filter((x) => x !== id)
      next.organizerIds = next.organizerIds.filter((x) => x !== id)
      next.sequence = nextSequence(p, next)
      this.setPost(p.id, freezePost(next))
    }
  }

  async deletePost(id: number) {
    const current = this.post(id)
    if (!current) return
    this.setPost(id, DELETED)
    const parent = current.type === 'event' ? current.parentId : 0
    for (const p of [...this.allPosts()]) {
      if (p.type !== 'event') continue
      const linked = p.venueIds.includes(id) || p.organizerIds.includes(id)
      if (!linked && p.parentId !== id) continue
      const next = clonePost(p)
      next.revision = p.revision + 1
      next.venueIds = next.venueIds.filter((x) => x !== id)
      next.organizerIds = next.organizerIds.filter((x) => x !== id)
      if (next.parentId === id) next.parentId = parent
      next.sequence = nextSequence(p, next)
      this.setPost(p.id, freezePost(next))
    }
  }

  async insertTerm(term: NewTerm): Promise<TermRecord> {
    this.assertFreeSlug(term.taxonomy, term.language, term.slug, null)
    const id = this.nextTermId++
    const stored: TermRecord = { ...term, id, translationGroup: term.translationGroup ?? id }
    this.setTerm(id, stored)
    return { ...stored }
  }

  async updateTerm(id: number, patch: TermPatch): Promise<TermRecord> {
    const current = this.term(id)
    if (!current) throw new Error(`no term ${id}`)
    const next: TermRecord = { ...current, ...patch, id, taxonomy: current.taxonomy }
    if (next.slug !== current.slug || next.language !== current.language) this.assertFreeSlug(next.taxonomy, next.language, next.slug, id)
    // The names of the terms an event lists as categories are the feed's CATEGORIES.
    if (next.name !== current.name) this.bumpEvents((e) => e.categoryIds.includes(id))
    this.setTerm(id, next)
    return { ...next }
  }

  async deleteTerm(id: number) {
    const current = this.term(id)
    if (!current) return
    this.setTerm(id, DELETED)
    for (const t of [...this.allTerms()]) if (t.parent === id) this.setTerm(t.id, { ...t, parent: current.parent })
    for (const p of [...this.allPosts()]) {
      if (p.type !== 'event' || (!p.categoryIds.includes(id) && !p.tagIds.includes(id))) continue
      const next = clonePost(p)
      next.revision = p.revision + 1
      next.categoryIds = next.categoryIds.filter((x) => x !== id)
      next.tagIds = next.tagIds.filter((x) => x !== id)
      next.sequence = nextSequence(p, next)
      this.setPost(p.id, freezePost(next))
    }
  }

  /** A linked record's shown fields changed: the events that show it get a new sequence. */
  private bumpEvents(shows: (e: EventRecord) => boolean) {
    for (const p of [...this.allPosts()]) {
      if (p.type !== 'event' || !shows(p)) continue
      const next = clonePost(p)
      next.revision = p.revision + 1
      next.sequence = (p.sequence ?? 0) + 1
      this.setPost(p.id, freezePost(next))
    }
  }

  /** The other occurrences of series `head` get a new revision (their `recurrence` changed). */
  private reviseMembers(head: number) {
    for (const p of [...this.allPosts()]) {
      if (p.type !== 'event' || p.seriesId !== head || p.id === head) continue
      this.setPost(p.id, freezePost({ ...clonePost(p), revision: p.revision + 1 }))
    }
  }

  /** One journal entry per record the overlay changed, compared with the committed state. */
  private journalEntries(marks: Array<JournalMark | null>): JournalEntry[] {
    const out: JournalEntry[] = []
    const time = journalTime()
    let position = this.state.journalBase + this.state.journal.length
    const add = (
      kind: JournalEntry['kind'],
      id: number,
      action: JournalAction,
      revision: number,
      language: string,
      mark: JournalMark | null = null,
    ) => {
      out.push({ position: `${this.state.journalEpoch}.${++position}`, kind, id, action, revision, language, time })
      marks.push(mark)
    }
    for (const [what, id] of this.touched.values()) {
      if (what === 'post') {
        const p = this.postOverlay.get(id) as Slot<PostRecord>
        const old = this.state.posts.get(id)
        if (p === DELETED) {
          if (old) add(old.type, id, 'delete', old.revision, old.language, markOf(old, old))
        } else if (!old) add(p.type, id, 'create', p.revision, p.language, markOf(p, undefined))
        else if (p !== old) {
          const action = old.status !== 'trash' && p.status === 'trash' ? 'trash' : 'update'
          add(p.type, id, action, p.revision, p.language, markOf(p, old))
        }
        continue
      }
      const t = this.termOverlay.get(id) as Slot<TermRecord>
      const old = this.state.terms.get(id)
      const revision = this.state.termRevisions.get(id) ?? 0
      if (t === DELETED) {
        if (old) add(old.taxonomy, id, 'delete', revision, old.language)
        this.state.termRevisions.delete(id)
      } else if (!old) add(t.taxonomy, id, 'create', 0, t.language)
      else if (t !== old) {
        this.state.termRevisions.set(id, revision + 1)
        add(t.taxonomy, id, 'update', revision + 1, t.language)
      }
    }
    // Terms whose count the transaction's events moved (as SQL's term_counts trigger reports them).
    for (const id of this.countsMoved()) {
      const t = this.term(id)
      if (t) add(t.taxonomy, id, 'count', this.state.termRevisions.get(id) ?? 0, t.language)
    }
    return out
  }

  /** The committed views after this transaction, computed before its writes are applied (memory-views.ts). */
  private carriedViews(): Derived {
    const changes: PostChange[] = []
    let termsChanged = false
    for (const [what, id] of this.touched.values()) {
      if (what === 'term') {
        termsChanged = true
        continue
      }
      const after = this.postOverlay.get(id)
      changes.push({ before: this.state.posts.get(id), after: after === DELETED ? undefined : after })
    }
    return carryViews(this.state.derived, changes, termsChanged, (p) => this.countedTerms(p))
  }

  /**
   * Terms not written themselves whose count changes: those a published event lists before or
   * after a change of its status, language or terms (a term listed twice counts twice).
   */
  private countsMoved(): number[] {
    const delta = new Map<number, number>()
    const count = (e: PostRecord | undefined, sign: number) => {
      if (e) for (const id of this.countedTerms(e)) delta.set(id, (delta.get(id) ?? 0) + sign)
    }
    for (const [what, id] of this.touched.values()) {
      if (what !== 'post') continue
      const p = this.postOverlay.get(id)
      count(this.state.posts.get(id), -1)
      count(p === DELETED ? undefined : p, 1)
    }
    return [...delta].filter(([id, k]) => k !== 0 && !this.touched.has(`term${id}`)).map(([id]) => id)
  }

  commit(): JournalEntry[] {
    const marks: Array<JournalMark | null> = []
    const entries = this.journalEntries(marks)
    const views = this.carriedViews()
    this.state.journal.push(...entries)
    this.state.journalMarks.push(...marks)
    for (const [id, p] of this.postOverlay) {
      if (p === DELETED) this.state.posts.delete(id)
      else this.state.posts.set(id, p)
    }
    for (const [id, t] of this.termOverlay) {
      if (t === DELETED) this.state.terms.delete(id)
      else this.state.terms.set(id, t)
    }
    this.state.nextPostId = this.nextPostId
    this.state.nextTermId = this.nextTermId
    this.state.derived = views
    for (const link of this.links) this.importLinks.keep(link)
    return entries
  }
}

class MemoryStorage extends Reader implements Storage {
  private queue: Promise<unknown> = Promise.resolve()
  readonly webhooks = new MemoryWebhookStore()
  readonly importLinks = new MemoryImportLinkStore()

  constructor(private readonly journalLimit: number) {
    super({
      posts: new Map(),
      terms: new Map(),
      nextPostId: 1,
      nextTermId: 1,
      nextIdBlock: ID_BLOCK_START,
      idBlocks: new Map(),
      derived: {},
      journal: [],
      journalMarks: [],
      journalBase: 0,
      journalEpoch: Math.random().toString(16).slice(2, 14).padEnd(12, '0'),
      termRevisions: new Map(),
    })
  }

  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    // Writers run one at a time so each sees the others' committed work (like SQLite's writer lock).
    const run = this.queue.then(async () => {
      const tx = new Tx(this.state, this.importLinks)
      const result = await fn(tx)
      const entries = tx.commit()
      const over = this.state.journal.length - this.journalLimit
      if (over > 0) {
        this.state.journal.splice(0, over)
        this.state.journalMarks.splice(0, over)
        this.state.journalBase += over
      }
      options?.onCommit?.(entries)
      return result
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  private head(): number {
    return this.state.journalBase + this.state.journal.length
  }

  async readJournal(after: string, limit: number, until?: string): Promise<JournalPage> {
    const n = this.count(after)
    if (n < this.state.journalBase) throw new JournalPositionError(after, 'expired')
    const end = until === undefined ? this.head() : Math.max(n, this.count(until))
    const from = n - this.state.journalBase
    const stop = Math.min(from + Math.max(1, limit), end - this.state.journalBase)
    const entries = this.state.journal.slice(from, stop)
    const more = stop < end - this.state.journalBase
    return { entries, next: more ? (entries[entries.length - 1] as JournalEntry).position : this.position(end), more }
  }

  /** How many entries came before a position of this journal. */
  private count(position: string): number {
    const [epoch, count, extra] = position.split('.')
    const n = epoch === this.state.journalEpoch && extra === undefined && /^(0|[1-9][0-9]{0,15})$/.test(count ?? '') ? Number(count) : NaN
    if (!Number.isSafeInteger(n) || n > this.head()) throw new JournalPositionError(position, 'malformed')
    return n
  }

  private position(n: number): string {
    return `${this.state.journalEpoch}.${n}`
  }

  async journalHead(): Promise<string> {
    return this.position(this.head())
  }

  async compactJournal(beforeUtc: string): Promise<number> {
    const journal = this.state.journal
    let n = 0
    while (n < journal.length && (journal[n] as JournalEntry).time < beforeUtc) n++
    journal.splice(0, n)
    this.state.journalMarks.splice(0, n)
    this.state.journalBase += n
    return n
  }

  async journalNames(ids: readonly number[]): Promise<JournalName[]> {
    const wanted = new Set(ids)
    const out = new Map<number, JournalName>()
    for (const mark of this.state.journalMarks) {
      if (!mark || !wanted.has(mark.id)) continue
      out.set(mark.id, { id: mark.id, name: mark.name, published: mark.published || (out.get(mark.id)?.published ?? false) })
    }
    return [...out.values()]
  }

  async close() {}
}

export interface MemoryStorageOptions {
  /**
   * Most change-journal entries kept (default 100,000): past it the oldest go, as a compaction
   * would remove them (sync tokens from before them answer 410), so a long-lived process's
   * memory stays bounded even if nothing calls `compactJournal`.
   */
  journalLimit?: number
}

/**
 * Creates an empty in-memory store. Data lives as long as the process.
 *
 * @example
 * const router = createCalendarRouter(createMemoryStorage())
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  return new MemoryStorage(Math.max(1, options.journalLimit ?? 100_000))
}
