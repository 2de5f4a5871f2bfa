/**
 * The storage contract. A backend implements `Storage` in one module: a core every backend has
 * (`StorageCore`, `StorageTxCore`, the journal) and optional capabilities it declares whole or
 * not at all (bulk insert, reserved ids, import links, webhooks, other writers, replicas). It
 * proves itself with the contract suite and the HTTP conformance suites of `src/testing`. Filtering, ordering, counting and paging are parameters of the
 * storage calls so that SQL backends answer a list with one indexed query plus one count.
 *
 * Dates inside records are strings `YYYY-MM-DD HH:MM:SS`: wall-clock strings compare correctly
 * as text, which keeps every backend's range filters simple and index-friendly.
 */

import type { GeoCircle } from './geo.js'
import type { CommitReport, JournalEntry, JournalName, JournalPage } from './journal.js'
import type { WebhookStore } from './webhooks.js'
import type { ImportLink, ImportLinkStore } from './import-links.js'
export type { GeoCircle } from './geo.js'
import type { CustomFieldFilter, CustomValues } from './custom-values.js'
export type { CustomFieldFilter, CustomValue, CustomValues } from './custom-values.js'
export type { CommitReport, JournalAction, JournalEntry, JournalKind, JournalName, JournalPage } from './journal.js'
export type { ImportKind, ImportLink, ImportLinkStore, ImportSourceState } from './import-links.js'

export type PostType = 'event' | 'venue' | 'organizer'
export type Taxonomy = 'category' | 'tag'
/** Whose translation groups: posts' (events, venues, organizers) or terms'. */
export type TranslationKind = 'posts' | 'terms'

/** Post statuses a record may have (WordPress's registered post statuses that matter here). */
export const POST_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const
export type PostStatus = (typeof POST_STATUSES)[number]
/** Every status but `trash`: what a create may set, and what editors' lists show by default. */
export const LIVE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const satisfies readonly PostStatus[]

/** An image reference as stored: a URL the caller gave, or the host's image id (see resolveImage). */
export interface ImageRef {
  url: string
  id?: number
  width?: number
  height?: number
  mime?: string
  filesize?: number
}

/** Fields every post-like record (event, venue, organizer) carries. */
export interface PostCommon {
  id: number
  type: PostType
  language: string
  /** Translation group: the id of the record this one translates, or its own id. */
  translationGroup: number
  author: number
  status: PostStatus
  slug: string
  title: string
  description: string
  excerpt: string
  /** Publication date, site-local and UTC. */
  date: string
  dateUtc: string
  modified: string
  modifiedUtc: string
  image: ImageRef | null
  /**
   * The host's custom fields (the `customFields` option), keyed by field key: every value ever
   * stored, declared today or not; the router shows and filters the declared ones
   * (src/storage/custom-values.ts). `{}` when none.
   */
  customFields: CustomValues
  /**
   * Grows by one whenever the stored row changes, however it changes (0 when created). Callers
   * never set it; caches key a record's serialized form by id and revision, so a write by any
   * process sharing the database is seen on the next read.
   */
  revision: number
}

export const EVENT_STATUSES = ['scheduled', 'canceled', 'postponed'] as const
export type EventStatus = (typeof EVENT_STATUSES)[number]
export const ATTENDANCE_MODES = ['offline', 'online', 'mixed'] as const
export type AttendanceMode = (typeof ATTENDANCE_MODES)[number]

/** The status and attendance of an event that says nothing of them (and of every event stored before they existed). */
export const EVENT_STATUS_DEFAULTS = {
  eventStatus: 'scheduled',
  eventStatusReason: '',
  previousStartDate: null,
  attendanceMode: 'offline',
  virtualUrl: null,
} as const satisfies Pick<EventFields, 'eventStatus' | 'eventStatusReason' | 'previousStartDate' | 'attendanceMode' | 'virtualUrl'>

export interface EventFields {
  /** Wall-clock start/end in the event's time zone. */
  startDate: string
  endDate: string
  /** The same instants in UTC. */
  startDateUtc: string
  endDateUtc: string
  timezone: string
  allDay: boolean
  /** Cost values as submitted, one per entry ("$10 - $25" stays one entry). */
  cost: string[]
  currencySymbol: string
  currencyPosition: '' | 'prefix' | 'postfix'
  currencyCode: string
  /** null: never set (the representation shows the permalink); "" cleared. */
  website: string | null
  showMap: boolean
  showMapLink: boolean
  hideFromListings: boolean
  sticky: boolean
  featured: boolean
  parentId: number
  /** Linked records, in link order. */
  venueIds: number[]
  organizerIds: number[]
  categoryIds: number[]
  tagIds: number[]
  /**
   * Revision of what a calendar shows (iCalendar SEQUENCE): 0 when created, and the storage adds
   * one on every update that changes a field of CALENDAR_FIELDS (storage/sequence.ts). Callers
   * never set it.
   */
  sequence: number
  /**
   * TEC's Event Status: `scheduled` (the default), `canceled` or `postponed`. A cancelled event
   * stays listed (clients strike it through); calendars get STATUS:CANCELLED.
   */
  eventStatus: EventStatus
  /** Why it was cancelled or postponed (text, filtered like a title). */
  eventStatusReason: string
  /** Set when a postponed event gets new dates: its start before them (JSON-LD EventRescheduled). */
  previousStartDate: string | null
  /** Where people attend: `offline` (the venue, the default), `online` or `mixed`. */
  attendanceMode: AttendanceMode
  /** The online event's URL (http or https), null when there is none. */
  virtualUrl: string | null
  /** Recurring series (src/resources/series.ts): the series id (its first occurrence's id), 0 for a lone event. */
  seriesId?: number
  /** This record's place in its series; null or absent for a lone event. */
  series?: SeriesMember | null
}

/** A series definition, kept on its first occurrence. Dates are wall-clock in the event zone. */
export interface SeriesRule {
  /** Canonical RFC 5545 rule text (no `RRULE:` prefix). */
  rrule: string
  rdate: string[]
  exdate: string[]
  /** Open-ended rules: occurrences exist up to this wall-clock time (the horizon reached). */
  through?: string
  /**
   * Open-ended rules: the first of the ID_BLOCK post ids reserved for the series' occurrences
   * (`reserveIds`). The occurrence at position p is written, and shown by a read before it
   * is written, under `ids + p - 1` (resources/provisional.ts). Absent on series written before
   * reservations existed until the horizon task gives them one.
   */
  ids?: number
}

/** Post ids in a block that `reserveIds` reserves: the positions 1..ID_BLOCK of one series. */
export const ID_BLOCK = 1024
/** The first reserved block (2^32): the ids storages hand out stay below it. */
export const ID_BLOCK_START = 2 ** 32

export interface SeriesMember {
  /** 1-based place in the series' expansion when it was written (deletions do not renumber). */
  position: number
  /** The occurrence's start as the rule made it (iCalendar RECURRENCE-ID of a detached one). */
  original: string
  /** Edited on its own (`recurrence_scope=this`): later series edits leave it alone. */
  detached?: boolean
  /** Only on the first occurrence. */
  rule?: SeriesRule
  /**
   * Only on the first occurrence: raised whenever the series changes in a way its own fields do
   * not record (an occurrence detached or edited on its own), so its sequence grows then too.
   */
  changes?: number
}

export interface VenueFields {
  address: string
  city: string
  country: string
  province: string
  state: string
  zip: string
  phone: string
  stateprovince: string
  website: string
  showMap: boolean
  showMapLink: boolean
  geoLat: number | null
  geoLng: number | null
}

export interface OrganizerFields {
  phone: string
  website: string
  email: string
}

export type EventRecord = PostCommon & EventFields & { type: 'event' }
export type VenueRecord = PostCommon & VenueFields & { type: 'venue' }
export type OrganizerRecord = PostCommon & OrganizerFields & { type: 'organizer' }
export type PostRecord = EventRecord | VenueRecord | OrganizerRecord

export type RecordOf<T extends PostType> = T extends 'event' ? EventRecord : T extends 'venue' ? VenueRecord : OrganizerRecord

/** What a create stores: everything but the id (and the group, which defaults to the id) and the sequence (0). */
export type NewPost<T extends PostType = PostType> = Omit<RecordOf<T>, 'id' | 'translationGroup' | 'sequence' | 'revision'> & {
  translationGroup?: number
  /**
   * The id to store it under, honoured by `insertPost` (not `insertEvents`): an id of a block
   * `reserveIds` returned (an occurrence of an open-ended series, under the id a read showed
   * it with before it was written). The storage keeps handing out its own ids as if this one did
   * not exist. Absent: the storage picks the id.
   */
  id?: number
}
export type PostPatch<T extends PostType = PostType> = Partial<Omit<RecordOf<T>, 'id' | 'type' | 'sequence' | 'revision'>>

export interface TermRecord {
  id: number
  taxonomy: Taxonomy
  language: string
  translationGroup: number
  name: string
  slug: string
  description: string
  parent: number
}
export type NewTerm = Omit<TermRecord, 'id' | 'translationGroup'> & { translationGroup?: number }
export type TermPatch = Partial<Omit<TermRecord, 'id' | 'taxonomy'>>

/** A term with its live count: published events in the term's language that carry it. */
export interface TermWithCount extends TermRecord {
  count: number
}

/**
 * Event lists by where their venue is. An event matches when one of its venues counts: the venue
 * has both coordinates, lies within `near` (great-circle distance) when given, and the caller
 * may read it (published; unpublished ones only as `unpublishedVenues` says: `all`, or those of
 * that author id), so a filter never reveals where a hidden venue is.
 */
export interface VenueGeoQuery {
  near?: GeoCircle
  unpublishedVenues: 'none' | 'all' | number
}

export interface Page<T> {
  items: T[]
  total: number
}

/** Event list filters, already resolved by the resource layer (IDs, bounds, visibility). */
/** What `eventsShowing` looks for: an event showing any one of these ids qualifies. */
export interface EventsShown {
  venueIds?: readonly number[]
  organizerIds?: readonly number[]
  categoryIds?: readonly number[]
  tagIds?: readonly number[]
}

export interface EventListQuery {
  language: string
  statuses: readonly PostStatus[]
  /** When set, records not published are matched only if this user wrote them (own drafts). */
  unpublishedAuthor?: number
  /** Bounds on wall-clock start/end: start >= startGte, end <= endLte, ... */
  startGte?: string
  startGt?: string
  startLt?: string
  endLte?: string
  endGt?: string
  endLt?: string
  search?: string
  /** OR within each list; lists combine with AND. Category lists include descendants. */
  categoryIds?: number[]
  tagIds?: number[]
  venueIds?: number[]
  organizerIds?: number[]
  featured?: boolean
  /** Only events of these statuses (event_status: scheduled, canceled, postponed), ORed. */
  eventStatuses?: EventStatus[]
  /** `custom_fields[key]=value`: every filter holds (keys ANDed, a key's values ORed). */
  customFields?: CustomFieldFilter[]
  include?: number[]
  parentId?: number
  /**
   * `hide_subsequent_recurrences`: of each series only the member starting first (then lowest
   * id) among the events every other filter of this query selects is listed; lone events pass.
   */
  firstOfSeries?: boolean
  venueGeo?: VenueGeoQuery
  /** Only events with a greater id (with `orderBy: 'id'`: a page that stays put while records change). */
  idAfter?: number
  /** start: start date, then id. date: publication date, then id (used with include). id: id alone. */
  orderBy: 'start' | 'date' | 'id'
  offset: number
  limit: number
  /**
   * The caller needs no total (a sync's pages, which end by their own rule): a backend may then
   * skip counting, and `total` is only at least `offset` plus the items' count.
   */
  uncounted?: boolean
}

export interface LinkedListQuery {
  language: string
  statuses: readonly PostStatus[]
  /** When set, records not published are matched only if this user wrote them (own drafts). */
  unpublishedAuthor?: number
  /** Lower-cased fragments; a record matches when one searched field contains all of them. */
  searchFragments?: string[]
  /** Only records linked to this event. */
  eventId?: number
  /** true: linked to an event whose status is not draft/pending; false: to no such event. */
  hasEvents?: boolean
  /** Only records linked to an event (of the given statuses) starting at or after this UTC time. */
  upcomingAfterUtc?: string
  upcomingStatuses?: readonly PostStatus[]
  /** Venues only: those with both coordinates, within `near` (great-circle distance) when given. */
  geo?: { near?: GeoCircle }
  /** Only records of these ids. */
  include?: number[]
  /** Only records with a greater id, listed by id (a page that stays put while records change). */
  idAfter?: number
  offset: number
  limit: number
}

export type TermOrderBy = 'name' | 'id' | 'slug' | 'count' | 'description' | 'parent' | 'none' | 'include'

export interface TermListQuery {
  taxonomy: Taxonomy
  language: string
  search?: string
  include?: number[]
  exclude?: number[]
  parent?: number
  /** Only terms attached to this event. */
  eventId?: number
  slug?: string
  hideEmpty: boolean
  /** Only terms with a greater id (use with orderBy 'id'). */
  idAfter?: number
  orderBy: TermOrderBy
  order: 'asc' | 'desc'
  offset: number
  limit: number
}

/** Raised by insert/update when (type or taxonomy, language, slug) is already taken. */
export class SlugConflictError extends Error {
  constructor(public readonly slug: string) {
    super(`slug "${slug}" is already taken`)
    this.name = 'SlugConflictError'
  }
}

/** Raised by a backend when its database cannot be reached; the router answers 503. */
export class StorageUnavailableError extends Error {
  constructor(message = 'The storage backend is unavailable', options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StorageUnavailableError'
  }
}

/**
 * Read operations, available both outside and inside a transaction. A record a read returns may
 * be shared and frozen (the memory backend and the SQL record cache hand out what they hold):
 * callers copy before they change one.
 */
export interface StorageReaderCore {
  getPost(id: number): Promise<PostRecord | null>
  /** Records for these ids, any type, in no particular order; unknown ids are left out. */
  getPosts(ids: readonly number[]): Promise<PostRecord[]>
  findPostBySlug<T extends PostType>(type: T, language: string, slug: string): Promise<RecordOf<T> | null>
  /** Slugs of this type and language equal to `base` or of the form `base-N`. */
  slugsLike(kind: PostType | Taxonomy, language: string, base: string): Promise<string[]>
  listEvents(query: EventListQuery): Promise<Page<EventRecord>>
  /**
   * Ids of the events of `language` (any status, listed or hidden) that link any of these
   * venues or organizers or carry any of these terms: the events whose representation embeds a
   * record that changed (a sync delivers them as changed). Ids only, in no particular order.
   *
   * @example
   * await storage.eventsShowing('en', { venueIds: [12], categoryIds: [3, 4] }) // [101, 102, 250]
   */
  eventsShowing(language: string, shown: EventsShown): Promise<number[]>
  listLinked<T extends 'venue' | 'organizer'>(type: T, query: LinkedListQuery): Promise<Page<RecordOf<T>>>
  /** A venue/organizer of this language whose listed fields all equal the given values. */
  findLinkedDuplicate<T extends 'venue' | 'organizer'>(
    type: T,
    language: string,
    fields: Partial<Record<string, string>>,
  ): Promise<RecordOf<T> | null>
  /**
   * Language → id of every record in these translation groups. Posts and terms number their
   * groups independently (a group is its first record's id), so the caller says which.
   */
  getTranslations(groups: readonly number[], of: TranslationKind): Promise<Map<number, Record<string, number>>>

  getTerm(id: number): Promise<TermWithCount | null>
  getTerms(ids: readonly number[]): Promise<TermWithCount[]>
  /** Exact slug match, then exact (case-insensitive) name match, within taxonomy and language. */
  findTerm(taxonomy: Taxonomy, language: string, by: { slug?: string; name?: string; parent?: number }): Promise<TermRecord | null>
  /** All descendants of these categories (not including them). */
  termDescendants(ids: readonly number[]): Promise<number[]>
  listTerms(query: TermListQuery): Promise<Page<TermWithCount>>
  /**
   * Ids of trashed posts (any type) last modified before this UTC time, lowest id first, at
   * most `limit` of them: what emptying the trash deletes.
   */
  trashedPosts(modifiedBeforeUtc: string, limit: number): Promise<number[]>
  /** Every event of this series (any status, language or visibility), by start then id. */
  seriesMembers(seriesId: number): Promise<EventRecord[]>
}

/**
 * The capability of reserved ids (open-ended series): a backend declares both halves or neither.
 * Without it, lists do not show occurrences past a series' written horizon.
 */
export interface ReservedIdsReader {
  /** The series head whose reserved block holds `id`, else null. */
  reservedBy(id: number): Promise<number | null>
}

/** Every read: the core, and `reservedBy` where the backend has reserved ids. */
export interface StorageReader extends StorageReaderCore, Partial<ReservedIdsReader> {}

/**
 * The writes every backend has. Writes exist only inside a transaction: all of a request's
 * writes commit or none do.
 */
export interface StorageTxCore extends StorageReader {
  insertPost<T extends PostType>(record: NewPost<T>): Promise<RecordOf<T>>
  updatePost<T extends PostType>(id: number, type: T, patch: PostPatch<T>): Promise<RecordOf<T>>
  /** Remove every event link to this venue or organizer (it was trashed). */
  unlinkPost(id: number): Promise<void>
  /**
   * Delete a post for good: an event with its own links (term counts follow), a venue or
   * organizer with every event's link to it; events whose parent it was get its parent instead.
   * Its slug is free afterwards. Unknown ids are ignored.
   */
  deletePost(id: number): Promise<void>
  insertTerm(term: NewTerm): Promise<TermRecord>
  updateTerm(id: number, patch: TermPatch): Promise<TermRecord>
  /** Delete the term and its event links; children move to the deleted term's parent. */
  deleteTerm(id: number): Promise<void>
}

/** The capability of bulk insert: a recurring series written in few statements. Without it, one insertPost per occurrence. */
export interface BulkInsertTx {
  /**
   * Many new events at once, exactly as that many insertPost calls would store them. A record
   * whose slug is taken comes back as null and is not stored (the caller picks another slug).
   */
  insertEvents(records: NewPost<'event'>[]): Promise<Array<EventRecord | null>>
}

/** The write half of reserved ids (see ReservedIdsReader). */
export interface ReservedIdsTx {
  /**
   * Reserves ID_BLOCK consecutive post ids for the occurrences of series `head`, ids the storage
   * never hands out itself (from ID_BLOCK_START up: 2^32, past every id it assigns), and returns
   * the first. An open-ended series numbers its occurrences in its block, so a read shows one
   * before it is written under the id it will have. Not rolled back.
   */
  reserveIds(head: number): Promise<number>
}

/**
 * The capability of import links inside a transaction (with `Storage.importLinks`): a record and
 * its link commit together. Without it the importer writes the link after.
 */
export interface ImportLinksTx {
  /** Inserts or replaces an import link (import-links.ts) in this transaction. */
  putImportLink(link: ImportLink): Promise<void>
  /**
   * The import links naming these records as this transaction sees them (its own
   * `putImportLink`s included), for what a write shows of them inside its transaction (the
   * `If-Match` check renders the record as a read would). Reading the link store instead would
   * wait for this very transaction on a backend with one connection.
   */
  importLinksOf(recordIds: readonly number[]): Promise<ImportLink[]>
}

/** A transaction: the core writes and whichever write capabilities the backend declares. */
export interface StorageTx extends StorageTxCore, Partial<BulkInsertTx>, Partial<ReservedIdsTx>, Partial<ImportLinksTx> {}

export interface TransactionOptions {
  /**
   * Called once the transaction committed, with the journal entries it wrote (one per record it
   * changed, cascades included; empty when it changed nothing). Never called for an attempt that
   * rolled back, however often the backend ran `fn` again.
   */
  onCommit?: CommitReport
}

/** What every backend is: the reads, atomic transactions, and its connections released. */
export interface StorageCore extends StorageReader {
  /**
   * Runs `fn` atomically. A throw rolls every write of `fn` back and rethrows. Every record the
   * transaction changes gets one journal entry, written with it (see `readJournal`).
   */
  transaction<T>(fn: (tx: StorageTx) => Promise<T>, options?: TransactionOptions): Promise<T>
  /** Release connections. Optional for backends that hold none. */
  close?(): Promise<void>
}

/**
 * The change journal. Required of every backend today (the response cache, sync tokens and
 * webhooks read it), but a capability of its own: its entries are written by `transaction`.
 */
export interface JournalCapability {
  /**
   * The journal entries after `after` (a position this backend gave out: an entry's, or
   * `journalHead()`'s), at most `limit`, in an order in which no reader can skip a committed
   * entry: an entry committed after this read returns lies after `next`. Throws
   * JournalPositionError when the journal no longer covers `after` (compacted) or it is not a
   * position of this backend. With `until` (a position `next` gave earlier), only entries up to
   * it: a reader can read the same stretch of the journal again.
   *
   * @example
   * let at = await storage.journalHead()
   * // later:
   * const { entries, next } = await storage.readJournal(at, 500)
   * for (const e of entries) console.log(e.kind, e.id, e.action)
   * at = next
   */
  readJournal(after: string, limit: number, until?: string): Promise<JournalPage>
  /** The position every later entry lies after: where a reader that has seen everything so far starts. */
  journalHead(): Promise<string>
  /**
   * Removes the entries written before this UTC time (`YYYY-MM-DD HH:MM:SS`); reads from a
   * position before them then fail as expired. Returns how many were removed.
   */
  compactJournal(beforeUtc: string): Promise<number>
  /**
   * The names calendar apps gave these events, as the journal's entries recorded them (each
   * entry of an event keeps its `caldav_name` custom value of that moment, a `delete` the one it
   * had): ids with no such entry left are not in the answer.
   */
  journalNames(ids: readonly number[]): Promise<JournalName[]>
}

/**
 * Webhook endpoints and deliveries (src/webhooks/). A backend without it serves everything but
 * the webhook routes (501) and the delivery runner.
 */
export interface WebhookCapability {
  readonly webhooks: WebhookStore
}

/**
 * Where imported records remember their source (src/import/, docs/importing.md). A backend
 * without it serves everything but the importer, which then refuses to run.
 */
export interface ImportLinksCapability {
  readonly importLinks: ImportLinkStore
}

/**
 * How commits made through other storages on the same data (other processes on one SQLite file
 * or PostgreSQL database) reach this one, for what a process keeps between reads: the router's
 * response cache drops what they made stale from it. Absent when nobody else can write this data
 * (the memory storage) or the backend cannot tell; a cache over it then sees other writers only
 * when its entries expire.
 */
export interface OtherWritersCapability {
  readonly otherWriters: OtherWriters
}

/**
 * Read replicas and read-your-writes bookmarks (the PostgreSQL storage; docs/storage-setup.md,
 * "Read replicas"). Absent on backends with a single copy of the data.
 */
export interface ReplicaCapability {
  readonly replicaReads: ReplicaReads
  /**
   * On a request's view of a storage with replicas (`replicaReads.reading`): the reads after it
   * see at least the journal up to `position` (a position readJournal or journalHead gave),
   * moving to the primary when the replica has not replayed that far. A sync page calls it
   * before reading records at a token's position. Absent where every read sees every commit.
   */
  readAtLeast(position: string): Promise<void>
}

/**
 * The whole contract a backend implements: the core and the journal, and whichever optional
 * capabilities it declares (each is all or nothing: a backend with webhooks has the whole
 * WebhookStore). The router and the importer look for an optional capability before they use it.
 */
export interface Storage
  extends
    StorageCore,
    JournalCapability,
    Partial<WebhookCapability>,
    Partial<ImportLinksCapability>,
    Partial<OtherWritersCapability>,
    Partial<ReplicaCapability> {}

/**
 * See `Storage.replicaReads`. A bookmark names a state of the data (PostgreSQL: a WAL position);
 * a read given one sees that state or a later one, whichever server answers it.
 *
 * @example
 * const replicas = storage.replicaReads
 * // after a write: what the caller sends back with its next reads
 * const bookmark = replicas?.bookmark()
 * // a request's reads: from a replica that has replayed past it, else from the primary
 * const reads = replicas ? replicas.reading(storage, { bookmark, cached: false }) : storage
 */
export interface ReplicaReads {
  /** Where this storage's latest commit ended (at or past it); null before its first commit. */
  bookmark(): string | null
  /** Whether `text` is a bookmark of this kind of storage (its syntax, not its age). */
  validBookmark(text: string): boolean
  /**
   * The storage one request reads through: its reads go to a replica that has replayed past
   * `bookmark` (any replica within the lag bound without one) and to the primary when none has,
   * staying there for the rest of the request, so a request never sees the data go back in time;
   * everything else (transactions, webhooks, import links) goes to `base`. `cached`: what it
   * reads is kept in a cache that follows the journal, so the replica must also have replayed
   * what that cache has already dropped. `follows`: the reader follows the journal for that
   * cache (its coherence poll): its journal reads, and `otherWriters.ahead`, go to the replica
   * too, and move what cached reads must reach to where the server that answered stands.
   * Without replicas, `base` itself.
   */
  reading(base: Storage, o: { bookmark: string | null; cached: boolean; follows?: boolean }): Storage
}

/**
 * See `Storage.otherWriters`. `check`: a read sees every commit made before it began, and
 * `version()` is cheap (SQLite: `PRAGMA data_version`), so a process checks it before serving
 * anything kept from an earlier read and reads the journal when it moved. `poll`: asking costs a
 * round trip, and `readJournal` hands a commit out only once every transaction older than it has
 * ended (PostgreSQL), so a process polls; `ahead` gives the committed entries still held back.
 *
 * @example
 * const writers = storage.otherWriters
 * if (writers?.mode === 'check') {
 *   const seen = await writers.version()
 *   // later: anything committed since?
 *   if ((await writers.version()) !== seen) console.log('read the journal')
 * }
 */
export type OtherWriters =
  | {
      mode: 'check'
      /**
       * Differs from its previous answer once anything was committed since, by any writer
       * (compare with `===`); as fresh as a read made now would be. Synchronous where it can be.
       */
      version(): number | string | Promise<number | string>
    }
  | {
      mode: 'poll'
      /**
       * The committed entries `readJournal` does not hand out yet because a transaction that
       * began before theirs is still running, at most `limit`, in journal order. A later
       * `readJournal` returns them again once that transaction has ended.
       */
      ahead(limit: number): Promise<JournalEntry[]>
    }
