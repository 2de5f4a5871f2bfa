/**
 * Optional read cache for anonymous GETs: serialized responses in an LRU bounded by bytes.
 * Every committed write in this process bumps a generation that is part of every key, so no
 * stale read follows a local write. Other processes' writes are seen when entries expire
 * (`ttlMs`): keep it short when several instances share one database.
 */
import { LRUCache } from 'lru-cache'
import type { RawResponse } from './http/types.js'

export interface CacheOptions {
  /** Upper bound of cached body bytes (UTF-16 code units × 2). Default 32 MiB. */
  maxBytes?: number
  /** Lifetime of an entry in milliseconds. Default 5000. */
  ttlMs?: number
}

export class ReadCache {
  private readonly lru: LRUCache<string, RawResponse>
  private generation = 0

  constructor(o: CacheOptions) {
    this.lru = new LRUCache<string, RawResponse>({
      maxSize: o.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (r) => 256 + (r.body?.length ?? 0) * 2,
      ttl: o.ttlMs ?? 5000,
    })
  }

  key(url: string, variant: string): string {
    return `${this.generation}\u0000${variant}\u0000${url}`
  }

  get(key: string): RawResponse | undefined {
    const hit = this.lru.get(key)
    // Callers add per-request headers (CORS, Vary): hand out a copy.
    return hit ? { status: hit.status, headers: { ...hit.headers }, body: hit.body } : undefined
  }

  set(key: string, raw: RawResponse): void {
    this.lru.set(key, { status: raw.status, headers: { ...raw.headers }, body: raw.body })
  }

  /** Called after every committed write. */
  invalidate(): void {
    this.generation++
    this.lru.clear()
  }

  /** Bytes currently held, as counted against `maxBytes`. */
  get size(): number {
    return this.lru.calculatedSize
  }
}
