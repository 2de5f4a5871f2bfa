/**
 * Optional read cache for GETs: encoded responses in an LRU bounded by bytes, shared by callers
 * of one reader class (anonymous callers, each signed-in role from editor up, each other user).
 *
 * An entry keeps its body as UTF-8 bytes with its ETag, computed once: a hit hands out those very
 * bytes (no hashing, encoding or copying per hit) under a fresh, small header object, because
 * callers add per-request headers (CORS, Vary).
 *
 * Each entry also keeps the tags of what it was built from (cache/dependencies.ts); a committed
 * write in this process drops the entries sharing a tag with it, and only those. Other
 * processes' writes on the same database reach it through the change journal
 * (cache/coherence.ts): on SQLite before the next hit, on PostgreSQL within `pollMs`. With a
 * storage that cannot tell (a custom one without `otherWriters`) they are seen when entries
 * expire (`ttlMs`).
 */
import { LRUCache } from 'lru-cache'
import type { RawResponse } from '../http/types.js'
import { isSearchTag, type SearchTag, type Tag } from './tags.js'

export interface CacheOptions {
  /** Upper bound of cached bytes (bodies plus a small allowance per entry). Default 32 MiB. */
  maxBytes?: number
  /**
   * Lifetime of an entry in milliseconds, default 5000: how long an answer that depends on the
   * clock (the default date window) may lag, and the longest another process's write goes unseen
   * over a storage that cannot report other writers (memory and SQL storages do).
   */
  ttlMs?: number
  /**
   * PostgreSQL: the longest another process's commit can be served from this cache, in
   * milliseconds (default 250). The journal is read twice per interval while the cache is being
   * read, and a hit waits for a fresh read when the last one began longer ago. SQLite needs none:
   * each hit first checks whether the database changed.
   */
  pollMs?: number
  /**
   * Also keep signed-in callers' reads, each under its reader class (see `readerClass`), default
   * true. An editor's views are then answered from the cache as anonymous ones are, and dropped
   * by the same writes. `false` keeps anonymous reads only.
   */
  signedIn?: boolean
}

/** Default of `pollMs`. */
export const DEFAULT_POLL_MS = 250

/** Counters since the router was created; `entries`/`bytes` are current. */
export interface CacheStats {
  hits: number
  misses: number
  /** Entries dropped by a write, in this process or another (not by expiry or the byte bound). */
  invalidated: number
  entries: number
  bytes: number
}

interface Entry {
  status: number
  headers: Record<string, string>
  body: Uint8Array<ArrayBuffer>
  tags: readonly Tag[]
}

/** Header object, key and bookkeeping of one entry, counted against maxBytes with its body. */
const ENTRY_OVERHEAD = 512

export class ReadCache {
  private readonly lru: LRUCache<string, Entry>
  /** Tag → keys of the entries built from it. */
  private readonly byTag = new Map<Tag, Set<string>>()
  /** The event-search tags held (tags.ts), which a text edit is tested against. */
  readonly searchTags = new Set<SearchTag>()
  /** Bumped by every invalidation: a response built across one may be stale, so is not kept. */
  private epoch = 0
  readonly stats = { hits: 0, misses: 0, invalidated: 0 }
  readonly signedIn: boolean

  constructor(o: CacheOptions) {
    this.signedIn = o.signedIn ?? true
    this.lru = new LRUCache<string, Entry>({
      maxSize: o.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (e) => ENTRY_OVERHEAD + e.body.byteLength + e.tags.length * 16,
      ttl: o.ttlMs ?? 5000,
      dispose: (e, key) => this.untag(key, e.tags),
    })
  }

  /** `reader` is the caller's reader class, `variant` what else the response varies by (Accept). */
  key(url: string, variant: string, reader = ''): string {
    return `${reader}\u0000${variant}\u0000${url}`
  }

  /** Mark the start of building a response that may be stored (pass it to `set`). */
  begin(): number {
    return this.epoch
  }

  get(key: string): RawResponse | undefined {
    const hit = this.lru.get(key)
    if (!hit) {
      this.stats.misses++
      return undefined
    }
    this.stats.hits++
    return { status: hit.status, headers: { ...hit.headers }, body: hit.body }
  }

  /**
   * Keeps a response whose body the caller encoded once (and hashed for its ETag): later hits
   * send those very bytes. Not stored when a write was committed since `since` (the response
   * may predate it).
   */
  set(key: string, raw: RawResponse & { body: Uint8Array<ArrayBuffer> }, tags: Iterable<Tag> = [], since = this.epoch): void {
    const entry: Entry = { status: raw.status, headers: { ...raw.headers }, body: raw.body, tags: [...tags] }
    if (since === this.epoch) {
      this.lru.set(key, entry)
      // lru-cache refuses an entry larger than maxSize; only a stored one is indexed.
      if (this.lru.has(key)) {
        for (const tag of entry.tags) {
          let keys = this.byTag.get(tag)
          if (!keys) this.byTag.set(tag, (keys = new Set()))
          keys.add(key)
          if (isSearchTag(tag)) this.searchTags.add(tag)
        }
      }
    }
  }

  /** Called after committed writes: drops what shares a tag with them, or everything without tags. */
  invalidate(tags?: Iterable<Tag>): void {
    this.epoch++
    if (tags === undefined) {
      this.stats.invalidated += this.lru.size
      this.lru.clear()
      return
    }
    for (const tag of tags) {
      const keys = this.byTag.get(tag)
      if (!keys) continue
      for (const key of [...keys]) if (this.lru.delete(key)) this.stats.invalidated++
    }
  }

  /** Bytes currently held, as counted against `maxBytes`. */
  get size(): number {
    return this.lru.calculatedSize
  }

  get entries(): number {
    return this.lru.size
  }

  private untag(key: string, tags: readonly Tag[]): void {
    for (const tag of tags) {
      const keys = this.byTag.get(tag)
      if (!keys) continue
      keys.delete(key)
      if (keys.size > 0) continue
      this.byTag.delete(tag)
      if (isSearchTag(tag)) this.searchTags.delete(tag)
    }
  }
}
