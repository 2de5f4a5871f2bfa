/**
 * The iCalendar text of resources as last rendered outside a write's transaction, so listings,
 * multigets and GETs that ask for the same unchanged objects again (a client's first sync: a
 * PROPFIND of ETags, then multigets of every object) do not render them again through the REST
 * feed. Keyed by the Resource object, which the collection cache replaces whenever the REST
 * sync reports one of its events changed (a venue, organizer or term it shows included): a text
 * is never served for a changed object. Held by one router's CalDAV handler; bounded by the
 * characters it holds, least recently used first out (lru-cache, as the response cache is).
 */
import { LRUCache } from 'lru-cache'
import type { Resource } from './resource.js'

export class TextCache {
  private readonly texts: LRUCache<Resource, string>

  /** `maxChars`: at most this many characters of text held in all. */
  constructor(maxChars = 16_000_000) {
    this.texts = new LRUCache<Resource, string>({ maxSize: maxChars, sizeCalculation: (text) => Math.max(1, text.length) })
  }

  get(r: Resource): string | undefined {
    return this.texts.get(r)
  }

  set(r: Resource, text: string): void {
    // A text larger than the whole bound is not kept (lru-cache refuses it), and an older text
    // of the same resource goes with it.
    if (text.length > this.texts.maxSize) this.texts.delete(r)
    else this.texts.set(r, text)
  }
}
