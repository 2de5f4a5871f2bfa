/**
 * The fragment cache: serialized JSON of record versions, shared by every caller of one router
 * and bounded by bytes. Keys name the record kind, id and revision and every request-dependent
 * input the text uses; a revision grows on every change of the row, in this process or another
 * sharing the database, so a changed record is never found under its old key and nothing has to
 * be invalidated (old versions age out of the LRU).
 */
import { LRUCache } from 'lru-cache'

/** lru-cache and Map bookkeeping per entry, counted into the bound with the strings. */
const ENTRY_OVERHEAD = 96

/**
 * What an entry is counted as: two bytes per character of key and text (V8 stores text with
 * characters beyond Latin-1 that way; Latin-1 text takes half), so the bound is an upper bound.
 */
export const fragmentBytes = (key: string, text: string) => ENTRY_OVERHEAD + 2 * (key.length + text.length)

export interface FragmentCacheStats {
  entries: number
  /** Sum of the entries' counted sizes: never above `maxBytes`. */
  bytes: number
  maxBytes: number
  hits: number
  misses: number
}

export class FragmentCache {
  private readonly lru: LRUCache<string, string>
  private hits = 0
  private misses = 0
  /**
   * Link roots (long strings) stand in keys as short tags: hashing a fresh long key for every
   * fragment of a page cost more than the lookup itself.
   */
  private readonly variants = new Map<string, string>()
  private nextVariant = 0

  constructor(readonly maxBytes: number) {
    // An entry larger than the whole bound is not kept (lru-cache refuses it); it is still served.
    this.lru = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (text, key) => fragmentBytes(key, text) })
  }

  /**
   * The text under `key`, built by `build(...args)` and kept on a miss. The arguments are passed
   * through so that a caller's builder need not be a closure made afresh for every lookup.
   */
  text<A extends unknown[]>(key: string, build: (...args: A) => string, ...args: A): string {
    const hit = this.lru.get(key)
    if (hit !== undefined) {
      this.hits++
      return hit
    }
    this.misses++
    const text = build(...args)
    this.lru.set(key, text)
    return text
  }

  /** The short tag of a request variant. Tags are never reused, so forgetting them is safe. */
  variant(roots: string): string {
    let tag = this.variants.get(roots)
    if (tag === undefined) {
      // Origins come from Host headers (caller input): keep the map bounded.
      if (this.variants.size >= 1000) this.variants.clear()
      this.variants.set(roots, (tag = `|${(this.nextVariant++).toString(36)}`))
    }
    return tag
  }

  stats(): FragmentCacheStats {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize, maxBytes: this.maxBytes, hits: this.hits, misses: this.misses }
  }
}
