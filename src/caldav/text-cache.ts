/**
 * The iCalendar text of resources as last rendered outside a write's transaction, so listings,
 * multigets and GETs that ask for the same unchanged objects again (a client's first sync: a
 * PROPFIND of ETags, then multigets of every object) do not render them again through the REST
 * feed. Keyed by the Resource object, which the collection cache replaces whenever the REST
 * sync reports one of its events changed (a venue, organizer or term it shows included): a text
 * is never served for a changed object. Held by one router's CalDAV handler; bounded by the
 * characters it holds, least recently used first out.
 */
import type { Resource } from './resource.js'

export class TextCache {
  private readonly texts = new Map<Resource, string>()
  private size = 0

  /** `maxChars`: at most this many characters of text held in all. */
  constructor(private readonly maxChars = 16_000_000) {}

  get(r: Resource): string | undefined {
    const text = this.texts.get(r)
    if (text === undefined) return undefined
    // Most recently used last (a Map keeps insertion order).
    this.texts.delete(r)
    this.texts.set(r, text)
    return text
  }

  set(r: Resource, text: string): void {
    const old = this.texts.get(r)
    if (old !== undefined) {
      this.size -= old.length
      this.texts.delete(r)
    }
    if (text.length > this.maxChars) return
    this.texts.set(r, text)
    this.size += text.length
    for (const [k, v] of this.texts) {
      if (this.size <= this.maxChars) break
      this.texts.delete(k)
      this.size -= v.length
    }
  }
}
