/**
 * Calendars read before, per caller and language, kept up to date from the REST sync: a later
 * request asks the REST sync what changed since the calendar's token (one small request when
 * nothing did) and applies those changes to the calendar as held (calendar-state.ts) instead of
 * reading it whole again. Held by the CalDAV handler of one router (never module-level),
 * bounded in entries.
 */
import type { Principal } from '../auth/principal.js'
import type { Rest } from './api.js'
import type { Resource } from './resource.js'
import { CalendarState, type LanguageDelta } from './calendar-state.js'
import { keyOf, syncPage } from './answers.js'
import { TextCache } from './text-cache.js'
import { categoryName, continuation, listQuery, readCollection, type Collection } from './store.js'

/** One language's changes since `token` through the REST sync; null when it refuses the token. */
async function languageDelta(rest: Rest, language: string, token: string, canEdit: boolean): Promise<LanguageDelta | null> {
  const out: LanguageDelta = { language, events: [], deleted: [], token }
  let path = `/events?sync_token=${encodeURIComponent(token)}&per_page=100&${listQuery(language, canEdit)}`
  for (;;) {
    const answer = await rest.send('GET', path)
    // A token the journal no longer covers (or any refusal): the calendar is read whole.
    if (answer.status !== 200) return null
    const page = syncPage(answer.json)
    for (const e of page.events) out.events.push(e)
    for (const id of page.deleted) out.deleted.push(id)
    if (!page.next) {
      out.token = page.token
      return out
    }
    path = continuation(rest, page.next, language)
  }
}

/** The changes of each language of a calendar since it was read; null when one token is refused. */
async function calendarDelta(rest: Rest, c: Collection, canEdit: boolean): Promise<LanguageDelta[] | null> {
  const out: LanguageDelta[] = []
  for (const language of c.languages) {
    const d = await languageDelta(rest, language, c.tokens[language] ?? '', canEdit)
    if (!d) return null
    out.push(d)
  }
  return out
}

/** One delta applied to a cached calendar: from which calendar token, what it changed (id: key) and removed. */
interface Step {
  from: string
  changed: Map<number, number>
  deleted: number[]
}

/** What changed in a calendar since a token (as sync-collection reports it). */
export interface KnownChanges {
  /** The keys of the resources changed. */
  changed: Set<number>
  /** The event ids removed (and not given again since). */
  deleted: Set<number>
}

/** How many applied deltas a cached calendar remembers, to answer sync-collection from them. */
const STEPS = 32

interface Entry {
  collection: Collection
  state: CalendarState
  /** The deltas applied since the calendar was read, oldest first (at most STEPS). */
  steps: Step[]
}

/** A step of these deltas: each event's resource key, and the ids removed. */
function stepOf(from: string, deltas: readonly LanguageDelta[]): Step {
  const changed = new Map<number, number>()
  const deleted: number[] = []
  for (const d of deltas) {
    for (const e of d.events) changed.set(e.id, keyOf(e))
    deleted.push(...d.deleted)
  }
  return { from, changed, deleted }
}

export class CollectionCache {
  private readonly entries = new Map<string, Entry>()
  /** ETags of resources as rendered outside a transaction (Dav.knownEtag); gone with their Resource. */
  readonly etags = new WeakMap<Resource, string>()
  /** Their texts as rendered then (text-cache.ts), bounded. */
  readonly texts = new TextCache()

  constructor(private readonly maxEntries = 64) {}

  async read(
    rest: Rest,
    principal: Principal,
    language: string,
    languages: readonly string[],
    canEdit: boolean,
    host: string,
  ): Promise<Collection> {
    // What a caller sees depends on their id and role; UIDs on the host.
    const key = `${principal.id}|${principal.role}|${language}|${host}`
    // Another request may update the entry while this one reads the delta: then again from its state.
    for (let attempt = 0; attempt < 3; attempt++) {
      const known = this.entries.get(key)
      if (!known) break
      const deltas = await calendarDelta(rest, known.collection, canEdit)
      if (!deltas) break
      const changed = deltas.some((d) => d.events.length || d.deleted.length)
      const category = changed && known.collection.category !== null ? await categoryName(rest, language) : known.collection.category
      if (this.entries.get(key) !== known) continue
      if (!changed) {
        this.keep(key, known)
        return known.collection
      }
      const collection = known.state.apply(known.collection, deltas, category)
      const steps = [...known.steps, stepOf(known.collection.token, deltas)].slice(-STEPS)
      this.keep(key, { collection, state: known.state, steps })
      return collection
    }
    const state = new CalendarState(host)
    const fresh = await readCollection(rest, language, languages, canEdit, host, (events, l) => state.put(events, l))
    this.keep(key, { collection: fresh, state, steps: [] })
    return fresh
  }

  /**
   * What changed in the calendar `c` (as this cache holds it now) since `token`, from the deltas
   * it applied: each event's latest change wins, as in the REST sync. Null when the token is not
   * one of those (the caller asks the REST sync).
   */
  changesSince(principal: Principal, language: string, host: string, c: Collection, token: string): KnownChanges | null {
    const entry = this.entries.get(`${principal.id}|${principal.role}|${language}|${host}`)
    if (!entry || entry.collection !== c) return null
    const out: KnownChanges = { changed: new Set(), deleted: new Set() }
    if (token === c.token) return out
    const first = entry.steps.findIndex((s) => s.from === token)
    if (first < 0) return null
    const latest = new Map<number, number>()
    for (const step of entry.steps.slice(first)) {
      // Within one step an id both removed and given moved language: given wins (as applied).
      for (const id of step.deleted) {
        out.deleted.add(id)
        latest.delete(id)
      }
      for (const [id, key] of step.changed) {
        latest.set(id, key)
        out.deleted.delete(id)
      }
    }
    for (const key of latest.values()) out.changed.add(key)
    return out
  }

  /** Stores an entry as the most recently used (a Map's order: least recently used first). */
  private keep(key: string, entry: Entry): void {
    this.entries.delete(key)
    this.entries.set(key, entry)
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
  }
}
