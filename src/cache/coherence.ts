/**
 * The response cache kept coherent with the commits of other processes on the same database,
 * read from the change journal (storage/types.ts, `OtherWriters`). This process's own commits
 * are dropped precisely and at once by observe.ts; the journal brings everyone else's.
 *
 * - `check` (SQLite): before a hit, the storage's version (`PRAGMA data_version`) is compared
 *   with the one the cache last caught up to; when it moved, the new entries are read and what
 *   they touched is dropped before the hit is looked up. A hit is then as fresh as a read of the
 *   database made at that moment.
 * - `poll` (PostgreSQL): while the cache is read, the journal is read every `pollMs / 2`, and a
 *   hit that finds the last catch-up begun more than `pollMs` ago waits for a new one, so no
 *   commit is served stale for longer than `pollMs`. Entries held back behind an older running
 *   transaction (`ahead`) are dropped as soon as they are committed, and skipped when
 *   `readJournal` hands them out later. The poll stops after IDLE_POLLS polls with no cached
 *   read (the next read starts it again), when a poll fails, and on close; its timer never keeps
 *   the process alive.
 *
 * With read replicas (PostgreSQL), each catch-up reads the journal, its held-back entries and the
 * records it names from one replica within the lag bound (the primary when none is): a hit is
 * then at most `pollMs` plus that replica's lag behind another process's commit, as an uncached
 * read without a bookmark may be; a request carrying a bookmark never uses the cache.
 *
 * An entry says which record changed, not how: what it drops is `journalTags` (coarser than a
 * local write's tags). A position the journal no longer covers (compacted) or never gave out
 * (another database) drops the whole cache, and so does a catch-up too long to be worth reading.
 */
import type { ReadCache } from './response-cache.js'
import { journalTags } from './dependencies.js'
import type { JournalEntry } from '../storage/journal.js'
import type { OtherWriters, PostRecord, Storage, TermRecord } from '../storage/types.js'

export interface Coherence {
  /**
   * Called before a cached answer is looked up: undefined when the cache is known to be current,
   * else a promise that resolves once it dropped what other processes' commits made stale.
   */
  check(): Promise<void> | undefined
  /** Entries this process committed (already dropped precisely): skipped when the journal hands them out. */
  own(entries: readonly JournalEntry[]): void
  /** Stops the poll for good. */
  close(): void
}

/** Entries read per journal page. */
const PAGE = 1000
/** Past this many entries in one catch-up, dropping everything is cheaper than reading on. */
const MAX_ENTRIES = 5000
/** Own positions remembered at most (each is forgotten when the journal hands it out). */
const MAX_OWN = 10_000
/** Polls with no cached read in between before the poll stops. */
const IDLE_POLLS = 8

const isPositionError = (e: unknown) => e instanceof Error && e.name === 'JournalPositionError'

/**
 * The coherence of `cache` over `storage`, or null when nobody else writes its data.
 *
 * @example
 * const coherence = cacheCoherence(storage, cache, { pollMs: 250 })
 * await coherence?.check() // before cache.get(key)
 */
export function cacheCoherence(storage: Storage, cache: ReadCache, o: { pollMs: number }): Coherence | null {
  const writers = storage.otherWriters
  return writers ? new JournalFollower(storage, writers, cache, o.pollMs) : null
}

class JournalFollower implements Coherence {
  /** The journal position read up to; null until the first catch-up. */
  private seen: string | null = null
  private readonly ownPositions = new Set<string>()
  /** Entries dropped while still held back (`ahead`): skipped when readJournal returns them. */
  private readonly aheadSeen = new Set<string>()
  /** A catch-up waiting for the running one: callers join it, since it has not read yet. */
  private queued: Promise<void> | null = null
  private tail: Promise<void> = Promise.resolve()
  /** `check`: the version the cache caught up to. */
  private version: unknown = undefined
  private caughtUp = false
  /** `poll`: when the last finished catch-up began, and when the cache was last read. */
  private syncedAt = -Infinity
  private readAt = -Infinity
  private timer: ReturnType<typeof setTimeout> | null = null
  private polling = false
  private closed = false

  constructor(
    private readonly storage: Storage,
    private readonly writers: OtherWriters,
    private readonly cache: ReadCache,
    private readonly pollMs: number,
  ) {}

  check(): Promise<void> | undefined {
    const writers = this.writers
    if (writers.mode === 'check') {
      const version = writers.version()
      if (version instanceof Promise) return version.then((v) => this.caughtUpTo(v))
      return this.caughtUpTo(version)
    }
    const now = performance.now()
    this.readAt = now
    if (!this.polling && !this.closed) this.poll()
    return now - this.syncedAt <= this.pollMs ? undefined : this.catchUp()
  }

  private caughtUpTo(version: unknown): Promise<void> | undefined {
    if (this.caughtUp && version === this.version) return undefined
    // The catch-up reads the journal after `version` was taken, so it covers at least that much.
    return this.catchUp().then(() => {
      this.version = version
      this.caughtUp = true
    })
  }

  own(entries: readonly JournalEntry[]): void {
    if (this.ownPositions.size + entries.length > MAX_OWN) this.ownPositions.clear()
    for (const e of entries) this.ownPositions.add(e.position)
  }

  close(): void {
    this.closed = true
    this.polling = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** One catch-up at a time; one that has not begun yet is shared by everyone who asks meanwhile. */
  private catchUp(): Promise<void> {
    if (this.queued) return this.queued
    const run = this.tail.then(() => {
      this.queued = null
      return this.read()
    })
    this.queued = run
    this.tail = run.catch(() => undefined)
    return run
  }

  private async read(): Promise<void> {
    const began = performance.now()
    // With read replicas, one catch-up reads from one of them (storage/sql/session.ts).
    const reads = this.storage.replicaReads?.reading(this.storage, { bookmark: null, cached: false, follows: true }) ?? this.storage
    if (this.seen === null) {
      // What was kept before the journal's position was known may predate any commit.
      await this.restart(reads)
      this.syncedAt = began
      return
    }
    const foreign: JournalEntry[] = []
    let overflow = false
    const writers = reads.otherWriters ?? this.writers
    try {
      // Held back entries first: one committed before `began` is either among them or, when its
      // transaction left the horizon meanwhile, among what readJournal then returns.
      if (writers.mode === 'poll') {
        const ahead = await writers.ahead(PAGE)
        overflow = ahead.length >= PAGE
        for (const e of ahead) {
          if (this.aheadSeen.has(e.position)) continue
          this.aheadSeen.add(e.position)
          if (!this.ownPositions.delete(e.position)) foreign.push(e)
        }
      }
      for (let more = !overflow; more;) {
        const page = await reads.readJournal(this.seen, PAGE)
        for (const e of page.entries) {
          if (this.aheadSeen.delete(e.position) || this.ownPositions.delete(e.position)) continue
          foreign.push(e)
        }
        this.seen = page.next
        more = page.more
        if (foreign.length > MAX_ENTRIES) overflow = true
        if (overflow) break
      }
    } catch (err) {
      if (!isPositionError(err)) throw err
      overflow = true
    }
    if (overflow) await this.restart(reads)
    else if (foreign.length) await this.drop(reads, foreign)
    this.syncedAt = began
  }

  /** Drops the whole cache and goes on from the journal's head. */
  private async restart(reads: Storage): Promise<void> {
    this.seen = await reads.journalHead()
    this.ownPositions.clear()
    this.aheadSeen.clear()
    this.cache.invalidate()
  }

  private async drop(reads: Storage, entries: JournalEntry[]): Promise<void> {
    const posts = new Set<number>()
    const terms = new Set<number>()
    for (const e of entries) (e.kind === 'category' || e.kind === 'tag' ? terms : posts).add(e.id)
    // The records as they are now name their translation group and series (journalTags).
    const current: Array<PostRecord | TermRecord> = [
      ...(posts.size ? await reads.getPosts([...posts]) : []),
      ...(terms.size ? await reads.getTerms([...terms]) : []),
    ]
    this.cache.invalidate(journalTags(entries, current))
  }

  private poll(): void {
    this.polling = true
    this.timer = setTimeout(() => {
      this.timer = null
      if (this.closed) return
      if (performance.now() - this.readAt > IDLE_POLLS * (this.pollMs / 2)) {
        this.polling = false
        return
      }
      this.catchUp().then(
        () => {
          if (!this.closed) this.poll()
        },
        // A failed poll stops polling: the next cached read catches up itself (and, while the
        // database is unreachable, fails as a read of it would), then starts the poll again.
        () => {
          this.polling = false
        },
      )
    }, this.pollMs / 2)
    this.timer.unref?.()
  }
}
