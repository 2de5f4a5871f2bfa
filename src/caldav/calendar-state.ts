/**
 * A cached calendar's events as the REST sync last showed them (only the fields the grouping
 * reads, answers.ts EventFacts), so that a REST sync delta — changed events, removed ids — updates the collection:
 * only the resources those events belong to are grouped again, instead of the calendar being
 * read whole. Held by one entry of the collection cache (collections.ts), never shared.
 */
import type { Resource } from './resource.js'
import { collectionOf, group, type Collection } from './store.js'
import { keyOf, type EventFacts } from './answers.js'

/** One event as held: what group() reads of it, its language and its resource's key. */
interface Held {
  e: EventFacts
  language: string
  key: number
}

/** One language's part of a REST sync delta. */
export interface LanguageDelta {
  language: string
  events: EventFacts[]
  deleted: number[]
  token: string
}

export class CalendarState {
  private readonly events = new Map<number, Held>()
  private readonly members = new Map<number, Set<number>>()

  constructor(private readonly host: string) {}

  /** Takes in events of one language as they are now; the keys of the resources touched go to `touched`. */
  put(events: readonly EventFacts[], language: string, touched?: Set<number>): void {
    for (const e of events) {
      this.drop(e.id, touched)
      const key = keyOf(e)
      this.events.set(e.id, { e, language, key })
      let ids = this.members.get(key)
      if (!ids) this.members.set(key, (ids = new Set()))
      ids.add(e.id)
      touched?.add(key)
    }
  }

  /**
   * Forgets ids one language's sync removed. An id held under another language stays: the
   * event moved language, and the other language's sync gives it (or removes it) there.
   */
  remove(ids: readonly number[], language: string, touched: Set<number>): void {
    for (const id of ids) if (this.events.get(id)?.language === language) this.drop(id, touched)
  }

  private drop(id: number, touched?: Set<number>): void {
    const held = this.events.get(id)
    if (!held) return
    this.events.delete(id)
    const ids = this.members.get(held.key)
    ids?.delete(id)
    if (ids?.size === 0) this.members.delete(held.key)
    touched?.add(held.key)
  }

  /** The resource of a key as its events now group, or null when none is left. */
  resource(key: number): Resource | null {
    const ids = this.members.get(key)
    if (!ids?.size) return null
    const held = [...ids].map((id) => this.events.get(id)!)
    return group(
      held.map((h) => h.e),
      this.host,
      held[0]!.language,
    ).resources[0]!
  }

  /**
   * The collection after a delta: the touched resources grouped again (a new Resource object
   * each, so nothing remembered of the old one is taken for the new), the others as they were.
   * `c` is left as it is (a request may still be reading it).
   */
  apply(c: Collection, deltas: readonly LanguageDelta[], category: string | null): Collection {
    const touched = new Set<number>()
    for (const d of deltas) {
      this.remove(d.deleted, d.language, touched)
      this.put(d.events, d.language, touched)
    }
    const fresh = new Map<number, Resource | null>([...touched].map((k) => [k, this.resource(k)]))
    const resources: Resource[] = []
    for (const r of c.resources) {
      const now = fresh.has(r.key) ? fresh.get(r.key)! : r
      if (now) resources.push(now)
    }
    const added = [...fresh].filter(([k, r]) => r && !c.byKey.has(k)).map(([, r]) => r!)
    if (added.length) {
      resources.push(...added)
      // Calendar order (language, then key), as a full read gives; nearly sorted, so cheap.
      const rank = new Map(c.languages.map((l, i) => [l, i]))
      resources.sort((a, b) => rank.get(a.language)! - rank.get(b.language)! || a.key - b.key)
    }
    const tokens = { ...c.tokens }
    for (const d of deltas) tokens[d.language] = d.token
    return collectionOf(c.language, category, c.languages, resources, tokens)
  }
}
