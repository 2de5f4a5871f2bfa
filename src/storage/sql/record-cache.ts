/**
 * Decoded post and term records of committed revisions, shared by the reads of one SQL storage.
 *
 * A read first selects only `id, revision` of the rows it wants, then takes each record whose
 * revision it already holds from here and reads the rest (their columns and link lists) in one
 * query by id. Every change of a post or term row (or of a post's links) gives it a new revision,
 * in this process or another on the same database (write.ts), so an entry is right for exactly the
 * revision it was read at: nothing is invalidated, old revisions age out of the LRU.
 *
 * Reads outside transactions fill it, and so does a transaction once it committed, with the
 * posts it stored (records.ts `settledPost`: as a read would decode them). Nothing a transaction
 * reads or writes goes in before its commit: it may still roll back, and a revision number it
 * used would then be used again by a later commit with other contents.
 */
import { LRUCache } from 'lru-cache'
import { freezePost } from '../clone.js'
import type { PostRecord, TermRecord } from '../types.js'

interface Entry {
  revision: number
  record: PostRecord | TermRecord
  bytes: number
}

/** Object and map bookkeeping of an entry beyond its strings, counted into the bound. */
const ENTRY_OVERHEAD = 1024

/** An upper bound of what a record holds: two bytes per character of its strings. */
function recordBytes(rec: PostRecord | TermRecord): number {
  let chars = 0
  for (const value of Object.values(rec)) if (typeof value === 'string') chars += value.length
  return ENTRY_OVERHEAD + 2 * chars
}

export interface RecordCacheOptions {
  /** Most memory the cached records may take (strings counted at two bytes per character). Default 16 MiB. */
  maxBytes?: number
}

/**
 * One LRU for both kinds, under one bound: posts under their id, terms under minus theirs (both
 * kinds number from 1, separately).
 */
export class RecordCache {
  private readonly lru: LRUCache<number, Entry>

  constructor(options: RecordCacheOptions = {}) {
    this.lru = new LRUCache<number, Entry>({ maxSize: options.maxBytes ?? 16 * 1024 * 1024, sizeCalculation: (e) => e.bytes })
  }

  /** The post at `revision`, if held (frozen: shared by every read that finds it). */
  get(id: number, revision: number): PostRecord | undefined {
    const entry = this.lru.get(id)
    return entry && entry.revision === revision ? (entry.record as PostRecord) : undefined
  }

  /** Keeps a post read in a committed snapshot; it is frozen in place. */
  set(rec: PostRecord): void {
    const record = freezePost(rec)
    this.lru.set(rec.id, { revision: rec.revision, record, bytes: recordBytes(record) })
  }

  /** The term at `revision`, if held (frozen). Term records carry no revision: the row's is given. */
  term(id: number, revision: number): TermRecord | undefined {
    const entry = this.lru.get(-id)
    return entry && entry.revision === revision ? (entry.record as TermRecord) : undefined
  }

  /** Keeps a term read in a committed snapshot at the row's `revision`; it is frozen in place. */
  setTerm(rec: TermRecord, revision: number): void {
    this.lru.set(-rec.id, { revision, record: Object.freeze(rec), bytes: recordBytes(rec) })
  }

  /** Bytes held, as counted against maxBytes. */
  get bytes(): number {
    return this.lru.calculatedSize
  }
}
